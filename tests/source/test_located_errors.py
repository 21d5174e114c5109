"""Issue 16, item 5: inputs that used to end in a traceback, a browser timeout or an error
blamed on an innocent cell are each `file:line: error …` (exit 1; exit 2 for usage) within
seconds, and the previous good output stays as it was."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, line_of, write_lesson
from deck.source.config import parse_config
from deck.widgetdata import DataProblem
from fixture_build import run_cli

GOOD = "## 一页\n\n```{python}\nd = {'a': 1.5, 'b': 'x'}\n```\n\n答案是 `{python} d['a']`。\n"
WIDGET = '\n::: {.widget kind="w" data="d"}\n:::\n'
CHECK = """
    from deck.widgetdata import mapping, number, text

    SUMMARY = "{a: number, b: text}"


    def check(data):
        mapping(data, "", ("a", "b"))
        number(data["a"], "a")
        text(data["b"], "b")
        return data
    """
YML = "title: t\nlang: en\nwidgets:\n  - widgets/w\nexec:\n  seed: 0\n  timeout: 20\n"
FILES = {"lesson.yml": YML, "01-a.md": GOOD + WIDGET, "widgets/w.py": CHECK, "widgets/w.js": ""}
SECTION = "content/cat/01-a.md"


def good_build(root: Path) -> None:
    write_lesson(root, FILES)
    ran = run_cli(root, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr


def broken(root: Path, name: str, text: str) -> str:
    """Write `text` (not dedented) as the lesson's file `name`; its path as errors name it."""
    (root / "content/cat" / name).write_text(text, "utf-8")
    return f"content/cat/{name}"


def fails_at(root: Path, where: str | None, says: str, code: int = 1, seconds: float = 15) -> str:
    t0 = time.monotonic()
    ran = assert_failed_cleanly(root, ["cat"], where, says=says, code=code)
    assert time.monotonic() - t0 < seconds, "the error took too long"
    return ran.stderr


@pytest.mark.parametrize("text", ["", "\n\n   \n"])
@pytest.mark.slow
def test_an_empty_section_with_pdfs_on_is_an_error_at_once(tmp_path: Path, text: str):
    good_build(tmp_path)  # (PDFs: the deck would have no page, and the browser waited 120 s)
    where = broken(tmp_path, "02-empty.md", text)
    fails_at(tmp_path, f"{where}:1", "has no slides", seconds=10)


def test_a_lesson_whose_only_section_is_empty_is_an_error(tmp_path: Path):
    good_build(tmp_path)
    broken(tmp_path, "01-a.md", "")
    fails_at(tmp_path, f"{SECTION}:1", "has no slides")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (GOOD + "\n隐形\u2063V5\u2063分隔符。\n", "隐形"),  # an engine placeholder's shape
        (GOOD + "\n只有一个\u2063。\n", "只有一个"),
        ("## 标题\u2063M0\u2063\n\n正文。\n", "标题"),
        ("## A\n\n```{python}\n#| fig-cap: 图\u2063N1\u2063\nx = 1\n```\n", "fig-cap"),
    ],
)
def test_u2063_in_prose_titles_and_captions_is_an_error_at_its_line(
    tmp_path: Path, text: str, needle: str
):
    good_build(tmp_path)
    where = broken(tmp_path, "01-a.md", text)
    fails_at(tmp_path, f"{where}:{line_of(text, needle)}", "U+2063")


def test_u2063_inside_code_is_left_alone(tmp_path: Path):
    text = GOOD + "\n```{python}\n#| echo: true\ns = 'a\u2063b'\nlen(s)\n```\n"
    write_lesson(tmp_path, {**FILES, "01-a.md": text + WIDGET})
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr


def test_3000_nested_blocks_are_an_error_at_the_opener_past_the_limit(tmp_path: Path):
    good_build(tmp_path)
    text = "## A\n\n" + "::: {.box}\n" * 3000 + "深处\n" + ":::\n" * 3000 + "\n## B\n\n`::: x`\n"
    where = broken(tmp_path, "01-a.md", text)
    stderr = fails_at(tmp_path, f"{where}:{3 + 100}", "nest more than 100 deep")
    assert stderr.count(": error") == 1, stderr  # the blocks inside were skipped, not parsed


@pytest.mark.slow
def test_100_nested_blocks_still_build(tmp_path: Path):
    text = "## A\n\n" + "::: {.box}\n" * 100 + "深处 `{python} 6 * 7`\n" + ":::\n" * 100
    write_lesson(tmp_path, {"01-a.md": text})
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    html = (tmp_path / "dist/cat/index.html").read_text("utf-8")
    assert html.count('class="box"') == 100 and "42" in html


@pytest.mark.parametrize("value", ["10**400", "-(10**400)", "[1, [2, 10**309]]"])
def test_a_widget_number_beyond_a_double_is_an_error_at_the_directive(tmp_path: Path, value):
    good_build(tmp_path)
    text = GOOD.replace("'b': 'x'", f"'b': 'x', 'c': {value}") + WIDGET
    text = text.replace("'a': 1.5", f"'a': {value}") if "[" not in value else text
    where = broken(tmp_path, "01-a.md", text)
    path = "`a`" if "[" not in value else "`c[1][1]`"
    stderr = fails_at(tmp_path, f"{where}:{line_of(text, 'widget')}", f"{path} is a whole number")
    assert "OverflowError" not in stderr and "too large for JavaScript" in stderr


def test_widget_data_over_the_output_cap_names_the_limit_and_its_setting(tmp_path: Path):
    good_build(tmp_path)
    broken(tmp_path, "lesson.yml", YML + "  output: 1000\n")
    text = GOOD.replace("'b': 'x'", "'b': 'x' * 5000") + WIDGET
    where = broken(tmp_path, "01-a.md", text)
    stderr = fails_at(tmp_path, f"{where}:{line_of(text, 'widget')}", "`exec.output`")
    assert "not JSON" not in stderr
    size = len(json.dumps({"a": 1.5, "b": "x" * 5000}, ensure_ascii=False))  # the reference
    assert "1,000 characters" in stderr and f"{size:,} characters" in stderr, stderr


@pytest.mark.parametrize("seed", ["-1", "100000000000000000000", "4294967296"])
def test_a_seed_numpy_refuses_is_an_error_at_lesson_yml(tmp_path: Path, seed: str):
    good_build(tmp_path)
    yml = YML.replace("seed: 0", f"seed: {seed}")
    where = broken(tmp_path, "lesson.yml", yml)
    stderr = fails_at(tmp_path, f"{where}:{line_of(yml, 'seed')}", "4,294,967,295")
    assert SECTION not in stderr  # not blamed on a cell


def test_the_seed_range_is_numpys():
    np = pytest.importorskip("numpy")
    for seed, fine in [(0, True), (2**32 - 1, True), (2**32, False), (-1, False)]:
        _, _, found = parse_config(f"exec:\n  seed: {seed}\n", "lesson.yml")
        assert (found == []) is fine, (seed, found)
        try:  # the reference: what numpy itself accepts
            np.random.seed(seed)
            numpy_fine = True
        except ValueError:
            numpy_fine = False
        assert numpy_fine is fine, seed


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", "-1", "0", "1.0e+10"])
def test_a_bad_cell_timeout_is_an_error_at_the_option_line(tmp_path: Path, value: str):
    good_build(tmp_path)
    text = GOOD.replace("```{python}\n", f"```{{python}}\n#| timeout: {value}\n") + WIDGET
    where = broken(tmp_path, "01-a.md", text)
    fails_at(tmp_path, f"{where}:{line_of(text, 'timeout')}", "at most 1,000,000 seconds")


@pytest.mark.parametrize("value", [".inf", ".nan"])
def test_a_bad_lesson_timeout_is_an_error_at_its_line(tmp_path: Path, value: str):
    good_build(tmp_path)
    yml = YML.replace("timeout: 20", f"timeout: {value}")
    where = broken(tmp_path, "lesson.yml", yml)
    fails_at(tmp_path, f"{where}:{line_of(yml, 'timeout')}", "at most 1,000,000 seconds")


def test_a_long_timeout_within_the_limit_is_accepted(tmp_path: Path):
    text = GOOD.replace("```{python}\n", "```{python}\n#| timeout: 1000000\n") + WIDGET
    write_lesson(tmp_path, {**FILES, "01-a.md": text})
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "inf"])
def test_a_bad_deck_lock_timeout_is_a_usage_error(tmp_path: Path, monkeypatch, value: str):
    good_build(tmp_path)
    monkeypatch.setenv("DECK_LOCK_TIMEOUT", value)
    stderr = fails_at(tmp_path, None, "DECK_LOCK_TIMEOUT", code=2)
    assert "must be a number of seconds" in stderr


def test_the_number_check_names_a_huge_whole_number_instead_of_overflowing():
    from deck.widgetdata import number

    with pytest.raises(DataProblem, match="`a` must be a number"):
        number(10**400, "a")
    assert number(2**1000, "a") == 2**1000  # within a double's range


@pytest.mark.parametrize("key", ["title", "subtitle", "footer"])
def test_u2063_in_a_qmd_front_matter_text_is_an_error_at_its_line(tmp_path: Path, key: str):
    text = '---\ntitle: "T"\nformat:\n  revealjs:\n    footer: "F"\n---\n\n## One\n\nhi\n'
    (tmp_path / "talk").mkdir()
    talk = tmp_path / "talk/talk.qmd"
    talk.write_text(text)
    assert run_cli(tmp_path, "talk/talk.qmd", "--no-pdf").returncode == 0
    if key == "subtitle":
        text = text.replace('title: "T"\n', 'title: "T"\nsubtitle: "S \u2063V3\u2063"\n')
    else:
        text = text.replace(f'{key}: "', f'{key}: "\u2063M0\u2063')
    talk.write_text(text)
    where = f"talk/talk.qmd:{line_of(text, key + ':')}"
    assert_failed_cleanly(tmp_path, ["talk/talk.qmd", "--no-pdf"], where, says="U+2063")
