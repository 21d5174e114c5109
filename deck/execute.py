"""Executes the sections whose cache key missed, one worker process each, in parallel.

Each worker runs in its own process group (its own session) with stdin from /dev/null and a
fixed hash seed. It tells the parent on a socket which cell or inline expression it is
running; the parent enforces the time limits itself (killing the whole process group after
the limit plus a short grace, even when a cell swallows the worker's own timeout exception)
and reports a crash at the line that was running, with the signal in words. Whatever a cell
started is killed with the group when the section ends, and on Ctrl-C every worker's group is
killed before the interrupt goes on. If this process dies outright, each worker sees its
socket close and kills its own group.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deck.cache import staging_name
from deck.errors import Diagnostic
from deck.model import Lesson, Loc, Section, SectionResult

STATIC = Path(__file__).parent / "static"
GRACE = 2.0  # seconds a cell may overrun its limit before its process group is killed
STARTUP_LIMIT = 120.0  # seconds for a worker to start and report its first step
FINISH_LIMIT = 600.0  # seconds to hash what the section read and write the result
HASH_SEED = "0"


@dataclass(frozen=True)
class Job:
    section: Section
    key: str
    figure_dir: Path
    estimate: float | None = None  # seconds the section took when last computed, if known


@dataclass(frozen=True)
class Progress:
    """A section's worker started a step. Sent to `on_progress` from the thread that runs the
    section (several sections run at once): keep the callback quick and thread-safe.

    `step` is "start" (worker launched), "cell" (cell `cell` of `cells` began), "inline" (the
    inline expressions are being evaluated; `cell` == `cells`), "finish" (recording what the
    section read) or "done" (the worker ended; `ok` says whether it produced a result).
    """

    section: str  # the section's name, e.g. "02-self-attention"
    rel: str  # its .md path as messages show it
    step: str
    cell: int  # 1..cells for "cell"; 0 before the first cell
    cells: int
    line: int  # the .md line of the running cell's fence (or inline expression)
    started: float  # time.monotonic() when this step began
    section_started: float  # time.monotonic() when the worker was launched
    estimate: float | None  # seconds the section took when last computed, if known
    ok: bool = True


OnProgress = Callable[[Progress], None]


def job_spec(lesson: Lesson, job: Job) -> dict[str, Any]:
    settings = lesson.config.exec
    seen: set[str] = set()
    inlines = []
    for e in job.section.inlines:
        if e.expr not in seen:
            seen.add(e.expr)
            inlines.append({"expr": e.expr, "line": e.loc.line})
    return {
        "path": job.section.rel,
        "md_file": str(job.section.path.resolve()),
        "section": job.section.name,
        "key": job.key,
        "seed": settings.seed,
        "timeout": settings.timeout,
        "memory_mb": settings.memory_mb,
        "output_limit": settings.output_limit,
        "lesson_dir": str(lesson.path.resolve()),
        "figure_dir": str(job.figure_dir.resolve()),
        "cells": [
            {
                "code": cell.code,
                "line": cell.loc.line,
                "code_line": cell.code_line,
                "label": cell.label,
                "timeout": float(cell.options.get("timeout", settings.timeout)),
            }
            for cell in job.section.cells()
        ],
        "inlines": inlines,
    }


# ---- the workers that are running, so that Ctrl-C can stop them all ----------------------

_running: set[subprocess.Popen[bytes]] = set()
_running_lock = threading.Lock()
_stopping = threading.Event()


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all() -> None:
    """Kill every running worker's process group (on Ctrl-C or when the build is abandoned)."""
    _stopping.set()
    with _running_lock:
        for proc in list(_running):
            _kill_group(proc)


# ---- one section ------------------------------------------------------------------------


@dataclass
class _Step:
    kind: str  # "start", "cell", "inline", "finish"
    index: int
    line: int
    limit: float
    started: float


def _signal_words(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"killed by signal {number}"
    words = {
        "SIGKILL": "killed by SIGKILL (out of memory?)",
        "SIGSEGV": "segmentation fault (SIGSEGV)",
        "SIGABRT": "aborted (SIGABRT)",
        "SIGBUS": "bus error (SIGBUS)",
        "SIGFPE": "arithmetic fault (SIGFPE)",
        "SIGILL": "illegal instruction (SIGILL)",
    }
    return words.get(name, f"killed by {name}")


def _log_tail(log: Path) -> str:
    try:
        lines = log.read_text("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""


def _worker_env() -> dict[str, str]:
    env = dict(os.environ, MPLBACKEND="Agg", MATPLOTLIBRC=str(STATIC / "matplotlibrc"))
    env["PYTHONHASHSEED"] = HASH_SEED  # set and dict order the same in every build
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parent.parent), env.get("PYTHONPATH", "")]
    ).rstrip(os.pathsep)
    return env


def run_section(
    lesson: Lesson,
    job: Job,
    verbose: bool = False,
    on_progress: OnProgress | None = None,
) -> SectionResult | Diagnostic:
    """Run one section in a fresh worker process; figures land in `job.figure_dir`."""
    spec = job_spec(lesson, job)
    staging = job.figure_dir.with_name(staging_name(job.key))
    shutil.rmtree(staging, ignore_errors=True)
    spec["figure_dir"] = str(staging.resolve())
    try:
        with tempfile.TemporaryDirectory(prefix="deck-job-") as tmp:
            outcome = _run_worker(lesson, job, spec, Path(tmp), verbose, on_progress)
        if isinstance(outcome, Diagnostic):
            return outcome
        shutil.rmtree(job.figure_dir, ignore_errors=True)
        staging.rename(job.figure_dir)
        return SectionResult.from_json(outcome, str(job.figure_dir))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _run_worker(
    lesson: Lesson,
    job: Job,
    spec: dict[str, Any],
    tmp: Path,
    verbose: bool,
    on_progress: OnProgress | None,
) -> dict[str, Any] | Diagnostic:
    """Start the worker, follow its steps, enforce the limits; the result JSON or a problem."""
    spec["job_dir"] = str(tmp.resolve())
    job_file, result_file, log_file = tmp / "job.json", tmp / "result.json", tmp / "worker.log"
    job_file.write_text(json.dumps(spec, ensure_ascii=False), "utf-8")
    ours, theirs = socket.socketpair()
    first_line = job.section.slides[0].loc.line if job.section.slides else 1
    launched = time.monotonic()
    step = _Step("start", 0, first_line, STARTUP_LIMIT, launched)
    cells = len(spec["cells"])

    def tell(kind: str, ok: bool = True) -> None:
        if on_progress is not None:
            cell = step.index if step.kind == "cell" else (cells if kind != "start" else 0)
            on_progress(
                Progress(
                    job.section.name,
                    job.section.rel,
                    kind,
                    cell,
                    cells,
                    step.line,
                    step.started,
                    launched,
                    job.estimate,
                    ok,
                )
            )

    cmd = [
        sys.executable,
        "-m",
        "deck.worker",
        str(job_file),
        str(result_file),
        str(theirs.fileno()),
    ]
    with open(log_file, "wb") as log:
        proc = subprocess.Popen(
            cmd,
            env=_worker_env(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=(theirs.fileno(),),
        )
    theirs.close()
    with _running_lock:
        _running.add(proc)
    if _stopping.is_set():
        _kill_group(proc)
    timed_out = False
    try:
        tell("start")
        timed_out = _follow(proc, ours, step, spec, tell)
    finally:
        _kill_group(proc)  # whatever the cells started dies with the section
        proc.wait()
        with _running_lock:
            _running.discard(proc)
        ours.close()
    if verbose:
        text = log_file.read_text("utf-8", "replace")
        if text.strip():
            sys.stderr.write(text)
    result = _outcome(job, spec, step, proc.returncode, timed_out, result_file, log_file)
    tell("done", ok=not isinstance(result, Diagnostic))
    return result


def _follow(
    proc: subprocess.Popen[bytes],
    events: socket.socket,
    step: _Step,
    spec: dict[str, Any],
    tell: Callable[[str], None],
) -> bool:
    """Read the worker's steps until it exits; kill its group when a step overruns.
    Returns whether it was killed for overrunning. `step` is updated in place."""
    events.setblocking(False)
    selector = selectors.DefaultSelector()
    selector.register(events, selectors.EVENT_READ, "events")
    exited: int | None = None
    try:
        exited = os.pidfd_open(proc.pid)
        selector.register(exited, selectors.EVENT_READ, "exit")
    except (AttributeError, OSError):
        exited = None  # no pidfd: poll for the exit instead
    buffer = b""

    def read() -> bool:
        """Handle what the worker sent; False at end of file."""
        nonlocal buffer
        while True:
            try:
                chunk = events.recv(65536)
            except (BlockingIOError, InterruptedError):
                return True
            except OSError:
                return False
            if not chunk:
                return False
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                _advance(step, json.loads(line), spec)
                tell(step.kind)

    try:
        while proc.poll() is None:
            remaining = step.started + step.limit + GRACE - time.monotonic()
            if remaining <= 0:
                _kill_group(proc)
                proc.wait()
                read()
                return True
            wait = min(remaining, 1.0 if exited is not None else 0.05)
            for key, _ in selector.select(timeout=wait):
                if key.data == "events" and not read():
                    selector.unregister(events)
        read()  # the last steps sent just before the worker ended
        return False
    finally:
        selector.close()
        if exited is not None:
            os.close(exited)


def _advance(step: _Step, event: dict[str, Any], spec: dict[str, Any]) -> None:
    step.kind = event["step"]
    step.started = time.monotonic()
    if step.kind == "finish":
        step.limit = FINISH_LIMIT
        return
    step.index = int(event["index"])
    step.line = int(event["line"])
    step.limit = float(event["timeout"])


def _outcome(
    job: Job,
    spec: dict[str, Any],
    step: _Step,
    returncode: int,
    timed_out: bool,
    result_file: Path,
    log_file: Path,
) -> dict[str, Any] | Diagnostic:
    loc = Loc(job.section.rel, step.line)
    what = {"cell": "cell", "inline": "inline expression"}.get(step.kind, "worker")
    if timed_out:
        if step.kind == "finish":
            message = "recording what the section read took too long"
        else:
            message = (
                f"{what} still running after {step.limit:g} s and did not stop when asked: "
                "stopped with every process it started (set `#| timeout:`"
                + (")" if step.kind == "cell" else " or `exec: timeout:` in lesson.yml)")
            )
        return Diagnostic(loc, "timeout", message)
    data: Any = None
    if returncode == 0:
        try:
            data = json.loads(result_file.read_text("utf-8"))
        except (OSError, ValueError):
            data = None
    if isinstance(data, dict) and "error" in data:
        err = data["error"]
        return Diagnostic(Loc(err["path"], err["line"]), err["code"], err["message"])
    if isinstance(data, dict):
        return data
    if returncode < 0:
        cause = _signal_words(-returncode)
    elif returncode > 0:
        cause = f"exited with code {returncode} (os._exit?)"
    else:
        cause = "ended without a result"
    where = {
        "start": "while starting",
        "cell": "while this cell ran",
        "inline": "while this inline expression ran",
        "finish": "after the last cell",
    }[step.kind]
    tail = _log_tail(log_file) if step.kind in ("start", "finish") else ""
    return Diagnostic(loc, "crash", f"worker {where}: {cause}" + (f": {tail}" if tail else ""))


# ---- many sections ------------------------------------------------------------------------


def run_sections(
    lesson: Lesson,
    jobs: list[Job],
    workers: int,
    report: Callable[[Job, SectionResult | Diagnostic, float], None],
    verbose: bool = False,
    on_progress: OnProgress | None = None,
) -> dict[str, SectionResult | Diagnostic]:
    """Run `jobs` with at most `workers` processes at once; `report` each (in job order) as it
    finishes, `on_progress` for every step of every section while they run.

    On KeyboardInterrupt (or any other exception here) every worker's process group is killed
    before the exception goes on.
    """
    _stopping.clear()

    def one(job: Job) -> tuple[SectionResult | Diagnostic, float]:
        t0 = time.perf_counter()
        outcome = run_section(lesson, job, verbose, on_progress)
        return outcome, time.perf_counter() - t0

    results: dict[str, SectionResult | Diagnostic] = {}
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    try:
        futures: list[Future[tuple[SectionResult | Diagnostic, float]]] = [
            pool.submit(one, job) for job in jobs
        ]
        for job, future in zip(jobs, futures, strict=True):
            outcome, seconds = future.result()
            report(job, outcome, seconds)
            results[job.section.name] = outcome
    except BaseException:
        stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    return results
