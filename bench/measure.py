"""Running one process and measuring it, and the summary of many measurements."""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    seconds: float  # wall time from start to exit
    peak_mb: float  # the largest resident set of the process or any child it waited for
    code: int
    stdout: str
    stderr: str

    def last_line(self) -> str:
        lines = [line.strip() for line in (self.stderr or self.stdout).splitlines()]
        return next((line for line in reversed(lines) if line), f"exit status {self.code}")


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    """Run `args` to its end. The peak memory comes from wait4's rusage: the maximum resident set
    size over the process and its descendants that were waited for (a browser's renderers
    are children of the browser, so they count through it)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err)  # fmt: skip
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen must not wait again
        out.seek(0)
        err.seek(0)
        return Run(
            seconds=seconds,
            peak_mb=usage.ru_maxrss / 1024,  # KiB on Linux
            code=proc.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
        )


def summary(values: list[float], unit: str = "s") -> str:
    """`median` alone for one value, else `median (min–max)`."""
    if not values:
        return "n/a"
    digits = 0 if unit == "MB" else 2
    median = f"{statistics.median(values):.{digits}f}"
    if len(values) == 1:
        return median
    return f"{median} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def ratio(deck: list[float], other: list[float]) -> str:
    if not deck or not other or statistics.median(other) == 0:
        return "n/a"
    return f"{statistics.median(deck) / statistics.median(other):.2f}×"
