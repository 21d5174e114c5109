"""Build fixture lessons into temporary folders with the real CLI, as a user runs it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"


@dataclass
class Built:
    root: Path  # the working folder holding content/, dist/, figures/, .cache/
    lesson: str
    proc: subprocess.CompletedProcess[str]

    @property
    def out(self) -> Path:
        return self.root / "dist" / self.lesson


def run_build(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python build.py ARGS` with `root` as working folder (as a user runs it)."""
    return subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )


def copy_fixture(name: str, root: Path) -> Path:
    target = root / "content" / name
    shutil.copytree(FIXTURES / name, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target
