"""`::: notes`: speaker notes, Markdown prose shown in the speaker view and notes.pdf. A note
opens with its minutes (`2 min`, `2 分钟`, `(2 minutes)`) or says them as an attribute
(`::: {.notes minutes=2}`); a note with neither is a warning (the speaker view's plan names it)."""

from __future__ import annotations

import math

from deck.blocks.base import (
    BlockKind,
    Handler,
    Opening,
    ParseContext,
    ResolveContext,
    SlidesWriter,
    left_out,
    named,
)
from deck.blocks.context import RenderContext
from deck.errors import Diagnostic
from deck.model import Notes
from deck.model.document import Aside, Node
from deck.strings import strings
from deck.theme import NOTE_MINUTES


def parse(p: ParseContext, opening: Opening) -> Notes | None:
    minutes = None
    if "minutes" in opening.attrs:
        try:
            minutes = float(opening.attrs["minutes"])
        except ValueError:
            minutes = -1.0
        if not (math.isfinite(minutes) and minutes >= 0):
            said = opening.attrs["minutes"]
            p.error(opening.start, "attr", f"minutes={said!r} is not a number of minutes (2, 1.5)")
            minutes = None
    blocks, closed = p.body()
    if not closed:
        p.error(opening.start, "parse", opening.unclosed())
        return None
    return Notes(p.block_text(blocks, opening.start), p.loc(opening.start), minutes)


def render(r: RenderContext, block: Aside, notes: list[str]) -> str:
    """Notes leave the slide's flow: they are collected for the slide's `<aside>`. Values in
    them are plain text (no control may stand there). A `minutes=` note opens with them."""
    if block.minutes is not None:
        n = f"{block.minutes:g}"
        unit = strings(r.lang, "notes")["minutes"]
        notes.append(f'<p class="deck-minutes" data-minutes="{n}">{n} {unit}</p>')
    if block.text is not None:
        notes.append(r.text(block.text, wrap=False))
    return ""


def unplanned(blocks: tuple[Node, ...]) -> list[Diagnostic]:
    """A warning for each of a slide's notes that gives no minutes (the plan counts it as 0)."""
    return [
        Diagnostic(
            block.loc,
            "minutes",
            "this note gives no minutes, so the speaker view's plan counts 0 for its slide: "
            "open it with them (`2 min`, `2 分钟`) or write `::: {.notes minutes=2}`",
            "warning",
        )
        for block in blocks
        if isinstance(block, Aside)
        and block.kind == "notes"
        and block.minutes is None
        and (said := block.text.markdown(lambda v: v.text) if block.text else "").strip()
        and not NOTE_MINUTES.match(said.lstrip(" \t\n*_"))  # (`**2 min**` too)
    ]


def resolve(r: ResolveContext, block: Notes) -> Aside:
    return Aside("notes", r.text(block.text, block.loc), block.loc, minutes=block.minutes)


def notes_pane(w: SlidesWriter, notes: Aside, exercise: bool) -> None:
    """A slide's notes pane holds them (opening with a `minutes=` note's minutes)."""
    if notes.minutes is not None:
        w.note(f"{notes.minutes:g} {strings(w.lang, 'notes')['minutes']}")
    if notes.text is not None:
        w.note(notes.text)


# The lecturer's notes are theirs: a notebook leaves them out, a slide's notes pane has them.
OUTPUTS: dict[str, Handler] = {"ipynb": left_out, "pptx": notes_pane}
DOC = """`::: notes` … `:::` on a slide; `::: {.notes minutes=2}`.

Speaker notes: Markdown shown in the speaker view (`S`), printed in notes.pdf and in the PPTX's
notes pane, never on the slides, in the handouts or the notebooks. A note opens with its minutes
(`2 min.`, `2 分钟`, `(2 minutes)`) or gives them as `minutes=`; once a deck plans minutes, a
note with neither is a warning at its line, and the speaker view's plan names it."""
KIND = BlockKind("notes", named("notes"), parse, render, OUTPUTS, resolve, doc=DOC)
