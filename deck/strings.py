"""The words the engine itself puts on pages (not the author's), in every language it has:
one table per language in deck/static/strings.json, read here by `strings(lang, part)` and in
the page by `deckStrings(part)` (deck/static/strings.js, which the deck's assets/strings.js
carries with the page's parts of the same tables: offline, no fetch).

A table is by language (`en`, `zh`, …), then by part (`deck`, `toc`, `crossref`, …), then by
key. A language tag reads the table of its first subtag (`zh-CN` → `zh`, `de-AT` → `de`); a
language without a table is English, and so is each string its table lacks (a nested table,
as the course page's `links`, key by key). English has every key: adding a language is one
more table in strings.json, with any of English's keys.

A string is text (Python fills its `{name}`s with `str.format`), a nested table, or a
message: a function of its `args` (English names them, in the order the page's scripts pass
them) whose text is `text`, or the form its `count` argument (a number, or a list's length)
picks: `=0` when it is zero or empty, else the language's plural category (`one`, `few`,
`other`, …, as `Intl.PluralRules` names them), else `other`. A list fills in joined by the
language's `format.list`."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

DATA = Path(__file__).resolve().parent / "static" / "strings.json"
ENGLISH = "en"
# The parts the page's scripts ask `deckStrings(part)` for (the rest are the engine's own).
PAGE_PARTS = ("format", "deck", "search", "handout", "popover", "live", "speaker")


@functools.cache
def tables() -> dict[str, dict[str, Any]]:
    """Every language's table, as strings.json has them."""
    data: dict[str, dict[str, Any]] = json.loads(DATA.read_text("utf-8"))
    return data


def table_language(lang: str | None) -> str:
    """The table a language tag reads: its first subtag's, or English for one without."""
    first = str(lang or ENGLISH).replace("_", "-").split("-")[0].lower()
    return first if first in tables() else ENGLISH


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and "args" in value


def _merged(english: dict[str, Any], own: Any) -> dict[str, Any]:
    own = own if isinstance(own, dict) else {}
    out = {}
    for key, value in english.items():
        if isinstance(value, dict) and not is_message(value):
            out[key] = _merged(value, own.get(key))
        else:
            out[key] = own.get(key, value)
    return out


@functools.cache
def _part(table: str, part: str) -> Mapping[str, Any]:
    english = tables()[ENGLISH].get(part)
    if english is None:
        raise KeyError(f"no part {part!r} in the English table of {DATA}")
    return MappingProxyType(_merged(english, tables()[table].get(part)))


def strings(lang: str | None, part: str) -> Mapping[str, Any]:
    """`part`'s strings in `lang`'s table (`zh-CN` → `zh`), each one it lacks in English."""
    return _part(table_language(lang), part)


def page_script() -> bytes:
    """The page's parts of every table, as the script before deck/static/strings.js that sets
    them (`window.deckStringTables`): the first part of the deck's assets/strings.js."""
    page = {
        lang: {part: table[part] for part in PAGE_PARTS if part in table}
        for lang, table in tables().items()
    }
    data = json.dumps(page, ensure_ascii=False, separators=(",", ":"))
    return f"window.deckStringTables = {data};".encode()


# Plural categories as `Intl.PluralRules` gives them for whole numbers, for the tables the
# engine has (a language without a rule here: `one` for 1, as the page's fallback).
PLURAL_ONE = {"zh": (), "ja": (), "ko": (), "fr": (0, 1)}


def category(lang: str | None, n: int) -> str:
    """The plural category of the whole number `n` in `lang`, as the page picks it."""
    return "one" if n in PLURAL_ONE.get(table_language(lang), (1,)) else "other"


def message(lang: str | None, value: Any, **args: Any) -> str:
    """A string filled with `args`: a plain text by `str.format`, a message (`is_message`) in
    the form its `count` argument picks (`=0`, the plural category, else `other`), as
    deck/static/strings.js does in the page."""
    if not is_message(value):
        return str(value).format(**args)
    count = args.get(value.get("count", ""))
    n = len(count) if isinstance(count, list | tuple) else count
    form = value.get("text")
    if form is None and isinstance(n, int):
        form = value.get("=0") if n == 0 else None
        form = form if form is not None else value.get(category(lang, n))
    form = form if form is not None else value["other"]
    return str(form).format(**args)
