"""`:::: columns` holding `::: {.column width="40%"}` blocks: content side by side."""

from __future__ import annotations

import html

from deck.blocks.base import (
    BlockKind,
    Handler,
    Opening,
    ParseContext,
    ResolveContext,
    SlidesWriter,
    contents,
    named,
)
from deck.blocks.context import RenderContext
from deck.model import Column, Columns, Div
from deck.model.document import Group


def parse(p: ParseContext, opening: Opening) -> Columns | None:
    blocks, closed = p.body()
    if not closed:
        p.error(opening.start, "parse", opening.unclosed())
        return None
    columns = []
    for block in blocks:
        if isinstance(block, Div) and "column" in block.classes:
            columns.append(Column(block.attrs.get("width"), block.blocks, block.loc))
        elif p.tolerant:  # Pandoc keeps content between columns: it stands as one more
            columns.append(Column(None, (block,), block.loc))
        else:
            p.error(block.loc.line - 1, "parse", "only `::: column` may stand in columns")
    return Columns(tuple(columns), p.loc(opening.start))


def render(r: RenderContext, block: Group, notes: list[str]) -> str:
    parts = []
    for column in block.blocks:
        assert isinstance(column, Group)
        width = column.attrs.get("width")
        style = f' style="width:{html.escape(width)}"' if width else ""
        parts.append(f'<div class="column"{style}>{r.blocks(column.blocks, notes)}</div>')
    return '<div class="columns">' + "".join(parts) + "</div>"


def resolve(r: ResolveContext, block: Columns) -> Group:
    """The columns, each a plain group (outputs without columns read them one after another)."""
    columns = tuple(
        Group("div", ("column",), {"width": c.width} if c.width else {}, r.nodes(c.blocks), c.loc)
        for c in block.columns
    )
    return Group("columns", ("columns",), {}, columns, block.loc)


def slide(w: SlidesWriter, node: Group, exercise: bool) -> None:
    """Side by side, each column as wide as written."""
    w.columns(tuple((c.attrs.get("width"), c.blocks) for c in node.blocks if isinstance(c, Group)))


# (a notebook reads them one after another)
OUTPUTS: dict[str, Handler] = {"ipynb": contents, "pptx": slide}
DOC = """`:::: columns` holding `::: {.column width="40%"}` blocks, closed by `::::`.

Content side by side, each column its share of the width (`width=` as a percentage; columns
without one share what is left). The PPTX makes side-by-side text boxes; a notebook keeps the
columns one after another."""
KIND = BlockKind("columns", named("columns"), parse, render, OUTPUTS, resolve, doc=DOC)
