"""Block kinds: each `::: {.name}` kind parsed and rendered together, one module each, found
through one registry. A class no kind claims makes a plain `<div class="name">` (`.fragment`,
`.r-stack`, `.column`…), its other attributes as `data-` attributes.

Adding a kind is one module with a `BlockKind` and one entry in `KINDS`; the kind gives a
handler for each output made from the document (`DOCUMENT_OUTPUTS`), checked at start-up.
"""

from __future__ import annotations

from deck.blocks import (
    answer,
    callout,
    columns,
    flow,
    handout,
    layout,
    notes,
    quiz,
    tabset,
    visibility,
    widget,
)
from deck.blocks.base import (
    DOCUMENT_OUTPUTS,
    BlockKind,
    Handler,
    check_handlers,
    parse_div,
    render_plain,
)
from deck.model import Block, Columns, Div, Notes, Quiz
from deck.model.document import Aside, Group, Node, ShownQuiz

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
    *flow.KINDS,
)
PLAIN = BlockKind(
    "div",
    lambda _: False,
    parse_div,
    render_plain,
    doc="`::: {.name #id key=value}` … `:::` of any other class.\n\nA plain `<div>` with those"
    " classes (`.fragment`, `.r-stack`, `.small`…), its other attributes as `data-` attributes.",
)
# Blocks of their own type, made by one kind each.
BY_TYPE: dict[type, BlockKind] = {Quiz: quiz.KIND, Notes: notes.KIND, Columns: columns.KIND}
NAMED: dict[str, BlockKind] = {k.name: k for k in (*KINDS, PLAIN)}
check_handlers((*KINDS, PLAIN), DOCUMENT_OUTPUTS)


def kind_for(classes: tuple[str, ...]) -> BlockKind:
    """The kind a `:::` block with these classes is."""
    return next((k for k in KINDS if any(k.claims(c) for c in classes)), PLAIN)


def kind_of(block: Block) -> BlockKind:
    """The kind that renders a block a `:::` made."""
    if isinstance(block, Div):
        return kind_for(block.classes)
    return BY_TYPE[type(block)]


def handler(output: str, node: Node) -> Handler:
    """The handler that writes a resolved block (`deck.model.document`) into `output`."""
    if isinstance(node, ShownQuiz):
        return quiz.KIND.outputs[output]
    if isinstance(node, Group | Aside):
        return NAMED[node.kind].outputs[output]
    raise TypeError(f"{type(node).__name__} is not a block kind's node")
