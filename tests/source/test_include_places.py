"""Issue 29, items 3 and 4: every problem about a line that came from a `{{< include >}}`d
file names that file and its own line: a byte that is not UTF-8, an exception, a failing
`assert`, an inline expression, a figure without alt text, a traceback into a function
defined there, a cell running out of time. In a lesson folder (where the included file is
read, so no "is not read" note) and in a `.qmd`. Also: lines after a shortcode that gives
several lines (`lipsum`) keep their own numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, write, write_lesson
from fixture_build import run_cli

INCLUDER = "## S\n\n{{< include part.md >}}\n"  # 3 lines; part.md comes in at line 3


def lesson_fails(root: Path, files: dict[str, str | bytes], where: str, says: str) -> str:
    """A lesson `cat` of `files` (01-a.md the includer) fails at `where` (`part.md:4`,
    under content/cat/) saying `says`; its whole stderr."""
    write_lesson(root, {"01-a.md": INCLUDER, **files})
    ran = assert_failed_cleanly(root, ["cat"], f"content/cat/{where}", says=says)
    return ran.stderr


def qmd_fails(root: Path, files: dict[str, str | bytes], where: str, says: str) -> str:
    """The same with `talk.qmd` (front matter, then the include at line 7) as includer."""
    texts = {k: v for k, v in files.items() if isinstance(v, str)}
    write(root, {"talk.qmd": "---\ntitle: T\n---\n\n" + INCLUDER, **texts})
    for name, data in files.items():
        if isinstance(data, bytes):
            (root / name).write_bytes(data)
    ran = assert_failed_cleanly(root, ["talk.qmd", "--no-pdf"], where, says=says)
    return ran.stderr


def fails_both_ways(root: Path, files: dict[str, str | bytes], where: str, says: str) -> None:
    stderr = lesson_fails(root / "lesson", files, where, says)
    assert "is not read" not in stderr, stderr
    assert "01-a.md:" not in stderr, stderr
    stderr = qmd_fails(root / "qmd", files, where, says)
    assert "talk.qmd:" not in stderr, stderr


ZERO = "text\n\n```{python}\n1/0\n```\n"  # the code at line 4


def test_a_cell_error_in_an_included_file_is_at_that_files_line(tmp_path: Path):
    fails_both_ways(tmp_path, {"part.md": ZERO}, "part.md:4", "ZeroDivisionError")


def test_the_included_file_is_not_called_unread(tmp_path: Path):
    write_lesson(tmp_path, {"01-a.md": INCLUDER, "part.md": "words\n", "other.md": "x\n"})
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "part.md is not read" not in ran.stderr, ran.stderr
    assert "other.md is not read" in ran.stderr, ran.stderr  # (a file no section reads)


def test_a_file_included_twice_deep_is_at_its_own_lines(tmp_path: Path):
    files = {"part.md": "{{< include parts/inner.md >}}\n", "parts/inner.md": "x\n\n" + ZERO}
    write_lesson(tmp_path, {"01-a.md": INCLUDER, **files})
    where = "content/cat/parts/inner.md:6"
    ran = assert_failed_cleanly(tmp_path, ["cat"], where, says="ZeroDivisionError")
    assert "is not read" not in ran.stderr, ran.stderr


def test_a_failing_assert_in_an_included_file_quotes_its_own_line(tmp_path: Path):
    files = {"part.md": "```{python}\nx = 1\nassert x == 2, 'x is 1'\n```\n"}
    says = "assertion failed: assert x == 2, 'x is 1': x is 1"
    fails_both_ways(tmp_path, files, "part.md:3", says)


def test_an_inline_expression_in_an_included_file_is_at_that_files_line(tmp_path: Path):
    files = {"part.md": "```{python}\nx = 1\n```\n\nvalue `{python} x/0`\n"}
    fails_both_ways(tmp_path, files, "part.md:5", "`x/0` failed: ZeroDivisionError")


def test_a_function_from_an_included_file_fails_at_its_line_there(tmp_path: Path):
    part = "```{python}\ndef f():\n    return 1/0\n```\n"
    main = "## S\n\n{{< include part.md >}}\n\n```{python}\nf()\n```\n"
    write_lesson(tmp_path, {"01-a.md": main, "part.md": part})
    where = "content/cat/part.md:3"
    assert_failed_cleanly(tmp_path, ["cat"], where, says="ZeroDivisionError")
    ran = run_cli(tmp_path, "cat", "--no-pdf", "-v")  # the traceback: each frame at its file
    frames = [line.strip() for line in ran.stderr.splitlines()]
    called = frames.index("content/cat/01-a.md:6, in <module>")
    assert frames[called : called + 4] == [
        "content/cat/01-a.md:6, in <module>",
        "f()",
        "content/cat/part.md:3, in f",
        "return 1/0",
    ], ran.stderr


def test_a_warning_at_a_cell_of_an_included_file_is_at_that_files_line(tmp_path: Path):
    part = "x\n\n```{python}\nimport subprocess\nsubprocess.run(['true'])\n```\n"
    write_lesson(tmp_path, {"01-a.md": INCLUDER, "part.md": part})
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "content/cat/part.md:3: warning: inputs not fully known" in ran.stderr, ran.stderr


def test_a_cell_after_the_include_keeps_the_includers_lines(tmp_path: Path):
    main = "## S\n\n{{< include part.md >}}\n\n```{python}\nx = 1\n1/0\n```\n"
    write_lesson(tmp_path, {"01-a.md": main, "part.md": "a\n\nb\n\nc\n"})
    where = "content/cat/01-a.md:7"
    assert_failed_cleanly(tmp_path, ["cat"], where, says="ZeroDivisionError")


def test_a_cell_after_a_shortcode_of_several_lines_is_at_its_own_line(tmp_path: Path):
    main = "## S\n\n{{< lipsum 3 >}}\n\n```{python}\nx = 1\n1/0\n```\n"
    write_lesson(tmp_path, {"01-a.md": main})
    where = "content/cat/01-a.md:7"
    assert_failed_cleanly(tmp_path, ["cat"], where, says="ZeroDivisionError")


def test_a_figure_without_alt_text_in_an_included_file_is_at_that_files_line(tmp_path: Path):
    part = "## P\n\n```{python}\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\n```\n"
    lesson_fails(tmp_path, {"part.md": part}, "part.md:3", "figure has no alt text")


def test_a_cell_out_of_time_in_an_included_file_is_at_that_files_line(tmp_path: Path):
    part = "x\n\n```{python}\n#| timeout: 1\nwhile True:\n    pass\n```\n"
    lesson_fails(tmp_path, {"part.md": part}, "part.md:5", "still running after 1 s")


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_an_included_file_not_in_utf8_is_an_error_at_its_bad_byte(tmp_path: Path, bom: bytes):
    data = bom + "好\n第二行 \xff 坏\n".encode().replace(b"\xc3\xbf", b"\xff")
    says = "not UTF-8 (byte ff): save the file as UTF-8"
    fails_both_ways(tmp_path, {"part.md": data}, "part.md:2", says)


def test_an_included_file_with_a_byte_order_mark_reads_without_it(tmp_path: Path):
    write_lesson(tmp_path, {"01-a.md": INCLUDER, "part.md": b"\xef\xbb\xbf## P\n\nwords\n"})
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist/cat/index.html").read_text("utf-8")
    assert "\ufeff" not in page and ">P</h2>" in page


# A prose block keeps one place (its first line) and counts its other lines from there, so a
# formula in prose that mixes the includer's lines with an included file's (or follows a
# shortcode giving several lines) is counted from the wrong start. Fixing it needs each prose
# block to keep the place of every line (deck/model/lesson.py `Prose`, read by
# deck/render/section.py), outside this change.
@pytest.mark.xfail(strict=True, reason="Prose keeps one Loc: formula offsets cross the include")
@pytest.mark.parametrize(
    ("main", "part", "where"),
    [
        ("## S\n\n{{< include part.md >}}\n\nafter $\\badmacro{y}$\n", "one\n", "01-a.md:5"),
        ("## S\n\nintro\n{{< include part.md >}}\n", "one\n\ntwo $\\badmacro{y}$\n", "part.md:3"),
        ("## S\n\n{{< lipsum 2 >}}\n\nafter $\\badmacro{y}$\n", "", "01-a.md:5"),
    ],
)
def test_a_formula_after_lines_of_another_file_is_at_its_line(
    tmp_path: Path, main: str, part: str, where: str
):
    write_lesson(tmp_path, {"01-a.md": main, "part.md": part})
    assert_failed_cleanly(tmp_path, ["cat"], f"content/cat/{where}", says="badmacro")
