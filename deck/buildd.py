"""A warm start for builds: a small local service that holds the engine imported (its modules,
their regular expressions and dataclasses, Markdown, Jinja2, Pygments, YAML: about a third of
a second of a prose edit), and runs each build in a fork of itself.

`build.py` asks it first (`run`): over a Unix socket (mode 0600, the project's `.cache/`, or a
private folder when that path is too long), one JSON line of the build's arguments, working
folder and environment, with the build's standard input, output and error passed along as
file descriptors. The service forks; the fork takes those descriptors, folder and
environment, runs `deck.cli.main` as `build.py` would, and says its exit status. Output goes
straight to the author's terminal (a terminal stays one: progress and colours as before), and
Ctrl-C, a hang-up or a kill of `build.py` reach the build (a signal's number on the socket; the
socket closing ends the build as SIGTERM would).

When none answers, the build runs in its own process as always, then starts the service
(`python -m deck.buildd`, a session of its own) for the next one. The service answers only
while its key holds: the engine's files (every file of `deck/` and `build.py`, by content),
the Python running it, its `PYTHON…` variables and the installed packages (each site folder's
listing): a request finding another key ends it, and that build runs in its own process. It
ends after `$DECK_BUILDD_IDLE` seconds without a request (300) and when its socket file is
gone. `$DECK_BUILDD=0` turns it off; `--serve` and a Python started with `-X`, `-W` or `-O`
never use it (they ask for a process of their own).

This module is imported by `build.py` before anything else: the standard library alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import signal
import socket
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path

from deck.localsocket import read_line, same_user

ENGINE = Path(__file__).resolve().parent
ROOT = ENGINE.parent
IDLE = 300.0  # s without a request before the service ends ($DECK_BUILDD_IDLE)
CONNECT_WAIT = 0.5  # s a build waits for the service to take its request
LOOK = 2.0  # s between looks at the socket file while idle
MAX_PATH = 100  # bytes of a socket's path (AF_UNIX holds 107)
MAX_LINE = 1 << 22
SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
# What a build imports besides the CLI, imported once by the service (`warm`)
WARM = (
    "deck.cli",
    "deck.pipeline",
    "deck.source.registry",
    "deck.source.qmd",
    "deck.execute.plan",
    "deck.render.deck",
    "deck.publish.write",
    "deck.publish.html",
    "deck.publish.notebook",
    "deck.publish.course",
    "deck.publish.layoutcheck",
    "deck.publish.manifest",
)


def enabled(argv: list[str]) -> bool:
    """Whether this build may run in the service: it is on, the platform forks and passes
    descriptors, and nothing asks for a process of the build's own."""
    if os.environ.get("DECK_BUILDD", "1") == "0" or not hasattr(socket, "send_fds"):
        return False
    if not hasattr(os, "fork") or "--serve" in argv:
        return False
    flags = sys.flags
    return not (sys._xoptions or sys.warnoptions or flags.optimize or flags.dev_mode)


def idle_seconds() -> float:
    try:
        return max(0.1, float(os.environ.get("DECK_BUILDD_IDLE", IDLE)))
    except ValueError:
        return IDLE


def socket_path() -> Path:
    """The service's socket: `$DECK_BUILDD_SOCKET`, else the project's `.cache/buildd.sock`
    when it fits AF_UNIX."""
    own = Path(os.environ.get("DECK_BUILDD_SOCKET") or ROOT / ".cache" / "buildd.sock")
    if len(os.fsencode(own)) <= MAX_PATH:
        return own
    name = f"deck-buildd-{hashlib.sha256(os.fsencode(ROOT)).hexdigest()[:24]}.sock"
    folder = Path(tempfile.gettempdir()) / f"deck-buildd-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise OSError(f"{folder}: not a private folder of this user")
    return folder / name


def service_key(env: dict[str, str]) -> str:
    """What a build's result depends on that the service holds imported: the engine's files,
    the Python, its `PYTHON…` variables in `env`, the installed packages."""
    h = hashlib.sha256(os.fsencode(sys.executable) + sys.version.encode())
    python = {k: v for k, v in env.items() if k.startswith("PYTHON")}
    h.update(json.dumps(python, sort_keys=True).encode())
    files = [ROOT / "build.py"]
    for folder, dirs, names in os.walk(ENGINE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files += [Path(folder) / n for n in sorted(names) if not n.endswith(".pyc")]
    for path in files:
        h.update(os.fsencode(path.relative_to(ROOT)) + b"\0" + path.read_bytes())
    for entry in sys.path:  # the installed packages: each site folder's names (dist-infos)
        if entry.endswith("-packages") and os.path.isdir(entry):
            h.update(os.fsencode(entry) + b"\0" + "\0".join(sorted(os.listdir(entry))).encode())
    return h.hexdigest()


# ---- the build's side -----------------------------------------------------------------------


def run(argv: list[str]) -> int | None:
    """The exit status of this build run by the service; None when it did not run it (none
    answers, it is another key's, or this build may not use it): the build runs itself."""
    if not enabled(argv[1:]):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_WAIT)
        sock.connect(os.fsencode(socket_path()))
        if not same_user(sock):
            return None
        encodings = [getattr(s, "encoding", None) for s in (sys.stdout, sys.stderr)]
        request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "encoding": encodings}
        fds = [fd if _is_open(fd) else os.open(os.devnull, os.O_RDWR) for fd in (0, 1, 2)]
        socket.send_fds(sock, [json.dumps(request).encode() + b"\n"], fds)
        if not json.loads(read_line(sock)).get("ok"):
            return None
    except (OSError, ValueError):
        sock.close()
        return None
    sock.settimeout(None)
    return _wait(sock)


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _wait(sock: socket.socket) -> int:
    """Passes this process's signals to the build and returns the status it ends with."""

    def forward(number: int, _frame: object) -> None:
        with contextlib.suppress(OSError):
            sock.sendall(bytes([number]))

    for name in SIGNALS:
        signal.signal(getattr(signal, name), forward)
    try:
        said = read_line(sock).decode()
    except (OSError, UnicodeDecodeError):
        said = ""
    if said.startswith("exit "):
        return int(said.split()[1])
    print("build.py: the warm build ended without its status", file=sys.stderr)
    return 1


def start() -> None:
    """Starts the service for the next build (after one that ran itself), unless one listens."""
    if not enabled(sys.argv[1:]):
        return
    try:
        path = socket_path()
        if path.exists():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        log = os.open(path.parent / "buildd.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError:
        return
    argv = service_command()
    actions: list[tuple] = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    actions += [(os.POSIX_SPAWN_DUP2, log, 1), (os.POSIX_SPAWN_DUP2, log, 2)]
    with contextlib.suppress(OSError, NotImplementedError):  # (the build's own environment)
        os.posix_spawn(sys.executable, argv, dict(os.environ), file_actions=actions, setsid=True)
    os.close(log)


# ---- the service ----------------------------------------------------------------------------


def say(text: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{os.getpid()}] {text}", flush=True)


def serve() -> int:
    """Imports the engine, then forks a build for each request until idle, stale or gone."""
    import importlib

    os.chdir("/")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    path = socket_path()
    lock = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    until = time.monotonic() + 5  # (a stale one may be ending)
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > until:
                say("another service holds the lock")
                return 3
            time.sleep(0.05)
    key, idle = service_key(dict(os.environ)), idle_seconds()
    for name in WARM:
        importlib.import_module(name)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mask = os.umask(0o177)
    try:
        listener.bind(os.fsencode(path))
    finally:
        os.umask(mask)
    inode = os.lstat(path).st_ino
    listener.listen(16)
    say(f"listening on {path} (ends after {idle:g} s idle)")
    try:
        until = time.monotonic() + idle
        while time.monotonic() < until:
            with contextlib.suppress(ChildProcessError):
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
            listener.settimeout(max(0.01, min(LOOK, until - time.monotonic())))
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                if _gone(path, inode):
                    say("its socket file is gone: ending")
                    return 0
                continue
            until = time.monotonic() + idle
            if not _take(conn, listener, key):
                say("a request for another key (the engine or Python changed): ending")
                return 0
        say("idle: ending")
        return 0
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            if os.lstat(path).st_ino == inode:
                os.unlink(path)


def _gone(path: Path, inode: int) -> bool:
    try:
        return os.lstat(path).st_ino != inode
    except OSError:
        return True


def _take(conn: socket.socket, listener: socket.socket, key: str) -> bool:
    """Forks the build one request asks for; False when it is for another key."""
    fds: list[int] = []
    try:
        conn.settimeout(10)
        if not same_user(conn):
            return True
        data, fds, _, _ = socket.recv_fds(conn, MAX_LINE, 3)
        while not data.endswith(b"\n") and len(data) < MAX_LINE:
            more = conn.recv(65536)
            if not more:
                return True
            data += more
        request = json.loads(data)
        if len(fds) != 3 or service_key(request["env"]) != key:
            conn.sendall(b'{"ok": false, "error": "stale"}\n')
            return len(fds) != 3
        pid = os.fork()
        if pid == 0:
            listener.close()
            _build(conn, request, fds)  # (never returns)
        say(f"build {pid}: {' '.join(request['argv'][1:])}")
        return True
    except (OSError, ValueError, KeyError, TypeError) as exc:
        say(f"a request not taken: {type(exc).__name__}: {exc}")
        return True
    finally:
        for fd in fds:
            os.close(fd)
        conn.close()


def _build(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In the fork: the build as `build.py` runs it, with the author's descriptors, folder and
    environment; its exit status said on the socket."""
    code = 1
    done = threading.Event()
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in set(fds) - {0, 1, 2}:
            os.close(fd)
        encodings = request.get("encoding") or [None, None]
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
        sys.stdout = _text(1, encodings[0], os.isatty(1))
        sys.stderr = _text(2, encodings[1], True)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = list(request["argv"])
        conn.settimeout(None)
        conn.sendall(b'{"ok": true}\n')
        threading.Thread(target=_signals, args=(conn, done), daemon=True).start()
        from deck.cli import main

        try:
            code = main(sys.argv[1:])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except KeyboardInterrupt:
            code = 130
    except BaseException as exc:  # noqa: BLE001 - said, and the status says it failed
        with contextlib.suppress(Exception):
            print(f"build.py: the warm build failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    finally:
        with contextlib.suppress(Exception):
            import atexit

            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        done.set()
        with contextlib.suppress(OSError):
            conn.sendall(f"exit {code}\n".encode())
        os._exit(code)


def _text(fd: int, encoding: str | None, lines: bool) -> io.TextIOWrapper:
    """A standard stream on `fd` as the build's own process would have it."""
    return io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(fd, "w", closefd=False)),
        encoding=encoding,
        errors="backslashreplace" if fd == 2 else None,
        line_buffering=lines,
    )


def _signals(conn: socket.socket, done: threading.Event) -> None:
    """The build's side of `build.py`'s signals: each byte a signal's number; the socket closing
    before the build is done ends it as SIGTERM would."""
    while True:
        try:
            data = conn.recv(16)
        except OSError:
            data = b""
        if done.is_set():
            return
        if not data:
            os.kill(os.getpid(), signal.SIGTERM)
            return
        for number in data:
            with contextlib.suppress(OSError, ValueError):
                os.kill(os.getpid(), number)


def main() -> int:
    """The service's process (`service_command`)."""
    try:
        return serve()
    except Exception as exc:
        say(f"ended: {type(exc).__name__}: {exc}")
        return 1


def service_command() -> list[str]:
    """How the service is started: `deck` imported from the project (never the working folder:
    `-P`), with the build's own environment (no PYTHONPATH of the service's: the key's)."""
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from deck import buildd; "
    code += "sys.exit(buildd.main())"
    return [sys.executable, "-P", "-c", code]
