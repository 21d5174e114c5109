"""The one file hasher and atomic write that every cache and record uses."""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from pathlib import Path

RACY_SECONDS = 2.0  # a file changed this recently when hashed may change again unseen


def content_hash(path: str | Path) -> str:
    """The sha256 of a file's bytes, read in blocks; raises OSError as reading does."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def digest(path: str | Path) -> tuple[str, int, int, int, int]:
    """(sha256, size, mtime_ns, ctime_ns, inode) of a file; ("", 0, 0, 0, 0) when it does not
    exist.

    `mtime_ns` is -1 when the file was modified too recently for its stat to be trusted later
    (it might change again within the clock's granularity), so the next check hashes it.
    A later check trusts the recorded hash only while size, mtime, ctime and inode are all
    unchanged: `touch -r` or `cp -p` can set an mtime back, never a ctime.
    """
    try:
        before = os.stat(path)
        sha = content_hash(path)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return "", 0, 0, 0, 0
    recent = time.time_ns() - max(before.st_mtime_ns, before.st_ctime_ns) < RACY_SECONDS * 1e9
    mtime = -1 if recent else before.st_mtime_ns
    return sha, before.st_size, mtime, before.st_ctime_ns, before.st_ino


def identity(st: os.stat_result) -> tuple[int, int, int, int]:
    """What says a file is the one last seen without reading it: size, mtime, ctime, inode."""
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file beside it: readers see the old file or
    the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
