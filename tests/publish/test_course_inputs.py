"""Issue 29, items 3 (course.yml), 7a and 7c: the course page's hostile inputs. A
`content/course.yml` that is not UTF-8 is an error at its bad byte's line; a lesson's title
reads on the course page as the deck's title slide shows it (Markdown, formulas as MathML,
never a link inside the heading's link); a lesson removed from the content folder takes the
folders the tool wrote for it along (never one the user put there)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


def two_lessons(root: Path) -> None:
    for name in ("alpha", "beta"):
        write_lesson(root, {**LESSON, "lesson.yml": f"title: {name}\nlang: en\n"}, name)
    ran = run_cli(root, "--no-pdf", "--single-file")
    assert ran.returncode == 0, ran.stderr
    for place in ("dist/alpha", "dist/alpha.html", "figures/alpha", ".cache/course/alpha.json"):
        assert (root / place).exists(), place


def test_a_removed_lessons_outputs_go_with_its_course_entry(tmp_path: Path):
    import shutil

    two_lessons(tmp_path)
    beta = {k: v for k, v in outputs(tmp_path)["dist"].items() if k.startswith("beta/")}
    shutil.rmtree(tmp_path / "content/alpha")
    ran = run_cli(tmp_path, "--no-pdf", "--single-file")
    assert ran.returncode == 0, ran.stderr
    assert (
        "  removed dist/alpha/, figures/alpha/, dist/alpha.html: lesson alpha is no "
        in ran.stdout + ran.stderr
    )
    for place in ("dist/alpha", "dist/alpha.html", "figures/alpha", ".cache/course/alpha.json"):
        assert not (tmp_path / place).exists(), place
    assert stray(tmp_path) == []  # no journal, no old copy left
    after = outputs(tmp_path)["dist"]
    assert {k: v for k, v in after.items() if k.startswith("beta/")} == beta
    page = (tmp_path / "dist/index.html").read_text("utf-8")
    assert 'id="lesson-alpha"' not in page and 'id="lesson-beta"' in page
    again = run_cli(tmp_path, "--no-pdf", "--single-file")  # said once
    assert "removed" not in again.stdout + again.stderr


def test_what_the_build_did_not_leave_as_it_was_stays(tmp_path: Path):
    """A folder put in dist/ by hand is never the build's; a removed lesson's folder with a
    file the user added is kept, said once; a build from another content folder into the
    same dist/ removes nothing of this one's."""
    import shutil

    two_lessons(tmp_path)
    (tmp_path / "dist/handmade").mkdir()
    (tmp_path / "dist/handmade/index.html").write_text("mine")
    (tmp_path / "dist/alpha/my-notes.txt").write_text("mine")
    other = tmp_path / "other"
    write_lesson(other, {**LESSON, "lesson.yml": "title: Gamma\nlang: en\n"}, "gamma")
    shutil.move(other / "content/gamma", tmp_path / "other-content/gamma")
    ran = run_cli(tmp_path, "--no-pdf", "--content", "other-content")
    assert ran.returncode == 0, ran.stderr
    assert "removed" not in ran.stdout + ran.stderr and (tmp_path / "dist/beta").is_dir()
    shutil.rmtree(tmp_path / "content/alpha")
    ran = run_cli(tmp_path, "--no-pdf", "--single-file")
    said = ran.stdout + ran.stderr
    assert ran.returncode == 0, said
    assert "  kept    dist/alpha/, figures/alpha/, dist/alpha.html: lesson alpha is no" in said
    assert "but not as its last build left them (yours to remove)" in said
    assert (tmp_path / "dist/alpha/my-notes.txt").read_text() == "mine"
    assert (tmp_path / "dist/alpha/index.html").is_file() and (tmp_path / "figures/alpha").is_dir()
    assert (tmp_path / "dist/handmade/index.html").read_text() == "mine"
    again = run_cli(tmp_path, "--no-pdf", "--single-file")
    assert "alpha" not in again.stdout + again.stderr  # said once


def test_a_removal_that_fails_halfway_leaves_all_and_the_next_build_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import errno
    import shutil

    two_lessons(tmp_path)
    shutil.rmtree(tmp_path / "content/alpha")
    before = outputs(tmp_path)
    rename = Path.rename

    def failing(self: Path, target):  # noqa: ANN001
        if self.name == "alpha.html":  # (after dist/alpha and figures/alpha were renamed)
            raise OSError(errno.EIO, "input/output error")
        return rename(self, target)

    monkeypatch.setattr(Path, "rename", failing)
    ran = run_cli(tmp_path, "--no-pdf", "--single-file")
    monkeypatch.undo()
    said = ran.stdout + ran.stderr
    assert ran.returncode == 0, said
    assert "note: could not remove dist/alpha/, figures/alpha/, dist/alpha.html" in said
    after = outputs(tmp_path)
    for found in (before, after):
        found["dist"].pop("index.html")
    assert after == before and stray(tmp_path) == []  # all as they were, nothing half-done
    ran = run_cli(tmp_path, "--no-pdf", "--single-file")
    assert "  removed dist/alpha/, figures/alpha/, dist/alpha.html" in ran.stdout + ran.stderr
    assert not (tmp_path / "dist/alpha").exists() and stray(tmp_path) == []
