"""The build's side of the warm build service (deck/buildd.py): `build.py` asks the service to
run this build (`run`), or starts the service for the next one (`start`) and runs this one
itself: started first, the service is ready when the build ends, however soon the next comes.

`build.py` imports this module before anything else, on every build: it imports only what
Python has loaded at start-up and C modules (`_socket` and `_signal`, not `socket` and
`signal`; no `json`, `pathlib` or `re`: these took 25 ms of a no-change build of 0.12 s). The
request is one line, a Python literal (`repr` of a dict of strings, lists and None), read by
the service with `ast.literal_eval`.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]
import _socket
import os
import stat  # (loaded by os)
import sys

from deck.localsocket import read_line, same_user

ENGINE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(ENGINE)
CONNECT_WAIT = 0.5  # s a build waits for the service to take its request
MAX_PATH = 100  # bytes of a socket's path (AF_UNIX holds 107)
SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
OK = b'{"ok": true}\n'  # the service's answer when it runs the build


def enabled(argv: list[str]) -> bool:
    """Whether this build may run in the service: it is on, the platform forks and passes
    descriptors, and nothing asks for a process of the build's own."""
    if os.environ.get("DECK_BUILDD", "1") == "0" or not hasattr(_socket, "SCM_RIGHTS"):
        return False
    if not hasattr(os, "fork") or "--serve" in argv:
        return False
    flags = sys.flags
    return not (sys._xoptions or sys.warnoptions or flags.optimize or flags.dev_mode)


def socket_path() -> str:
    """The service's socket: `$DECK_BUILDD_SOCKET`, else the project's `.cache/buildd.sock`
    when it fits AF_UNIX, else one in a private folder of this user's."""
    own = os.environ.get("DECK_BUILDD_SOCKET") or os.path.join(ROOT, ".cache", "buildd.sock")
    if len(os.fsencode(own)) <= MAX_PATH:
        return own
    import hashlib
    import tempfile

    name = f"deck-buildd-{hashlib.sha256(os.fsencode(ROOT)).hexdigest()[:24]}.sock"
    folder = os.path.join(tempfile.gettempdir(), f"deck-buildd-{os.getuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise OSError(f"{folder}: not a private folder of this user")
    return os.path.join(folder, name)


def run(argv: list[str]) -> int | None:
    """The exit status of this build run by the service; None when it did not run it (none
    answers, it is another key's, or this build may not use it): the build runs itself."""
    if not enabled(argv[1:]):
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    path = ""
    try:
        path = socket_path()
        sock.settimeout(CONNECT_WAIT)
        sock.connect(os.fsencode(path))
        if not same_user(sock):
            sock.close()
            return None
        encodings = [getattr(s, "encoding", None) for s in (sys.stdout, sys.stderr)]
        request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "encoding": encodings}
        data = repr(request).encode("utf-8", "surrogateescape") + b"\n"
        fds = [fd if _is_open(fd) else os.open(os.devnull, os.O_RDWR) for fd in (0, 1, 2)]
        rights = (_socket.SOL_SOCKET, _socket.SCM_RIGHTS, b"".join(_native(fd) for fd in fds))
        sent = sock.sendmsg([data], [rights])
        if sent < len(data):
            sock.sendall(data[sent:])
        if read_line(sock) != OK:
            sock.close()
            return None
    except ConnectionError:  # (refused, or closed without an answer)
        sock.close()
        _make_way(path)
        return None
    except (OSError, ValueError):
        sock.close()
        return None
    sock.settimeout(None)
    return _wait(sock)


def hand_over(made: bytes) -> None:
    """Gives the service what this build, run in its own process, made (`deck.warm.handed`):
    its forks take it, so the build after a cold one parses and renders only what changed.
    The service takes it only for its own key. Nothing when none answers."""
    if not made or not enabled(sys.argv[1:]):
        return
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_WAIT)
        sock.connect(os.fsencode(socket_path()))
        if same_user(sock):
            request = {"op": "keep", "env": dict(os.environ), "size": len(made)}
            sock.sendall(repr(request).encode("utf-8", "surrogateescape") + b"\n" + made)
    except (OSError, ValueError):
        pass
    finally:
        sock.close()


def _make_way(path: str) -> None:
    """Removes the socket file of a service that does not answer: one that ended without
    removing it (killed), or one of an older engine that cannot read this request and would
    otherwise live on, each request keeping it from going idle. A service whose socket file
    is gone ends; `start` starts a new one after this build."""
    try:
        if stat.S_ISSOCK(os.lstat(path).st_mode):
            os.unlink(path)
    except OSError:
        pass


def _native(fd: int) -> bytes:
    """A descriptor as the kernel reads it in SCM_RIGHTS: a C int in this machine's order."""
    return fd.to_bytes(4, sys.byteorder, signed=True)


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _wait(sock: _socket.socket) -> int:
    """Passes this process's signals to the build and returns the status it ends with."""

    def forward(number: int, _frame: object) -> None:
        try:
            sock.sendall(bytes([number]))
        except OSError:
            pass

    for name in SIGNALS:
        _signal.signal(getattr(_signal, name), forward)
    try:
        said = read_line(sock).decode()
    except (OSError, UnicodeDecodeError):
        said = ""
    sock.close()
    if said.startswith("exit "):
        return int(said.split()[1])
    print("build.py: the warm build ended without its status", file=sys.stderr)
    return 1


def start() -> bool:
    """Starts the service for the next build (when this one runs itself), unless one has its
    socket; whether it started one."""
    if not enabled(sys.argv[1:]):
        return False
    try:
        path = socket_path()
        if os.path.exists(path):
            return False
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        log = os.open(
            os.path.join(folder, "buildd.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600
        )
    except OSError:
        return False
    argv = service_command()
    actions: list[tuple] = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    actions += [(os.POSIX_SPAWN_DUP2, log, 1), (os.POSIX_SPAWN_DUP2, log, 2)]
    started = True
    try:  # (the build's own environment)
        os.posix_spawn(sys.executable, argv, dict(os.environ), file_actions=actions, setsid=True)
    except (OSError, NotImplementedError):
        started = False
    os.close(log)
    return started


def service_command() -> list[str]:
    """How the service is started: `deck` imported from the project (never the working folder:
    `-P`), with the build's own environment (no PYTHONPATH of the service's: the key's)."""
    code = f"import sys; sys.path.insert(0, {ROOT!r}); from deck import buildd; "
    code += "sys.exit(buildd.main())"
    return [sys.executable, "-P", "-c", code]
