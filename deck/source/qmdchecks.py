"""The small checks a `.qmd`'s options are read with (each raises `Invalid` for a wrong value,
or `Accepted` for one that is read with a warning)."""

from __future__ import annotations

import datetime
from typing import Any

from deck.source.attributes import line_steps
from deck.source.config import Accepted, Check, Invalid, as_text


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Invalid("must be true or false")
    return value


def _bool_or(*words: str) -> Check:
    def check(value: Any) -> Any:
        if isinstance(value, bool) or value in words:
            return value
        raise Invalid(f"must be true, false or {' or '.join(words)}")

    return check


def _any(value: Any) -> Any:
    return value


def _ignored(what: str) -> Check:
    """A Quarto option this build reads but does not apply: a warning, and the value dropped."""

    def check(value: Any) -> Any:
        raise Accepted(what)

    return check


def _names(value: Any) -> str:
    """`author: A`, `author: [A, B]` or `author: [{name: A, affiliation: …}]` → "A, B"."""
    items = value if isinstance(value, list) else [value]
    names = []
    for item in items:
        if isinstance(item, dict):
            item = item.get("name")
            if isinstance(item, dict):  # name: {given: …, family: …} or {literal: …}
                item = item.get("literal") or " ".join(
                    str(item[k]) for k in ("given", "family") if k in item
                )
        names.append(as_text(item))
    return ", ".join(names)


def _date(value: Any) -> str:
    if value in ("today", "now"):
        return datetime.date.today().isoformat()
    return as_text(value)


def _size(expected: int) -> Check:
    """`width`/`height` in CSS px (a number, or "1050px"); a percentage is read and not
    applied (the deck's pages, PDFs and overflow checks need a size in pixels)."""

    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise Invalid("must be a number of pixels")
        text = str(value).strip().removesuffix("px").strip()
        if isinstance(value, str) and text.endswith("%"):
            raise Accepted(f"a size in percent is not applied: the deck is {expected} px")
        try:
            pixels = round(float(text))
        except ValueError:
            raise Invalid("must be a number of pixels") from None
        if not 200 <= pixels <= 8000:
            raise Invalid("must be between 200 and 8000 pixels")
        return pixels

    return check


def _slide_number(value: Any) -> Any:
    if isinstance(value, bool) or value in ("c/t", "c", "h/v", "h.v"):
        return value
    raise Invalid("must be true, false, c/t, c, h/v or h.v")


def _code_line_numbers(value: Any) -> Any:
    if isinstance(value, bool) or (isinstance(value, str) and line_steps(value) is not None):
        return value
    raise Invalid('must be true, false or lines such as "1-3|5"')


def _paths(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    return tuple(as_text(item) for item in items)


# Quarto's reveal.js themes, each drawn here by its palette and fonts (deck/static/quarto.css)
THEMES = {
    "default": "default", "white": "default", "simple": "simple", "serif": "serif",
    "sky": "sky", "beige": "beige", "solarized": "solarized", "dark": "dark", "black": "dark",
    "night": "night", "moon": "moon", "league": "league", "blood": "blood",
}  # fmt: skip


def _theme(value: Any) -> tuple[str, tuple[str, ...]]:
    """`theme: sky`, or `theme: [default, custom.scss]`: the base theme and the author's own
    `.scss`/`.css` files laid over it, in order."""
    items = value if isinstance(value, list) else [value]
    names = [as_text(item) for item in items]
    files = tuple(n for n in names if n.lower().endswith((".scss", ".css")))
    bases = [n for n in names if n not in files]
    unknown = [n for n in bases if n not in THEMES]
    chosen = next((THEMES[n] for n in bases if n in THEMES), "default")
    if unknown:
        raise Accepted(
            f"theme {', '.join(unknown)} is not a Quarto theme (known: {', '.join(THEMES)}); "
            f"the {chosen} theme is used",
            (chosen, files),
        )
    return chosen, files


def _embed(value: Any) -> bool:
    if _bool(value):
        raise Accepted(
            "index.html is written with its assets/ folder beside it (it opens offline from "
            "there, from any copy of the folder); no single self-contained file is made",
            True,
        )
    return False


def _plugin(name: str) -> Check:
    def check(value: Any) -> Any:
        if value is True:
            return True
        if value is False:
            raise Accepted(f"the deck's {name} stays available; false is not applied", False)
        raise Accepted(f"the deck's own {name} is used; its settings here are not read", True)

    return check


def _one_of(*words: str) -> Check:
    def check(value: Any) -> Any:
        if value not in words:
            raise Invalid(f"must be {', '.join(words[:-1])} or {words[-1]}")
        return value

    return check


def _level(value: Any) -> int:
    if isinstance(value, bool) or value not in (1, 2, 3):
        raise Invalid("must be 1, 2 or 3")
    return value


def _attributes(value: Any) -> dict[str, str]:
    """`title-slide-attributes: {data-background-image: a.png, …}`."""
    if not isinstance(value, dict):
        raise Invalid("must be a mapping of attributes, as `data-background-color: black`")
    return {str(k): as_text(v) for k, v in value.items()}


def _includes(value: Any) -> tuple[tuple[str, str], ...]:
    """`include-in-header: head.html`, a list of files, or `- text: <meta …>` items."""
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        if isinstance(item, dict) and len(item) == 1 and next(iter(item)) in ("text", "file"):
            ((kind, text),) = item.items()
            out.append((kind, as_text(text)))
        elif isinstance(item, str):
            out.append(("file", item))
        else:
            raise Invalid("must be a file, a list of files, or `- text: …` / `- file: …` items")
    return tuple(out)


def _nocite(value: Any) -> str:
    text = " ".join(as_text(v) for v in value) if isinstance(value, list) else as_text(value)
    if not all(word.startswith("@") for word in text.replace(",", " ").split()):
        raise Invalid("must name citation keys, as `@smith2020, @doe2021` or `@*`")
    return text
