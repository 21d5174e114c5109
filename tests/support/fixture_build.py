"""Build fixture lessons into temporary folders: with the real CLI process (`run_build`), or
with `deck.cli.main` in this process (`run_cli`), which answers the same three things."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


@dataclass
class Ran:
    """What a CLI run answers: exit code and the text it wrote (as `CompletedProcess` has)."""

    returncode: int
    stdout: str
    stderr: str


@dataclass
class Built:
    root: Path  # the working folder holding content/, dist/, figures/, .cache/
    lesson: str
    proc: subprocess.CompletedProcess[str] | Ran

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


def run_cli(root: Path, *args: str) -> Ran:
    """`deck.cli.main(ARGS)` in this process with `root` as working folder: the exit code
    (argparse's `SystemExit` too) and everything the CLI wrote to stdout and stderr.

    Cells still run in worker processes. Never with PDFs while a Playwright session is open
    in this thread (PDF printing runs its own asyncio loop): use `run_build` for those."""
    assert "--serve" not in args, "serve in a real process (tests/preview)"
    from deck import warm
    from deck.cli import main
    from deck.execute import deps

    deps._OWNERS.clear()  # a new process reads site-packages afresh
    warm.forget()  # (and keeps nothing an earlier build made: deck.warm)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 1
    return Ran(code, out.getvalue(), err.getvalue())


def copy_fixture(name: str, root: Path) -> Path:
    target = root / "content" / name
    shutil.copytree(FIXTURES / name, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target
