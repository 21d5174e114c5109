"""Live preview: serve the built decks on 127.0.0.1 and rebuild when a lesson file changes.

Pages only ever show a good build: a failed rebuild leaves `dist/` as it was (the pipeline
guarantees that) and the errors appear in a banner. Each finished build is pushed to open pages
at once (server-sent events); a page then fetches the new index.html and swaps in only the
slides that changed, staying where it was (static/live.js), or reloads when more changed.

Only real files under the output folder are served (no symlink leads out of it), and only to
`Host: 127.0.0.1` or `localhost`, so a page on another site cannot read them through DNS
rebinding.
"""

from __future__ import annotations

import errno
import hashlib
import html
import json
import mimetypes
import re
import socketserver
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from deck.errors import DeckError
from deck.watch import Changes, Watcher

STATUS = "/__deck/status"
EVENTS = "/__deck/events"
LIVE_JS = Path(__file__).parent / "static" / "live.js"
MAX_URL = 2048
HOST = re.compile(r"(?:127\.0\.0\.1|localhost)(?::(\d{1,5}))?", re.IGNORECASE)
PAGE = "index.html"
NOT_WATCHED = {PAGE, "values.json"}  # the page has its own hash; values.json is not shown
Log = Callable[[str], None]
Build = Callable[[], object]


class ServeError(Exception):
    """The preview cannot start (bad port, port in use): a one-line message for the user."""


def parse_port(text: str | int) -> int:
    try:
        port = int(text)
    except ValueError:
        raise ServeError(f"--port {text!r} is not a number") from None
    if not 0 <= port <= 65535:
        raise ServeError(f"--port {port} is out of range (1-65535, or 0 for any free port)")
    return port


def describe(exc: BaseException) -> list[str]:
    """A failed build as banner lines: the author's diagnostics, or the exception in one line."""
    if isinstance(exc, DeckError):
        return [str(d) for d in exc.diagnostics] or [str(exc) or "build failed"]
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return [f"error: {type(exc).__name__}: {exc}{where}"]


class Status:
    """The last build's outcome, shared by the build loop and the request threads."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.version = 0  # one more per finished build
        self.epoch = 0  # one more whenever the served files changed
        self.builds = 0
        self.errors: list[str] = []
        self.lessons: dict[str, dict] = {}  # lesson -> {"page": hash, "files": {path: hash}}
        self.closed = False

    def record(self, errors: list[str], lessons: dict[str, dict]) -> None:
        with self.changed:
            self.builds += 1
            self.version += 1
            if lessons != self.lessons:
                self.epoch += 1
                self.lessons = lessons
            self.errors = errors
            self.changed.notify_all()

    def as_dict(self) -> dict:
        with self.changed:
            return {
                "version": self.version,
                "epoch": self.epoch,
                "builds": self.builds,
                "errors": self.errors,
                "lessons": self.lessons,
            }

    def wait_after(self, version: int | None, timeout: float) -> dict | None:
        """The status once its version differs from `version`; None on timeout or close."""
        with self.changed:
            self.changed.wait_for(lambda: self.closed or self.version != version, timeout)
            if self.closed or self.version == version:
                return None
        return self.as_dict()

    def close(self) -> None:
        with self.changed:
            self.closed = True
            self.changed.notify_all()


class Outputs:
    """Hashes of the served files per lesson: how an open page learns what to update."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.memo: dict[Path, tuple[tuple[int, ...], str]] = {}

    def digest(self, path: Path) -> str | None:
        try:
            st = path.stat()
            stamp = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            memo = self.memo.get(path)
            if memo and memo[0] == stamp:
                return memo[1]
            value = hashlib.blake2b(path.read_bytes(), digest_size=12).hexdigest()
        except OSError:
            return None
        self.memo[path] = (stamp, value)
        return value

    def scan(self) -> dict[str, dict]:
        lessons = {}
        folders = sorted(self.out.iterdir()) if self.out.is_dir() else []
        for folder in folders:
            page = self.digest(folder / PAGE)
            if folder.name.startswith(".") or page is None:
                continue
            files = {}
            for path in sorted(folder.rglob("*")):
                rel = path.relative_to(folder).as_posix()
                if rel in NOT_WATCHED or path.suffix == ".pdf" or hidden(rel):
                    continue
                value = self.digest(path) if path.is_file() else None
                if value is not None:
                    files[rel] = value
            lessons[folder.name] = {"page": page, "files": files}
        return lessons


def hidden(rel: str) -> bool:
    return any(part.startswith(".") for part in rel.split("/"))


def inject(page: str, snippet: str) -> str:
    """Put `snippet` before the page's first body script: it sees the slides before reveal.js."""
    body = page.find("<body")
    at = page.find("<script", body) if body >= 0 else -1
    if at < 0:
        at = page.rfind("</body>")
    if at < 0:
        at = len(page)
    return page[:at] + snippet + page[at:]


def client(config: dict) -> str:
    data = json.dumps(config, ensure_ascii=False).replace("</", "<\\/")
    script = LIVE_JS.read_text("utf-8")
    return f'<script id="deck-live">window.DECK_LIVE = {data};\n{script}</script>\n'


class Handler(BaseHTTPRequestHandler):
    server: PreviewServer
    protocol_version = "HTTP/1.1"
    server_version = "deck-preview"

    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        self.answer(with_body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self.answer(with_body=False)

    def answer(self, with_body: bool) -> None:
        if len(self.path) > MAX_URL:
            self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
            return
        if not self.host_allowed():
            self.send_error(HTTPStatus.FORBIDDEN, "Host must be 127.0.0.1 or localhost")
            return
        route = self.path.split("?", 1)[0].split("#", 1)[0]
        if route == STATUS:
            body = json.dumps(self.server.status.as_dict()).encode()
            self.reply(body, "application/json", with_body)
        elif route == EVENTS and with_body:
            self.stream()
        elif route == EVENTS:
            self.reply(b"", "text/event-stream", with_body)
        else:
            self.serve_file(route, with_body)

    def host_allowed(self) -> bool:
        match = HOST.fullmatch(self.headers.get("Host", "").strip())
        return bool(match) and match.group(1) in (None, str(self.server.server_port))

    def root(self) -> Path:
        return self.server.out.resolve()

    def locate(self, route: str) -> tuple[Path | None, bool]:
        """The real file under the output folder for `route` (None: there is none) and whether
        the route names a folder without its trailing slash (redirect)."""
        root = self.root()
        try:
            parts = [p for p in unquote(route, errors="strict").split("/") if p not in ("", ".")]
            if any(p.startswith(".") or "\0" in p or "\\" in p for p in parts):
                return None, False  # also `..`; hidden files are build internals
            real = root.joinpath(*parts).resolve(strict=True)
            if real.is_dir() and real.is_relative_to(root):
                if not route.endswith("/"):
                    return real, True
                real = (real / PAGE).resolve(strict=True)
        except (OSError, RuntimeError, ValueError):  # missing, a link loop, a name too long
            return None, False
        if not real.is_relative_to(root) or not real.is_file():
            return None, False
        return real, False

    def serve_file(self, route: str, with_body: bool) -> None:
        path, redirect = self.locate(route)
        if redirect:
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", quote(f"/{path.relative_to(self.root()).as_posix()}/"))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path is None and route == "/":
            self.reply(self.listing(), "text/html; charset=utf-8", with_body)
            return
        try:
            data = path.read_bytes() if path is not None else None
        except OSError:
            data = None
        if data is None or path is None:
            if route.endswith(("/", ".html")):  # a page: say so, and load it once it is built
                self.reply(self.missing(route), "text/html; charset=utf-8", with_body, 404)
            else:
                self.send_error(HTTPStatus.NOT_FOUND)
            return
        if path.name == PAGE:
            self.serve_page(path, data, with_body)
            return
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "image/svg+xml"):
            kind += "; charset=utf-8"
        self.reply(data, kind, with_body)

    def serve_page(self, path: Path, data: bytes, with_body: bool) -> None:
        lesson = path.parent.relative_to(self.root()).as_posix()
        digest = hashlib.blake2b(data, digest_size=12).hexdigest()
        known = self.server.status.as_dict()["lessons"].get(lesson, {})
        config = {"events": EVENTS, "lesson": lesson, "page": digest, "files": known.get("files")}
        page = inject(data.decode("utf-8", errors="replace"), client(config))
        extra = {"X-Deck-Page": digest}
        self.reply(page.encode("utf-8"), "text/html; charset=utf-8", with_body, headers=extra)

    def missing(self, route: str) -> bytes:
        lesson = unquote(route, errors="replace").strip("/").split("/")[0]
        config = {"events": EVENTS, "lesson": lesson, "page": None, "files": None}
        text = f"{html.escape(route)} is not built (yet): this page loads it once it is."
        return (
            f"<!doctype html><meta charset=utf-8><title>not built</title>"
            f"<body><p>{text}</p>{client(config)}</body>"
        ).encode()

    def listing(self) -> bytes:
        lessons = sorted(self.server.status.as_dict()["lessons"])
        items = "".join(
            f'<li><a href="{html.escape(n)}/">{html.escape(n)}</a></li>' for n in lessons
        )
        return f"<!doctype html><meta charset=utf-8><title>decks</title><ul>{items}</ul>".encode()

    def reply(
        self,
        body: bytes,
        kind: str,
        with_body: bool,
        code: int = 200,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if with_body:
            self.wfile.write(body)

    def stream(self) -> None:
        """Server-sent events: the status now, then after every build, until the page goes."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        self.wfile.write(b"retry: 500\n\n")
        version = None
        while not self.server.status.closed:
            status = self.server.status.wait_after(version, timeout=15)
            if status is None:
                self.wfile.write(b": idle\n\n")  # finds out when the page has gone
            else:
                version = status["version"]
                self.wfile.write(b"data: " + json.dumps(status).encode() + b"\n\n")

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # the build log is what matters here


class PreviewServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, out: Path, status: Status, log: Log) -> None:
        self.out = out
        self.status = status
        self.log = log
        super().__init__(("127.0.0.1", port), Handler)

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # not HTTPServer's: no reverse DNS lookup
        self.server_name, self.server_port = self.server_address[:2]

    def handle_error(self, request: object, client_address: object) -> None:
        exc = sys.exc_info()[1]
        if not isinstance(exc, ConnectionError | TimeoutError):  # a page closed: nothing to say
            self.log(f"note: preview server: {type(exc).__name__}: {exc}")


def open_server(port: int, out: Path, status: Status, log: Log) -> PreviewServer:
    try:
        return PreviewServer(port, out, status, log)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(f"port {port} is in use (choose another with --port)") from None
        if exc.errno == errno.EACCES:
            raise ServeError(f"no permission to use port {port} (choose another)") from None
        raise ServeError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    except OverflowError:
        raise ServeError(f"--port {port} is out of range") from None


class Preview:
    """A bound preview server and its rebuild loop (`run`); `serve` runs one in the foreground,
    tests and benchmarks in a thread (`running`)."""

    def __init__(self, build: Build, watched: list[Path], out: Path, port: int, log: Log):
        self.build = build
        self.log = log
        self.status = Status()
        self.outputs = Outputs(out)
        self.server = open_server(port, out, self.status, log)
        self.watcher = Watcher(watched, log)
        self.watcher.start()
        self.changes = Changes(watched)
        self.thread = threading.Thread(
            target=self.server.serve_forever, name="deck-preview", daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/"

    def run(self, stop: threading.Event) -> None:
        """Build now, then after every relevant change, until `stop` is set."""
        building = self.rebuild()
        while not stop.is_set():
            batches = self.watcher.take(timeout=0.2)
            if not batches:
                continue
            try:
                changed = self.changes.rebuild_for(batches, building, self.log)
            except Exception as exc:  # never let a file event stop the preview
                self.log(describe(exc)[0])
                continue
            if changed:
                self.log(f"changed: {', '.join(p.name for p in changed)}: rebuilding")
                building = self.rebuild()

    def rebuild(self) -> tuple[float, float]:
        """One build, whatever it raises; returns when it ran (monotonic start, end)."""
        start = time.monotonic()
        try:
            self.build()
            errors = []
        except (Exception, SystemExit) as exc:
            errors = describe(exc)
        end = time.monotonic()
        for line in errors:
            self.log(line)
        try:
            lessons = self.outputs.scan()
        except OSError as exc:
            self.log(describe(exc)[0])
            lessons = self.status.lessons
        self.status.record(errors, lessons)
        return start, end

    def close(self) -> None:
        self.status.close()
        self.watcher.close()
        self.server.shutdown()
        self.server.server_close()


def serve(
    build: Build,
    watched: list[Path],
    out: Path,
    port: int,
    log: Log,
    stop: threading.Event | None = None,
) -> None:
    """Serve `out` on 127.0.0.1:`port`, build now and after every change, until Ctrl-C or
    `stop`. Raises ServeError, before building anything, when the port cannot be used."""
    preview = Preview(build, watched, out, port, log)
    names = " ".join(f"{preview.url}{p.name}/" for p in watched)
    log(f"serving {names or preview.url} (Ctrl-C stops)")
    try:
        preview.run(stop or threading.Event())
    except KeyboardInterrupt:
        log("stopped")
    finally:
        preview.close()


@contextmanager
def running(
    build: Build, watched: list[Path], out: Path, log: Log = lambda _: None, port: int = 0
) -> Iterator[Preview]:
    """A preview serving and rebuilding in a background thread (for tests and benchmarks)."""
    preview = Preview(build, watched, out, port, log)
    stop = threading.Event()
    thread = threading.Thread(target=preview.run, args=(stop,), name="deck-rebuild", daemon=True)
    thread.start()
    try:
        yield preview
    finally:
        stop.set()
        thread.join(timeout=120)
        preview.close()


SHOWN = """text => {
  const slide = window.Reveal && Reveal.isReady() && Reveal.getCurrentSlide();
  return slide && slide.textContent.includes(text) ? performance.timeOrigin + performance.now()
                                                   : false;
}"""


def measure_reload_latency(
    lesson_dir: Path,
    out_url: str,
    edit: Callable[[Path], str],
    *,
    slide: int = 0,
    timeout: float = 30.0,
    browser: object | None = None,
) -> float:
    """Seconds from saving an edit to the open page showing it, measured in real Chromium.

    `out_url` is a lesson's page on a running preview (e.g. `http://127.0.0.1:8000/mini/`);
    the page is opened on slide `slide` (0-based). `edit(lesson_dir)` saves a change to a file
    of the lesson and returns a text that this slide shows once the change is there. The clock
    starts just before `edit` and stops at the first animation frame whose current slide
    contains the text (whether the page patched itself or reloaded). `browser`: a Playwright
    Browser to reuse (a new Chromium is launched otherwise).
    """
    if browser is not None:
        return time_edit(browser, lesson_dir, out_url, edit, slide, timeout)
    from playwright.sync_api import sync_playwright

    from deck.pdf import launch

    with sync_playwright() as playwright:
        own = launch(playwright)
        try:
            return time_edit(own, lesson_dir, out_url, edit, slide, timeout)
        finally:
            own.close()


def time_edit(
    browser: Any,
    lesson_dir: Path,
    out_url: str,
    edit: Callable[[Path], str],
    slide: int,
    timeout: float,
) -> float:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        page.goto(f"{out_url}#/{slide}")
        page.wait_for_function(
            "window.deckLive && deckLive.ready && window.Reveal && Reveal.isReady()"
        )
        start = page.evaluate("performance.timeOrigin + performance.now()")
        expected = edit(lesson_dir)
        shown = page.wait_for_function(SHOWN, arg=expected, polling="raf", timeout=timeout * 1000)
        return (shown.json_value() - start) / 1000
    finally:
        context.close()
