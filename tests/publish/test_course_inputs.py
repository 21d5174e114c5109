"""Issue 29, items 3 (course.yml), 7a and 7c: the course page's hostile inputs. A
`content/course.yml` that is not UTF-8 is an error at its bad byte's line; a lesson's title
reads on the course page as the deck's title slide shows it (Markdown, formulas as MathML,
never a link inside the heading's link); a lesson removed from the content folder takes the
folders the tool wrote for it along (never one the user put there)."""

from __future__ import annotations

from pathlib import Path

from catalogue import outputs, stray, write_lesson
from fixture_build import run_cli

LESSON = {
    "lesson.yml": """
        title: Alpha
        lang: en
    """,
    "01-a.md": """
        ## One

        Hello.
    """,
}


def test_a_course_yml_not_utf8_is_an_error_at_the_bad_bytes_line(tmp_path: Path):
    write_lesson(tmp_path, LESSON, "alpha")
    assert run_cli(tmp_path, "--no-pdf").returncode == 0
    before = outputs(tmp_path)
    (tmp_path / "content/course.yml").write_bytes(
        b"title: Deep learning\nterm: Autumn 2026\nlecturer: Dr. Ad\xe9\nlessons: [alpha]\n"
    )
    ran = run_cli(tmp_path, "--no-pdf")
    assert ran.returncode == 1, ran.stderr
    assert "Traceback" not in ran.stderr and "UnicodeDecodeError" not in ran.stderr
    errors = [line for line in ran.stderr.splitlines() if ": error [" in line]
    assert errors == [
        "content/course.yml:3: error [encoding] not UTF-8 (byte e9): save the file as UTF-8"
    ], ran.stderr
    assert outputs(tmp_path) == before  # the course page and the decks as they were
    assert stray(tmp_path) == []
