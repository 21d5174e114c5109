"""Where a PowerPoint slide's blocks go: each block's height estimated from its text (CJK
characters a full em wide, others about half), then one text scale and one picture scale
chosen per slide so everything fits the 16:9 page without overflowing."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from deck.publish.pptx.shapes import (
    Block,
    CodeBlock,
    ColumnsBlock,
    Flow,
    Panel,
    Para,
    Paras,
    Picture,
    Table,
)

PT = 12700  # EMU per point
WIDTH_PT, HEIGHT_PT = 960.0, 540.0  # 13.333 × 7.5 in: 16:9
MARGIN = 36.0
TITLE_TOP, TITLE_HEIGHT = 20.0, 58.0
RULE_TOP = 80.0  # the accent rule under a slide's title (deck.css: `h2`'s 3 px border)
BODY_TOP = 92.0
BODY_BOTTOM = HEIGHT_PT - 34.0  # the slide number sits below
GAP = 10.0
COLUMN_GAP = 22.0
BODY_PT = 20.0  # the deck's 28 px text on a 1280 px slide, in points
CODE_PT = 14.0
TABLE_PT = 14.0
SIZES = {"": 1.0, "quote": 1.0, "caption": 0.7, "small": 0.75, "heading": 1.1}
PANEL_PAD = 10.0  # a callout's inset, around what it holds
LINE = 1.45  # line height, in font sizes (Noto Sans CJK's ascent + descent: 1.448 em)
INDENT = 24.0  # per list level
# Lines break at words and LibreOffice spaces CJK from Latin: a line holds less than its width.
WRAP = 0.88


def char_width(ch: str) -> float:
    """A character's advance in ems (rough: a sans-serif font)."""
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 1.0
    if ch in "il.,:;'|!()[] ":
        return 0.3
    if ch.isupper() or ch in "mwMW@%":
        return 0.68
    return 0.55


def text_lines(text: str, size: float, width: float, mono: bool = False) -> int:
    """How many lines `text` takes at `size` points in a box `width` points wide."""
    lines = 0
    for part in text.replace("\v", "\n").split("\n"):
        if mono:  # (CJK in code falls back to a full-width face)
            ems = sum(1.0 if char_width(c) == 1.0 else 0.602 for c in part)
        else:
            ems = sum(char_width(c) for c in part)
        lines += max(1, math.ceil(ems * size / max(width - 8, 20) - 1e-9))
    return lines


def para_size(para: Para, scale: float) -> float:
    return BODY_PT * SIZES.get(para.style, 1.0) * scale


def paras_height(paras: list[Para], width: float, scale: float) -> float:
    height = 8.0  # the box's insets
    for para in paras:
        size = para_size(para, scale)
        indent = INDENT * para.level
        height += text_lines(para.text, size, WRAP * (width - indent)) * size * LINE + size * 0.35
    return height


@dataclass
class Placed:
    block: Block
    x: float
    y: float
    width: float
    height: float
    scale: float  # text size factor
    picture: float  # picture size factor


PictureSize = Callable[[Picture], tuple[float, float]]  # its natural (width, height) in points


def table_columns(table: Table, width: float, scale: float) -> list[float]:
    """Each column's width: as wide as its longest cell wants (a little wider when there is
    room), the widest ones narrowed to fit `width` when they do not."""
    size = TABLE_PT * scale
    columns = max((len(r) for r in table.rows), default=0)
    wants = [  # (a cell spanning columns shares its width among them)
        max(
            (
                sum(char_width(c) for c in row[k].text) * size / row[k].span + 16
                for row in table.rows
            ),
            default=20,
        )
        for k in range(columns)
    ]
    if sum(wants) <= width:
        grow = min(1.3, width / max(sum(wants), 1))
        return [w * grow for w in wants]
    widths = list(wants)
    fixed: set[int] = set()
    while True:  # columns narrower than an equal share keep their width; the rest share
        share = (width - sum(widths[k] for k in fixed)) / max(columns - len(fixed), 1)
        narrow = {k for k in range(columns) if k not in fixed and wants[k] <= share}
        if not narrow:
            break
        fixed |= narrow
    rest = [k for k in range(columns) if k not in fixed]
    room = width - sum(widths[k] for k in fixed)
    total = sum(wants[k] for k in rest) or 1.0
    for k in rest:
        widths[k] = max(room * wants[k] / total, 30.0)
    return widths


def table_rows(table: Table, width: float, scale: float) -> list[float]:
    size = TABLE_PT * scale
    widths = table_columns(table, width, scale)
    lines = []
    for row in table.rows:
        cells = zip(row, widths, strict=True)
        lines.append(max([1, *(text_lines(c.text, size, WRAP * w - 4) for c, w in cells)]))
    return [n * size * LINE + 8 for n in lines]


def table_height(table: Table, width: float, scale: float) -> float:
    return sum(table_rows(table, width, scale))


def code_height(code: CodeBlock, width: float, scale: float) -> float:
    size = CODE_PT * scale
    return text_lines(code.text, size, width - 10, mono=True) * size * 1.18 + 14


# `::: flow` (deck/static/deck.css): boxes 44 px apart side by side, or 70% wide and 30 px
# apart stacked; their padding (12×14 px, stacked 6×12 px) and 16 px margins, in points
FLOW_GAP, FLOW_GAP_VERTICAL, FLOW_WIDTH_VERTICAL, FLOW_MARGIN = 33.0, 22.5, 0.7, 12.0
FLOW_PAD, FLOW_PAD_VERTICAL = (9.0, 10.5), (4.5, 9.0)  # (top and bottom, left and right)
# `::: cards`: 18 px apart, 12×16 px padding, 12 px margins, a 5 px accent along the top
CARD_GAP, CARD_PAD, CARD_MARGIN, CARD_EDGE = 13.5, (9.0, 12.0), 9.0, 3.75


def flow_pad(flow: Flow) -> tuple[float, float]:
    return CARD_PAD if flow.cards else FLOW_PAD_VERTICAL if flow.vertical else FLOW_PAD


def flow_boxes(
    flow: Flow, x: float, y: float, width: float, scale: float
) -> list[tuple[float, float, float, float]]:
    """Each box of a flow as (x, y, width, height): side by side in equal widths and one
    height (the deck stretches them to the tallest), or stacked, centred, each its own."""
    size = BODY_PT * scale
    n = max(len(flow.boxes), 1)
    margin = CARD_MARGIN if flow.cards else FLOW_MARGIN
    top = y + margin * scale
    if flow.vertical and not flow.cards:
        pad_y, pad_x = FLOW_PAD_VERTICAL
        w = width * FLOW_WIDTH_VERTICAL
        found = []
        for para in flow.boxes:
            h = text_lines(para.text, size, WRAP * (w - 2 * pad_x)) * size * LINE + 2 * pad_y
            found.append((x + (width - w) / 2, top, w, h))
            top += h + max(FLOW_GAP_VERTICAL * scale, 12.0)
        return found
    pad_y, pad_x = flow_pad(flow)
    gap = max(CARD_GAP * scale, 10.0) if flow.cards else max(FLOW_GAP * scale, 18.0)
    w = (width - gap * (n - 1)) / n
    lines = max([1, *(text_lines(p.text, size, WRAP * (w - 2 * pad_x)) for p in flow.boxes)])
    h = lines * size * LINE + 2 * pad_y + (CARD_EDGE if flow.cards else 0.0)
    return [(x + k * (w + gap), top, w, h) for k in range(len(flow.boxes))]


def flow_height(flow: Flow, width: float, scale: float) -> float:
    boxes = flow_boxes(flow, 0.0, 0.0, width, scale)
    margin = CARD_MARGIN if flow.cards else FLOW_MARGIN
    return max((by + bh for _, by, _, bh in boxes), default=0.0) + margin * scale


def fit_picture(
    picture: Picture, width: float, size: PictureSize, factor: float
) -> tuple[float, float]:
    natural_w, natural_h = size(picture)
    w = min(width, natural_w * factor)
    return w, natural_h * w / max(natural_w, 1)


def measure(block: Block, width: float, scale: float, factor: float, size: PictureSize) -> float:
    if isinstance(block, Paras):
        return paras_height(block.paras, width, scale)
    if isinstance(block, Panel):
        inner = stack_height(block.blocks, width - 2 * PANEL_PAD, scale, factor, size)
        return panel_head(block, width, scale) + inner + PANEL_PAD
    if isinstance(block, Table):
        return table_height(block, width, scale)
    if isinstance(block, CodeBlock):
        return code_height(block, width, scale)
    if isinstance(block, Flow):
        return flow_height(block, width, scale)
    if isinstance(block, Picture):
        return fit_picture(block, width, size, factor)[1]
    if isinstance(block, ColumnsBlock):
        return max(
            (
                stack_height(col, w, scale, factor, size)
                for col, w in zip(block.columns, column_widths(block, width), strict=True)
            ),
            default=0.0,
        )
    return 0.0


def panel_head(panel: Panel, width: float, scale: float) -> float:
    """The height of a panel's title band (a quote has none: its inset)."""
    return paras_height([panel.title], width, scale) if panel.title else PANEL_PAD


def stack_height(
    blocks: list[Block], width: float, scale: float, factor: float, size: PictureSize
) -> float:
    heights = [measure(b, width, scale, factor, size) for b in blocks]
    return sum(heights) + GAP * max(len(heights) - 1, 0)


def column_widths(block: ColumnsBlock, width: float) -> list[float]:
    n = len(block.columns)
    usable = width - COLUMN_GAP * max(n - 1, 0)
    given = [w for w in block.widths if w]
    rest = max(1.0 - sum(given), 0.1 * n) / max(n - len(given), 1)
    fractions = [w or rest for w in block.widths]
    total = sum(fractions) or 1.0
    return [usable * f / total for f in fractions]


CHOICES = sorted(
    (
        (t, p)
        for t in (1.0, 0.92, 0.84, 0.76, 0.68, 0.6, 0.52, 0.45)
        for p in (1.0, 0.85, 0.7, 0.55, 0.42, 0.3)
    ),
    key=lambda tp: (1 - tp[0]) * 2.2 + (1 - tp[1]),
)


def fit(blocks: list[Block], top: float, size: PictureSize) -> tuple[float, float]:
    """The text scale and picture factor that fit `blocks` below `top` (the smallest tried
    when nothing fits: the text boxes then shrink their text themselves)."""
    room = BODY_BOTTOM - top
    width = WIDTH_PT - 2 * MARGIN
    for scale, factor in CHOICES:
        if stack_height(blocks, width, scale, factor, size) <= room:
            return scale, factor
    return CHOICES[-1]


def place(
    blocks: list[Block],
    x: float,
    y: float,
    width: float,
    scale: float,
    factor: float,
    size: PictureSize,
) -> list[Placed]:
    """Every block's box, top to bottom (columns side by side)."""
    placed: list[Placed] = []
    for block in blocks:
        height = measure(block, width, scale, factor, size)
        if isinstance(block, ColumnsBlock):
            cx = x
            for column, w in zip(block.columns, column_widths(block, width), strict=True):
                placed += place(column, cx, y, w, scale, factor, size)
                cx += w + COLUMN_GAP
        elif isinstance(block, Panel):  # its ground first, then what it holds, inset
            placed.append(Placed(block, x, y, width, height, scale, factor))
            top = y + panel_head(block, width, scale)
            inner = width - 2 * PANEL_PAD
            placed += place(block.blocks, x + PANEL_PAD, top, inner, scale, factor, size)
        else:
            placed.append(Placed(block, x, y, width, height, scale, factor))
        y += height + GAP
    return placed
