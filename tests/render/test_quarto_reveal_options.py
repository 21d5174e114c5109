"""Issue 32, item 5: reveal.js's own options a `.qmd` sets (`show-slide-number`, `hash`,
`margin`, `view-distance`/`viewDistance`, `history`, `controls-tutorial`) are accepted and
reach reveal.js through the page's `window.deckOptions.reveal`."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from catalogue import write
from deck.errors import DeckError
from deck.source.qmd import load_qmd
from fixture_build import run_cli

OPTIONS = """show-slide-number: speaker
hash: false
margin: 0.1
view-distance: 5
history: true
controls-tutorial: false
"""
FRONT = "---\ntitle: T\nformat:\n  revealjs:\n" + textwrap.indent(OPTIONS, "    ") + "---\n\n## A\n"
REVEAL = {
    "showSlideNumber": "speaker",
    "hash": False,
    "margin": 0.1,
    "viewDistance": 5,
    "history": True,
    "controlsTutorial": False,
}


def test_reveal_options_are_accepted_and_passed(tmp_path: Path):
    write(tmp_path, {"talk.qmd": FRONT})
    lesson = load_qmd(tmp_path / "talk.qmd")
    assert [str(w) for w in lesson.warnings] == []  # none called unknown
    options = lesson.config.slides.reveal_options()
    assert {k: options[k] for k in REVEAL} == REVEAL


def test_reveal_options_reach_the_page_and_margin_is_the_screens(tmp_path: Path):
    write(tmp_path, {"talk.qmd": FRONT.replace("view-distance", "viewDistance")})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "warning" not in ran.stderr
    page = (tmp_path / "dist" / "talk" / "index.html").read_text()
    found = re.search(r"window\.deckOptions\s*=\s*(\{.*?\});?\s*</script>", page, re.S)
    assert found, "deckOptions not in the page"
    reveal = json.loads(found.group(1))["reveal"]
    assert {k: reveal[k] for k in REVEAL} == REVEAL
    # printed pages are the slide's size: the author's margin is dropped there
    assert (
        "if (/print-pdf/i.test(location.search)) delete window.deckOptions.reveal.margin;"
        in (page[found.end() :])
    )


def test_a_page_without_margin_has_no_print_script(tmp_path: Path):
    write(tmp_path, {"talk.qmd": "---\ntitle: T\n---\n\n## A\n"})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "deckOptions.reveal.margin" not in (tmp_path / "dist/talk/index.html").read_text()


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("margin: 2", "must be a number from 0 to 1"),
        ("view-distance: 0", "must be a whole number of slides"),
        ("show-slide-number: always", "must be all, print or speaker"),
        ("hash: maybe", "must be true or false"),
    ],
)
def test_a_wrong_reveal_value_is_an_error_at_its_line(tmp_path: Path, line: str, says: str):
    write(tmp_path, {"talk.qmd": f"---\nformat:\n  revealjs:\n    {line}\n---\n\n## A\n"})
    with pytest.raises(DeckError) as caught:
        load_qmd(tmp_path / "talk.qmd")
    assert "talk.qmd:4:" in str(caught.value) and says in str(caught.value), str(caught.value)


def test_a_lessons_slides_take_the_same_reveal_options(tmp_path: Path):
    """lesson.yml's `slides:` reads reveal.js's own options as a `.qmd`'s `format: revealjs:`
    does (they were called unknown there), and a wrong one is an error at its line."""
    from catalogue import write_lesson

    yml = "title: L\nlang: en\nslides:\n" + textwrap.indent(OPTIONS, "  ")
    write_lesson(tmp_path, {"lesson.yml": yml, "01-a.md": "## A\n\nText.\n"}, "lesson")
    ran = run_cli(tmp_path, "lesson", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "unknown" not in ran.stderr and "warning" not in ran.stderr, ran.stderr
    page = (tmp_path / "dist/lesson/index.html").read_text()
    found = re.search(r"window\.deckOptions\s*=\s*(\{.*?\});?\s*</script>", page, re.S)
    assert found, "deckOptions not in the page"
    reveal = json.loads(found.group(1))["reveal"]
    assert {k: reveal[k] for k in REVEAL} == REVEAL
    yml = "title: L\nlang: en\nslides:\n  margin: 2\n"
    write_lesson(tmp_path, {"lesson.yml": yml, "01-a.md": "## A\n"}, "lesson")
    ran = run_cli(tmp_path, "lesson", "--no-pdf")
    assert ran.returncode != 0 and "lesson.yml:4:" in ran.stderr, ran.stderr
    assert "must be a number from 0 to 1" in ran.stderr
