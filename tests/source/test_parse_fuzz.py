"""Generated Markdown: the parser and the renderer return a deck or raise the project's own
error, located inside the file, never another exception.

The generator mixes what the scanner treats specially (fences, cells and their options, `:::`
blocks, quizzes, headings, `---`, pauses, inline expressions, math, Chinese text) with noise.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deck.errors import DeckError, Diagnostic
from deck.model import (
    CellResult,
    Columns,
    Div,
    Figure,
    Lesson,
    Loc,
    Quiz,
    Section,
    SectionResult,
)
from deck.render.deck import render_lesson
from deck.source.folder import load_lesson
from deck.source.scanner import parse_section

SPECIAL_LINES = [
    "",
    "",
    "---",
    "...",
    ". . .",
    "# 第一节",
    "## 标题 {.small}",
    "## 标题 {.bad",
    '## 标题 {#id key="v"}',
    "```",
    "```python",
    "```{python}",
    "```{r}",
    "~~~",
    "````",
    "#| label: fig-a",
    "#| label: 01-a-1",
    '#| label: "x\\n"',
    "#| echo: true",
    "#| echo: maybe",
    "#| fig-alt: 图 `{python} n`",
    "#| fig-cap: 注 $x^2$",
    "#| fig-cap: 坏 $\\bad{1}$",
    "#| timeout: -1",
    "#| date: 2020-13-01",
    "#| nope",
    "x = 1",
    ":::",
    "::::",
    "::: notes",
    "::: quiz",
    '::: {.quiz answer="str(1)"}',
    "::: explain",
    ":::: columns",
    '::: {.column width="40%"}',
    "::: column",
    "::: {.callout}",
    "::: {bad",
    "- [ ] 甲",
    "- [x] 乙 $y$",
    "  接着 $\\bad{2}$",
    "title: 引言",
    "$$",
    "$$\\text{注意",
    "力}$$",
    "$$\\bad{3}$$",
    "中文 $\\frac{1}{2}$ 文字",
    "坏公式 $\\bad{4}$",
    "值 `{python} x + 1` 与 `{python} f'{y:.2f}'`",
    "`{python} `",
    "价格 $5 和 $6",
    "`$HOME` 与 \\$",
]

PIECES = [*"ab #-:.`{}[]$\\|x注意力，。\t", "{python} ", "$$", "```", "\\text{"]
NOISE = st.lists(st.sampled_from(PIECES), max_size=20).map("".join)
LINE = st.one_of(st.sampled_from(SPECIAL_LINES), NOISE)
PROSE = st.sampled_from(
    [
        "中文段落第一行",
        "第二行继续",
        "第三行 $\\bad{5}$ 坏公式",
        "英文 text with $x_i$ and `{python} n`",
        "$$\\text{注意",
        "力}$$",
        "$$\\bad{6}$$",
        "**粗体** 与 `code $x$`",
        "- 列表项 $a$",
        "注 $\\bad{10}$",
        "",
    ]
)
OPTIONS = st.sampled_from([line for line in SPECIAL_LINES if line.startswith("#|")])


def block(draw: Any, opening: str, inner: list[str], closing: str = ":::") -> list[str]:
    """A block, now and then left unclosed."""
    return [opening, *inner, *([closing] if draw(st.integers(0, 19)) else [])]


@st.composite
def prose_lines(draw: Any) -> list[str]:
    """Prose, now and then with a code block in it (in notes: a block of its own)."""
    lines = draw(st.lists(PROSE, min_size=1, max_size=5))
    if draw(st.booleans()):
        at = draw(st.integers(0, len(lines)))
        lines[at:at] = ["```python", "y = 2", "```"]
    return lines


@st.composite
def chunks(draw: Any) -> list[str]:
    """A run of lines with structure: a cell, notes, a quiz, columns, prose or noise."""
    kinds = ["cell", "notes", "notes", "quiz", "columns", "prose", "prose", "heading", "noise"]
    kind = draw(st.sampled_from(kinds))
    if kind == "cell":
        options = draw(st.lists(OPTIONS, max_size=3))
        return block(draw, "```{python}", [*options, "x = 1"], "```")
    if kind == "notes":
        return block(draw, "::: notes", draw(prose_lines()))
    if kind == "quiz":
        choices = []
        wrong = st.sampled_from(["- [ ] 甲 $a$", "- [ ] 丙", "- [ ] $\\bad{7}$"])
        marks = draw(st.sampled_from([["x", " "], [" ", "x", " "], ["x"], [" ", " "]]))
        for mark in marks:
            choices.append(f"- [x] 乙 {len(choices)}" if mark == "x" else draw(wrong))
            more = st.sampled_from(["  续 $b$", "  $\\bad{8}$", ""])
            choices += draw(st.lists(more, max_size=2))
        explain = block(draw, "::: explain", draw(prose_lines())) if draw(st.booleans()) else []
        return block(draw, "::: quiz", [*draw(prose_lines()), "", *choices, *explain])
    if kind == "columns":
        left = block(draw, '::: {.column width="40%"}', draw(prose_lines()))
        right = block(draw, "::: column", draw(prose_lines()))
        return block(draw, ":::: columns", [*left, *right], "::::")
    if kind == "prose":
        return draw(prose_lines())
    if kind == "heading":
        return [draw(st.sampled_from(["# 一节 $h$", "## 页 $\\bad{9}$", "## 页 {.small}"])), ""]
    return draw(st.lists(LINE, max_size=4))


@st.composite
def section_texts(draw: Any) -> str:
    lines = [line for chunk in draw(st.lists(chunks(), max_size=8)) for line in chunk]
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    return ending.join(lines) + draw(st.sampled_from(["", ending]))


def line_count(text: str) -> int:
    return max(1, text.count("\n") + (0 if text.endswith("\n") else 1))


def locs(section: Section):
    """Every location the parsed section carries."""
    yield from (e.loc for e in section.inlines)
    for slide in section.slides:
        yield slide.loc
        stack = list(slide.blocks)
        while stack:
            block = stack.pop()
            yield block.loc
            if isinstance(block, Columns):
                for column in block.columns:
                    yield column.loc
                    stack.extend(column.blocks)
            elif isinstance(block, Div):
                stack.extend(block.blocks)
            elif isinstance(block, Quiz):
                yield from (c.loc for c in block.choices)


def assert_inside(loc: Loc, path: str, lines: int) -> None:
    assert loc.path == path and 1 <= loc.line <= lines, (loc, lines)


FAST = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", 200)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)


@FAST
@given(section_texts())
def test_parse_section_locates_everything_inside_the_file(text: str):
    section, problems = parse_section(Path("01-a.md"), "01-a.md", text)
    n = line_count(text)
    for problem in problems:
        assert isinstance(problem, Diagnostic)
        assert_inside(problem.loc, "01-a.md", n)
    for loc in locs(section):
        assert_inside(loc, "01-a.md", n)


@FAST
@given(section_texts(), st.binary(max_size=4), st.integers(min_value=0, max_value=400))
@pytest.mark.slow
def test_load_lesson_returns_a_deck_or_a_deck_error_inside_the_file(
    text: str, junk: bytes, at: int
):
    data = text.encode("utf-8")
    at = min(at, len(data))
    data = data[:at] + junk + data[at:]  # sometimes not UTF-8 any more
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "lesson"
        folder.mkdir()
        (folder / "lesson.yml").write_text("title: T\ntitle-slide: false\n", "utf-8")
        path = folder / "01-a.md"
        path.write_bytes(data)
        n = max(1, data.count(b"\n") + (0 if data.endswith(b"\n") else 1))
        try:
            lesson = load_lesson(folder)
        except DeckError as err:
            assert err.diagnostics
            for problem in err.diagnostics:
                assert Path(problem.loc.path).name == "01-a.md"
                assert 1 <= problem.loc.line <= n, (problem, n)
            return
        for warning in lesson.warnings:
            assert 1 <= warning.loc.line <= n
        for loc in locs(lesson.sections[0]):
            assert 1 <= loc.line <= n


class FakeKaTeX:
    """KaTeX without Node: every formula renders, except those containing `\\bad`."""

    def __init__(self, cache_file: Path | None):
        pass

    def use_macros(self, macros: dict[str, str]) -> None:
        pass

    def prepare(self, formulas: set[tuple[str, bool]]) -> None:
        pass

    def html(self, tex: str, display: bool) -> str | None:
        return None if "\\bad" in tex else f"<span class=katex>{len(tex)}</span>"

    def error(self, tex: str, display: bool) -> str | None:
        return "bad formula"


def stand_in_results(lesson: Lesson) -> dict[str, SectionResult]:
    """As if every cell ran and made one figure named after its line."""
    return {
        s.name: SectionResult(
            key="k",
            cells=tuple(
                CellResult(c.loc.line, (), (Figure(f"f{c.loc.line}.svg", 4, 3),), 0)
                for c in s.cells()
            ),
            inline={e.expr: "1" for e in s.inlines},
            seconds=0.0,
            figure_dir=".",
        )
        for s in lesson.sections
    }


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 150)), deadline=None, database=None)
@given(section_texts())
def test_render_reports_formulas_at_their_own_lines(text: str):
    section, problems = parse_section(Path("01-a.md"), "01-a.md", text)
    if any(p.severity == "error" for p in problems):
        return
    lesson = Lesson("fuzz", Path("."), (section,))
    lines = text.replace("\r\n", "\n").split("\n")
    with mock.patch("deck.render.deck.KaTeX", FakeKaTeX):
        try:
            deck = render_lesson(lesson, stand_in_results(lesson))
        except DeckError as err:
            for problem in err.diagnostics:
                assert_inside(problem.loc, "01-a.md", line_count(text))
                if problem.code == "math":
                    # The line where the rejected formula starts: it holds the `\bad`, or the
                    # `$$` of a display formula that goes on over more lines.
                    line = lines[problem.loc.line - 1]
                    assert "\\bad" in line or "$$" in line, (problem, text)
            return
    assert "\u2063" not in deck.html  # every placeholder was replaced
