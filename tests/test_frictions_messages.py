"""Issue 33, the messages a lecturer new to the tool met in their first hour: each says what
to write, at the line to write it."""

from __future__ import annotations

import contextlib
import re
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from catalogue import line_of, write_lesson
from deck.errors import DeckError, Diagnostic, Loc
from deck.execute.hints import other_section_hint
from deck.execute.raised import raised_in
from deck.show import table, to_output
from deck.source.folder import load_lesson
from deck.source.lessonyml import lesson_settings
from deck.source.scanner import parse_section
from fixture_build import run_cli


def problems(text: str) -> list[str]:
    return [str(d) for d in parse_section(Path("s.md"), "s.md", text)[1]]


# --- quizzes --------------------------------------------------------------------------------

UNCLOSED = """\
## Q

::: quiz
Why?

- [ ] a
- [x] b

## Next

Text.

::: notes
2 min.
:::
"""


def test_a_quiz_without_its_closing_line_is_one_error_naming_where_it_opened():
    assert problems(UNCLOSED) == [
        "s.md:3: error [parse] `::: quiz` opened at s.md:3 is not closed "
        "(`:::` missing before line 9)"
    ]


def test_the_lines_after_an_unclosed_quiz_are_read_as_the_file_s_own():
    section, _ = parse_section(Path("s.md"), "s.md", UNCLOSED)
    assert [s.title for s in section.slides] == ["Q", "Next"]
    assert [type(b).__name__ for b in section.slides[1].blocks] == ["Prose", "Notes"]


def test_an_unclosed_quiz_at_the_end_of_the_file_is_said_once():
    text = "## Q\n\n::: quiz\nWhy?\n\n- [ ] a\n- [x] b\n\nMore text.\n"
    assert problems(text) == [
        "s.md:3: error [parse] `::: quiz` opened at s.md:3 is not closed "
        "(`:::` missing before line 9)"
    ]


def test_a_block_opened_after_the_choices_names_what_may_follow_them():
    text = "## Q\n\n::: quiz\nWhy?\n\n- [ ] a\n- [x] b\n\n::: notes\n2 min.\n:::\n"
    assert problems(text) == [
        "s.md:3: error [parse] `::: quiz` opened at s.md:3 is not closed "
        "(`:::` missing before line 9; only `::: explain` may follow the choices)"
    ]


@pytest.mark.parametrize("first", [True, False], ids=["first choice", "later choice"])
def test_a_choice_without_a_space_in_its_brackets_says_how_to_write_it(first: bool):
    choices = ["- [] basic", "- [x] b", "- [ ] c"]
    if not first:
        choices[0], choices[2] = choices[2], choices[0]
    text = "## Q\n\n::: quiz\nWhy?\n\n" + "\n".join(choices) + "\n:::\n"
    line = 6 if first else 8
    assert problems(text) == [
        f"s.md:{line}: error [quiz] write `- [ ]` (a space between the brackets) for a choice"
    ]


@pytest.mark.parametrize("choice", ["-[x] b", "- [x]b", "- [X ] b"])
def test_other_near_choices_say_how_a_choice_is_written(choice: str):
    text = f"## Q\n\n::: quiz\nWhy?\n\n- [ ] a\n- [ ] c\n{choice}\n:::\n"
    assert problems(text) == [
        "s.md:8: error [quiz] write a choice as `- [ ] text` (`- [x] text` for the right one)"
    ]


# --- lesson.yml -----------------------------------------------------------------------------


def test_a_top_level_key_misspelt_in_lesson_yml_is_a_warning_naming_the_nearest():
    found: list[Diagnostic] = []
    lesson_settings("title: T\nwidget:\n  - widgets/bars\n", "lesson.yml", None, found)
    assert [str(d) for d in found] == [
        "lesson.yml:2: warning [config] unknown key `widget` is ignored (did you mean `widgets`?)"
    ]


def test_the_warning_is_reported_with_the_errors_it_explains(tmp_path: Path):
    folder = write_lesson(
        tmp_path,
        {
            "lesson.yml": "title: T\nwidget:\n  - widgets/bars\n",
            "01-a.md": '## A\n\n::: {.widget kind="bars" data="1"}\n:::\n',
        },
    )
    with pytest.raises(DeckError) as failed:
        load_lesson(folder)
    said = [f"{d.loc.line} {d.message}" for d in failed.value.diagnostics]
    assert "2 unknown key `widget` is ignored (did you mean `widgets`?)" in said
    assert failed.value.diagnostics[0].severity == "error"  # (the errors first)


# --- cell options ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "meant"), [("fig_alt", "fig-alt"), ("lable", "label"), ("fig-caption", "fig-cap")]
)
def test_a_misspelt_cell_option_names_the_nearest(written: str, meant: str):
    text = f"## A\n\n```{{python}}\n#| {written}: x\nx = 1\n```\n"
    assert problems(text) == [
        f"s.md:4: error [option] unknown cell option `{written}` (did you mean `{meant}`?)"
    ]


def test_an_option_like_no_known_one_still_lists_them_all():
    (said,) = problems("## A\n\n```{python}\n#| colour: red\nx = 1\n```\n")
    assert "unknown cell option `colour` (known: code-line-numbers, echo," in said


# --- deck.show.table ------------------------------------------------------------------------


def cells(data: Any, **options: Any) -> list[list[str]]:
    shown = table(data, **options)._repr_html_()
    rows = re.findall(r"<tr>(.*?)</tr>", shown)
    return [re.findall(r"<td>(.*?)</td>", row) for row in rows if "<td>" in row]


def test_whole_numbers_show_without_decimals_and_data_as_given():
    assert cells([[1.0, 2.8, 7], [2.0, 3.1, 12]]) == [["1", "2.8", "7"], ["2", "3.1", "12"]]
    assert cells(np.eye(2)) == [["1", "0"], ["0", "1"]]
    assert cells([[12345678.0], [-0.0]]) == [["12345678"], ["0"]]  # (not `1.23e+7`)


def test_a_column_shows_its_values_with_one_number_of_decimals():
    assert cells([[2.8, 1], [0.25, 2.5]]) == [["2.80", "1.0"], ["0.25", "2.5"]]
    assert cells(np.array([1.0, 2.5, 3.25])) == [["1.00", "2.50", "3.25"]]  # one row: one


def test_computed_floats_show_at_most_three_decimals_as_before():
    assert cells([[1 / 3, 2 / 3], [1e-5, 1234567.5]]) == [["0.333", "0.667"], ["1e-5", "1.23e+6"]]


def test_digits_keeps_its_meaning_and_a_cell_s_last_array_its_three_decimals():
    assert cells([[1.0, 0.5], [0.25, 2]], digits=2) == [["1.00", "0.50"], ["0.25", "2"]]
    output = to_output(np.array([[0.25, 1.0]]))
    assert output is not None and "<td>0.250</td><td>1.000</td>" in output.data


def test_a_column_may_have_its_own_format_by_label_or_index():
    rows = [["a", 0.123, 1234567], ["b", 0.5, 12]]
    formats = {"rate": "{:.1%}", 2: "{:,}"}
    shown = cells(rows, cols=["", "rate", "n"], formats=formats)
    assert shown == [["a", "12.3%", "1,234,567"], ["b", "50.0%", "12"]]
    assert cells([[0.5, "<b>"]], formats={0: lambda v: f"<i>{v}</i>"}) == [
        ["&lt;i&gt;0.5&lt;/i&gt;", "&lt;b&gt;"]
    ]
    with pytest.raises(ValueError, match=r"no column 'rates' \(columns: \['', 'rate', 'n'\]\)"):
        table(rows, cols=["", "rate", "n"], formats={"rates": "{:.1%}"})


# --- cell errors ----------------------------------------------------------------------------

PROBLEM = """\
## One

```{python}
#| echo: false
values = [1, 2, 3]
import numpy as np
```
"""
BOOTCI = """\
\"\"\"The lecturer's own module.\"\"\"
import ast


def read_level(text):
    return ast.literal_eval(text)


def applied(f, x):
    return f(x)
"""
USES = """\
## Two

```{python}
from bootci import read_level
level = read_level("0.9 +")
```
"""
MORE = "## Three\n\n```{python}\nprint(np.mean(values))\n```\n"


def test_a_name_bound_in_another_section_is_named_at_its_binding_line(tmp_path: Path):
    folder = write_lesson(tmp_path, {"01-problem.md": PROBLEM, "02-uses.md": USES})
    lesson = load_lesson(folder)
    said = Diagnostic(
        Loc(lesson.sections[1].rel, 10), "exec", "NameError: name 'np' is not defined"
    )
    hinted = other_section_hint(lesson, said, lesson.sections[1])
    import_line = line_of(PROBLEM, "import numpy")
    assert f"`np` is bound in {lesson.sections[0].rel}:{import_line}, but" in hinted.message


def test_an_error_passing_through_a_lesson_module_is_said_at_its_line(tmp_path: Path):
    folder = write_lesson(tmp_path, {"bootci.py": BOOTCI})
    path = "content/cat/02-uses.md"  # as messages show the section
    code = 'from bootci import read_level\nlevel = read_level("0.9 +")\n'
    with contextlib.chdir(tmp_path), _on_path(folder):
        try:
            exec(compile(code, path, "exec"), {})
        except SyntaxError as exc:
            frames = traceback.extract_tb(exc.__traceback__)[1:]  # (from the cell's frame)
    where = raised_in(frames, path, str(folder / "02-uses.md"), str(folder))
    assert where == " (raised in content/cat/bootci.py:6 read_level)"
    assert raised_in(frames[:1], path, str(folder / "02-uses.md"), str(folder)) == ""
    assert frames[-1].filename.endswith("ast.py")  # (named when no lesson module is passed)
    library = raised_in(frames, path, str(tmp_path / "x" / "02-uses.md"), str(tmp_path / "x"))
    assert library.startswith(" (raised in ast.py:")
    # the module calls back into the cell, whose own code calls the library: not the module's
    back = 'from bootci import applied\nimport ast\napplied(ast.literal_eval, "0.9 +")\n'
    back = back.replace("ast.literal_eval", "lambda s: ast.literal_eval(s)")
    with contextlib.chdir(tmp_path), _on_path(folder):
        try:
            exec(compile(back, path, "exec"), {})
        except SyntaxError as exc:
            frames = traceback.extract_tb(exc.__traceback__)[1:]
    assert raised_in(frames, path, str(folder / "02-uses.md"), str(folder)).startswith(
        " (raised in ast.py:"
    )


@contextlib.contextmanager
def _on_path(folder: Path) -> Iterator[None]:
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("bootci", None)


@pytest.mark.slow
def test_cli_the_binding_line_and_the_lesson_module_line_are_named(tmp_path: Path):
    files = {"01-problem.md": PROBLEM, "02-uses.md": USES, "03-more.md": MORE}
    files["bootci.py"] = BOOTCI
    write_lesson(tmp_path, files)
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 1
    uses = "content/cat/02-uses.md"
    import_line = line_of(PROBLEM, "import numpy")
    assert f"{uses}:{line_of(USES, 'level =')}: error [exec] SyntaxError: " in ran.stderr
    assert "(raised in content/cat/bootci.py:6 read_level)" in ran.stderr
    assert f"`np` is bound in content/cat/01-problem.md:{import_line}, but each" in ran.stderr
