"""A slide's footnotes, as Pandoc reads them: `[^id]` references with their `[^id]: text`
definitions (anywhere in the section) and `^[inline notes]`, numbered per slide and listed
with the slide's asides at its foot."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from deck.blocks.context import SlideState
from deck.errors import Diagnostic, Loc
from deck.model.document import DocSlide, Text, walk
from deck.render.pandoc import FOOTNOTE_TOKEN, take_definitions

Definitions = dict[str, tuple[str, Loc]]  # id → its text (values as placeholders) and line


class FootRenderer(Protocol):
    diagnostics: list[Diagnostic]

    def markup(self, source: str, loc: Loc, inline: bool = False, wrap: bool = True) -> str: ...


def footnote_definitions(
    slides: tuple[DocSlide, ...], source: Callable[[Text], str]
) -> Definitions:
    """Footnote definitions (`[^id]: text`) anywhere in the section's texts (each as Markdown
    with placeholders, by `source`), the first of an id holding."""
    found: Definitions = {}
    for slide in slides:
        for node in walk(slide.blocks):
            if isinstance(node, Text):
                _, defined = take_definitions(source(node))
                for key, (body, offset) in defined.items():
                    found.setdefault(key, (body, Loc(node.loc.path, node.loc.line + offset)))
    return found


def slide_foot(
    r: FootRenderer, state: SlideState, definitions: Definitions
) -> tuple[str, list[int]]:
    """The slide's `<aside>`, and the number each footnote mark of the slide shows (in the
    order the marks were met); a reference without a definition is an error at its line."""
    items: list[str] = []
    numbers: dict[str, int] = {}  # footnote id → its number on this slide
    marks: list[int] = []
    for kind, content, loc in list(state.footnotes):
        if kind == "ref" and content in numbers:
            marks.append(numbers[content])
            continue
        if kind == "ref":
            if content not in definitions:
                message = f"footnote `[^{content}]` has no definition `[^{content}]: …`"
                r.diagnostics.append(Diagnostic(loc, "footnote", message))
                body, at = "", loc
            else:
                body, at = definitions[content]
            numbers[content] = len(items) + 1
        else:
            body, at = content, loc
        marks.append(len(items) + 1)
        items.append(f"<li>{r.markup(body, at, inline=True)}</li>")
    if not items and not state.asides:
        return "", marks
    out = "".join(f'<div class="aside">{a}</div>' for a in state.asides)
    if items:
        out += f'<ol class="aside-footnotes">{"".join(items)}</ol>'
    return f'<aside class="slide-aside">{out}</aside>', marks


def numbered_footnotes(text: str, marks: list[int]) -> str:
    return FOOTNOTE_TOKEN.sub(
        lambda m: f'<sup class="footnote-ref">{marks[int(m.group(1))]}</sup>', text
    )
