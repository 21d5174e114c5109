"""Work done beside the build: a forked child computes what a later step of the build needs
while the build goes on with the steps before it (a machine has two cores or more; a prose
edit's notebooks take as long to make as the deck's fonts take to stage, one after the other).

The child computes, sends its result down a pipe and ends (`os._exit`: none of the build's
exit handlers run twice). `result()` waits for it; where the child could not be made (no
`fork`, `DECK_AHEAD=0`) or its work failed, the work is done again in the build itself, so an
error is raised where the build would have raised it, with its traceback; so is one that has
not answered within `WAIT` seconds (a child forked beside a thread that held a lock, as in
`--serve`, could wait for ever). `close()` ends a child whose result is no longer wanted (the
build stopped on an error first).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
WAIT = 120.0  # s the build waits for a child's result before doing the work itself


def enabled() -> bool:
    return hasattr(os, "fork") and os.environ.get("DECK_AHEAD", "1") != "0"


class Ahead(Generic[T]):
    """`work()` started in a child process now; its value from `result()`."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._work = work
        self._pid: int | None = None
        self._fd: int | None = None
        if not enabled():
            return
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return
        if pid == 0:  # (the child: whatever happens, it never returns into the build)
            try:
                os.close(read)
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # (a Ctrl-C ends it, unsaid)
                try:
                    data = pickle.dumps((True, work()), protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException:  # noqa: BLE001 (said by the build, doing it again)
                    data = pickle.dumps((False, None))
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(data)
            finally:
                os._exit(0)
        os.close(write)
        self._pid, self._fd = pid, read

    @property
    def forked(self) -> bool:
        return self._pid is not None

    def result(self) -> T:
        if self._fd is None:
            return self._work()
        data = self._read()
        try:
            answer = pickle.loads(data) if data is not None else None
        except Exception:  # noqa: BLE001 (cut short: the child was killed)
            answer = None
        if not answer or not answer[0]:
            return self._work()
        value: T = answer[1]
        return value

    def _read(self) -> bytes | None:
        """The child's bytes; None when it has not finished within WAIT seconds (then it is
        ended: forked beside another thread that held a lock, it could wait for ever)."""
        assert self._fd is not None
        chunks: list[bytes] = []
        until = time.monotonic() + WAIT
        try:
            while True:
                left = until - time.monotonic()
                if left <= 0 or not select.select([self._fd], [], [], left)[0]:
                    return None
                chunk = os.read(self._fd, 1 << 20)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
        finally:
            self.close()

    def close(self) -> None:
        """Ends the child if its result was not taken."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
            if self._pid is not None:
                with contextlib.suppress(OSError):
                    os.kill(self._pid, signal.SIGKILL)
        self._reap()

    def _reap(self) -> None:
        if self._pid is not None:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._pid, 0)
            self._pid = None
