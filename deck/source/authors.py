"""A deck's authors as Quarto reads them: `author:` (names, or mappings with `affiliation`
/ `affiliations`), the top-level `affiliations:` their `ref`s point to and `institute:`,
attached as Quarto's authors filter does; and the title slide's block that shows them."""

from __future__ import annotations

import dataclasses
from typing import Any

from deck.model import Block, Div, Loc, Prose
from deck.source.config import _names
from deck.source.schema import as_text


@dataclasses.dataclass(frozen=True)
class Author:
    """One author as Quarto normalizes them: a name, affiliations by name, and `ref`s to the
    top-level `affiliations:` entries' ids (`byline` resolves those)."""

    name: str
    affiliations: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()


class Authors(str):
    """The names as one text ("A, B": the PDFs', the course page's), with each `Author` (the
    title slide shows their affiliations)."""

    people: tuple[Author, ...]

    def __new__(cls, people: tuple[Author, ...]) -> Authors:
        made = super().__new__(cls, ", ".join(p.name for p in people))
        made.people = people
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Authors, (self.people,))


def _affiliation(item: Any) -> tuple[str | None, str | None]:
    """(name, ref) of an affiliation: text, `{name: …}` or `{ref: id}`."""
    if isinstance(item, dict):
        ref = item.get("ref")
        return (None, as_text(ref)) if ref is not None else (as_text(item.get("name", "")), None)
    return as_text(item), None


def read_authors(value: Any) -> Authors:
    """`author:` as a lesson's reads it (`_names`), each author's affiliations kept."""
    _names(value)  # (its checks)
    people = []
    for item in value if isinstance(value, list) else [value]:
        found = (
            item.get("affiliations", item.get("affiliation", [])) if isinstance(item, dict) else []
        )
        pairs = [_affiliation(a) for a in (found if isinstance(found, list) else [found])]
        names, refs = tuple(n for n, _ in pairs if n), tuple(r for _, r in pairs if r)
        people.append(Author(_names([item]), names, refs))
    return Authors(tuple(people))


def read_affiliations(value: Any) -> dict[str, str]:
    """Top-level `affiliations:` → {id: name} (an entry without an id goes by its name)."""
    out: dict[str, str] = {}
    for item in value if isinstance(value, list) else [value]:
        name, _ = _affiliation(item)
        key = as_text(item.get("id", name)) if isinstance(item, dict) else name
        out[key or ""] = name or ""
    return out


def read_institutes(value: Any) -> tuple[str, ...]:
    return tuple(as_text(v) for v in (value if isinstance(value, list) else [value]))


def byline(
    authors: str | None, affiliations: dict[str, str], institutes: tuple[str, ...]
) -> str | None:
    """The authors with their affiliations as Quarto attaches them: `ref`s looked up in the
    top-level `affiliations:`, then `institute:` in order, the first to the first author, the
    second to the second…, the rest to the last (none without an author)."""
    if not isinstance(authors, Authors):
        return authors
    people = [
        (p.name, [*p.affiliations, *(affiliations.get(r, r) for r in p.refs)])
        for p in authors.people
    ]
    for k, institute in enumerate(institutes):
        if people:
            shown = people[min(k, len(people) - 1)][1]
            shown += [] if institute in shown else [institute]
    return Authors(tuple(Author(name, tuple(names)) for name, names in people))


def author_block(author: str, at: Loc) -> Block:
    """The title slide's authors: a line of names; with affiliations, each author's name over
    theirs, in Quarto's classes (`quarto-title-author-name`, `quarto-title-affiliation`)."""
    people = author.people if isinstance(author, Authors) else ()
    if not any(p.affiliations for p in people):
        return Div(("author",), {}, (Prose(author, at),), at)
    shown = tuple(
        Div(
            ("quarto-title-author",),
            {},
            (
                Div(("quarto-title-author-name",), {}, (Prose(p.name, at),), at),
                *(
                    Div(("quarto-title-affiliation",), {}, (Prose(a, at),), at)
                    for a in p.affiliations
                ),
            ),
            at,
        )
        for p in people
    )
    return Div(("quarto-title-authors",), {}, shown, at)
