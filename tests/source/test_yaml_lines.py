"""Issue 29, item 5: a YAML syntax error is reported at a line the file has, the line that
holds the mistake, in every file read as YAML (`lesson.yml`, `_metadata.yml`, `_quarto.yml`
beside a `.qmd` or a lesson, `course.yml`, a `.qmd`'s front matter, `_variables.yml`).

PyYAML marks a problem found at the end of the text (a `[` or a quote never closed) at the
end of input: a line past the last when the file ends with a newline. The error names the
line where what was left open began instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogue import LESSON_YML
from deck.errors import DeckError
from deck.publish.coursefile import read_course
from deck.source.config import parse_config
from deck.source.folder import load_lesson
from deck.source.qmd import load_qmd

# (text, the line of the mistake): each with and without a newline at its end
CASES = [
    ("title: [x", 1),  # a flow sequence left open on the last line
    ("lang: en\ntitle: [x, y", 2),
    ("title: [x,\n  y", 1),  # … open over two lines: where it began
    ("title: {a: 1", 1),  # a flow mapping
    ('title: "x', 1),  # a quote left open
    ("lang: en\ntitle: 'x", 2),
    ('title: "x\n  y', 1),
    ("title: T\nlang: en\n  bad: 1\nsubtitle: S", 3),  # bad indentation in the middle
    ("title: T\n lang: en\nsubtitle: S", 2),
    ("title: T\nlang\nsubtitle: S", 3),  # PyYAML sees the missing `:` at the next key
    ("title: T\nlang", 2),  # … or at the end: the key's line
    ("title: [x\n\n# a comment\n", 1),  # blank and comment lines after it
]
TEXTS = [(text + end, line) for text, line in CASES for end in ("", "\n")]


def yaml_errors(diagnostics: list) -> list[str]:
    return [str(d) for d in diagnostics if "not valid YAML" in str(d)]


def check(errors: list[str], path: str, text: str, line: int) -> None:
    """One error, at `path:line`, a line `text` has."""
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{path}:{line}: error [config] not valid YAML"), errors
    assert line <= len(text.splitlines())


def load_errors(load, *args) -> list[str]:
    with pytest.raises(DeckError) as caught:
        load(*args)
    return yaml_errors(caught.value.diagnostics)


@pytest.mark.parametrize(("text", "line"), TEXTS)
def test_lesson_yml(text: str, line: int):
    check(yaml_errors(parse_config(text, "lesson.yml")[2]), "lesson.yml", text, line)


@pytest.mark.parametrize(("text", "line"), TEXTS)
def test_a_lessons_own_files(tmp_path: Path, text: str, line: int, monkeypatch):
    folder = tmp_path / "cat"
    folder.mkdir()
    (folder / "01-a.md").write_text("## A\n")
    (folder / "lesson.yml").write_text(text)
    monkeypatch.chdir(tmp_path)
    check(load_errors(load_lesson, folder), "cat/lesson.yml", text, line)
    (folder / "lesson.yml").write_text(LESSON_YML)
    (folder / "_quarto.yml").write_text(text)
    check(load_errors(load_lesson, folder), "cat/_quarto.yml", text, line)


@pytest.mark.parametrize(("text", "line"), TEXTS)
def test_the_files_beside_a_qmd(tmp_path: Path, text: str, line: int, monkeypatch):
    qmd = tmp_path / "talk.qmd"
    qmd.write_text("## A\n")
    monkeypatch.chdir(tmp_path)
    for name in ("_metadata.yml", "_quarto.yml", "_variables.yml"):
        (tmp_path / name).write_text(text)
        check(load_errors(load_qmd, qmd), name, text, line)
        (tmp_path / name).unlink()


@pytest.mark.parametrize(("text", "line"), TEXTS)
def test_a_qmds_front_matter(tmp_path: Path, text: str, line: int, monkeypatch):
    qmd = tmp_path / "talk.qmd"
    whole = f"---\n{text.rstrip(chr(10))}\n---\n\n## A\n"
    qmd.write_text(whole)
    monkeypatch.chdir(tmp_path)
    check(load_errors(load_qmd, qmd), "talk.qmd", whole, line + 1)


@pytest.mark.parametrize(("text", "line"), TEXTS)
def test_course_yml(tmp_path: Path, text: str, line: int):
    (tmp_path / "course.yml").write_text(text)
    errors = load_errors(read_course, tmp_path, set())
    check(errors, str(tmp_path / "course.yml"), text, line)
