"""Independent calls of one function side by side: `each(f, items)` is `[f(x) for x in items]`
with the calls spread over the cores this process may use: it makes one call itself while
forked child processes make others, each starting from this process's state as it is
(modules imported, variables set) and sending its value back (pickled).

For a lesson's seeds: `runs = each(lambda s: experiment(seed=s), SEEDS)`: three seeds that take
half a minute one after the other take about half of it on two free cores. The values are
those of the calls made one after the other: the same code on the same state.

What a call changes besides its value may stay in its child: global variables, the random
generators' state, figures drawn. So `f` returns what it computed, seeds its own generators
(as a lesson's `reproducible(seed)` does) and draws nothing (draw from the values, in the
cell). What the calls print is passed on in the items' order, the warnings a child gives are
given here; an exception a call raises is raised here and the other calls are stopped (a
child's with its traceback in a note). A library's thread pool used before the fork may not be
usable in a child (GNU OpenMP's: a parallel operation there would wait for ever): while torch
runs on several threads (a notebook's kernel), the calls are made one after the other here;
a call must not set more threads itself.

How many calls at once: `DECK_JOBS=N`; else, in a build, this process's own core and the cores
no section's worker uses (`Spare`: taken as they come free, given back as soon as none is
needed: two cores running two sections' workers get no third process, which would only slow the
other two, and would pay a first call's warming up, a library's lazy imports, once more); else
the cores this process may use. All the calls are made here, one after the other, when no
child is made: not on Linux, `DECK_JOBS=1`, one item, inside a call, torch on several threads;
so is a call whose child ended without an answer (killed). In a build, the files a child's
call reads are the section's inputs as if read here (`CARRY`).
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import select
import signal
import sys
import traceback
import warnings
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

__all__ = ["each"]

T = TypeVar("T")
R = TypeVar("R")
# (take in a child, give here): what a call's child hands back besides its value; the build's
# section worker adds its input recorder's (deck.execute.worker)
CARRY: list[tuple[Callable[[], Any], Callable[[Any], None]]] = []
_INSIDE = [False]  # (in a child: its own calls of `each` run one after the other)
FORKING = [False]  # (the build's input recorder: no unknown input; its reads are carried)


SPARE = "DECK_SPARE_CORES"  # "R,W": a build's pipe of spare cores, a byte each (deck.execute.run)


def cores() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def fork_safe() -> bool:
    """Whether a child may compute: not when torch runs its operations on several threads
    (GNU OpenMP's pool, used before the fork, is not in the child: its first parallel
    operation would wait for ever). A build's workers run with one thread each; a notebook's
    kernel with one per core, so there the calls are made one after the other."""
    torch = sys.modules.get("torch")
    try:
        return torch is None or int(torch.get_num_threads()) <= 1
    except Exception:  # noqa: BLE001 (a torch half imported)
        return False


def said_jobs() -> int | None:
    said = os.environ.get("DECK_JOBS", "").strip()
    return int(said) if said.isdigit() and int(said) > 0 else None


class Spare:
    """The build's spare cores: a pipe holding a byte for each core no section's worker uses
    (`take` one without waiting, `give` it back)."""

    def __init__(self, read: int, write: int):
        self.read, self.write = read, write

    @classmethod
    def from_env(cls) -> Spare | None:
        try:
            read, write = (int(fd) for fd in os.environ[SPARE].split(","))
            os.fstat(read), os.fstat(write)
        except (KeyError, ValueError, OSError):
            return None
        return cls(read, write)

    def take(self) -> bool:
        try:
            return bool(os.read(self.read, 1))
        except (BlockingIOError, OSError):
            return False

    def give(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self.write, b"+")


def each(function: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """`[function(x) for x in items]`: the same values, in the items' order, with the calls
    made side by side, this process making one and forked children the others. `function`
    returns what it computed (picklable) and seeds its own random generators; what it changes
    besides may stay in a child. What the calls print comes in the items' order; an exception
    one raises is raised here and stops the others."""
    items = list(items)
    said = said_jobs()
    spare = Spare.from_env() if said is None else None
    most = said or (len(items) if spare else cores())  # (this process's own call included)
    if min(most, len(items)) < 2 or _INSIDE[0] or sys.platform != "linux" or not fork_safe():
        return [function(x) for x in items]
    children = _Children(function, spare, most - 1)
    waiting = list(enumerate(items))
    done: dict[int, tuple[Any, str, str]] = {}  # index → (value, printed, printed to stderr)
    try:
        while waiting:
            children.start(waiting)  # (from the end: this process takes the first)
            if waiting:
                index, item = waiting.pop(0)
                done[index] = _here(function, item)
            done.update(children.collect(waiting, wait=not waiting))
        while children.running:
            done.update(children.collect(waiting, wait=True))
    finally:
        children.close()
        for index in sorted(done):  # (what was printed, in the items' order)
            sys.stdout.write(done[index][1])
            sys.stderr.write(done[index][2])
    return [done[index][0] for index in range(len(items))]


def _here(function: Callable[[T], Any], item: T) -> tuple[Any, str, str]:
    """A call made in this process: its value and what it printed (passed on in order)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        value = function(item)
    return value, out.getvalue(), err.getvalue()


class _Children:
    """The calls made in child processes: at most `most` at once outside a build; in a build,
    as many as spare cores could be taken (given back as soon as none is needed)."""

    def __init__(self, function: Callable[[Any], Any], spare: Spare | None, most: int):
        self.function, self.spare, self.most = function, spare, most
        self.held = 0  # spare cores taken
        self.running: dict[
            int, tuple[int, Any, int, list[bytes]]
        ] = {}  # fd → index, item, pid, data

    def room(self, waiting: list[Any]) -> bool:
        if len(waiting) < 2:  # (the last one is this process's)
            return False
        if self.spare is None:
            return len(self.running) < self.most
        if len(self.running) < self.held:
            return True
        if self.spare.take():
            self.held += 1
            return True
        return False

    def start(self, waiting: list[tuple[int, Any]]) -> None:
        while self.room(waiting):
            index, item = waiting.pop()
            pid, fd = _start(self.function, item)
            self.running[fd] = (index, item, pid, [])

    def collect(self, waiting: list[Any], wait: bool) -> dict[int, tuple[Any, str, str]]:
        """The answers of the children that ended (waiting for one when `wait`); spare cores
        no longer needed are given back."""
        found: dict[int, tuple[Any, str, str]] = {}
        if not self.running:
            return found
        ready = select.select(list(self.running), [], [], None if wait else 0)[0]
        for fd in ready:
            chunk = os.read(fd, 1 << 20)
            if chunk:
                self.running[fd][3].append(chunk)
                continue
            index, item, pid, chunks = self.running.pop(fd)
            os.close(fd)
            _reap(pid)
            answer = _answer(b"".join(chunks))
            found[index] = _here(self.function, item) if answer is None else answer
        while self.spare and self.held > len(self.running) and len(waiting) < 2:
            self.spare.give()
            self.held -= 1
        return found

    def close(self) -> None:
        """Ends the children still running (a call raised, a timeout) and gives back the
        spare cores."""
        for fd, (_, _, pid, _) in self.running.items():
            os.close(fd)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            _reap(pid)
        self.running.clear()
        while self.spare and self.held:
            self.spare.give()
            self.held -= 1


def _answer(data: bytes) -> tuple[Any, str, str] | None:
    """A child's answer taken: its warnings given and carried state added here, its error
    raised here; None when it ended without one (killed: its call is made here instead)."""
    try:
        answer, out, err, said, carried = pickle.loads(data)
    except Exception:  # noqa: BLE001 (no answer, or cut short)
        return None
    for message, category, filename, line in said:
        warnings.warn_explicit(message, category, filename, line)
    for (_, give), state in zip(CARRY, carried, strict=False):
        give(state)
    if not answer[0]:
        exc, trace = answer[1], answer[2]
        exc.add_note(f"(in a child process of deck.jobs.each)\n{trace.rstrip()}")
        raise exc
    return answer[1], out, err


def _start(function: Callable[[T], Any], item: T) -> tuple[int, int]:
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (3.12: a fork beside threads)
        FORKING[0] = True
        try:
            pid = os.fork()
        finally:
            FORKING[0] = False
    if pid == 0:  # the child: whatever happens, it never returns into the caller
        try:
            os.close(read)
            _INSIDE[0] = True
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            data = _call(function, item)
            with os.fdopen(write, "wb") as pipe:
                pipe.write(data)
        finally:
            os._exit(0)
    os.close(write)
    return pid, read


def _call(function: Callable[[T], Any], item: T) -> bytes:
    """In the child: the call, its printed text, warnings and carried state, pickled."""
    out, err = io.StringIO(), io.StringIO()
    sys.stdout, sys.stderr = out, err
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as recorded:
            caught = recorded if recorded is not None else []
            answer: tuple[Any, ...] = (True, function(item))
        pickle.dumps(answer[1], protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # noqa: BLE001 (raised where `each` was called)
        answer = (False, _sendable(exc), traceback.format_exc())
    said = [(str(w.message), _sendable_category(w.category), w.filename, w.lineno) for w in caught]
    carried = [take() for take, _ in CARRY]
    rest = (out.getvalue(), err.getvalue(), said, carried)
    return pickle.dumps((answer, *rest), protocol=pickle.HIGHEST_PROTOCOL)


def _sendable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _sendable_category(category: type[Warning]) -> type[Warning]:
    try:
        pickle.loads(pickle.dumps(category))
        return category
    except Exception:  # noqa: BLE001
        return UserWarning


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
