"""A `.qmd`'s cells run with the interpreter its author chose (issue 17, item 7): found as
Quarto finds it (QUARTO_PYTHON, the `jupyter:` kernel, the active environment), part of the
cache key, and a package missing there is an error at the cell's line naming it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from catalogue import write
from fixture_build import run_cli

QMD = """---
title: Own environment
{front}---

## A

```{{python}}
import sys, authorpkg
print(authorpkg.ANSWER, sys.prefix)
```

The answer is `{{python}} authorpkg.ANSWER`.
"""


@pytest.fixture(scope="module")
def author_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv (standard library only) with a package deck's own venv does not have."""
    env = tmp_path_factory.mktemp("authorenv") / "env"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    purelib = Path(
        subprocess.run([python, "-c", code], capture_output=True, text=True).stdout.strip()
    )
    (purelib / "authorpkg").mkdir(parents=True)
    (purelib / "authorpkg" / "__init__.py").write_text("ANSWER = 6 * 7\n")
    return env


def clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("QUARTO_PYTHON", "VIRTUAL_ENV", "CONDA_PREFIX", "JUPYTER_PATH"):
        monkeypatch.delenv(name, raising=False)


def built(tmp_path: Path, front: str = "") -> tuple[int, str, str]:
    write(tmp_path, {"talk.qmd": QMD.format(front=front)})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    page = tmp_path / "dist" / "talk" / "index.html"
    return ran.returncode, ran.stderr, page.read_text() if page.exists() else ""


def test_quarto_python_runs_the_cells_and_choosing_another_rebuilds(
    tmp_path: Path, author_env: Path, monkeypatch: pytest.MonkeyPatch
):
    clean(monkeypatch)
    monkeypatch.setenv("QUARTO_PYTHON", str(author_env / "bin" / "python"))
    code, stderr, page = built(tmp_path)
    assert code == 0, stderr
    assert f"42 {author_env}" in page  # printed by the author's interpreter
    assert "The answer is" in page and ">42<" in page
    monkeypatch.delenv("QUARTO_PYTHON")  # back to this build's own: the package is not there
    code, stderr, _ = built(tmp_path)
    assert code == 1
    assert "talk.qmd:8: error [exec] ModuleNotFoundError: No module named 'authorpkg'" in stderr
    assert f"cells run with {sys.executable}: install `authorpkg` there" in stderr


def test_a_named_jupyter_kernel_is_resolved_to_its_interpreter(
    tmp_path: Path, author_env: Path, monkeypatch: pytest.MonkeyPatch
):
    clean(monkeypatch)
    kernels = tmp_path / "jupyter" / "kernels" / "my-env"
    kernels.mkdir(parents=True)
    argv = [str(author_env / "bin" / "python"), "-m", "ipykernel_launcher", "-f", "{x}"]
    spec = {"argv": argv, "display_name": "My env", "language": "python"}
    (kernels / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    code, stderr, page = built(tmp_path / "deck", front="jupyter: my-env\n")
    assert code == 0, stderr
    assert f"42 {author_env}" in page


def test_an_active_virtualenv_runs_the_cells(
    tmp_path: Path, author_env: Path, monkeypatch: pytest.MonkeyPatch
):
    clean(monkeypatch)
    monkeypatch.setenv("VIRTUAL_ENV", str(author_env))
    code, stderr, page = built(tmp_path)
    assert code == 0, stderr
    assert f"42 {author_env}" in page


def test_another_languages_kernel_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    clean(monkeypatch)
    code, stderr, _ = built(tmp_path, front="jupyter: julia-1.10\n")
    assert code == 1 and "talk.qmd:3:" in stderr and "only Python cells run here" in stderr


def test_the_default_python3_kernel_is_the_current_environment(
    tmp_path: Path, author_env: Path, monkeypatch: pytest.MonkeyPatch
):
    """`jupyter: python3` (nearly every deck) names no environment: a `python3` kernelspec
    registered for another interpreter is not taken."""
    clean(monkeypatch)
    kernels = tmp_path / "jupyter" / "kernels" / "python3"
    kernels.mkdir(parents=True)
    spec = {"argv": [str(author_env / "bin" / "python")], "language": "python"}
    (kernels / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("VIRTUAL_ENV", str(author_env))
    code, stderr, page = built(tmp_path / "deck", front="jupyter: python3\n")
    assert code == 0, stderr  # the active environment's, which has the package
    monkeypatch.delenv("VIRTUAL_ENV")
    code, stderr, _ = built(tmp_path / "deck", front="jupyter: python3\n")
    assert code == 1 and f"cells run with {sys.executable}" in stderr  # this build's own
