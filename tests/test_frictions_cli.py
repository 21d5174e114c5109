"""Issue 33, the first hour's frictions (part 1): the scaffold's files pass the project's own
ruff, `test.sh ARGS` lints only the engine, `setup.sh --help`, `build.py --help` naming `new`
and the true default outputs, a failed build writing no course page, and counts of one said
in the singular."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from deck.options import UsageError
from deck.source.scaffold import LONGEST, new_lesson
from fixture_build import ROOT

RUFF = Path(sys.executable).parent / "ruff"
CONFIG = ROOT / "pyproject.toml"


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    command = [str(RUFF), *args, "--config", str(CONFIG), "--no-cache"]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("name", "lang"),
    [("s", "en"), ("softmax-10", "en"), ("x" * 40, "en"), ("a-b.c_" + "y" * 58, "zh")],
)
def test_a_new_lessons_files_pass_the_projects_ruff(tmp_path: Path, name: str, lang: str):
    written = new_lesson(name, tmp_path / "content", tmp_path, lang)
    files = [str(p) for p in written if p.suffix in (".py", ".md")]
    assert len(files) == 2  # the section (its cells are formatted too) and the test
    checked = ruff("check", *files)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    formatted = ruff("format", "--check", "--diff", *files)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_a_name_too_long_for_its_test_is_refused(tmp_path: Path):
    new_lesson("z" * LONGEST, tmp_path / "content", tmp_path)
    with pytest.raises(UsageError, match=f"at most {LONGEST} characters"):
        new_lesson("z" * (LONGEST + 1), tmp_path / "content", tmp_path)
    assert not (tmp_path / "content" / ("z" * (LONGEST + 1))).exists()


def stubbed(tmp_path: Path, script: str) -> Path:
    """A copy of `script` in a folder whose setup.sh, .venv/bin/ruff and .venv/bin/python only
    append their arguments to `calls` (so test.sh runs in a moment and runs nothing)."""
    (tmp_path / script).write_text((ROOT / script).read_text())
    (tmp_path / "setup.sh").write_text('echo "setup $*" >> calls\n')
    bin_ = tmp_path / ".venv" / "bin"
    bin_.mkdir(parents=True)
    for tool in ("ruff", "python"):
        (bin_ / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> calls\n')
        (bin_ / tool).chmod(0o755)
    return tmp_path


def calls(folder: Path, *args: str) -> list[str]:
    (folder / "calls").unlink(missing_ok=True)
    ran = subprocess.run(["bash", "test.sh", *args], cwd=folder, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    return (folder / "calls").read_text().splitlines()


ENGINE = "deck build.py bench tests --extend-exclude tests/lessons"


def test_test_sh_with_args_lints_only_the_engine(tmp_path: Path):
    folder = stubbed(tmp_path, "test.sh")
    assert calls(folder, "-k", "softmax") == [
        "setup --no-build",
        f"ruff check {ENGINE}",
        f"ruff format --check {ENGINE}",
        "python -m mypy",
        "python -m pytest -n 2 --dist worksteal -k softmax",
    ]
    # with no ARGS and with --all (CI: .ci/run), the whole repository as before
    assert calls(folder)[1:4] == ["ruff check .", "ruff format --check .", "python -m mypy"]
    ci = calls(folder, "--all")
    assert ci[1:3] == ["ruff check .", "ruff format --check ."]
    assert ci[-1] == "python tests/content/robustness.py --ci"
    assert calls(folder, "--all", "-k", "x")[1:3] == ["ruff check .", "ruff format --check ."]
    assert "ARGS and with --all, the whole repository" in (folder / "test.sh").read_text()
