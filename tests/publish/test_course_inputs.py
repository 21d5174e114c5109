"""Issue 29, items 3 (course.yml), 7a and 7c: the course page's hostile inputs. A
`content/course.yml` that is not UTF-8 is an error at its bad byte's line; a lesson's title
reads on the course page as the deck's title slide shows it (Markdown, formulas as MathML,
never a link inside the heading's link); a lesson removed from the content folder takes the
folders the tool wrote for it along (never one the user put there)."""

from __future__ import annotations

import re
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


TITLE = (
    "**Bold** <b>raw</b> `co<de>` [link](https://example.org) $x^2$ &amp; <script>alert(1)</script>"
)


def heading(page: str, name: str) -> str:
    found = re.search(rf'<li class="lesson" id="lesson-{name}"><h3>(.*?)</h3>', page, re.S)
    assert found, page
    return found.group(1)


def test_a_title_reads_on_the_course_page_as_the_title_slide_shows_it(tmp_path: Path):
    """Markdown and formulas as the deck renders them (a formula as MathML: the page carries
    no KaTeX stylesheet), one link (the heading's own), no script; with or without a title
    slide the same."""
    for name, slide in (("alpha", "true"), ("beta", "false")):
        yml = f'title: "{TITLE}"\nlang: en\ntitle-slide: {slide}\n'
        write_lesson(tmp_path, {**LESSON, "lesson.yml": yml}, name)
    ran = run_cli(tmp_path, "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    deck = (tmp_path / "dist/alpha/index.html").read_text("utf-8")
    assert "<h1><strong>Bold</strong> <b>raw</b> <code>co&lt;de&gt;</code>" in deck
    page = (tmp_path / "dist/index.html").read_text("utf-8")
    alpha, beta = heading(page, "alpha"), heading(page, "beta")
    assert alpha.replace("alpha/", "beta/") == beta  # one rule, title slide or not
    assert alpha.startswith(
        '<a href="alpha/index.html"><strong>Bold</strong> <b>raw</b> <code>co&lt;de&gt;</code> '
        "link <math"
    ), alpha
    assert alpha.count("<a ") == 1 and "example.org" not in alpha  # no link inside the link
    assert "<msup><mi>x</mi><mn>2</mn></msup>" in alpha and "katex-html" not in alpha
    assert "</math> &amp; </a>" in alpha and "script" not in alpha and "alert" not in alpha
    assert 'aria-label="Files of Bold raw co&lt;de&gt; link $x^2$ &amp;"' in page
