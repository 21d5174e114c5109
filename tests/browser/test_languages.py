"""A deck in a language other than Chinese or English (issue 21, item 3): its buttons and
labels are English (not Chinese), and its notes' minutes count in either way of writing them."""

from __future__ import annotations

import pytest

from catalogue import write_lesson
from fixture_build import run_cli

pytestmark = pytest.mark.browser

LESSON = {
    "lesson.yml": "title: Softmax\nlang: de\nquiz: {mode: check}\n",
    "01-a.md": """
## Eins

Text.

::: notes
3 Min. Erklären.
:::

## Zwei

::: quiz
Welche?

- [x] A
- [ ] B
:::

::: notes
(2 minutes) Fragen.
:::

## Drei

::: notes
1.5 分钟 chinesisch geschrieben.
:::
""",
}


def test_a_german_deck_speaks_english_and_counts_its_minutes(context, tmp_path):
    write_lesson(tmp_path, LESSON, "de")
    ran = run_cli(tmp_path, "de", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = context.new_page()
    page.goto((tmp_path / "dist" / "de" / "index.html").as_uri() + "#/1")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    timings = page.evaluate(
        "[...document.querySelectorAll('.reveal .slides > section')].map(s => s.dataset.timing)"
    )
    assert timings == ["180", "120", "90"]
    assert page.evaluate("document.documentElement.dataset.deckMinutes") == "6.5"
    page.click("section.present .quiz-choice >> nth=1")
    feedback = page.text_content("section.present .quiz-feedback")
    assert feedback == "✗ Try again"
