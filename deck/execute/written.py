"""The files that cells of this process's builds wrote, as the workers report them while they
run: the preview's watcher ignores them, so a cell writing into the lesson folder never
triggers a rebuild."""

from __future__ import annotations

import os
import threading

_written: set[str] = set()
_lock = threading.Lock()


def note(path: str) -> None:
    with _lock:
        _written.add(os.path.realpath(path))


def was_written(path: str) -> bool:
    """Whether a cell wrote `path` (compared by real path)."""
    with _lock:
        if not _written:
            return False
    real = os.path.realpath(path)
    with _lock:
        return real in _written
