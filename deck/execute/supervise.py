"""Starting a worker process and keeping it within its limits.

A worker runs in its own process group (its own session) with stdin from /dev/null and a
fixed hash seed. It tells the parent on a socket which step (cell or inline expression) it is
running; the parent enforces each step's time limit itself, killing the whole process group
after the limit plus a short grace, even when a cell swallows the worker's own timeout
exception. Whatever a cell started is killed when the worker ends (by the worker itself, a
child subreaper, and by this process: the group and every process below the worker), and
`stop_all` (on Ctrl-C) kills every running worker's group. If the parent dies outright, each
worker sees its socket close and kills its own group (see `deck.worker.Channel`).
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deck import jobs
from deck.execute.ending import kill_descendants
from deck.execute.written import note
from deck.theme import ROOT, STATIC

GRACE = 2.0  # seconds a step may overrun its limit before its process group is killed
STARTUP_LIMIT = 120.0  # seconds for a worker to start and report its first step
FINISH_LIMIT = 600.0  # seconds to hash what the section read and write the result
HASH_SEED = "0"

_running: set[subprocess.Popen[bytes]] = set()
_running_lock = threading.Lock()
_stopping = threading.Event()


@dataclass
class Step:
    """What the worker is doing: "start", "cell" (number `index`), "inline", "finish"."""

    kind: str
    index: int
    line: int  # the .md line of the cell fence or inline expression
    limit: float  # seconds it may take
    started: float  # time.monotonic() when it began


@dataclass(frozen=True)
class Ended:
    returncode: int  # negative: killed by that signal
    timed_out: bool  # killed by the parent because `step` overran its limit
    step: Step  # the last step the worker reported


# The build's spare cores (deck.jobs.Spare: its pipe's two ends), passed to each worker while
# `deck.execute.run.run_sections` runs
SPARE: list[tuple[int, int]] = []


def worker_env() -> dict[str, str]:
    env = dict(os.environ, MPLBACKEND="Agg", MATPLOTLIBRC=str(STATIC / "matplotlibrc"))
    env["PYTHONHASHSEED"] = HASH_SEED  # set and dict order the same in every build
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop(jobs.SPARE, None)
    if SPARE:
        env[jobs.SPARE] = ",".join(map(str, SPARE[-1]))
    return env


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the worker, its process group, and every process below it (the worker is a child
    subreaper: what a cell started in another session or orphaned is still below it)."""
    if proc.returncode is None:
        kill_descendants(proc.pid, 0.5)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all() -> None:
    """Kill every running worker's process group; workers started later are killed at once
    until `allow_starts`."""
    _stopping.set()
    with _running_lock:
        for proc in list(_running):
            _kill_group(proc)


def allow_starts() -> None:
    _stopping.clear()


def run_worker(
    job_file: Path,
    result_file: Path,
    log_file: Path,
    first: Step,
    on_step: Callable[[Step], None],
    python: str = "",
) -> Ended:
    """Run `python -m deck.worker JOB RESULT FD` until it ends or overruns a step; stdout and
    stderr go to `log_file`. `on_step` is called with each step as it begins."""
    ours, theirs = socket.socketpair()
    cmd = [python or sys.executable, "-m", "deck.execute.worker", str(job_file), str(result_file)]
    with open(log_file, "wb") as log:
        proc = subprocess.Popen(
            [*cmd, str(theirs.fileno())],
            env=worker_env(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=(theirs.fileno(), *(SPARE[-1] if SPARE else ())),
        )
    theirs.close()
    with _running_lock:
        _running.add(proc)
    if _stopping.is_set():
        _kill_group(proc)
    step = first
    try:
        on_step(step)
        timed_out = _follow(proc, ours, step, on_step)
    finally:
        _kill_group(proc)  # whatever the cells started dies with the section
        proc.wait()
        with _running_lock:
            _running.discard(proc)
        ours.close()
    return Ended(proc.returncode, timed_out, step)


def _follow(
    proc: subprocess.Popen[bytes],
    events: socket.socket,
    step: Step,
    on_step: Callable[[Step], None],
) -> bool:
    """Read the worker's steps until it exits; kill its group when a step overruns.
    Returns whether it was killed for overrunning. `step` is updated in place."""
    events.setblocking(False)
    selector = selectors.DefaultSelector()
    selector.register(events, selectors.EVENT_READ, "events")
    try:
        pidfd = os.pidfd_open(proc.pid)
        selector.register(pidfd, selectors.EVENT_READ, "exit")
        exited: int | None = pidfd
    except (AttributeError, OSError):
        exited = None  # no pidfd here: poll for the exit instead
    buffer = b""

    def read() -> bool:
        """Take in what the worker sent; False at end of file."""
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
                if _advance(step, line):
                    on_step(step)

    try:
        while proc.poll() is None:
            remaining = step.started + step.limit + GRACE - time.monotonic()
            if remaining <= 0:
                _kill_group(proc)
                proc.wait()
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


def _advance(step: Step, line: bytes) -> bool:
    """Move `step` on by one event line; False for a line that is not an event."""
    try:
        event: Any = json.loads(line)
        kind = event["step"]
        if kind == "wrote":  # a cell wrote a file in the lesson folder: the preview ignores it
            note(str(event["path"]))
            return False
        if kind == "finish":
            index, where, limit = step.index, step.line, FINISH_LIMIT
        else:
            index, where, limit = int(event["index"]), int(event["line"]), float(event["timeout"])
    except (ValueError, TypeError, KeyError):
        return False  # e.g. a cell that wrote to the socket itself
    step.kind, step.index, step.line, step.limit = str(kind), index, where, limit
    step.started = time.monotonic()
    return True


def signal_words(number: int) -> str:
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


def log_tail(log: Path) -> str:
    """The last line the worker wrote to its stdout/stderr (for crashes outside cells)."""
    try:
        lines = log.read_text("utf-8", "replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""
