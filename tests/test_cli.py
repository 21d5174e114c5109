"""The command line as a user meets it: exit codes, error lines, and an untouched dist/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixture_build import ROOT, copy_fixture, run_cli


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow
def test_build_writes_deck_values_and_figures(tmp_path: Path):
    copy_fixture("mini", tmp_path)
    proc = run_cli(tmp_path, "mini", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "dist/mini"
    assert (out / "index.html").is_file()
    assert (out / "assets/reveal/reveal.js").is_file()
    assert (out / "assets/katex/katex.min.css").is_file()
    assert (tmp_path / "figures/mini/parabola.svg").is_file()
    assert (out / "figures/parabola.svg").read_bytes() == (
        tmp_path / "figures/mini/parabola.svg"
    ).read_bytes()
    values = json.loads((out / "values.json").read_text())
    assert values["slides"] == 6
    first = values["values"][0]
    assert first == {
        "expr": "answer",
        "text": "144",
        "loc": "content/mini/01-basics.md:19",
        "slide": 2,
        "section": "01-basics",
    }
    assert values["figures"][0]["loc"] == "content/mini/02-figure.md:11"
    assert values["quizzes"][0]["answer_text"] == "9"
    assert [p for p in tmp_path.rglob(".staging-*")] == []
    # progress: one line per section, then what was written
    lines = proc.stderr.splitlines()
    assert any("01-basics.md" in line and "ran" in line for line in lines)
    assert any("wrote" in line for line in lines)


@pytest.mark.slow
def test_cell_error_exits_1_with_location_and_keeps_previous_output(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    assert run_cli(tmp_path, "mini", "--no-pdf").returncode == 0
    before_dist = snapshot(tmp_path / "dist")
    before_figures = snapshot(tmp_path / "figures")
    section = folder / "02-figure.md"
    section.write_text(section.read_text().replace("xs = list(range(-5, 6))", "xs = 1 / 0"))
    proc = run_cli(tmp_path, "mini", "--no-pdf")
    assert proc.returncode == 1
    assert "content/mini/02-figure.md:17: error [exec] ZeroDivisionError" in proc.stderr
    assert "course page" not in proc.stderr  # a failed build writes none (the course page too)
    assert snapshot(tmp_path / "dist") == before_dist
    assert snapshot(tmp_path / "figures") == before_figures


def test_parse_errors_of_all_files_reported_together(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    (folder / "01-basics.md").write_text("## A\n\n```{python}\n#| colour: red\nx = 1\n```\n")
    (folder / "02-figure.md").write_text("## B\n\n::: notes\nnever closed\n")
    proc = run_cli(tmp_path, "mini", "--no-pdf")
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.splitlines() if ": error [" in line]
    assert errors == [
        "content/mini/01-basics.md:4: error [option] unknown cell option `colour` "
        "(known: code-line-numbers, echo, error, eval, exercise, fig-align, fig-alt, fig-cap, "
        "fig-height, fig-width, include, inputs, label, layout, layout-align, layout-ncol, "
        "layout-nrow, output, output-location, tbl-cap, timeout, warning)",
        "content/mini/02-figure.md:3: error [parse] `::: notes` is never closed by `:::`",
    ]
    assert not [p for p in (tmp_path / "dist").rglob("*") if p.is_file()]  # nothing written


@pytest.mark.slow
def test_figure_without_alt_text_is_an_error(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    section = folder / "02-figure.md"
    section.write_text(section.read_text().replace("#| fig-alt: 一条开口向上的抛物线\n", ""))
    proc = run_cli(tmp_path, "mini", "--no-pdf")
    assert proc.returncode == 1
    assert "content/mini/02-figure.md:11: error [figure]" in proc.stderr


def test_quiz_answer_not_among_choices(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    (folder / "02-figure.md").write_text(
        '## Q\n\n::: {.quiz answer="str(2 + 2)"}\nSum?\n\n- [ ] 3\n- [ ] 5\n:::\n'
    )
    proc = run_cli(tmp_path, "mini", "--no-pdf")
    assert proc.returncode == 1
    assert "content/mini/02-figure.md:3: error [quiz] answer `4` is not among" in proc.stderr


def test_computed_choices_that_coincide_are_an_error(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    (folder / "02-figure.md").write_text(
        "## Q\n\n::: quiz\n2+2?\n\n- [x] `{python} 2 + 2`\n- [ ] `{python} 2 * 2`\n:::\n"
    )
    proc = run_cli(tmp_path, "mini", "--no-pdf")
    assert proc.returncode == 1
    assert "content/mini/02-figure.md:7: error [quiz] two choices both read `4`" in proc.stderr


def test_bad_math_is_reported_at_its_line(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    (folder / "02-figure.md").write_text("## M\n\ntext\n\nbad $\\frac{1}{$ here\n")
    proc = run_cli(tmp_path, "mini", "--no-pdf")
    assert proc.returncode == 1
    assert "content/mini/02-figure.md:5: error [math] KaTeX" in proc.stderr


def test_missing_lesson_yml(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    (folder / "lesson.yml").unlink()
    proc = run_cli(tmp_path, "mini", "--no-pdf")
    assert proc.returncode == 1
    assert "content/mini/lesson.yml:1: error [lesson] missing lesson.yml" in proc.stderr


def test_bad_usage_exits_2(tmp_path: Path):
    copy_fixture("mini", tmp_path)
    assert run_cli(tmp_path, "nosuchlesson").returncode == 2
    assert run_cli(tmp_path, "--jobs", "0").returncode == 2
    assert run_cli(tmp_path, "--bogus").returncode == 2
    assert run_cli(tmp_path, "--content", "nowhere").returncode == 2


@pytest.mark.slow
def test_default_builds_every_lesson_in_content(tmp_path: Path):
    copy_fixture("mini", tmp_path)
    copy_fixture("torchy", tmp_path)
    proc = run_cli(tmp_path, "--no-pdf", "-q", "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert (tmp_path / "dist/mini/index.html").is_file()
    assert (tmp_path / "dist/torchy/index.html").is_file()


@pytest.mark.slow
def test_inline_value_inside_math_is_rendered_and_recorded(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    (folder / "02-figure.md").write_text("## M\n\n$$\\sqrt{d_k} = `{python} 2 + 3`$$\n")
    proc = run_cli(tmp_path, "mini", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "dist/mini/index.html").read_text()
    assert '<annotation encoding="application/x-tex">\\sqrt{d_k} = 5</annotation>' in html
    values = json.loads((tmp_path / "dist/mini/values.json").read_text())["values"]
    assert {"expr": "2 + 3", "text": "5", "loc": "content/mini/02-figure.md:3"}.items() <= next(
        v for v in values if v["expr"] == "2 + 3"
    ).items()


@pytest.mark.slow
def test_line_breaks_inside_chinese_paragraphs_add_no_space(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    (folder / "02-figure.md").write_text("## 段落\n\n第一行，\n第二行。\nEnglish\nwords\n")
    assert run_cli(tmp_path, "mini", "--no-pdf").returncode == 0
    html = (tmp_path / "dist/mini/index.html").read_text()
    assert "<p>第一行，第二行。\nEnglish\nwords</p>" in html


@pytest.mark.slow
def test_a_broken_browser_is_a_clear_error_and_keeps_dist(tmp_path: Path):
    copy_fixture("mini", tmp_path)
    assert run_cli(tmp_path, "mini", "--no-pdf").returncode == 0
    before = snapshot(tmp_path / "dist")
    env = {**os.environ, "DECK_CHROMIUM": str(tmp_path / "no-such-chromium")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "mini", "--force"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[-2].startswith("error: ")
    assert "Traceback" not in proc.stderr
    assert snapshot(tmp_path / "dist") == before
    assert list(tmp_path.rglob(".staging-*")) == []
