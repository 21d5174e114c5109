"""Block kinds: each `::: {.name}` kind parsed and rendered together, one module each, found
through one registry. A class no kind claims makes a plain `<div class="name">` (`.fragment`,
`.r-stack`, `.column`…), its other attributes as `data-` attributes.

Adding a kind is one module with a `BlockKind` and one entry in `KINDS`.
"""

from __future__ import annotations

from deck.blocks import (
    answer,
    callout,
    columns,
    handout,
    layout,
    notes,
    quiz,
    tabset,
    visibility,
    widget,
)
from deck.blocks.base import BlockKind, parse_div, render_plain
from deck.model import Block, Columns, Div, Notes, Quiz

# In order of precedence: a block with classes of two kinds is of the first.
KINDS: tuple[BlockKind, ...] = (
    visibility.KIND,
    quiz.KIND,
    widget.KIND,
    notes.KIND,
    tabset.KIND,
    callout.KIND,
    columns.KIND,
    handout.KIND,
    answer.KIND,
    *layout.KINDS,
)
PLAIN = BlockKind("div", lambda _: False, parse_div, render_plain)
# Blocks of their own type, made by one kind each.
BY_TYPE: dict[type, BlockKind] = {Quiz: quiz.KIND, Notes: notes.KIND, Columns: columns.KIND}


def kind_for(classes: tuple[str, ...]) -> BlockKind:
    """The kind a `:::` block with these classes is."""
    return next((k for k in KINDS if any(k.claims(c) for c in classes)), PLAIN)


def kind_of(block: Block) -> BlockKind:
    """The kind that renders a block a `:::` made."""
    if isinstance(block, Div):
        return kind_for(block.classes)
    return BY_TYPE[type(block)]
