"""A deck in any language (issue 21, items 3 and 5): its UI strings come from its language's
table in deck/static/strings.json (French and German have one), English for a language without
one or for a string its table lacks; adding a language is that one table. A note's minutes
count however they are written (`3 Min.`, `(2 minutes)`, `1.5 分钟`, `{minutes=N}`), and a note
without any is a build warning at its line and named in the speaker view's plan."""

from __future__ import annotations

import re

import pytest

from catalogue import line_of, write_lesson
from deck.theme import STATIC
from fixture_build import run_cli

pytestmark = pytest.mark.browser

SLIDES = """
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

## Vier

::: {.notes minutes=4}
Ohne Zahl im Text: das Attribut sagt es.
:::
"""


def lesson(lang: str) -> dict[str, str]:
    return {
        "lesson.yml": f"title: Softmax\nlang: {lang}\nquiz: {{mode: check}}\n",
        "01-a.md": SLIDES,
    }


def open_deck(context, tmp_path, name: str, slide: int = 1):  # noqa: ANN001, ANN201
    page = context.new_page()
    page.goto((tmp_path / "dist" / name / "index.html").as_uri() + f"#/{slide}")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    return page


def feedback_after_a_wrong_choice(page) -> str:  # noqa: ANN001
    page.click("section.present .quiz-choice >> nth=1")
    return page.text_content("section.present .quiz-feedback")


def test_a_german_deck_speaks_german_and_counts_its_minutes(context, tmp_path):
    write_lesson(tmp_path, lesson("de-CH"), "de")
    ran = run_cli(tmp_path, "de", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "[minutes]" not in ran.stderr  # every note gives its minutes
    page = open_deck(context, tmp_path, "de")
    timings = page.evaluate(
        "[...document.querySelectorAll('.reveal .slides > section')].map(s => s.dataset.timing)"
    )
    assert timings == ["180", "120", "90", "240"]
    assert page.evaluate("document.documentElement.dataset.deckMinutes") == "10.5"
    assert feedback_after_a_wrong_choice(page) == "✗ Noch einmal"


@pytest.mark.parametrize(
    ("lang", "wrong", "menu"),
    [
        ("fr", "✗ Réessayez", "Menu des diapositives (M)"),
        ("de", "✗ Noch einmal", "Folienmenü (M)"),
        ("zh-CN", "✗ 再想想", "幻灯片目录（M）"),
        ("it", "✗ Try again", "Slide menu (M)"),  # no Italian table: English
        ("en", "✗ Try again", "Slide menu (M)"),
    ],
)
def test_each_language_has_its_table_and_any_other_is_english(context, tmp_path, lang, wrong, menu):
    name = "x" + re.sub(r"\W", "", lang)
    write_lesson(tmp_path, lesson(lang), name)
    assert run_cli(tmp_path, name, "--no-pdf").returncode == 0
    page = open_deck(context, tmp_path, name)
    assert feedback_after_a_wrong_choice(page) == wrong
    page.wait_for_function(
        "menu => (document.querySelector('.slide-menu-button a') || {}).ariaLabel === menu",
        arg=menu,
    )


def table_keys(page, lang: str) -> dict[str, list[str]]:  # noqa: ANN001
    return page.evaluate(
        "lang => Object.fromEntries(Object.entries(deckStrings.tables[lang]).map("
        "([part, t]) => [part, Object.keys(t).sort()]))",
        lang,
    )


@pytest.mark.slow
def test_adding_a_language_is_one_table(context, tmp_path):
    # French and German are complete tables, and nothing but strings.json names them
    write_lesson(tmp_path, lesson("eo"), "eo")
    assert run_cli(tmp_path, "eo", "--no-pdf").returncode == 0
    page = open_deck(context, tmp_path, "eo")
    english = table_keys(page, "en")
    assert table_keys(page, "fr") == english and table_keys(page, "de") == english
    for path in [*STATIC.rglob("*.js"), *(STATIC.parent).rglob("*.py")]:
        text = path.read_text("utf-8")
        assert "Réessayez" not in text and "Noch einmal" not in text, path
    assert feedback_after_a_wrong_choice(page) == "✗ Try again"  # no Esperanto table yet
    # one table for Esperanto, with one string: that string is Esperanto, the rest English
    # (the deck's assets/strings.js opens with strings.json's tables: tests/test_ui_strings.py
    # adds one to strings.json itself)
    strings = tmp_path / "dist" / "eo" / "assets" / "strings.js"
    text = strings.read_text("utf-8")
    opening = "window.deckStringTables = {"
    assert text.startswith(opening)
    table = '"eo": {"deck": {"wrong": "✗ Provu denove"}},'
    strings.write_text(text.replace(opening, opening + table, 1), "utf-8")
    page = open_deck(context, tmp_path, "eo")
    assert feedback_after_a_wrong_choice(page) == "✗ Provu denove"
    assert page.evaluate("deckStrings.lang") == "eo"
    assert page.evaluate("deckStrings('deck').right") == "✓ Correct"
    assert page.evaluate("deckStrings('popover').close") == "Close"


MISSING = """
## Eins

::: notes
2 min. Erklären.
:::

## Zwei

::: notes
Hier steht keine Zeit.
:::

## Drei {timing="60"}

::: notes
Die Folie sagt ihre Zeit selbst.
:::
"""


@pytest.mark.slow
def test_a_note_without_minutes_is_a_warning_and_named_in_the_plan(context, tmp_path):
    folder = write_lesson(tmp_path, {"lesson.yml": "title: T\nlang: de\n", "01-a.md": MISSING})
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    line = line_of((folder / "01-a.md").read_text(), "Hier steht keine Zeit.") - 1  # `::: notes`
    warnings = [w for w in ran.stderr.splitlines() if "[minutes]" in w]
    assert [w.split(": warning")[0] for w in warnings] == [f"content/cat/01-a.md:{line}"]
    assert "::: {.notes minutes=2}" in warnings[0]

    page = open_deck(context, tmp_path, "cat", 0)
    assert page.evaluate("document.documentElement.dataset.deckUnplanned") == "2"
    assert page.evaluate("document.documentElement.dataset.deckMinutes") == "3"
    with context.expect_page() as info:
        page.keyboard.press("s")
    speaker = info.value
    speaker.wait_for_selector(".deck-speaker-plan")
    plan = speaker.locator(".deck-speaker-plan").inner_text()
    assert plan == "Geplant: 3 min ⚠ keine Minuten in den Notizen von Folie 2"


def test_a_bad_minutes_attribute_is_an_error_at_its_line(tmp_path):
    text = "## Eins\n\n::: {.notes minutes=drei}\nText.\n:::\n"
    write_lesson(tmp_path, {"01-a.md": text})
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 1
    assert "content/cat/01-a.md:3: error [attr] minutes='drei' is not a number" in ran.stderr
    assert not (tmp_path / "dist" / "cat").exists()  # nothing published


def test_a_deck_that_plans_no_minutes_is_not_warned(context, tmp_path):
    text = "## Eins\n\n::: notes\nNur Text.\n:::\n\n## Zwei\n\n::: notes\nAuch.\n:::\n"
    write_lesson(tmp_path, {"lesson.yml": "title: T\nlang: de\n", "01-a.md": text})
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0 and "[minutes]" not in ran.stderr, ran.stderr
    page = open_deck(context, tmp_path, "cat", 0)
    assert page.evaluate("document.documentElement.dataset.deckMinutes") == "0"
