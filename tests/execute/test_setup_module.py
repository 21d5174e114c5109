"""Issue 33: a lesson's shared set-up. `setup: common.py` in lesson.yml runs the module at the
start of every section (`from common import *`, after seeding), so sections share imports and
data without importing them each; each section stays independent and exactly cached (the
module is an input of every section), and the student notebook runs it as the build did."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import numpy as np
import pytest

from catalogue import options_in, write_lesson
from deck.errors import DeckError
from deck.pipeline import build
from deck.progress import LogOnly

COMMON = """
import numpy as np

rng = np.random.default_rng(7)
points = rng.normal(size=50)
"""
LESSON = {
    "lesson.yml": "title: Setup\nlang: en\nsetup: common.py\n",
    "common.py": COMMON,
    "01-mean.md": """
        ## Mean

        ```{python}
        mean = float(points.mean())
        print(f"mean = {mean:.4f}")
        ```

        The mean is `{python} mean`.
    """,
    "02-spread.md": """
        ## Spread

        ```{python}
        spread = float(np.std(points))
        ```

        The spread is `{python} spread`.
    """,
}


def values(root: Path) -> dict[str, str]:
    record = json.loads((root / "dist/setup/values.json").read_text("utf-8"))
    return {v["expr"]: v["text"] for v in record["values"]}


def test_every_section_sees_the_setup_modules_names(tmp_path: Path):
    write_lesson(tmp_path, LESSON, "setup")
    report = build(["setup"], options_in(tmp_path), LogOnly())
    assert report.published and report.warnings == []
    points = np.random.default_rng(7).normal(size=50)  # the module's data, independently
    shown = values(tmp_path)
    assert abs(float(shown["mean"]) - points.mean()) < 5e-4
    assert abs(float(shown["spread"]) - points.std()) < 5e-4
    page = (tmp_path / "dist/setup/index.html").read_text("utf-8")
    assert "import *" not in page and "common" not in page  # it shows nowhere on the slides


def test_the_setup_module_is_an_input_of_every_section(tmp_path: Path):
    folder = write_lesson(tmp_path, LESSON, "setup")
    build(["setup"], options_in(tmp_path), LogOnly())
    section = folder / "02-spread.md"
    section.write_text(section.read_text("utf-8").replace("is `", "is, measured, `"), "utf-8")
    report = build(["setup"], options_in(tmp_path), LogOnly())
    assert report.executed == []  # a prose edit runs nothing
    (folder / "common.py").write_text(COMMON.replace("size=50", "size=60"), "utf-8")
    report = build(["setup"], options_in(tmp_path), LogOnly())
    assert sorted(report.executed) == ["setup/01-mean", "setup/02-spread"]
    points = np.random.default_rng(7).normal(size=60)
    assert abs(float(values(tmp_path)["mean"]) - points.mean()) < 5e-4


def errors(root: Path) -> list[str]:
    with pytest.raises(DeckError) as failed:
        build(["setup"], options_in(root), LogOnly())
    return [str(d) for d in failed.value.diagnostics if d.severity == "error"]


def test_an_error_in_the_setup_is_named_at_its_line_and_at_lesson_yml(tmp_path: Path):
    broken = COMMON.replace("points = ", "points = 1 / 0 + ")
    write_lesson(tmp_path, {**LESSON, "common.py": broken}, "setup")
    (message,) = errors(tmp_path)
    assert "lesson.yml:3: error [exec] ZeroDivisionError" in message, message
    written = (tmp_path / "content/setup/common.py").read_text("utf-8").split("\n")
    line = next(k for k, text in enumerate(written, 1) if "1 / 0" in text)
    assert f"(raised in {tmp_path}/content/setup/common.py:{line} <module>)" in message


@pytest.mark.parametrize(
    ("written", "says"),
    [
        ("setup: commn.py", "`setup`: no file commn.py in the lesson's folder"),
        ("setup: data/common.py", "must name a Python module in the lesson's folder"),
        ("setup: 3", "must name a Python module in the lesson's folder"),
    ],
)
def test_a_bad_setup_is_an_error_at_its_line(tmp_path: Path, written: str, says: str):
    yml = f"title: Setup\nlang: en\n{written}\n"
    write_lesson(tmp_path, {**LESSON, "lesson.yml": yml}, "setup")
    (message,) = errors(tmp_path)
    assert "lesson.yml:3: error [config]" in message and says in message, message


@pytest.mark.slow
def test_the_notebook_runs_the_setup_as_the_build_did(tmp_path: Path):
    """Run by a Jupyter kernel from a copy of the notebook's folder, as a student would: each
    section's first cell seeds and imports the setup, and the cells print what the build did."""
    from nbclient import NotebookClient

    write_lesson(tmp_path, LESSON, "setup")
    build(["setup"], options_in(tmp_path, outputs=("html", "ipynb")), LogOnly())
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "dist/setup", copy)
    assert (copy / "code/common.py").read_text("utf-8") == COMMON.lstrip("\n")
    notebook = nbformat.read(copy / "setup.ipynb", as_version=4)
    starts = [c.source for c in notebook.cells if c.metadata.get("deck", {}).get("setup")]
    assert starts[1:] == ["seed_section(0)\nfrom common import *"] * 2  # (the first: its folder)
    built = [o.text for c in notebook.cells for o in c.get("outputs", []) if "text" in o]
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    resources = {"metadata": {"path": str(copy)}}
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources=resources).execute()
    code = [c for c in notebook.cells if c.cell_type == "code"]
    ran = ["".join(o.text for o in c.outputs if o.output_type == "stream") for c in code]
    mean = np.random.default_rng(7).normal(size=50).mean()
    assert built == [f"mean = {mean:.4f}\n"]
    assert [text for text in ran if text] == built
