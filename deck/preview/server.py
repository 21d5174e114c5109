"""The HTTP side of the live preview: the decks under the output folder, the build status, and
a stream of build events, on 127.0.0.1 only.

The page shown checks its slides' layout (static/live.js lays them out for print in a hidden
frame, once fonts and figures are in, with the overflow check slides.pdf's printing runs) and
posts what it found; the server words it as the PDF build does and shows it in the banner.

Only real files under the output folder are served (no symlink leads out of it), and only to
`Host: 127.0.0.1` or `localhost`, so a page on another site cannot read them through DNS
rebinding; a POST is heard only from the preview's own origin (or one naming none), with a
Content-Length of digits (else 403, 400). Served index.html pages carry the live client
(static/live.js).
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
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote

from deck.publish.pdf import OVERFLOW, Overflow
from deck.theme import SLIDE_VIEWPORT, STATIC

STATUS = "/__deck/status"
EVENTS = "/__deck/events"
LAYOUT = "/__deck/layout"  # POST {lesson, page, overflows}: what the page measured
MAX_POST = 1 << 20
LIVE_JS = STATIC / "live.js"
MAX_URL = 2048
HOST = re.compile(r"(?:127\.0\.0\.1|localhost)(?::(\d{1,5}))?", re.IGNORECASE)
ORIGIN = re.compile(r"http://(?:127\.0\.0\.1|localhost)(?::(\d{1,5}))?", re.IGNORECASE)
LENGTH = re.compile(r"[0-9]{1,12}")  # Content-Length: digits only (no sign, space or 1e3)
PAGE = "index.html"
Log = Callable[[str], None]


class ServeError(Exception):
    """The preview cannot start (bad port, port in use): a one-line message for the user."""


class Status:
    """The last build's outcome, shared by the build loop and the request threads."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.version = 0  # one more per finished build
        self.epoch = 0  # one more whenever the served files changed
        self.builds = 0
        self.errors: list[str] = []
        self.lessons: dict[str, dict] = {}  # lesson -> {"page": hash, "files": {path: hash}}
        self.layout: dict[str, dict] = {}  # lesson -> {"page": hash measured, "warnings": […]}
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
                "layout": self.layout,
            }

    def record_layout(self, lesson: str, page: str, warnings: list[str]) -> bool:
        """What a page of the current build of `lesson` measured (a page of an older build is
        not heard); True when it changed what the banner says."""
        with self.changed:
            if self.lessons.get(lesson, {}).get("page") != page:
                return False
            before = self.layout.get(lesson, {}).get("warnings")
            self.layout = {**self.layout, lesson: {"page": page, "warnings": warnings}}
            self.version += 1
            self.changed.notify_all()
            return before != warnings

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

    def do_POST(self) -> None:  # noqa: N802
        """The layout a page measured. JSON only: a page of another site cannot send it
        without a CORS preflight, which this server never answers; and only from the
        preview's own origin (or none): a local client sending another is refused too."""
        route = self.path.split("?", 1)[0]
        kind = self.headers.get("Content-Type", "").split(";")[0].strip()
        if not self.host_allowed() or not self.origin_allowed():
            self.send_error(HTTPStatus.FORBIDDEN, "Origin must be this preview's own")
            return
        if route != LAYOUT or kind != "application/json":
            self.send_error(HTTPStatus.FORBIDDEN)
            return
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths or "Transfer-Encoding" in self.headers:
            self.send_error(HTTPStatus.LENGTH_REQUIRED)
            return
        if len(lengths) != 1 or not LENGTH.fullmatch(lengths[0]):
            self.send_error(HTTPStatus.BAD_REQUEST, "Content-Length must be a number of bytes")
            return
        size = int(lengths[0])
        if size == 0 or size > MAX_POST:
            too_big = HTTPStatus.REQUEST_ENTITY_TOO_LARGE
            self.send_error(HTTPStatus.BAD_REQUEST if size == 0 else too_big)
            return
        try:
            data = json.loads(self.rfile.read(size))
            lesson, page = str(data["lesson"]), str(data["page"])
            warnings = [str(Overflow(**o)) for o in data["overflows"]]
        except (ValueError, TypeError, KeyError, AttributeError):
            self.send_error(HTTPStatus.BAD_REQUEST)
            return
        if self.server.status.record_layout(lesson, page, warnings):
            for warning in warnings or [f"{lesson}: the slides fit their pages"]:
                self.server.log(warning)
        self.reply(b"", "text/plain", True, HTTPStatus.NO_CONTENT)

    HOST_RULE = "Host must be 127.0.0.1 or localhost"  # (why another Host is refused)

    def turned_away(self) -> bool:
        """Refuses a request whose URL is too long or whose Host names another server (True
        when it did): every GET of the preview and of the servers built on it asks first."""
        if len(self.path) > MAX_URL:
            self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
        elif not self.host_allowed():
            self.send_error(HTTPStatus.FORBIDDEN, self.HOST_RULE)
        else:
            return False
        return True

    def open_stream(self, retry_ms: int) -> None:
        """Starts a server-sent event stream (its headers, and how soon to reconnect)."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        self.wfile.write(f"retry: {retry_ms}\n\n".encode())

    def answer(self, with_body: bool) -> None:
        if self.turned_away():
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

    def origin_allowed(self) -> bool:
        """No `Origin` (a client that is not a browser page), or the preview's own, as a page
        it served sends it: `http://127.0.0.1:PORT` or `http://localhost:PORT` (no port: 80)."""
        origin = self.headers.get_all("Origin")
        if origin is None:
            return True
        match = ORIGIN.fullmatch(origin[0].strip()) if len(origin) == 1 else None
        port = str(self.server.server_port)
        return match is not None and (match.group(1) or "80") == port

    def host_allowed(self) -> bool:
        match = HOST.fullmatch(self.headers.get("Host", "").strip())
        return match is not None and match.group(1) in (None, str(self.server.server_port))

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
        if redirect and path is not None:
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
            if route == "/favicon.ico":  # what a browser asks for on every page: no icon
                self.reply(b"", "image/x-icon", with_body, HTTPStatus.NO_CONTENT)
            elif route.endswith(("/", ".html")):  # a page: say so, and load it once it is built
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
        # the check slides.pdf's printing runs, in a frame of the slides' size
        config.update(layout=LAYOUT, lint=OVERFLOW, viewport=SLIDE_VIEWPORT)
        page = inject(self.dress(lesson, data.decode("utf-8", errors="replace")), client(config))
        extra = {"X-Deck-Page": digest}
        self.reply(page.encode("utf-8"), "text/html; charset=utf-8", with_body, headers=extra)

    def dress(self, lesson: str, page: str) -> str:
        """The page as served (a server with live cells adds their client: deck.classroom)."""
        return page

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
        self.open_stream(500)
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
    """One thread per connection (an open page holds one for its event stream: a blocked
    thread and a socket each, about 8 KB of memory resident); a listen backlog long enough for
    hundreds of pages that connect at once (the default of 5 drops the rest for seconds)."""

    daemon_threads = True
    request_queue_size = 1024  # the kernel caps it at net.core.somaxconn

    def __init__(
        self,
        port: int,
        out: Path,
        status: Status,
        log: Log,
        host: str = "127.0.0.1",
        handler: type[Handler] = Handler,
    ) -> None:
        self.out = out
        self.status = status
        self.log = log
        super().__init__((host, port), handler)

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # not HTTPServer's: no reverse DNS lookup
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)

    def handle_error(self, request: object, client_address: object) -> None:
        exc = sys.exc_info()[1]
        if not isinstance(exc, ConnectionError | TimeoutError):  # a page closed: nothing to say
            self.log(f"note: preview server: {type(exc).__name__}: {exc}")


MakeServer = Callable[[int, Path, Status, Log], PreviewServer]


def open_server(
    port: int, out: Path, status: Status, log: Log, make: MakeServer = PreviewServer
) -> PreviewServer:
    """`make(port, out, status, log)` (the preview's server, or the classroom's), with a
    one-line ServeError when the port cannot be used."""
    try:
        return make(port, out, status, log)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(f"port {port} is in use (choose another with --port)") from None
        if exc.errno == errno.EACCES:
            raise ServeError(f"no permission to use port {port} (choose another)") from None
        raise ServeError(f"cannot listen on port {port}: {exc.strerror or exc}") from None
    except OverflowError:
        raise ServeError(f"--port {port} is out of range") from None
