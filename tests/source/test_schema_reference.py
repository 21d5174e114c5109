"""Issue 30, item 4: docs/reference/settings.md is the option reference the schemas give (one
table per settings file: key, type, default, meaning), written by `deck.source.schemadoc`; it
fails to match when a declaration changes and the file is not written again."""

from __future__ import annotations

import dataclasses

import pytest

from deck.source.schemacourse import COURSE_SCHEMA
from deck.source.schemadoc import REFERENCE, reference_markdown

AGAIN = '.venv/bin/python -c "from deck.source.schemadoc import write_reference as w; w()"'


def test_docs_options_md_is_what_the_schemas_give() -> None:
    assert REFERENCE.read_text("utf-8") == reference_markdown(), f"write it again: {AGAIN}"


def test_a_changed_help_text_makes_the_file_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above fails when a declaration's help text changes (here, course.yml's
    `term`), and passes again once the file is written from the new text."""
    changed = dataclasses.replace(COURSE_SCHEMA["term"], help="when it is taught, say")
    monkeypatch.setitem(COURSE_SCHEMA._keys, "term", changed)
    written = reference_markdown()
    assert written != REFERENCE.read_text("utf-8")
    assert "| `term` | text | — | when it is taught, say |" in written


@pytest.mark.parametrize(
    "title",
    [
        "lesson.yml",
        "slides: (lesson.yml) and format: revealjs: (a .qmd)",
        ".qmd front matter and _metadata.yml",
        "_quarto.yml",
        "_quarto.yml beside a lesson",
        "course.yml",
    ],
)
def test_each_settings_file_has_its_table(title: str) -> None:
    text = reference_markdown()
    start = text.index(f"\n## {title}\n")
    table = text[start:].split("\n## ")[1]
    assert "| key | type | default | meaning |" in table


def test_the_tables_show_declared_defaults_types_and_notes() -> None:
    text = reference_markdown()
    assert "| `quiz.mode` | `poll` \\| `check` | `poll` |" in text  # allowed values, default
    assert "| `exec.timeout` | number | `300` |" in text
    assert "| `slide-number` | `true` \\| `false` \\| `c/t`" in text
    assert "`false`; a lesson: `true`" in text  # a lesson's own default beside Quarto's
    assert "| `lecturer-notes` | true/false or list of lesson folders | `false` |" in text
    unapplied = [line for line in text.splitlines() if "`highlight-style`" in line]
    assert unapplied and all("read, not applied (a warning)" in line for line in unapplied)
