"""A `::: flow` drawn as the deck draws it (deck/static/deck.css): rounded boxes, light blue
with an accent border, holding their item's text, joined by arrow connectors glued to their
sides (left to right, or top to bottom for `.vertical`), so moving a box keeps its arrows; and
`::: cards`: grey rounded boxes in a row, an accent bar along each one's top."""

from __future__ import annotations

from typing import Any

from deck.publish.pptx.layout import BODY_PT, CARD_EDGE, Placed, flow_boxes, flow_pad
from deck.publish.pptx.shapes import Flow
from deck.publish.pptx.textrun import ACCENT, INK, emu, fill_paragraph, qn, rgb, unstyled

BOX_FILL = "EEF4FB"  # the deck's `.flow li` background
CARD_FILL = "F4F6F9"  # its `.cards li`
BORDER_PT, RADIUS_PT, ARROW_PT = 1.5, 7.5, 2.0  # its 2 px border, 10 px corners; the arrow
# a connector's ends on a rounded rectangle: its sides' midpoints (DrawingML's `roundRect`)
TOP, LEFT, BOTTOM, RIGHT = 0, 1, 2, 3


def add_box(
    slide: Any,
    x: float,
    y: float,
    w: float,
    h: float,
    pad: tuple[float, float],
    card: bool = False,
) -> Any:
    from pptx.enum.shapes import MSO_SHAPE
    from pptx.enum.text import MSO_ANCHOR, MSO_AUTO_SIZE

    shape = slide.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, emu(x), emu(y), emu(w), emu(h))
    shape.adjustments[0] = min(RADIUS_PT / max(min(w, h), 1.0), 0.5)
    shape.fill.solid()
    shape.fill.fore_color.rgb = rgb(CARD_FILL if card else BOX_FILL)
    if card:
        shape.line.fill.background()  # (no border: the accent bar is drawn along its top)
    else:
        shape.line.color.rgb = rgb(ACCENT)
        shape.line.width = emu(BORDER_PT)
    unstyled(shape)
    frame = shape.text_frame
    frame.word_wrap = True
    frame.auto_size = MSO_AUTO_SIZE.TEXT_TO_FIT_SHAPE
    frame.vertical_anchor = MSO_ANCHOR.TOP if card else MSO_ANCHOR.MIDDLE
    frame.margin_top = frame.margin_bottom = emu(pad[0])
    if card:
        frame.margin_top = emu(pad[0] + CARD_EDGE)
    frame.margin_left = frame.margin_right = emu(pad[1])
    return shape


def add_arrow(slide: Any, start: Any, start_side: int, end: Any, end_side: int) -> Any:
    from pptx.enum.shapes import MSO_CONNECTOR

    arrow = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
    arrow.begin_connect(start, start_side)
    arrow.end_connect(end, end_side)
    arrow.line.color.rgb = rgb(ACCENT)
    arrow.line.width = emu(ARROW_PT)
    line = arrow.line._get_or_add_ln()
    line.append(line.makeelement(qn("a:tailEnd"), {"type": "triangle", "w": "lg", "len": "med"}))
    return arrow


def add_edge(slide: Any, x: float, y: float, w: float) -> Any:
    """A card's accent bar along its top."""
    from pptx.enum.shapes import MSO_SHAPE

    bar = slide.shapes.add_shape(
        MSO_SHAPE.RECTANGLE, emu(x + RADIUS_PT / 2), emu(y), emu(w - RADIUS_PT), emu(CARD_EDGE)
    )
    bar.fill.solid()
    bar.fill.fore_color.rgb = rgb(ACCENT)
    bar.line.fill.background()
    return unstyled(bar)


def add_flow(slide: Any, box: Placed, flow: Flow, lang: str) -> list[Any]:
    """The flow's boxes and, between each two, an arrow from the first to the next (cards:
    their boxes, each with its accent bar)."""
    from pptx.enum.text import PP_ALIGN

    pad = flow_pad(flow)
    pad = (pad[0] * box.scale, pad[1] * box.scale)
    shapes = []
    name = "Card" if flow.cards else "Flow box"
    for k, (para, (x, y, w, h)) in enumerate(
        zip(flow.boxes, flow_boxes(flow, box.x, box.y, box.width, box.scale), strict=True)
    ):
        shape = add_box(slide, x, y, w, h, pad, flow.cards)
        shape.name = f"{name} {k + 1}"
        paragraph = shape.text_frame.paragraphs[0]
        fill_paragraph(paragraph, para, BODY_PT * box.scale, lang, INK)
        paragraph.space_after = 0
        paragraph.alignment = PP_ALIGN.LEFT if flow.cards else PP_ALIGN.CENTER
        shapes.append(shape)
        if flow.cards:
            add_edge(slide, x, y, w).name = f"Card edge {k + 1}"
    if flow.cards:
        return shapes
    sides = (BOTTOM, TOP) if flow.vertical else (RIGHT, LEFT)
    for k in range(1, len(shapes)):
        arrow = add_arrow(slide, shapes[k - 1], sides[0], shapes[k], sides[1])
        arrow.name = f"Flow arrow {k}"
    return shapes
