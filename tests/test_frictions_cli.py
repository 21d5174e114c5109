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
