"""Quarto's `toc: true` for a deck: a contents slide after the title slide, listing the
slides' headings up to `toc-depth`, each a link to its slide."""

from __future__ import annotations

import dataclasses
import re

from deck.model import Prose, Section, Slide
from deck.strings import strings

PLACEHOLDER = re.compile("\u2063V\\d+\u2063")  # an inline value: its section's, not the toc's


def toc_title(lang: str) -> str:
    return str(strings(lang, "toc")["title"])


def with_toc(sections: list[Section], title: str, depth: int) -> list[Section]:
    """The sections with a contents slide after the title slide (or first)."""
    if not sections:
        return sections
    first = list(sections[0].slides)
    at = 1 if first and "title-slide" in first[0].classes else 0
    slides = [s for section in sections for s in section.slides]
    shown = [s for s in slides if s.title and "title-slide" not in s.classes]
    top = min((s.level for s in shown), default=2)
    lines = []
    for index, slide in enumerate(slides):
        if slide in shown and slide.level - top < depth:
            index += 1 if index >= at else 0  # the contents slide comes before it
            text = PLACEHOLDER.sub("…", slide.title or "").replace("]", "\\]")
            lines.append("  " * (slide.level - top) + f"- [{text}](#/{index})")
    loc = (first[at] if at < len(first) else first[0]).loc if first else sections[0].slides[0].loc
    toc = Slide(title, 2, ("toc-slide",), {"id": "TOC"}, (Prose("\n".join(lines), loc),), loc)
    first.insert(at, toc)
    return [dataclasses.replace(sections[0], slides=tuple(first)), *sections[1:]]
