"""How a worker ends: what its cells left behind (threads, atexit hooks, processes) cannot hold
the build.

Once the section's result is taken, the worker gives the cells' leftover non-daemon threads and
atexit hooks one grace period in all, names the cell that started each one still running in a
warning, kills every process the cells started (the worker is a child subreaper, so processes
that left its process group or were orphaned by a double fork are still its descendants), and
exits without waiting for anything else.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

GRACE = 2.0  # seconds the cells' leftover threads and atexit hooks get, together
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Orphaned descendants are re-parented to this process rather than to init (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(root: int) -> list[int]:
    """Every process below `root`, read from /proc (parents before children)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        parents.setdefault(ppid, []).append(int(entry))
    found, queue = [], [root]
    while queue:
        for child in parents.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def kill_descendants(root: int, seconds: float = 2.0) -> None:
    """SIGKILL every process below `root` until none is left (the ones orphaned meanwhile
    come back to a subreaper `root`); reap this process's own children."""
    deadline = time.monotonic() + seconds
    while True:
        found = descendants(root)
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if root == os.getpid():
            _reap()
        if not found or time.monotonic() > deadline:
            return
        time.sleep(0.01)


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


class Leftovers:
    """Notes which cell started each thread and registered each atexit hook."""

    def __init__(self, cell_file: str, line: Callable[[], int]):
        self.cell_file = cell_file
        self.line = line
        self.hook_line = 0  # the line of the atexit hook running now
        leftovers = self
        start = threading.Thread.start

        def started(thread: threading.Thread) -> None:
            thread._deck_line = leftovers.line()  # type: ignore[attr-defined]
            start(thread)

        threading.Thread.start = started  # type: ignore[method-assign,assignment]
        register = atexit.register

        def registered(func: Callable[..., Any], *args: Any, **kw: Any) -> Callable[..., Any]:
            at = leftovers.line()

            def hook() -> None:
                leftovers.hook_line = at
                func(*args, **kw)

            register(hook)
            return func

        atexit.register = registered  # type: ignore[assignment]

    def finish(self, grace: float = GRACE) -> list[str]:
        """Shut down as Python would (thread-pool shutdown hooks, then non-daemon threads, then
        atexit hooks) within `grace` seconds in all; warnings for what was still running."""
        deadline = time.monotonic() + grace
        pools = getattr(threading, "_threading_atexits", [])  # concurrent.futures' idle pools
        _in_time(lambda: [hook() for hook in reversed(pools)], deadline)
        warnings = []
        for thread in threading.enumerate():
            if thread is threading.main_thread() or thread.daemon:
                continue
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                at = getattr(thread, "_deck_line", 0)
                warnings.append(
                    f"{self.cell_file}:{at}: warning: thread {thread.name!r} started by this cell "
                    f"was still running {grace:g} s after the section ended: stopped"
                )
        if not _in_time(atexit._run_exitfuncs, deadline):
            warnings.append(
                f"{self.cell_file}:{self.hook_line}: warning: an atexit hook registered by this "
                f"cell was still running {grace:g} s after the section ended: stopped"
            )
        return warnings


def _in_time(work: Callable[[], object], deadline: float) -> bool:
    """Run `work` in a daemon thread; whether it ended before `deadline` (or soon after)."""
    runner = threading.Thread(target=work, name="deck-ending", daemon=True)
    runner.start()
    runner.join(max(0.2, deadline - time.monotonic()))
    return not runner.is_alive()


def leave(code: int = 0) -> None:
    """Kill what the cells started, flush, and exit now (no more waiting on threads or hooks)."""
    kill_descendants(os.getpid())
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110 - a closed or replaced stream: nothing to flush
            pass
    os._exit(code)
