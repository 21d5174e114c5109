"""What the build's local services share (the layout check's warm browser, `publish/layoutd.py`,
and the warm build service, `buildd.py`): a Unix socket's peer is this user, and one line read
from it. The standard library alone: `build.py` imports it before anything else."""

from __future__ import annotations

import _socket  # (what `socket` wraps: importing `socket` takes 10 ms of every build)
import os
import struct

MAX_LINE = 1 << 22  # bytes of one line, at most


def same_user(sock: _socket.socket) -> bool:
    """Whether the process at the other end of `sock` runs as this user (where the system says)."""
    if not hasattr(_socket, "SO_PEERCRED"):
        return True
    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1] == os.getuid()


def read_line(sock: _socket.socket, limit: int = MAX_LINE) -> bytes:
    """One line from `sock` (its newline kept); ConnectionError when it ends before one."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk or len(data) > limit:
            raise ConnectionError("no whole line")
        data += chunk
    return data
