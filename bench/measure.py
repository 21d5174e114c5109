"""Running one process and measuring it, and the summary of many measurements."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    seconds: float  # wall time from start to exit
    peak_mb: float  # the largest resident set of the process or any child it waited for
    code: int
    stdout: str
    stderr: str

    def reason(self) -> str:
        """Why it failed, in a line: its error lines (`file:line: error …`), else its last line."""
        lines = [line.strip() for line in (self.stderr or self.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if ": error" in line or line.startswith("error")]
        return "; ".join(errors[:3]) or (lines[-1] if lines else f"exit status {self.code}")


# A small parent for each measured process: Linux counts the parent's resident set at the fork
# in the child's peak, so the measured process must not be forked from this (large) one.
WRAPPER = """
import json, os, sys, time
start = time.perf_counter()
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
with open(sys.argv[1], "w") as f:
    json.dump([seconds, usage.ru_maxrss, os.waitstatus_to_exitcode(status)], f)
"""


def run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Run:
    """Run `args` (args[0] an absolute path) to its end. The peak memory is wait4's rusage: the
    largest resident set of the process and of every descendant it waited for (a browser's
    renderers are its children, so they count through it)."""
    with tempfile.TemporaryDirectory(prefix="deck-bench-run-") as tmp:
        files = [Path(tmp) / name for name in ("out", "err", "report.json")]
        with files[0].open("wb") as out, files[1].open("wb") as err:
            wrapper = [sys.executable, "-S", "-c", WRAPPER, str(files[2]), *args]
            subprocess.run(wrapper, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                           stderr=err, check=True)  # fmt: skip
        seconds, peak_kib, code = json.loads(files[2].read_text())
        return Run(
            seconds=seconds,
            peak_mb=peak_kib / 1024,  # ru_maxrss is in KiB on Linux
            code=code,
            stdout=files[0].read_text("utf-8", "replace"),
            stderr=files[1].read_text("utf-8", "replace"),
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
    value = statistics.median(deck) / statistics.median(other)
    return f"{value:.2f}×" if value >= 0.1 else f"{value:.1g}×" if value >= 0.001 else "<0.001×"
