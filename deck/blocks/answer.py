"""`::: answer`: an exercise's answer, shown on the next click in the deck (a fragment), left
out of the students' handout (a line says it is given in class), and printed with the slide's
notes in the lecturer's notes (deck/static/handout.js moves it there)."""

from __future__ import annotations

from deck.blocks.base import BlockKind, attributes, named, parse_div
from deck.blocks.context import RenderContext
from deck.model.document import Group
from deck.strings import strings


def render(r: RenderContext, div: Group, notes: list[str]) -> str:
    classes = ["deck-answer", *(c for c in div.classes if c != "answer")]
    if "fragment" not in classes:
        classes.append("fragment")
    label = strings(r.lang, "answer")["label"]
    return (
        f'<div{attributes(div, classes)} data-answer-label="{label}">'
        f"{r.blocks(div.blocks, notes)}</div>"
    )


# On the slides (a click away) and in the lecturer's notes; in the solutions, not the students'
# handout or notebook.
SEEN_BY = frozenset({"slides", "notes", "solutions"})
DOC = """`::: answer` … `:::` after an exercise.

An exercise's answer: shown on the next click in the deck (a fragment), left out of the
students' handout (a line says it is given in class) and of the student notebook, printed with
the slide's notes in the lecturer's notes.pdf, whole in the solutions notebook."""
KIND = BlockKind("answer", named("answer"), parse_div, render, seen_by=SEEN_BY, doc=DOC)
