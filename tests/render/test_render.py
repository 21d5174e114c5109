"""The rendered deck's structure: slides, notes, fragments, columns, math, quiz, offline assets."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, write_lesson
from deck import warm
from deck.errors import DeckError
from deck.model import CellResult, Dependency, Figure, Lesson, SectionResult
from deck.render.deck import render_lesson
from deck.source.folder import load_lesson
from fixture_build import Built, copy_fixture, run_cli


class Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    c = Collector()
    c.feed(html)
    return c.tags


def test_one_section_per_slide_with_source_lines(mini: Built):
    html = (mini.out / "index.html").read_text()
    sections = [a for t, a in tags(html) if t == "section"]
    values = json.loads((mini.out / "values.json").read_text())
    assert len(sections) == values["slides"] == 6
    assert sections[0]["id"] == "intro"
    assert sections[0]["data-source"] == "content/mini/01-basics.md:1"
    assert "section-title" in sections[0]["class"]
    assert sections[2]["data-note"] == "x" and "small" in sections[2]["class"]


def test_every_slide_keeps_its_notes(mini: Built):
    html = (mini.out / "index.html").read_text()
    notes = re.findall(r'<aside class="notes">(.*?)</aside>', html, re.S)
    assert len(notes) == 6
    assert "这里讲平方：144。" in notes[1]


def test_inline_values_math_fragments_columns_and_quiz(mini: Built):
    html = (mini.out / "index.html").read_text()
    assert re.search(r'平方的结果是 <span class="value"[^>]*>144</span>', html)  # see test_widgets
    assert 'class="katex"' in html and 'class="katex-display"' in html
    assert '<div class="fragment"><p>第二步出现。</p></div>' in html
    assert '<div class="column" style="width:60%">' in html
    buttons = [a for t, a in tags(html) if t == "button"]
    assert [b["data-correct"] for b in buttons] == ["false", "true", "false"]
    assert "{python}" not in html and "\u2063" not in html


def test_figure_has_alt_and_caption(mini: Built):
    html = (mini.out / "index.html").read_text()
    (img,) = [a for t, a in tags(html) if t == "img"]
    assert img["data-src"] == "figures/parabola.svg" and "src" not in img  # (not slide 1: lazy)
    assert img["alt"] == "一条开口向上的抛物线"
    assert "<figcaption>抛物线" in html
    assert (mini.out / "figures/parabola.svg").read_bytes().startswith(b"<?xml")


def test_array_output_is_a_table(mini: Built):
    html = (mini.out / "index.html").read_text()
    assert '<table class="matrix">' in html
    assert "<td>0.250</td><td>0.750</td>" in html


def test_nothing_is_loaded_from_the_network(mini: Built):
    html = (mini.out / "index.html").read_text()
    refs = [v for _, a in tags(html) for k, v in a.items() if k in ("src", "href") and v]
    assert refs, "expected asset references"
    for ref in refs:
        assert not re.match(r"^(https?:)?//", ref), ref
        assert (mini.out / ref).is_file(), ref
    css = (mini.out / "assets/katex/katex.min.css").read_text()
    for font in re.findall(r"url\((fonts/[^)]+\.woff2)\)", css):
        assert (mini.out / "assets/katex" / font).is_file()


def test_values_record_every_inline_value_with_slide(mini: Built):
    values = json.loads((mini.out / "values.json").read_text())
    recorded = {(v["expr"], v["loc"], v["slide"]) for v in values["values"]}
    assert ("answer", "content/mini/01-basics.md:19", 2) in recorded
    assert ("answer", "content/mini/01-basics.md:26", 2) in recorded  # in the notes
    assert ("min(x * x for x in xs)", "content/mini/02-figure.md:24", 5) in recorded
    (quiz,) = values["quizzes"]
    assert quiz["choices"] == ["6", "9", "5"] and quiz["answer"] == 1
    assert quiz["explanation"] == "平方是自乘：9。"


# ---- rendering without executing: parsed sections with stand-in results ---------------------


def load(root: Path, files: dict[str, str]) -> Lesson:
    return load_lesson(write_lesson(root, files))


def stand_in_results(
    lesson: Lesson, figures: dict[int, list[str]] | None = None
) -> dict[str, SectionResult]:
    """Results as if every cell ran: no outputs, each inline expression shown as `<expr>`, and
    the cell at line N making the figures `figures[N]`."""
    figures = figures or {}
    return {
        s.name: SectionResult(
            key=f"key-{s.name}",
            cells=tuple(
                CellResult(
                    c.loc.line, (), tuple(Figure(f, 4, 3) for f in figures.get(c.loc.line, [])), 0
                )
                for c in s.cells()
            ),
            inline={e.expr: f"<{e.expr}>" for e in s.inlines},
            seconds=0.0,
            figure_dir=str(lesson.path),
        )
        for s in lesson.sections
    }


def render_errors(lesson: Lesson, results: dict[str, SectionResult]) -> list[tuple[int, str]]:
    with pytest.raises(DeckError) as err:
        render_lesson(lesson, results)
    return [(d.loc.line, d.code) for d in err.value.diagnostics]


def test_bad_formulas_are_reported_at_their_own_lines_wherever_they_stand(tmp_path: Path):
    section = """\
        ## 标题 $\\bad{1}$

        中文段落第一行
        第二行继续
        第三行有 $\\frac{1}{$ 坏公式

        ```{python}
        #| fig-alt: 图
        #| fig-cap: 图注 $\\bad{2}$
        x = 1
        ```

        ::: quiz
        问题
        $\\bad{3}$？

        - [ ] 甲
          $\\bad{4}$
        - [x] 乙

        ::: explain

        解释 $\\bad{5}$
        :::
        :::

        ::: notes
        讲解

        $\\bad{6}$
        :::
    """
    lesson = load(tmp_path, {"01-a.md": section})
    lines = (lesson.path / "01-a.md").read_text().split("\n")
    errors = render_errors(lesson, stand_in_results(lesson, {7: ["fig.svg"]}))
    assert all(code == "math" for _, code in errors)
    expected = [k + 1 for k, line in enumerate(lines) if "\\bad" in line or "\\frac{1}{$" in line]
    assert [line for line, _ in errors] == expected == [1, 5, 9, 15, 18, 23, 30]


def test_a_formula_broken_over_chinese_lines_renders_like_the_joined_text(tmp_path: Path):
    lesson = load(tmp_path, {"01-a.md": "## A\n\n$$\\text{注意\n力}$$ 与\n$\\text{头数}$\n"})
    deck = render_lesson(lesson, stand_in_results(lesson))
    annotations = re.findall(
        r'<annotation encoding="application/x-tex">(.*?)</annotation>', deck.html
    )
    assert annotations == ["\\text{注意力}", "\\text{头数}"]


def test_values_are_recorded_in_reading_order(tmp_path: Path):
    names = list("hgfedcba")
    line = " ".join(f"`{{python}} {n}`" for n in names)
    lesson = load(tmp_path, {"01-a.md": f"## A\n\n{line}\n"})
    deck = render_lesson(lesson, stand_in_results(lesson))
    assert [v["expr"] for v in deck.values["values"]] == names


def test_figure_names_made_twice_are_errors_at_the_later_cell(tmp_path: Path):
    cell = "```{{python}}\n#| fig-alt: 图\n{label}x = 1\n```\n\n"
    first = "## A\n\n" + cell.format(label="") + cell.format(label="#| label: p\n")
    second = (
        "## B\n\n" + cell.format(label="#| label: 01-a-1\n") + cell.format(label="#| label: P-2\n")
    )
    lesson = load(tmp_path, {"01-a.md": first, "02-b.md": second})
    figures = {3: ["01-a-1.svg"], 8: ["p.svg", "p-2.svg"]}
    results = stand_in_results(lesson, figures)
    later = results["02-b"]
    results["02-b"] = SectionResult(
        later.key,
        (
            CellResult(3, (), (Figure("01-a-1.svg", 4, 3),), 0),
            CellResult(9, (), (Figure("P-2.svg", 4, 3),), 0),
        ),
        {},
        0,
        later.figure_dir,
    )
    with pytest.raises(DeckError) as err:
        render_lesson(lesson, results)
    found = [(d.loc.path.split("/")[-1], d.loc.line, d.message) for d in err.value.diagnostics]
    assert [(path, line) for path, line, _ in found] == [("02-b.md", 3), ("02-b.md", 9)]
    assert "01-a-1.svg" in found[0][2] and "01-a.md:3" in found[0][2]
    assert "P-2.svg" in found[1][2] and "01-a.md:8" in found[1][2]


# ---- the render cache: a prose edit re-renders only its section --------------------------


THREE_SECTIONS = {
    "01-a.md": "# 一\n\n公式 $a^2$，值 `{python} x`。\n",
    "02-b.md": "## 二\n\n```{python}\n#| fig-alt: 图\nx = 2\n```\n\n::: notes\n讲 $b$\n:::\n",
    "03-c.md": "## 三\n\n::: quiz\n$c$?\n\n- [ ] 1\n- [x] 2\n:::\n",
}


def test_a_prose_edit_re_renders_only_its_section_byte_identically(tmp_path: Path):
    cache = tmp_path / "cache"
    lesson = load(tmp_path, THREE_SECTIONS)
    results = stand_in_results(lesson, {3: ["fig.svg"]})
    assert render_lesson(lesson, results, cache).rendered == ("01-a", "02-b", "03-c")
    assert render_lesson(lesson, results, cache).rendered == ()
    edited = {**THREE_SECTIONS, "02-b.md": THREE_SECTIONS["02-b.md"].replace("讲", "再讲")}
    lesson = load(tmp_path, edited)
    cached = render_lesson(lesson, results, cache)
    assert cached.rendered == ("02-b",)
    full = render_lesson(lesson, results)
    assert full.rendered == ("01-a", "02-b", "03-c")
    assert "再讲" in cached.html
    assert cached.html.encode() == full.html.encode()
    assert json.dumps(cached.values, ensure_ascii=False) == json.dumps(
        full.values, ensure_ascii=False
    )
    assert cached.figures == full.figures


def test_a_changed_result_or_slide_number_shift_renders_correctly(tmp_path: Path):
    cache = tmp_path / "cache"
    lesson = load(tmp_path, THREE_SECTIONS)
    results = stand_in_results(lesson)
    render_lesson(lesson, results, cache)
    changed = {**results, "01-a": SectionResult("key-01-a", (), {"x": "42"}, 0.0)}
    assert render_lesson(lesson, changed, cache).rendered == ("01-a",)
    longer = {**THREE_SECTIONS, "01-a.md": THREE_SECTIONS["01-a.md"] + "\n## 新\n\n新页\n"}
    lesson = load(tmp_path, longer)
    deck = render_lesson(lesson, changed, cache)
    assert deck.rendered == ("01-a",)
    assert [s.number for s in deck.slides] == [1, 2, 3, 4]
    assert deck.values["quizzes"][0]["slide"] == 4
    assert deck.html == render_lesson(lesson, changed).html


def test_a_result_whose_recorded_inputs_alone_changed_is_not_rendered_again(tmp_path: Path):
    """What a section read (its dependencies) says when its result holds, not what its slides
    show: a result that read other files but computed the same keeps its rendered slides, and
    one that computed another value is rendered again."""
    cache = tmp_path / "cache"
    lesson = load(tmp_path, THREE_SECTIONS)
    results = stand_in_results(lesson)
    first = render_lesson(lesson, results, cache)
    read = Dependency("file", "data.csv", "data.csv", "ab" * 32, 10, 1)
    other = {**results, "01-a": replace(results["01-a"], deps=(read,))}
    again = render_lesson(lesson, other, cache)
    assert again.rendered == ()
    assert again.html == first.html
    computed = {**other, "01-a": replace(other["01-a"], inline={"x": "43"})}
    assert render_lesson(lesson, computed, cache).rendered == ("01-a",)


@pytest.mark.parametrize(
    "damage", [b"", b"{", b'{"key": 1}', b"\xff", b'{"key": "%s", "render": {}}']
)
def test_a_damaged_render_entry_is_rendered_again(tmp_path: Path, damage: bytes):
    cache = tmp_path / "cache"
    lesson = load(tmp_path, THREE_SECTIONS)
    results = stand_in_results(lesson)
    first = render_lesson(lesson, results, cache)
    entry = cache / lesson.name / "render" / "02-b.json"
    key = json.loads(entry.read_text("utf-8"))["key"]
    entry.write_bytes(damage.replace(b"%s", key.encode()))
    warm.forget()  # (read by another process: not kept in this one's memory)
    again = render_lesson(lesson, results, cache)
    assert again.rendered == ("02-b",)
    assert again.html == first.html


# ---- through the command line -------------------------------------------------------------


def test_cli_bad_formula_in_a_chinese_paragraph_is_reported_at_its_line(tmp_path: Path):
    text = "## 公式\n\n中文段落第一行\n第二行继续\n第三行有 $\\frac{1}{$ 坏公式\n"
    write_lesson(tmp_path, {"01-a.md": text})
    assert_failed_cleanly(tmp_path, ["cat", "--no-pdf"], "content/cat/01-a.md:5", says="KaTeX")


@pytest.mark.slow
def test_cli_a_display_formula_over_two_chinese_lines_builds(tmp_path: Path):
    write_lesson(tmp_path, {"01-a.md": "## 公式\n\n$$\\text{注意\n力} = 1$$\n"})
    proc = run_cli(tmp_path, "cat", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "dist/cat/index.html").read_text("utf-8")
    assert '<annotation encoding="application/x-tex">\\text{注意力} = 1</annotation>' in html


PLOT = """\
```{{python}}
#| fig-alt: 一条线
{label}import matplotlib.pyplot as plt
{plots}
```

"""


def plot_cell(label: str = "", figures: int = 1) -> str:
    return PLOT.format(
        label=f"#| label: {label}\n" if label else "",
        plots="\n".join("plt.figure(figsize=(2, 1)); plt.plot([0, 1])" for _ in range(figures)),
    )


@pytest.mark.slow
def test_cli_a_label_equal_to_a_generated_figure_name_is_an_error(tmp_path: Path):
    write_lesson(tmp_path, {"01-a.md": "## A\n\n" + plot_cell(), "02-b.md": "## B\n\n"})
    assert run_cli(tmp_path, "cat", "--no-pdf").returncode == 0
    write_lesson(tmp_path, {"02-b.md": "## B\n\n" + plot_cell("01-a-1")})
    proc = assert_failed_cleanly(
        tmp_path, ["cat", "--no-pdf"], "content/cat/02-b.md:3", says="01-a-1.svg"
    )
    assert "content/cat/01-a.md:3" in proc.stderr


def test_cli_a_label_equal_to_the_second_figure_of_another_cell_is_an_error(tmp_path: Path):
    section = "## A\n\n" + plot_cell("p", figures=2) + plot_cell("p-2")
    write_lesson(tmp_path, {"01-a.md": section})
    assert_failed_cleanly(tmp_path, ["cat", "--no-pdf"], "content/cat/01-a.md:11", says="p-2.svg")


@pytest.mark.slow
def test_cli_prose_edit_output_is_byte_identical_to_a_full_render(tmp_path: Path):
    copy_fixture("mini", tmp_path)
    assert run_cli(tmp_path, "mini", "--no-pdf").returncode == 0
    source = tmp_path / "content/mini/01-basics.md"
    source.write_text(source.read_text("utf-8").replace("开场", "开场白"), "utf-8")
    assert run_cli(tmp_path, "mini", "--no-pdf").returncode == 0
    out = tmp_path / "dist/mini"
    partial = {name: (out / name).read_bytes() for name in ("index.html", "values.json")}
    assert "开场白".encode() in partial["index.html"]
    shutil.rmtree(tmp_path / ".cache/mini/render")
    (tmp_path / ".cache/katex.json").unlink()
    assert run_cli(tmp_path, "mini", "--no-pdf").returncode == 0
    assert {name: (out / name).read_bytes() for name in partial} == partial
