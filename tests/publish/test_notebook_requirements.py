"""Issue 33: students are told which packages the notebook's code/ needs. `code/requirements.txt`
pins the installed packages the lesson's cells and modules import, at the versions the build
ran with (a module named otherwise than its distribution too: PIL is pillow, yaml is PyYAML),
and pip accepts it as it is."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from catalogue import options_in, write_lesson
from deck.pipeline import build
from deck.progress import LogOnly

LESSON = {
    "lesson.yml": "title: Packages\nlang: en\n",
    "helpers.py": "import json\n\nimport yaml\n\n\ndef loaded(t):\n    return yaml.safe_load(t)\n",
    "01-a.md": """
        ## Packages

        ```{python}
        import numpy as np
        from PIL import Image
        from helpers import loaded

        size = Image.new("RGB", (3, 2)).size[0] + int(np.ones(2).sum()) + loaded("a: 1")["a"]
        ```

        Size `{python} size`.
    """,
}


def requirements(root: Path) -> list[str]:
    text = (root / "dist/pk/code/requirements.txt").read_text("utf-8")
    return [line for line in text.split("\n") if line and not line.startswith("#")]


@pytest.mark.slow
def test_the_notebook_says_which_packages_it_needs(tmp_path: Path):
    write_lesson(tmp_path, LESSON, "pk")
    report = build(["pk"], options_in(tmp_path, outputs=("html", "ipynb")), LogOnly())
    assert report.published
    pinned = [line.lower() for line in requirements(tmp_path)]  # (pip ignores the case)
    want = [f"numpy=={version('numpy')}", f"pillow=={version('pillow')}"]
    assert pinned == [*want, f"pyyaml=={version('PyYAML')}"]
    # pip reads it, and this environment (the build's) satisfies it, with no index at all
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--no-index",
            "-q",
            "-r",
            str(tmp_path / "dist/pk/code/requirements.txt"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr


def test_a_lesson_of_the_standard_library_only_needs_no_file(tmp_path: Path):
    lesson = {
        "lesson.yml": "title: Packages\nlang: en\n",
        "01-a.md": "## A\n\n```{python}\nimport math\nx = math.pi\n```\n\n`{python} x`\n",
    }
    write_lesson(tmp_path, lesson, "pk")
    build(["pk"], options_in(tmp_path, outputs=("html", "ipynb")), LogOnly())
    assert (tmp_path / "dist/pk/pk.ipynb").is_file()
    assert not (tmp_path / "dist/pk/code/requirements.txt").exists()


def test_a_new_import_remakes_it(tmp_path: Path):
    folder = write_lesson(tmp_path, LESSON, "pk")
    options = options_in(tmp_path, outputs=("html", "ipynb"))
    build(["pk"], options, LogOnly())
    section = folder / "01-a.md"
    text = section.read_text("utf-8").replace(
        "from PIL import Image\n", "from PIL import Image\nimport matplotlib\n"
    )
    section.write_text(text, "utf-8")
    build(["pk"], options, LogOnly())
    assert f"matplotlib=={version('matplotlib')}" in requirements(tmp_path)
