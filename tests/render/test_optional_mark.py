"""A slide marked `{.optional}`: its notes open with a mark in the lesson's language (the
speaker view and notes.pdf show it; tests/browser/test_optional.py drives those)."""

from __future__ import annotations

from pathlib import Path

from test_render import stand_in_results

from catalogue import write_lesson
from deck.render.deck import render_lesson
from deck.source.folder import load_lesson

SECTION = """
## One

::: notes
2 minutes. First.
:::

## Extra {.optional}

::: notes
3 minutes. Skip when late.
:::

## Three

No notes here.
"""


def test_the_mark_is_in_the_lessons_language(tmp_path: Path):
    yml = "title: T\nlang: en\n"
    folder = write_lesson(tmp_path, {"lesson.yml": yml, "01-a.md": SECTION})
    lesson = load_lesson(folder)
    deck = render_lesson(lesson, stand_in_results(lesson))
    notes = [s.notes for s in deck.slides]
    assert notes[1].startswith('<p class="deck-optional-mark">Optional: may be skipped</p>')
    assert "deck-optional-mark" not in notes[0] + notes[2]
    assert deck.slides[1].classes == ("optional",)


def test_an_optional_slide_without_notes_still_gets_the_mark(tmp_path: Path):
    text = "## Only {.optional}\n\nbody\n"
    folder = write_lesson(tmp_path, {"lesson.yml": "title: T\nlang: zh-CN\n", "01-a.md": text})
    lesson = load_lesson(folder)
    deck = render_lesson(lesson, stand_in_results(lesson))
    assert deck.slides[0].notes == '<p class="deck-optional-mark">可跳过（选讲）</p>'
    assert (
        '<aside class="notes"><p class="deck-optional-mark">可跳过（选讲）</p></aside>' in deck.html
    )
