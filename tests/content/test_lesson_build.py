"""The whole transformer lesson, built: structure that every slide must have."""

from __future__ import annotations

import re
from pathlib import Path

from lesson_build import Built

SEED_DECK = Path(__file__).resolve().parents[3] / "shared/seeds/003_255ce8ae6f2495db.txt"


def test_every_slide_has_speaker_notes(lesson: Built):
    sections = re.findall(r"<section .*?</section>", lesson.html, re.S)
    assert len(sections) == lesson.values["slides"]
    missing = [
        re.search(r'data-source="([^"]+)"', s).group(1)
        for s in sections
        if '<aside class="notes">' not in s
    ]
    assert missing == []


def test_every_figure_has_alt_text_and_caption(lesson: Built):
    figures = lesson.values["figures"]
    assert len(figures) >= 8
    for figure in figures:
        assert len(figure["alt"]) >= 10, figure
        assert figure["caption"], figure
        assert (lesson.out / figure["file"]).is_file()


def test_quizzes_have_computed_answers_and_explanations(lesson: Built):
    quizzes = lesson.values["quizzes"]
    assert len(quizzes) >= 4
    for quiz in quizzes:
        assert quiz["explanation"], quiz
        assert quiz["answer_text"] == quiz["choices"][quiz["answer"]]
        assert len(set(quiz["choices"])) == len(quiz["choices"])
