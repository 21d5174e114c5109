"""`::: panel-tabset`: each heading inside starts a tab; a row of tab buttons and one panel per
tab, the first shown (quarto.js switches them; a printed page shows the first)."""

from __future__ import annotations

from deck.blocks.base import (
    SUB_HEADING,
    BlockKind,
    Handler,
    Opening,
    ParseContext,
    ResolveContext,
    SlidesWriter,
    attributes,
    contents,
    named,
    split_at_headings,
)
from deck.blocks.context import RenderContext
from deck.model import Block, Div, Prose
from deck.model.document import Group, Node


def parse(p: ParseContext, opening: Opening) -> Div | None:
    """Each tab is `Div(("tab",), {title})`; blocks before the first heading stay above."""
    blocks, closed = p.body()
    if not closed:
        p.error(opening.start, "parse", opening.unclosed())
        return None
    out: list[Block] = []
    tab: list[Block] | None = None
    title, at = "", p.loc(0)

    def close() -> None:
        if tab is not None:
            out.append(Div(("tab",), {"title": title}, tuple(tab), at))

    for block in blocks:
        if not isinstance(block, Prose):
            (tab if tab is not None else out).append(block)
            continue
        for piece in split_at_headings(block):
            heading = SUB_HEADING.match(piece.text)
            if heading and "\n" not in piece.text:
                close()
                tab, title, at = [], heading.group(1), piece.loc
            else:
                (tab if tab is not None else out).append(piece)
    close()
    if not any(isinstance(b, Div) and "tab" in b.classes for b in out):
        line = blocks[0].loc.line - 1 if blocks else 0
        p.error(line, "parse", "a panel-tabset needs a heading (`### Name`) per tab")
    return Div(opening.classes, opening.attrs, tuple(out), p.loc(opening.start))


def render(r: RenderContext, div: Group, notes: list[str]) -> str:
    before: list[str] = []
    buttons: list[str] = []
    panels: list[str] = []
    for block in div.blocks:
        if isinstance(block, Group) and "tab" in block.classes:
            k = len(buttons)
            title = r.text(block.title, inline=True) if block.title is not None else ""
            selected = "true" if k == 0 else "false"
            active = " active" if k == 0 else ""
            buttons.append(  # buttons, not `href="#"` links: reveal.js follows those
                f'<li role="presentation"><button type="button" role="tab"'
                f' aria-selected="{selected}" data-tab="{k}" class="tab-link{active}">'
                f"{title}</button></li>"
            )
            panels.append(
                f'<div class="tab-pane{active}" role="tabpanel" data-tab="{k}">'
                f"{r.blocks(block.blocks, notes)}</div>"
            )
        else:
            before.append(r.block(block, notes))
    return (
        "".join(before)
        + f"<div{attributes(div)}>"
        + f'<ul class="panel-tabset-tabby" role="tablist">{"".join(buttons)}</ul>'
        + f'<div class="tab-content">{"".join(panels)}</div></div>'
    )


def resolve(r: ResolveContext, div: Div) -> Group:
    """The tab set, each tab a group titled with its name (values in place)."""
    blocks: list[Node] = []
    for block in div.blocks:
        if isinstance(block, Div) and "tab" in block.classes:
            title = r.text(block.attrs.get("title", ""), block.loc)
            inner = r.nodes(block.blocks)
            blocks.append(Group("div", block.classes, block.attrs, inner, block.loc, title=title))
        else:
            blocks += r.nodes((block,))
    return Group("panel-tabset", div.classes, div.attrs, tuple(blocks), div.loc)


def slide(w: SlidesWriter, node: Group, exercise: bool) -> None:
    """Every tab, one after another, under its name (a slide has no tabs to click)."""
    for block in node.blocks:
        if isinstance(block, Group) and "tab" in block.classes:
            if block.title is not None:
                w.heading(block.title)
            w.nodes(block.blocks, exercise)
        else:
            w.nodes((block,), exercise)


OUTPUTS: dict[str, Handler] = {"ipynb": contents, "pptx": slide}
DOC = """`::: panel-tabset` holding `### Tab name` headings, each starting a tab.

A row of tab buttons and one panel per tab, the first shown; a printed page shows the first,
the PPTX each tab under its name."""
KIND = BlockKind("panel-tabset", named("panel-tabset"), parse, render, OUTPUTS, resolve, doc=DOC)
