"""`::: flow` (`.vertical`) and `::: cards`: a list drawn as boxes, joined by arrows left to
right (or stacked top to bottom), or as a row of cards (deck/static/deck.css draws both from
the plain `<div>` and its list); a PowerPoint slide draws them as shapes, a notebook keeps
the list."""

from __future__ import annotations

from deck.blocks.base import BlockKind, SlidesWriter, contents, named, parse_div, render_plain
from deck.model.document import Group


def flow_slide(w: SlidesWriter, node: Group, exercise: bool) -> None:
    w.boxes(node.blocks, vertical="vertical" in node.classes)


def cards_slide(w: SlidesWriter, node: Group, exercise: bool) -> None:
    w.boxes(node.blocks, cards=True)


KINDS = (
    BlockKind(
        "flow",
        named("flow"),
        parse_div,
        render_plain,
        {"ipynb": contents, "pptx": flow_slide},
        doc="`::: flow` (or `::: {.flow .vertical}`) … `:::` around a list.\n\nThe list drawn"
        " as boxes joined by arrows, left to right (`.vertical`: stacked top to bottom); the PPTX"
        " draws rounded boxes and connectors, a notebook keeps the list.",
    ),
    BlockKind(
        "cards",
        named("cards"),
        parse_div,
        render_plain,
        {"ipynb": contents, "pptx": cards_slide},
        doc="`::: cards` … `:::` around a list.\n\nThe list drawn as a row of cards (in the"
        " PPTX too); a notebook keeps the list.",
    ),
)
