"""`::: notes`: speaker notes, Markdown prose shown in the speaker view and notes.pdf."""

from __future__ import annotations

from deck.blocks.base import BlockKind, Opening, ParseContext, named
from deck.model import Notes
from deck.render.context import RenderContext


def parse(p: ParseContext, opening: Opening) -> Notes | None:
    blocks, closed = p.body()
    if not closed:
        p.error(opening.start, "parse", opening.unclosed())
        return None
    return Notes(p.block_text(blocks, opening.start), p.loc(opening.start))


def render(r: RenderContext, block: Notes, notes: list[str]) -> str:
    """Notes leave the slide's flow: they are collected for the slide's `<aside>`. Values in
    them are plain text (no control may stand there)."""
    notes.append(r.text(block.text, block.loc, wrap=False))
    return ""


KIND = BlockKind("notes", named("notes"), parse, render)
