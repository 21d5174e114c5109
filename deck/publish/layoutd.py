"""The layout check's warm browser: a small local service keeping one headless Chromium open,
so a `--no-pdf` build's overflow check (layoutcheck.py) does not start a browser on each edit.

A build asks it over a Unix socket (mode 0600: the build cache's `layoutd.sock`, or when that
path is too long for AF_UNIX, one named by the cache's hash in `$XDG_RUNTIME_DIR` or in a
private folder of the temporary one), one JSON line a request and one the answer: measure this
`index.html` (its slide count, page size and the slides to lay out) as `measure_overflow` does.
One request at a time: the service takes them in turn, and one service runs per socket (it
holds the lock file beside it). Its log is the cache's `layoutd.log`.

It is started on demand, detached (`python -m deck.publish.layoutd CACHE`, a session of its
own), by the build that finds none answering, which waits for it (bounded) and otherwise
measures in its own browser as before. It ends after `$DECK_LAYOUTD_IDLE` seconds without a
request (300), when its socket file or the cache is gone, and as soon as a request's key is not
its own: the key is what a measurement depends on besides the page (Chromium's version and the
fonts, as `printer_key` says; the check's code, pdf.py, layoutcheck.py and this file; the
Python running it), and an answer is given and taken for that key alone. `$DECK_LAYOUTD=0`
turns it off.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import signal
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from deck.localsocket import read_line, same_user
from deck.publish.pdf import Overflow
from deck.publish.printer import printer_key
from deck.theme import ENGINE

SOCKET = "layoutd.sock"  # in the build cache (when its path fits AF_UNIX's)
LOG = "layoutd.log"  # in the build cache
IDLE = 300.0  # s without a request before the service ends ($DECK_LAYOUTD_IDLE)
START_WAIT = 20.0  # s a build waits for the service it started to listen
ANSWER_WAIT = 300.0  # s a build waits for an answer (the page itself may wait 120 s)
LOOK = 2.0  # s between looks at the socket file while idle (gone with the cache: the end)
LOCK_WAIT = 5.0  # s a new service waits for the one ending before it to let go of the lock
LOST = 3  # a service's exit status when another one holds the lock
MAX_PATH = 100  # bytes of a socket's path (AF_UNIX holds 107)
MAX_LINE = 1 << 20
CODE = ("pdf.py", "overflow.py", "layoutcheck.py", "layoutd.py", "keptpages.py")


class NotListening(OSError):
    """No service listens on the socket (no file, or a dead one)."""


def enabled() -> bool:
    return os.environ.get("DECK_LAYOUTD", "1") != "0"


def idle_seconds() -> float:
    try:
        return max(0.1, float(os.environ.get("DECK_LAYOUTD_IDLE", IDLE)))
    except ValueError:
        return IDLE


def service_key(cache: Path) -> str:
    """What a measurement depends on besides the page: the printer, the check's code, the
    Python running it."""
    h = hashlib.sha256(printer_key(cache).encode() + b"\0" + os.fsencode(sys.executable))
    for name in CODE:
        h.update(b"\0" + (ENGINE / "publish" / name).read_bytes())
    return h.hexdigest()


def _private(folder: Path) -> bool:
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def socket_path(cache: Path) -> Path:
    """The service's socket for the build cache `cache` (an absolute path)."""
    own = cache / SOCKET
    if len(os.fsencode(own)) <= MAX_PATH:
        return own
    name = f"deck-layoutd-{hashlib.sha256(os.fsencode(cache)).hexdigest()[:24]}.sock"
    run = Path(os.environ.get("XDG_RUNTIME_DIR") or "/nonexistent")
    if _private(run) and len(os.fsencode(run / name)) <= MAX_PATH:
        return run / name
    folder = Path(tempfile.gettempdir()) / f"deck-layoutd-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    if not _private(folder):
        raise OSError(f"{folder}: not a private folder of this user")
    return folder / name


def ask(path: Path, request: dict, timeout: float = ANSWER_WAIT) -> dict:
    """The service's answer to `request`; NotListening when none listens on `path`, another
    OSError when it took the request and gave no answer (it was ending, or it stopped)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(os.fsencode(path))
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise NotListening(str(exc)) from exc
        if not same_user(sock):
            raise PermissionError(f"{path}: a service of another user")
        sock.sendall(json.dumps(request).encode() + b"\n")
        try:
            answer = json.loads(read_line(sock, MAX_LINE))
        except ValueError as exc:
            raise ConnectionError("not an answer") from exc
    if not isinstance(answer, dict):
        raise ConnectionError("not an answer")
    return answer


def spawn(cache: Path) -> int | None:
    """Starts the service for `cache` in a session of its own; its pid (None: it did not)."""
    log = cache / LOG
    try:
        cache.mkdir(parents=True, exist_ok=True)
        big = log.stat().st_size > MAX_LINE if log.exists() else False
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if big else os.O_APPEND), 0o600)
    except OSError:
        return None
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ENGINE.parent), env.get("PYTHONPATH")) if p)
    argv = [sys.executable, "-P", "-m", "deck.publish.layoutd", str(cache)]  # (-P: not the cwd)
    try:
        actions: list[tuple] = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
        actions += [(os.POSIX_SPAWN_DUP2, fd, 1), (os.POSIX_SPAWN_DUP2, fd, 2)]
        return os.posix_spawn(sys.executable, argv, env, file_actions=actions, setsid=True)
    except (OSError, NotImplementedError):  # (a system without setsid for posix_spawn)
        return None
    finally:
        os.close(fd)


def _gave_up(pid: int) -> bool:
    """The service `pid` this build started has ended, and not for another one's lock."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done == pid and os.waitstatus_to_exitcode(status) != LOST


class Client:
    """A build's way to the service of its cache."""

    def __init__(self, cache: Path) -> None:
        self.cache = cache.resolve()
        self.pid: int | None = None

    def warm(self) -> None:
        """Starts the service now when none has a socket, to be ready by the time it is asked."""
        with contextlib.suppress(OSError):
            if enabled() and self.pid is None and not socket_path(self.cache).exists():
                self.pid = spawn(self.cache)

    def measure(
        self, index_html: Path, count: int, size: tuple[int, int] | None, only: tuple[int, ...]
    ) -> list[Overflow] | None:
        """The overflows the service measured for this key; None when it cannot give them (the
        build measures in its own browser then)."""
        if not enabled():
            return None
        try:
            key, path = service_key(self.cache), socket_path(self.cache)
        except OSError:
            return None
        index = str(index_html.resolve())
        request = {"op": "measure", "key": key, "index": index, "count": count}
        request |= {"size": list(size) if size else None, "only": list(only)}
        restarted, deadline = False, time.monotonic() + START_WAIT
        while True:
            try:
                answer = ask(path, request)
            except NotListening:
                if self.pid is None:
                    self.pid, deadline = spawn(self.cache), time.monotonic() + START_WAIT
                    if self.pid is None:
                        return None
                elif time.monotonic() > deadline or _gave_up(self.pid):
                    return None
                time.sleep(0.02)
                continue
            except OSError:
                answer = {"error": "gone"}
            if answer.get("ok") and answer.get("key") == key and answer.get("index") == index:
                try:
                    return [Overflow(**o) for o in answer["overflows"]]
                except (KeyError, TypeError, ValueError):
                    return None
            if answer.get("error") not in ("stale", "gone") or restarted:
                return None  # (a measurement that failed: the build's own browser says why)
            restarted, self.pid = True, None  # that one is ending: a fresh one for this key


# ---- the service ---------------------------------------------------------------------------


def log(text: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{os.getpid()}] {text}", flush=True)


class Service:
    """The listening socket and the lock of a running service, given up once."""

    def __init__(self, cache: Path, path: Path, lock: int) -> None:
        self.cache, self.path, self.lock = cache, path, lock
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                os.unlink(path)  # a dead one's (this service holds the lock)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        mask = os.umask(0o177)
        try:
            self.listener.bind(os.fsencode(path))
        finally:
            os.umask(mask)
        os.chmod(path, 0o600)
        self.inode = os.lstat(path).st_ino
        self.listener.listen(16)

    def listening(self) -> bool:
        """The socket file is still this service's, and the cache is there."""
        try:
            return os.lstat(self.path).st_ino == self.inode and self.cache.is_dir()
        except OSError:
            return False

    def retire(self) -> None:
        """Stops listening and lets go of the socket and the lock: a fresh service may start."""
        if self.lock < 0:
            return
        self.listener.close()
        with contextlib.suppress(OSError):
            if os.lstat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        os.close(self.lock)
        self.lock = -1


def take_lock(path: Path) -> int | None:
    """The lock of the socket `path` (a service ending may hold it a moment longer)."""
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    until = time.monotonic() + LOCK_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > until:
                os.close(fd)
                return None
            time.sleep(0.05)


def answer(request: object, key: str, browser, measure) -> tuple[dict, bool]:  # noqa: ANN001
    """The answer to one request, and whether the service ends after giving it."""
    if not isinstance(request, dict):
        return {"ok": False, "error": "bad request"}, False
    op = request.get("op")
    if op == "ping":
        return {"ok": True, "key": key, "pid": os.getpid()}, False
    if op == "stop":
        log("asked to stop: ending")
        return {"ok": True, "pid": os.getpid()}, True
    if op != "measure":
        return {"ok": False, "error": "bad request"}, False
    if request.get("key") != key:
        log("a request for another key: ending, for a service of that one")
        return {"ok": False, "error": "stale", "key": key}, True
    try:
        index, count, only = request["index"], request["count"], request["only"]
        size = tuple(request["size"]) if request["size"] else None
        t0 = time.perf_counter()
        found = measure(browser, Path(index), int(count), size, tuple(map(int, only)))
        log(f"measured {len(only) or count} of {count} slides in {time.perf_counter() - t0:.2f} s")
    except Exception as exc:  # noqa: BLE001 - said to the build, which measures again itself
        log(f"measuring failed: {type(exc).__name__}: {exc}")
        return {"ok": False, "error": "measure", "said": str(exc)[:500]}, not browser.is_connected()
    overflows = [asdict(o) for o in found]
    return {"ok": True, "key": key, "index": index, "overflows": overflows}, False


def serve(cache: Path) -> int:
    """Runs the service of the build cache `cache` until it is idle, stale or stopped."""
    os.chdir("/")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    path = socket_path(cache)
    lock = take_lock(path)
    if lock is None:
        log(f"another service holds {path}.lock")
        return LOST
    key, idle = service_key(cache), idle_seconds()
    from playwright.sync_api import sync_playwright

    from deck.publish.keptpages import KeptPages
    from deck.publish.pdf import launch

    measure = KeptPages()

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            service = Service(cache, path, lock)
            log(f"listening on {path} ({browser.version}; ends after {idle:g} s idle)")
            try:
                while take(service, idle, lambda request: answer(request, key, browser, measure)):
                    pass
            finally:
                service.retire()
        finally:
            browser.close()
    return 0


def take(service: Service, idle: float, reply: Callable[[object], tuple[dict, bool]]) -> bool:
    """Answers the next request; False when the service ends (idle, stale, stopped, or its
    socket file is gone: the cache was removed)."""
    until = time.monotonic() + idle
    while True:
        service.listener.settimeout(max(0.01, min(LOOK, until - time.monotonic())))
        try:
            conn, _ = service.listener.accept()
            break
        except TimeoutError:
            if time.monotonic() >= until:
                log("idle: ending")
                return False
            if not service.listening():
                log("its socket file or the cache is gone: ending")
                return False
    with conn:
        conn.settimeout(30)
        try:
            if not same_user(conn):
                return True
            said, done = reply(json.loads(read_line(conn, MAX_LINE)))
        except (OSError, ValueError):
            return True
        if done:
            service.retire()  # (before answering: the build may start a fresh one at once)
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps(said, ensure_ascii=False).encode() + b"\n")
    return not done


def main(argv: list[str]) -> int:
    """`python -m deck.publish.layoutd CACHE` runs the service; `--stop CACHE` ends it."""
    if len(argv) == 2 and argv[0] == "--stop":
        try:
            print(ask(socket_path(Path(argv[1]).resolve()), {"op": "stop"}, 10))
        except OSError as exc:
            print(f"no service: {exc}")
        return 0
    if len(argv) != 1:
        print("usage: python -m deck.publish.layoutd [--stop] CACHE", file=sys.stderr)
        return 2
    try:
        return serve(Path(argv[0]).resolve())
    except Exception as exc:
        log(f"ended: {type(exc).__name__}: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
