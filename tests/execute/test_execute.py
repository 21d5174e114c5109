"""Running sections in worker processes: outputs, line mapping, timeouts, figures, seeds."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from deck.errors import Diagnostic
from deck.execute.run import Job, SectionStep, run_section, run_sections
from deck.model import SectionResult
from deck.source.folder import load_lesson

MODULE = """
def explode(x):
    raise ValueError(f"bad {x}")
"""


def run(tmp_path: Path, body: str, lesson_yml: str = "exec:\n  seed: 1\n"):
    folder = tmp_path / "lesson"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lesson.yml").write_text(lesson_yml)
    (folder / "helper.py").write_text(MODULE)
    (folder / "01-s.md").write_text(textwrap.dedent(body).lstrip("\n"))
    lesson = load_lesson(folder)
    job = Job(lesson.sections[0], "key", tmp_path / "figs")
    return run_section(lesson, job)


def test_outputs_stdout_last_value_and_inline(tmp_path: Path):
    result = run(
        tmp_path,
        """
        ## A

        ```{python}
        import numpy as np
        print("hello")
        m = np.array([[1.0, 0.5], [0.25, 2.0]])
        m
        ```

        `{python} m.sum()` and `{python} f"{m[0, 1]:.2f}"` and `{python} "<b>"`
        """,
    )
    assert isinstance(result, SectionResult), result
    (cell,) = result.cells
    kinds = [o.kind for o in cell.outputs]
    assert kinds == ["stdout", "html"]
    assert cell.outputs[0].data == "hello\n"
    assert "<table" in cell.outputs[1].data and "0.250" in cell.outputs[1].data
    assert result.inline == {"m.sum()": "3.75", 'f"{m[0, 1]:.2f}"': "0.50", '"<b>"': "<b>"}


def test_exception_points_at_md_line(tmp_path: Path):
    result = run(
        tmp_path,
        """
        ## A

        ```{python}
        x = 1
        y = x / 0
        ```
        """,
    )
    assert isinstance(result, Diagnostic)
    assert (result.loc.line, result.code) == (5, "exec")
    assert "ZeroDivisionError" in result.message
    assert result.loc.path.endswith("01-s.md")


def test_exception_in_lesson_module_names_both_places(tmp_path: Path):
    result = run(
        tmp_path,
        """
        ## A

        ```{python}
        from helper import explode

        explode(3)
        ```
        """,
    )
    assert isinstance(result, Diagnostic)
    assert result.loc.line == 6
    assert "ValueError: bad 3" in result.message and "helper.py:3" in result.message


def test_failing_assert_is_its_own_code(tmp_path: Path):
    result = run(
        tmp_path,
        """
        ## A

        ```{python}
        ratio = 0.5
        assert ratio > 0.9, "claim no longer holds"
        ```
        """,
    )
    assert isinstance(result, Diagnostic)
    assert (result.loc.line, result.code) == (5, "assert")
    assert "ratio > 0.9" in result.message and "claim no longer holds" in result.message


def test_syntax_error_line(tmp_path: Path):
    result = run(tmp_path, "## A\n\n```{python}\nx = 1\nif x\n```\n")
    assert isinstance(result, Diagnostic)
    assert (result.loc.line, result.code) == (5, "exec")
    assert "SyntaxError" in result.message


def test_cell_timeout(tmp_path: Path):
    result = run(
        tmp_path,
        """
        ## A

        ```{python}
        #| timeout: 1
        while True:
            pass
        ```
        """,
    )
    assert isinstance(result, Diagnostic)
    assert result.code == "timeout"
    assert result.loc.line in (5, 6)


def test_lesson_default_timeout(tmp_path: Path):
    body = "## A\n\n```{python}\nimport time\ntime.sleep(30)\n```\n"
    result = run(tmp_path, body, "exec:\n  timeout: 0.5\n")
    assert isinstance(result, Diagnostic) and result.code == "timeout"
    assert result.loc.line == 5


def test_bad_inline_expression(tmp_path: Path):
    result = run(tmp_path, "## A\n\n```{python}\nx = 1\n```\n\nvalue `{python} x + y`\n")
    assert isinstance(result, Diagnostic)
    assert (result.loc.line, result.code) == (7, "inline")
    assert "NameError" in result.message


FIGURE = """
## A

```{python}
#| label: curve
#| fig-alt: a curve
import matplotlib.pyplot as plt
plt.plot([0, 1, 2], [0, 1, 4])
plt.title("注意力权重")
```
"""


@pytest.mark.slow
def test_figures_are_byte_identical_across_runs(tmp_path: Path):
    first = run(tmp_path / "a", FIGURE)
    second = run(tmp_path / "b", FIGURE)
    assert isinstance(first, SectionResult) and isinstance(second, SectionResult)
    assert [f.file for f in first.cells[0].figures] == ["curve.svg"]
    a = (Path(first.figure_dir) / "curve.svg").read_bytes()
    b = (Path(second.figure_dir) / "curve.svg").read_bytes()
    assert a == b
    assert b"<dc:date>" not in a


def test_glyph_missing_from_every_font_fails_the_cell(tmp_path: Path):
    body = FIGURE.replace("注意力权重", "\U00010000")  # Linear B: in no installed font
    result = run(tmp_path, body)
    assert isinstance(result, Diagnostic)
    assert result.code == "exec" and "missing" in result.message


@pytest.mark.slow
def test_sections_are_seeded_from_lesson_yml(tmp_path: Path):
    import numpy as np
    import torch

    body = """
    ## A

    ```{python}
    import random
    import numpy as np
    import torch
    r, n, t = random.random(), np.random.rand(), torch.rand(1).item()
    ```

    `{python} repr((r, n, t))`
    """
    result = run(tmp_path, body, "exec:\n  seed: 42\n")
    assert isinstance(result, SectionResult), result
    import random

    random.seed(42)
    np.random.seed(42)
    torch.manual_seed(42)
    expected = repr((random.random(), np.random.rand(), torch.rand(1).item()))
    assert list(result.inline.values()) == [expected]


@pytest.mark.parametrize("value,text", [(1 / 3, "0.3333"), (12, "12"), ("中文", "中文")])
def test_inline_text_formats(value, text):
    from deck.show import inline_text

    assert inline_text(value) == text


def test_progress_reports_each_step_with_its_line(tmp_path: Path):
    body = """
    ## A

    ```{python}
    a = 1
    ```

    ```{python}
    b = 2
    ```

    ```{python}
    c = 3
    ```

    sum: `{python} a + b + c`
    """
    folder = tmp_path / "lesson"
    folder.mkdir()
    (folder / "lesson.yml").write_text("exec:\n  seed: 1\n")
    (folder / "01-s.md").write_text(textwrap.dedent(body).lstrip("\n"))
    lines = (folder / "01-s.md").read_text().splitlines()
    fences = [n for n, line in enumerate(lines, start=1) if line == "```{python}"]
    inline = next(n for n, line in enumerate(lines, start=1) if "`{python} a + b + c`" in line)
    lesson = load_lesson(folder)
    job = Job(lesson.sections[0], "key", tmp_path / "figs", estimate=12.5)
    events: list[SectionStep] = []
    outcomes = run_sections(lesson, [job], 1, lambda *args: None, on_progress=events.append)
    assert isinstance(outcomes["01-s"], SectionResult)
    assert [(e.step, e.cell, e.cells, e.line) for e in events] == [
        ("start", 0, 3, 1),
        ("cell", 1, 3, fences[0]),
        ("cell", 2, 3, fences[1]),
        ("cell", 3, 3, fences[2]),
        ("inline", 3, 3, inline),
        ("finish", 3, 3, inline),
        ("done", 3, 3, inline),
    ]
    assert {(e.section, e.rel, e.estimate, e.section_started, e.ok) for e in events} == {
        ("01-s", lesson.sections[0].rel, 12.5, events[0].section_started, True)
    }
    starts = [e.started for e in events]
    assert starts == sorted(starts)


@pytest.mark.slow
def test_workers_share_the_cores_and_keep_a_thread_count_set_by_the_user(tmp_path, monkeypatch):
    """Two workers on two cores get one math-library thread each (OpenMP threads spin while
    waiting: more would oversubscribe); how many sections run does not matter, only --jobs."""
    import os

    from deck.execute.run import threads_per_worker

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert [threads_per_worker(n) for n in (1, 2, 3)] == [2, 1, 1]
    monkeypatch.undo()
    folder = tmp_path / "lesson"
    folder.mkdir()
    (folder / "lesson.yml").write_text("title: t\ntitle-slide: false\n")
    (folder / "01-s.md").write_text(
        "## A\n\n```{python}\nimport torch\nn = torch.get_num_threads()\n```\n\n`{python} n`\n"
    )
    lesson = load_lesson(folder)

    def threads(workers: int) -> str:
        outcome = run_sections(
            lesson, [Job(lesson.sections[0], "k", tmp_path / "f")], workers, lambda *_: None
        )
        result = outcome["01-s"]
        assert isinstance(result, SectionResult), result
        return result.inline["n"]

    cores = os.cpu_count() or 1
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert threads(1) == str(cores)
    assert threads(cores) == "1"
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # (torch takes no more threads than cores)
    assert threads(1) == "1"


def test_sections_start_never_computed_first_then_longest_first_and_report_in_order(tmp_path):
    """A build's sections start by the seconds they took when last computed, longest first
    (a never-computed one before them: its time is unknown), so the longest does not start
    last and hold the build alone; results are still reported in the lesson's order."""
    from deck.execute.run import longest_first

    folder = tmp_path / "lesson"
    folder.mkdir()
    (folder / "lesson.yml").write_text("title: t\ntitle-slide: false\n")
    for n in range(1, 5):
        (folder / f"0{n}-s.md").write_text(f"## S{n}\n\n```{{python}}\nx = {n}\n```\n")
    lesson = load_lesson(folder)
    estimates = [3.0, 40.0, None, 7.5]
    jobs = [
        Job(section, section.name, tmp_path / "f" / section.name, estimate=e)
        for section, e in zip(lesson.sections, estimates, strict=True)
    ]
    assert [j.section.name for j in longest_first(jobs)] == ["03-s", "02-s", "04-s", "01-s"]
    assert longest_first([jobs[0], jobs[3]]) == [jobs[3], jobs[0]]
    # never computed (a first build): the one with the most code first, else in order
    (folder / "02-s.md").write_text("## S2\n\n```{python}\nx = 2 + 2 + 2 + 2 + 2\n```\n")
    fresh = [
        Job(section, section.name, tmp_path / "f" / section.name)
        for section in load_lesson(folder).sections
    ]
    assert [j.section.name for j in longest_first(fresh)] == ["02-s", "01-s", "03-s", "04-s"]

    events: list[SectionStep] = []
    reported: list[str] = []
    outcomes = run_sections(
        lesson,
        jobs,
        1,
        lambda job, *_: reported.append(job.section.name),
        on_progress=events.append,
    )
    assert all(isinstance(o, SectionResult) for o in outcomes.values())
    assert [e.section for e in events if e.step == "start"] == ["03-s", "02-s", "04-s", "01-s"]
    assert reported == ["01-s", "02-s", "03-s", "04-s"]
