"""The line scanner: slides, blocks, options, attributes and their source lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, write_lesson
from deck.errors import DeckError
from deck.model import Cell, Code, Columns, Div, Notes, Pause, Prose, Quiz, placeholder
from deck.source.folder import load_lesson
from deck.source.scanner import parse_section
from fixture_build import run_cli


def parse(text: str):
    section, problems = parse_section(Path("s.md"), "s.md", text)
    return section, problems


def test_headings_start_slides_with_levels_and_lines():
    section, problems = parse("# Part\n\nintro\n\n## One\n\ntext\n\n## Two\n")
    assert problems == []
    assert [(s.title, s.level, s.loc.line) for s in section.slides] == [
        ("Part", 1, 1),
        ("One", 2, 5),
        ("Two", 2, 9),
    ]


def test_rule_after_blank_line_starts_untitled_slide():
    section, _ = parse("## A\n\ntext\n\n---\n\nmore\n")
    assert [s.title for s in section.slides] == ["A", None]
    assert section.slides[1].loc.line == 5
    assert section.slides[1].blocks[0].text == "more"


def test_rule_right_after_text_is_not_a_slide_break():
    section, _ = parse("## A\nSetext heading\n---\n")
    assert len(section.slides) == 1


def test_breaks_inside_fences_are_code():
    text = "## A\n\n```python\n## not a slide\n---\n```\n\n~~~~\n# nor this\n~~~~\n"
    section, problems = parse(text)
    assert problems == []
    assert len(section.slides) == 1
    blocks = section.slides[0].blocks
    assert [type(b) for b in blocks] == [Code, Code]
    assert blocks[0].text == "## not a slide\n---"
    assert blocks[0].loc.line == 3


def test_breaks_inside_cells_are_code():
    section, _ = parse("## A\n\n```{python}\n# comment\n---\nx = 1\n```\n")
    assert len(section.slides) == 1
    cell = section.slides[0].blocks[0]
    assert isinstance(cell, Cell) and "---" in cell.code


def test_cell_options_and_code_line():
    text = "## A\n\n```{python}\n#| label: fig-a\n#| echo: true\n#| timeout: 5\nx = 1\n```\n"
    section, problems = parse(text)
    assert problems == []
    cell = section.slides[0].blocks[0]
    assert cell.options == {"label": "fig-a", "echo": True, "timeout": 5}
    assert cell.code == "x = 1"
    assert cell.loc.line == 3
    assert cell.code_line == 7


def test_unknown_cell_option_is_reported_at_its_line():
    _, problems = parse("## A\n\n```{python}\n#| lable: x\nx = 1\n```\n")
    assert [(p.loc.line, p.code) for p in problems] == [(4, "option")]
    assert "lable" in problems[0].message


def test_bad_option_value_is_reported():
    _, problems = parse("## A\n\n```{python}\n#| echo: maybe\n#| timeout: -1\n```\n")
    assert [p.loc.line for p in problems] == [4, 5]


def test_unclosed_fence_is_reported_at_its_opening():
    _, problems = parse("## A\n\ntext\n\n```{python}\nx = 1\n\n## B\n")
    assert [(p.loc.line, p.code) for p in problems] == [(5, "parse")]
    assert "never closed" in problems[0].message


def test_unclosed_div_is_reported_at_its_opening():
    _, problems = parse("## A\n\n::: notes\nsay this\n")
    assert [(p.loc.line, p.code) for p in problems] == [(3, "parse")]


def test_stray_div_close_is_reported():
    _, problems = parse("## A\n\ntext\n:::\n")
    assert [p.loc.line for p in problems] == [4]


def test_all_problems_of_a_file_are_reported_together():
    text = "## A {.x\n\n```{python}\n#| nope: 1\n```\n\n::: notes\nunclosed\n"
    _, problems = parse(text)
    assert [p.loc.line for p in problems] == [1, 4, 7]


def test_slide_attributes():
    section, problems = parse('## Title {.small .dense #intro background-color="#fff"}\n')
    assert problems == []
    slide = section.slides[0]
    assert slide.title == "Title"
    assert slide.classes == ("small", "dense")
    assert slide.attrs == {"id": "intro", "background-color": "#fff"}


def test_unreadable_slide_attributes_are_an_error():
    _, problems = parse('## Title {.ok bad"}\n')
    assert [(p.loc.line, p.code) for p in problems] == [(1, "attr")]


def test_inline_expressions_become_placeholders_with_lines():
    section, _ = parse("## A\n\nvalue `{python} x + 1` and\n`{python} f'{y:.2f}'` here\n")
    assert [(e.expr, e.loc.line) for e in section.inlines] == [("x + 1", 3), ("f'{y:.2f}'", 4)]
    prose = section.slides[0].blocks[0]
    assert placeholder(0) in prose.text and placeholder(1) in prose.text
    assert "{python}" not in prose.text


def test_notes_pause_columns_and_divs():
    text = (
        "## A\n\nfirst\n\n. . .\n\nsecond\n\n"
        ':::: columns\n::: {.column width="40%"}\nleft\n:::\n::: column\nright\n:::\n::::\n\n'
        "::: {.callout}\nboxed\n:::\n\n::: notes\nsay `{python} n`\n:::\n"
    )
    section, problems = parse(text)
    assert problems == []
    blocks = section.slides[0].blocks
    assert [type(b) for b in blocks] == [Prose, Pause, Prose, Columns, Div, Notes]
    columns = blocks[3]
    assert [c.width for c in columns.columns] == ["40%", None]
    assert columns.columns[1].blocks[0].text == "right"
    assert blocks[4].classes == ("callout",)
    assert blocks[5].loc.line == 22


def test_quiz_with_marked_answer_and_explanation():
    text = (
        "## Q\n\n::: quiz\nWhy?\n\n- [ ] `{python} a`\n- [x] b\n- [ ] c\n"
        "\n::: explain\nBecause.\n:::\n:::\n"
    )
    section, problems = parse(text)
    assert problems == []
    quiz = section.slides[0].blocks[0]
    assert isinstance(quiz, Quiz)
    assert quiz.question.strip() == "Why?"
    assert [c.correct for c in quiz.choices] == [False, True, False]
    assert [c.loc.line for c in quiz.choices] == [6, 7, 8]
    assert quiz.explanation.strip() == "Because."


def test_quiz_answer_by_expression():
    text = '## Q\n\n::: {.quiz answer="str(2 + 2)"}\nSum?\n\n- [ ] 3\n- [ ] 4\n:::\n'
    section, problems = parse(text)
    assert problems == []
    quiz = section.slides[0].blocks[0]
    assert quiz.answer is not None and quiz.answer.expr == "str(2 + 2)"
    assert quiz.answer in section.inlines


@pytest.mark.parametrize(
    "body",
    ["- [ ] a\n- [ ] b\n", "- [x] a\n- [x] b\n", "- [x] only\n"],
    ids=["no answer", "two answers", "one choice"],
)
def test_bad_quizzes_are_reported(body: str):
    _, problems = parse(f"## Q\n\n::: quiz\nWhy?\n\n{body}:::\n")
    assert [(p.loc.line, p.code) for p in problems] == [(3, "quiz")]


def text_line(text: str, loc_line: int, needle: str) -> int:
    """The file line of `needle` in a block's text, by the rule that the text's line k is the
    file's line `loc.line + k`."""
    (k,) = [k for k, line in enumerate(text.split("\n")) if needle in line]
    return loc_line + k


def test_texts_of_notes_and_quizzes_keep_their_file_lines():
    text = (
        "## A\n\n::: notes\n\nfirst $a$\n\n\n```python\nx = 1\n```\n\nthird $b$\n:::\n\n"
        "::: quiz\nWhy\n$q$?\n\n- [ ] one\n  more $c$\n- [x] two\n\n::: explain\n\n"
        "because $d$\n:::\n:::\n"
    )
    section, problems = parse(text)
    assert problems == []
    lines = text.split("\n")
    notes, quiz = section.slides[0].blocks
    choice = quiz.choices[0]
    for needle, part, loc in [
        ("$a$", notes.text, notes.loc),
        ("$b$", notes.text, notes.loc),
        ("$q$", quiz.question, quiz.loc),
        ("$c$", choice.text, choice.loc),
        ("$d$", quiz.explanation, quiz.loc),
    ]:
        assert needle in lines[text_line(part, loc.line, needle) - 1], needle


def test_a_choice_continued_after_a_blank_line_is_reported():
    _, problems = parse("## Q\n\n::: quiz\nWhy?\n\n- [ ] a\n\n  more\n- [x] b\n:::\n")
    assert [(p.loc.line, p.code) for p in problems] == [(8, "quiz")]


def test_a_file_starting_with_a_rule_keeps_its_first_slide():
    section, problems = parse("---\n\nfirst slide\n\n---\n\nsecond\n")
    assert problems == []
    assert [s.blocks[0].text for s in section.slides] == ["first slide", "second"]
    assert [s.loc.line for s in section.slides] == [1, 5]


def test_front_matter_is_shown_as_a_slide_with_a_warning():
    section, problems = parse("---\ntitle: Intro\n---\n\n## A\n")
    assert [(p.loc.line, p.severity) for p in problems] == [(1, "warning")]
    assert "front matter" in problems[0].message
    assert section.slides[0].blocks[0].text == "title: Intro\n---"
    assert section.slides[1].loc.line == 5


def test_an_option_given_twice_is_reported_at_the_second():
    _, problems = parse("## A\n\n```{python}\n#| echo: true\n#| echo: false\nx = 1\n```\n")
    assert [(p.loc.line, p.code) for p in problems] == [(5, "option")]


@pytest.mark.parametrize("value", ["2020-13-01", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["])
def test_option_values_yaml_cannot_read_are_reported(value: str):
    _, problems = parse(f"## A\n\n```{{python}}\n#| label: {value}\nx = 1\n```\n")
    assert [(p.loc.line, p.code) for p in problems] == [(4, "option")]


def test_missing_lesson_yml_is_an_error(tmp_path: Path):
    (tmp_path / "01-a.md").write_text("## A\n")
    with pytest.raises(DeckError) as err:
        load_lesson(tmp_path)
    assert [d.code for d in err.value.diagnostics] == ["lesson"]
    assert "lesson.yml" in str(err.value)


def test_lesson_sections_in_name_order_and_all_errors_collected(tmp_path: Path):
    (tmp_path / "lesson.yml").write_text("title: T\ntitle-slide: false\n")
    (tmp_path / "02-b.md").write_text("## B\n\n::: notes\n")
    (tmp_path / "01-a.md").write_text("## A\n\n```{python}\n")
    (tmp_path / "notes.md").write_text("not a section")
    with pytest.raises(DeckError) as err:
        load_lesson(tmp_path)
    errors = [d for d in err.value.diagnostics if d.severity == "error"]
    assert [(Path(d.loc.path).name, d.loc.line) for d in errors] == [("01-a.md", 3), ("02-b.md", 3)]
    # (its warnings come after them: `notes.md` is not read)
    assert [Path(d.loc.path).name for d in err.value.diagnostics[2:]] == ["notes.md"]
    (tmp_path / "02-b.md").write_text("## B\n")
    (tmp_path / "01-a.md").write_text("## A\n")
    lesson = load_lesson(tmp_path)
    assert [s.name for s in lesson.sections] == ["01-a", "02-b"]


def test_braces_in_heading_math_are_not_attributes():
    first, second = "除以 $\\sqrt{d_k}$？", "分数 $\\frac{a}{b}$"
    section, problems = parse(f"## {first}\n\n## {second} {{.small}}\n")
    assert problems == []
    assert [s.title for s in section.slides] == [first, second]
    assert section.slides[1].classes == ("small",)


def test_inline_expressions_in_figure_caption_and_alt():
    options = "#| fig-cap: n = `{python} n`\n#| fig-alt: a `{python} m`\n"
    text = f"## A\n\n```{{python}}\n{options}x = 1\n```\n"
    section, problems = parse(text)
    assert problems == []
    cell = section.slides[0].blocks[0]
    assert cell.options["fig-cap"] == f"n = {placeholder(0)}"
    assert [(e.expr, e.loc.line) for e in section.inlines] == [("n", 4), ("m", 5)]


@pytest.mark.parametrize("label", ["x\n", "x/y", "../x", "图", "-x", "a" * 101, "x.svg", ""])
def test_labels_that_are_not_safe_file_names_are_reported(label: str):
    _, problems = parse(f"## A\n\n```{{python}}\n#| label: {json.dumps(label)}\nx = 1\n```\n")
    assert [(p.loc.line, p.code) for p in problems] == [(4, "option")]


@pytest.mark.parametrize("label", ["fig-1", "A_b", "0x", "a" * 100])
def test_safe_labels_are_accepted(label: str):
    _, problems = parse(f"## A\n\n```{{python}}\n#| label: {label}\nx = 1\n```\n")
    assert problems == []


def test_a_file_with_a_byte_order_mark_and_crlf_lines_reads_like_plain_utf8(tmp_path: Path):
    (tmp_path / "lesson.yml").write_bytes(b"\xef\xbb\xbftitle: T\r\ntitle-slide: false\r\n")
    (tmp_path / "01-a.md").write_bytes(b"\xef\xbb\xbf## A\r\n\r\ntext\r\n\r\n## B\r\n")
    lesson = load_lesson(tmp_path)
    assert lesson.config.title == "T" and lesson.warnings == ()
    slides = lesson.sections[0].slides
    assert [(s.title, s.loc.line) for s in slides] == [("A", 1), ("B", 5)]
    assert slides[0].blocks[0].text == "text"


# ---- through the command line -------------------------------------------------------------


@pytest.mark.slow
def test_cli_a_section_file_starting_with_a_rule_keeps_its_first_slide(tmp_path: Path):
    write_lesson(tmp_path, {"01-a.md": "---\n\n第一页\n\n---\n\n第二页\n"})
    proc = run_cli(tmp_path, "cat", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "dist/cat/index.html").read_text("utf-8")
    assert "第一页" in html and "第二页" in html
    assert json.loads((tmp_path / "dist/cat/values.json").read_text("utf-8"))["slides"] == 2
    assert "warning" not in proc.stderr


@pytest.mark.slow
def test_cli_front_matter_in_a_section_is_shown_with_a_warning(tmp_path: Path):
    write_lesson(tmp_path, {"01-a.md": "---\ntitle: 引言\n---\n\n## A\n"})
    proc = run_cli(tmp_path, "cat", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    assert "content/cat/01-a.md:1: warning [parse] lines 1-3 look like YAML front matter" in (
        proc.stderr
    )
    assert "title: 引言" in (tmp_path / "dist/cat/index.html").read_text("utf-8")


def test_cli_a_section_file_that_is_not_utf8_is_reported_at_the_bad_line(tmp_path: Path):
    write_lesson(tmp_path, {"01-a.md": "## A\n\nok\n"})
    assert run_cli(tmp_path, "cat", "--no-pdf").returncode == 0
    write_lesson(tmp_path, {"01-a.md": "## A\n\n中文\n注意力".encode("gbk") + b"\n"})
    assert_failed_cleanly(tmp_path, ["cat", "--no-pdf"], "content/cat/01-a.md:3", says="UTF-8")


def test_cli_a_lesson_yml_that_is_not_utf8_is_reported_at_the_bad_line(tmp_path: Path):
    lesson_yml = "lang: zh-CN\ntitle: 标题\n".encode("gbk")
    write_lesson(tmp_path, {"lesson.yml": lesson_yml, "01-a.md": "## A\n"})
    assert_failed_cleanly(tmp_path, ["cat", "--no-pdf"], "content/cat/lesson.yml:2", says="UTF-8")


def test_cli_markdown_files_the_loader_ignores_get_a_note(tmp_path: Path):
    write_lesson(tmp_path, {"01-a.md": "## A\n", "notes.md": "草稿\n", "1a.md": "x\n"})
    proc = run_cli(tmp_path, "cat", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "is not read" in line]
    assert notes == [
        "content/cat/1a.md:1: warning [lesson] 1a.md is not read: section files are named "
        "NN-name.md",
        "content/cat/notes.md:1: warning [lesson] notes.md is not read: section files are named "
        "NN-name.md",
    ]


def test_cli_a_label_with_a_newline_is_an_error_at_its_line(tmp_path: Path):
    write_lesson(tmp_path, {"01-a.md": '## A\n\n```{python}\n#| label: "x\\n"\nx = 1\n```\n'})
    assert_failed_cleanly(tmp_path, ["cat", "--no-pdf"], "content/cat/01-a.md:4", says="label")


def test_cli_labels_equal_but_for_case_are_an_error_at_the_second(tmp_path: Path):
    cell = "```{{python}}\n#| label: {}\nx = 1\n```\n\n"
    write_lesson(tmp_path, {"01-a.md": "## A\n\n" + cell.format("Fig") + cell.format("fig")})
    proc = assert_failed_cleanly(
        tmp_path, ["cat", "--no-pdf"], "content/cat/01-a.md:8", says="label `fig` already used"
    )
    assert "content/cat/01-a.md:3" in proc.stderr
