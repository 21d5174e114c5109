"""Block kinds that place their content: `::: incremental` / `::: nonincremental` (list items
one by one, or not), `::: footer` (this slide's footer), `::: aside` (the slide's foot)."""

from __future__ import annotations

from deck.blocks.base import (
    BlockKind,
    Render,
    SlidesWriter,
    contents,
    named,
    parse_div,
    render_plain,
)
from deck.blocks.context import RenderContext
from deck.model.document import Group


def incremental(on: bool) -> Render:
    def render(r: RenderContext, div: Group, notes: list[str]) -> str:
        before, r.incremental = r.incremental, on
        try:
            return render_plain(r, div, notes)
        finally:
            r.incremental = before

    return render


def footer(r: RenderContext, div: Group, notes: list[str]) -> str:
    """`::: footer` replaces the deck's footer on its slide."""
    r.slide_state.footer = r.blocks(div.blocks, notes)
    return ""


def aside(r: RenderContext, div: Group, notes: list[str]) -> str:
    """`::: aside` goes to the bottom of the slide, above its footnotes (as in Quarto)."""
    r.slide_state.asides.append(r.blocks(div.blocks, notes))
    return ""


def footer_slide(w: SlidesWriter, node: Group, exercise: bool) -> None:
    w.footer(node.blocks)


def aside_slide(w: SlidesWriter, node: Group, exercise: bool) -> None:
    w.aside(node.blocks)


KINDS = (
    BlockKind(
        "incremental",
        named("incremental"),
        parse_div,
        incremental(True),
        doc="`::: incremental` … `:::` around a list.\n\nIts items appear one by one, one a click"
        " (as `incremental: true` in lesson.yml does for every list).",
    ),
    BlockKind(
        "nonincremental",
        named("nonincremental"),
        parse_div,
        incremental(False),
        doc="`::: nonincremental` … `:::` around a list.\n\nIts items appear at once, in a deck"
        " whose lists are incremental.",
    ),
    BlockKind(
        "footer",
        named("footer"),
        parse_div,
        footer,
        {"ipynb": contents, "pptx": footer_slide},
        doc="`::: footer` … `:::` on a slide.\n\nThis slide's footer, in place of the deck's"
        " (`footer:` in lesson.yml); the PPTX prints it at the slide's foot.",
    ),
    BlockKind(
        "aside",
        named("aside"),
        parse_div,
        aside,
        {"ipynb": contents, "pptx": aside_slide},
        doc="`::: aside` … `:::` on a slide.\n\nSmall text at the slide's foot, above its"
        " footnotes (as in Quarto).",
    ),
)
