"""A warm start for builds: a small local service that holds the engine imported (its modules,
their regular expressions and dataclasses, Markdown, Jinja2, Pygments, YAML: about a third of
a second of a prose edit), and runs each build in a fork of itself.

`build.py` asks it first (deck/buildclient.py, `run`): over a Unix socket (mode 0600, the
project's `.cache/`, or a private folder when that path is too long), one line (a Python
literal) of the build's arguments, working folder and environment, with the build's standard
input, output and error passed along as file descriptors. The service forks; the fork takes
those descriptors, folder and environment, runs `deck.cli.main` as `build.py` would, and says
its exit status. Output goes straight to the author's terminal (a terminal stays one: progress
and colours as before), and Ctrl-C, a hang-up or a kill of `build.py` reach the build (a
signal's number on the socket; the socket closing ends the build as SIGTERM would).

When none answers, the build starts the service (`python -m deck.buildd`, a session of its
own) for the next one and runs in its own process as always (started first, the service is
ready when the build ends; when an older one still has its socket, after the build). The
service answers only while its key holds: the engine's files (every file of `deck/` and
`build.py`, by content), the Python running it, its `PYTHON…` variables and the installed
packages (each site folder's listing): a request finding another key ends it, and that build
runs in its own process. It ends after `$DECK_BUILDD_IDLE` seconds without a request (1,800:
an author's pause between two edits; it holds about 40 MB, and 8 MB more for what the main
lesson's builds made) and when its socket file is gone.
After it has said its exit status, a fork hands back what it parsed, read from the section
cache and rendered (deck/warm.py), for the service's next forks to take; a build that ran
itself hands the same over before it exits (`buildclient.hand_over`).
`$DECK_BUILDD=0` turns it off; `--serve` and a Python started with `-X`, `-W` or `-O` never use
it (they ask for a process of their own).

This module is the service's side; `build.py` imports only the build's side
(deck/buildclient.py), which is lighter still.
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import hashlib
import io
import json
import os
import select
import signal
import socket
import sys
import threading
import time
from pathlib import Path

from deck import buildclient, warm
from deck.localsocket import same_user

ENGINE = Path(buildclient.ENGINE)
ROOT = Path(buildclient.ROOT)
IDLE = 1800.0  # s without a request before the service ends ($DECK_BUILDD_IDLE)
LOOK = 2.0  # s between looks at the socket file while idle
MAX_LINE = 1 << 22
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
    # what a build that renders imports on its way (the fonts, the notebook, the course page…)
    "deck.publish.fonts",
    "deck.publish.subset",
    "deck.publish.fontfind",
    "deck.render.fontconfig",
    "deck.publish.nbcells",
    "deck.publish.nbrequirements",
    "deck.publish.coursefile",
    "deck.source.schemacourse",
    "importlib.metadata",
    "pygments.formatters.html",
    # what a new character's font subset needs (0.13 s of imports: deck.publish.subset)
    "uharfbuzz",
    "fontTools.ttLib",
    "fontTools.ttLib.woff2",
    "fontTools.pens.cu2quPen",
    "fontTools.pens.ttGlyphPen",
)
# (the build's side, kept here too for who asks this module)
enabled = buildclient.enabled
socket_path = buildclient.socket_path
service_command = buildclient.service_command
run = buildclient.run
start = buildclient.start


def idle_seconds() -> float:
    try:
        return max(0.1, float(os.environ.get("DECK_BUILDD_IDLE", IDLE)))
    except ValueError:
        return IDLE


_DIGESTS: dict[str, tuple[tuple[int, int, int, int], bytes]] = {}  # path → (identity, sha256)
RACY_NS = 2_000_000_000  # a file changed this recently is read again (its stat may not show
# a second change within the clock's granularity)


def _file_digest(path: str) -> bytes:
    """The sha256 of a file's bytes, read again unless its size, mtime, ctime and inode are
    those it had when last read (a ctime cannot be set back) and it had not just changed: the
    key is asked at every request, and reading the engine's 200 files took 14 ms of each."""
    st = os.stat(path)
    identity = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    known = _DIGESTS.get(path)
    if known and known[0] == identity:
        return known[1]
    with open(path, "rb") as f:
        value = hashlib.sha256(f.read()).digest()
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > RACY_NS:
        _DIGESTS[path] = (identity, value)
    return value


def service_key(env: dict[str, str]) -> str:
    """What a build's result depends on that the service holds imported: the engine's files,
    the Python, its `PYTHON…` variables in `env`, the installed packages."""
    h = hashlib.sha256(os.fsencode(sys.executable) + sys.version.encode())
    python = {k: v for k, v in env.items() if k.startswith("PYTHON")}
    h.update(json.dumps(python, sort_keys=True).encode())
    files = [os.path.join(ROOT, "build.py")]
    for folder, dirs, names in os.walk(ENGINE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files += [os.path.join(folder, n) for n in sorted(names) if not n.endswith(".pyc")]
    for path in files:
        h.update(os.fsencode(os.path.relpath(path, ROOT)) + b"\0" + _file_digest(path))
    for entry in sys.path:  # the installed packages: each site folder's names (dist-infos)
        if entry.endswith("-packages") and os.path.isdir(entry):
            h.update(os.fsencode(entry) + b"\0" + "\0".join(sorted(os.listdir(entry))).encode())
    return h.hexdigest()


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
    warm_up()
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
    backs: dict[int, bytearray] = {}  # (each build's pipe handing back what it made)
    listener.settimeout(0.5)  # (accepted when select says so: a connection gone is no hang)
    try:
        until = time.monotonic() + idle
        while time.monotonic() < until:
            with contextlib.suppress(ChildProcessError):
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
            wait = max(0.01, min(LOOK, until - time.monotonic()))
            ready, _, _ = select.select([listener.fileno(), *backs], [], [], wait)
            for fd in (fd for fd in ready if fd in backs):
                if (count := warm.read_back(fd, backs[fd])) is not None:
                    del backs[fd]
                    say(f"kept {count} things a build made")
            if listener.fileno() not in ready:
                if not ready and _gone(path, inode):
                    say("its socket file is gone: ending")
                    return 0
                continue
            try:
                conn, _ = listener.accept()
            except (BlockingIOError, TimeoutError):
                continue
            until = time.monotonic() + idle
            if not _take(conn, listener, key, backs):
                say("a request for another key (the engine or Python changed): ending")
                return 0
        say("idle: ending")
        return 0
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            if os.lstat(path).st_ino == inode:
                os.unlink(path)


def warm_up() -> None:
    """What the service does once, after its imports and before it forks its builds, that
    every build would otherwise do from nothing: compile what a build compiles each time (a
    Markdown converter's regular expressions, kept in `re`'s cache; the code colours), read
    the installed libraries' versions (its key covers what is installed) and the characters
    of the engine's scripts and stylesheets. Nothing here reads a lesson or the cache."""
    from deck.host import library_versions
    from deck.publish import fonts
    from deck.publish.assets import pygments_css
    from deck.render.deck import new_markdown

    new_markdown()
    pygments_css()
    library_versions()
    fonts.warm_up()


def _gone(path: str, inode: int) -> bool:
    try:
        return os.lstat(path).st_ino != inode
    except OSError:
        return True


def _take(
    conn: socket.socket, listener: socket.socket, key: str, backs: dict[int, bytearray]
) -> bool:
    """Forks the build one request asks for; False when it is for another key. `backs`: the
    pipes on which earlier builds hand back what they made, this one's added."""
    fds: list[int] = []
    try:
        conn.settimeout(10)
        if not same_user(conn):
            return True
        data, fds, _, _ = socket.recv_fds(conn, MAX_LINE, 3)
        while b"\n" not in data and len(data) < MAX_LINE:
            more = conn.recv(65536)
            if not more:
                return True
            data += more
        line, _, rest = data.partition(b"\n")
        request = ast.literal_eval(line.decode("utf-8", "surrogateescape"))
        if not isinstance(request, dict):
            raise ValueError("not a request")
        if request.get("op") == "keep":  # (what a build in its own process made)
            if service_key(request["env"]) == key:
                count = warm.receive(conn, rest, int(request["size"]))
                say(f"kept {count} things a build made (handed over)")
            return True
        if len(fds) != 3 or service_key(request["env"]) != key:
            conn.sendall(b'{"ok": false, "error": "stale"}\n')
            return len(fds) != 3
        back, handing = os.pipe()  # (what the build made, handed back: deck.warm)
        pid = os.fork()
        if pid == 0:
            listener.close()
            os.close(back)
            for fd in backs:
                os.close(fd)
            _build(conn, request, fds, handing)  # (never returns)
        os.close(handing)
        os.set_blocking(back, False)
        backs[back] = bytearray()
        say(f"build {pid}: {' '.join(request['argv'][1:])}")
        return True
    except (OSError, ValueError, KeyError, TypeError, SyntaxError, RecursionError) as exc:
        say(f"a request not taken: {type(exc).__name__}: {exc}")
        return True
    finally:
        for fd in fds:
            os.close(fd)
        conn.close()


def _build(conn: socket.socket, request: dict, fds: list[int], handing: int) -> None:
    """In the fork: the build as `build.py` runs it, with the author's descriptors, folder and
    environment; its exit status said on the socket, then what it made handed back to the
    service on `handing` (deck.warm)."""
    code = 1
    done = threading.Event()
    warm.began_fork()
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
        conn.sendall(buildclient.OK)
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
        with contextlib.suppress(Exception):
            conn.close()  # (build.py is done: what follows is the service's alone)
            with os.fdopen(handing, "wb") as back:
                back.write(warm.handed())
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
