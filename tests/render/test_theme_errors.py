"""Issue 29, item 3: a theme `.scss` error names its file and line. A file that is not UTF-8
is an `[encoding]` error at the line of its first bad byte; a dart-sass error is at the line
of the author's file it is in (through Quarto's `/*-- scss:… --*/` sections, several theme
files, and partials they import), not at the lesson folder. Each exits 1 and keeps the
previous deck."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, write_lesson
from fixture_build import run_cli

LESSON = "title: T\nslides:\n  theme: [default, custom.scss]\n"
HERE = "content/cat"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("theme")
    good = "/*-- scss:rules --*/\n.ok { color: red; }\n"
    write_lesson(root, {"lesson.yml": LESSON, "01-a.md": "## A\n\nhello\n", "custom.scss": good})
    ran = run_cli(root, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    return root


def files(root: Path, written: dict[str, str | bytes], lesson: str = LESSON) -> None:
    (root / HERE / "lesson.yml").write_text(lesson + "title-slide: false\n")
    for name, text in written.items():
        path = root / HERE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)


def fails_at(root: Path, where: str, code: str, says: str) -> str:
    ran = assert_failed_cleanly(root, ["cat", "--no-pdf"], f"{HERE}/{where}", says=says)
    line = next(t for t in ran.stderr.splitlines() if t.startswith(f"{HERE}/{where}: error"))
    assert f"error [{code}]" in line, line
    assert "UnicodeDecodeError" not in ran.stderr and "position" not in ran.stderr
    return line


def test_a_theme_file_not_utf8_is_an_encoding_error_at_the_bad_bytes_line(built: Path):
    text = b"/*-- scss:rules --*/\n.a { content: 'ok'; }\n.b { content: '\xe9t\xe9'; }\n"
    files(built, {"custom.scss": text})
    line = fails_at(built, "custom.scss:3", "encoding", "not UTF-8")
    assert "e9" in line


def test_an_imported_partial_not_utf8_is_an_encoding_error_at_its_line(built: Path):
    partial = b"$a: 1;\n$b: 2;\n.c { content: '\xff'; }\n"
    files(built, {"custom.scss": '@import "parts/colours";\n', "parts/_colours.scss": partial})
    fails_at(built, "parts/_colours.scss:3", "encoding", "not UTF-8")


def test_a_sass_error_is_at_its_line_in_the_theme_file(built: Path):
    text = (
        "/*-- scss:defaults --*/\n$a: 1;\n\n/*-- scss:rules --*/\n.x {\n"
        "  color: $undefined-variable;\n}\n"
    )
    files(built, {"custom.scss": text})
    line = fails_at(built, "custom.scss:6", "theme", "Undefined variable")
    assert "content/cat:1" not in line


def test_a_sass_error_in_the_defaults_section_is_at_its_line(built: Path):
    text = "/*-- scss:rules --*/\n.x { color: red; }\n/*-- scss:defaults --*/\n$a: 1 + ;\n"
    files(built, {"custom.scss": text})
    fails_at(built, "custom.scss:4", "theme", "dart-sass")


def test_a_sass_error_in_the_second_theme_file_names_it(built: Path):
    lesson = "title: T\nslides:\n  theme: [default, a.scss, b.scss]\n"
    written = {
        "a.scss": "/*-- scss:rules --*/\n.a { color: red; }\n",
        "b.scss": "/*-- scss:rules --*/\n.b { color: blue; }\n.c { color: $nope; }\n",
    }
    files(built, written, lesson)
    fails_at(built, "b.scss:3", "theme", "Undefined variable")


def test_a_sass_error_in_an_imported_project_file_names_that_file(built: Path):
    written = {
        "custom.scss": '/*-- scss:rules --*/\n@import "parts/colours";\n',
        "parts/_colours.scss": "$a: 1;\n.y { color: $nope; }\n",
    }
    files(built, written)
    fails_at(built, "parts/_colours.scss:2", "theme", "Undefined variable")


def test_an_import_not_found_is_at_the_line_of_the_import(built: Path):
    files(built, {"custom.scss": '// colours\n@import "nowhere";\n'})
    fails_at(built, "custom.scss:2", "theme", "nowhere")
