"""What one build made that the next may take as it is, kept in memory between builds: a
section file parsed, a section cache entry read, a section's slides rendered.

Each is kept under a key that holds everything it was made from (the file's bytes or text, and
what else it depends on), so a build can only take one made from the same input, and the
engine itself is the same in every build of a process (the warm build service, deck/buildd.py,
ends when an engine file changes). A build in its own process (`--serve` builds in one) keeps
them for its next build. A build the warm service forked hands what it made back to the service
after it has said its exit status (`handed`, `take_back`), so the service's next fork has them:
a prose edit then parses, reads and renders only the section it changed.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import socket

# (pickle is imported when something is handed over: a no-change build, which looks up
# nothing, never loads it)

KEEP = 64  # entries of each kind (a few lessons' sections)

_kept: dict[str, dict[str, Any]] = {}
_new: dict[str, dict[str, Any]] = {}  # what this process made, to hand back
_used: dict[str, list[str]] = {}  # what it took (kept as the newest where it came from)


def key(*parts: str | bytes) -> str:
    """One key of `parts` (each told apart from the next)."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def get(kind: str, at: str) -> Any | None:
    found = _kept.get(kind, {}).get(at)
    if found is not None:
        _used.setdefault(kind, []).append(at)
    return found


def put(kind: str, at: str, value: Any) -> None:
    _keep(kind, at, value)
    _new.setdefault(kind, {})[at] = value


def _keep(kind: str, at: str, value: Any) -> None:
    kept = _kept.setdefault(kind, {})
    kept.pop(at, None)
    kept[at] = value  # (the newest last)
    while len(kept) > KEEP:
        del kept[next(iter(kept))]


def forget() -> None:
    """Drop everything (a test's fresh start)."""
    _kept.clear()
    _new.clear()
    _used.clear()


def handed() -> bytes:
    """What this process made since it started (or was forked), and the keys of what it
    took, for `take_back`; b"" when nothing."""
    import pickle

    if not _new and not _used:
        return b""
    try:
        return pickle.dumps((_new, _used), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - one that cannot be pickled is left out, not the rest
        made = {
            kind: {at: v for at, v in kept.items() if _picklable(v)} for kind, kept in _new.items()
        }
        return pickle.dumps((made, _used), protocol=pickle.HIGHEST_PROTOCOL)


def _picklable(value: Any) -> bool:
    import pickle

    try:
        pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        return True
    except Exception:  # noqa: BLE001 - whatever pickling raises
        return False


def take_back(data: bytes) -> int:
    import pickle

    """Keep what a build handed back (`handed`, from a fork of this process); returns how many
    entries. Data that cannot be read is dropped whole."""
    try:
        made, used = pickle.loads(data)
    except Exception:  # noqa: BLE001 - a fork killed while writing: nothing taken
        return 0
    if not isinstance(made, dict) or not isinstance(used, dict):
        return 0
    for kind, keys in used.items():  # (taken again: the last to go)
        for at in keys if isinstance(keys, list) else ():
            if (value := _kept.get(kind, {}).get(at)) is not None:
                _keep(kind, at, value)
    count = 0
    for kind, entries in made.items():
        if isinstance(kind, str) and isinstance(entries, dict):
            for at, value in entries.items():
                _keep(kind, at, value)
                count += 1
    return count


def began_fork() -> None:
    """In a fork: what it makes and takes from now on is what it hands back."""
    _new.clear()
    _used.clear()


def read_back(fd: int, received: bytearray) -> int | None:
    """Read what a fork hands back on its pipe `fd` (not blocking) into `received`; at the
    end, close `fd`, keep it and say how many things; None while more is to come."""
    try:
        chunk = os.read(fd, 1 << 20)
    except BlockingIOError:
        return None
    except OSError:
        chunk = b""
    if chunk:
        received += chunk
        return None
    os.close(fd)
    return take_back(bytes(received)) if received else 0


def receive(conn: socket.socket, start: bytes, size: int) -> int:
    """Keep the `size` bytes a build in its own process hands over on `conn` (`start`: those
    read already); how many things (0 when it was cut short)."""
    received = bytearray(start)
    while len(received) < size:
        chunk = conn.recv(min(1 << 20, size - len(received)))
        if not chunk:
            return 0
        received += chunk
    return take_back(bytes(received))
