"""The presenter, as the classroom's server and the preview (`--serve` alone) both know them:
the browser holding the secret the terminal's link hands it as a cookie (`/__deck/lead?key=…`,
HttpOnly, SameSite=Strict), and what it alone may do there with live cells (read a cell's
code, run it edited, save it to the lesson).

A live cell's request is refused (403) unless it names this server as its Host and, from a
page, as its Origin, and carries the secret: a page of another site, or of another server on
127.0.0.1 (whose requests carry the cookie too: cookies do not tell ports apart), never runs
code. Its body is JSON (a form cannot send it), of a bounded size.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote, unquote

from deck.classroom import guard, page
from deck.classroom.live import LiveCells
from deck.classroom.room import Classroom, Refused
from deck.preview.server import Handler, Status
from deck.strings import table_language, tables
from deck.theme import STATIC

LEAD = "/__deck/lead"
ROOM = "/__deck/room/"
SMALL = 4096  # bytes of a vote, a slide change, a poll's step, a save
CODE = 1 << 20  # bytes of a run: a cell's code (deck.classroom.live.MOST_CODE characters)
DRAIN = 16 << 20  # bytes of a refused body read and dropped, so that its sender reads the 413


class LiveServer(Protocol):
    """What live cells use of a server (the classroom's or the preview's)."""

    classroom: Classroom
    out: Path
    live: LiveCells | None
    running_cell: threading.Lock


class Asking(Protocol):
    """What live cells' routes use of a request's handler."""

    server: Any  # a LiveServer

    @property
    def lead(self) -> bool: ...
    def send_json(self, value: Any, code: int = 200) -> None: ...


def text(value: Any, most: int = 200) -> str:
    if not isinstance(value, str) or len(value) > most:
        raise Refused(400, "a text was expected")
    return value


def lesson_of(server: LiveServer, asked: dict[str, Any]) -> str:
    lesson = text(asked.get("lesson"))
    with server.classroom.changed:
        server.classroom.room(lesson)  # (Refused when it is not served)
    return lesson


class PresenterHandler(Handler):
    """A request to a server with a presenter: who sends it, the presenter's entrance, JSON
    bodies and answers, and the figures a live run drew."""

    server: Any  # a RoomServer or a LivePreviewServer

    def cookie(self, name: str) -> str | None:
        return guard.cookies(self.headers.get("Cookie")).get(name)

    @property
    def lead(self) -> bool:
        return self.server.keys.is_lead(self.cookie(self.server.lead_cookie))

    def device(self) -> str | None:
        return None

    def enter_lead(self, key: str | None, lesson: str | None) -> None:
        """The terminal's link: its key becomes this browser's cookie, then the lesson."""
        if not self.server.keys.is_lead(key):
            self.server.log(f"a wrong presenter key from {self.client_address[0]}")
            self.send_error(HTTPStatus.FORBIDDEN, "not the presenter's key")
            return
        cookie = f"{self.server.lead_cookie}={key}; Path=/; HttpOnly; SameSite=Strict"
        self.to_lesson(lesson, {"Set-Cookie": cookie})

    def to_lesson(self, lesson: str | None, headers: dict[str, str] | None = None) -> None:
        lessons = sorted(self.server.status.as_dict()["lessons"])
        # (before the first build is served, the lesson asked: its page waits for the build)
        target = lesson if lesson in lessons or not lessons else lessons[0]
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", f"/{quote(target)}/" if target else "/")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", "0")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def serve_file(self, route: str, with_body: bool) -> None:
        """A figure a live cell drew anew is served from where it was drawn."""
        parts = unquote(route, errors="replace").strip("/").split("/", 1)
        with self.server.classroom.changed:
            room = self.server.classroom.rooms.get(parts[0])
            drawn = room.live_files.get(parts[1]) if room and len(parts) == 2 else None
        if drawn is None:
            super().serve_file(route, with_body)
            return
        kind = "image/svg+xml" if drawn.suffix == ".svg" else "image/png"
        self.reply(drawn.read_bytes(), kind, with_body)

    def body(self, most: int) -> Any:
        """The request's JSON body, of at most `most` bytes (else Refused: 411, 413, 400)."""
        kind = self.headers.get("Content-Type", "").split(";")[0].strip()
        if kind != "application/json":
            raise Refused(415, "JSON only")
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths or "Transfer-Encoding" in self.headers:
            raise Refused(411, "a Content-Length is needed")
        if len(lengths) != 1 or not lengths[0].isdigit() or len(lengths[0]) > 12:
            raise Refused(400, "Content-Length must be a number of bytes")
        size = int(lengths[0])
        if size > most:
            self.close_connection = True
            self.drop(size)
            raise Refused(413, f"at most {most} bytes")
        try:
            return json.loads(self.rfile.read(size))
        except (ValueError, UnicodeDecodeError):
            raise Refused(400, "not JSON") from None

    def drop(self, size: int) -> None:
        """Reads and drops a refused body of up to DRAIN bytes, for at most a few seconds: a
        connection closed while its client still sends is reset, and the client (a browser's
        fetch) then sees a network error where the 413 and its reason were meant. A larger
        body is not read: the connection closes at once."""
        if size > DRAIN:
            return
        self.connection.settimeout(5)
        try:
            while size > 0:
                chunk = self.rfile.read(min(size, 1 << 16))
                if not chunk:
                    return
                size -= len(chunk)
        except OSError:
            return

    def refusing(self, work: Callable[[], None]) -> None:
        try:
            work()
        except Refused as refused:  # said in JSON: the page shows it as text
            self.close_connection = self.close_connection or refused.status == 413
            self.send_json({"errors": [str(refused)]}, refused.status)

    def send_json(self, value: Any, code: int = 200, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(value, ensure_ascii=False).encode()
        self.reply(body, "application/json", True, code, headers)


def cells_config(server: Any, lesson: str, lang: str, lead: bool) -> dict[str, Any]:
    """What a page's live cells' client (static/cells.js) is told: where to ask and post, the
    words of its controls, whether this page is the presenter's; `stream` is added by a server
    whose pages listen for live runs through cells.js itself (the preview's)."""
    own = table_language(lang)
    words = {name: tables()[name].get("cells", {}) for name in sorted({own, "en"})}
    live = server.live is not None and server.live.has(lesson)
    return {"lesson": lesson, "room": ROOM, "lead": lead, "live": live, "text": words}


@functools.cache
def static(*names: str) -> str:
    """The page scripts (or styles) `names` of deck/static, one after the other (read once)."""
    return "\n".join((STATIC / name).read_text("utf-8") for name in names)


def cells_script(config: dict[str, Any]) -> str:
    """The live cells' client for a page: every copy of the deck takes the slides a run
    changed (static/cells.js); the presenter's gets the controls too (static/celledit.js)."""
    if not config["lead"]:
        return page.config_script("DECK_CELLS", config, static("cells.js"))
    scripts = static("cells.js", "celledit.js")
    return page.config_script("DECK_CELLS", config, scripts, static("cells.css"))


def cell_code(handler: Asking, lesson: str, asked: dict[str, str]) -> None:
    """GET `cell`: the code a cell runs now (the last run's, else the lesson's)."""
    server = handler.server
    if not handler.lead or server.live is None:
        raise Refused(404, "no such room route")
    cell = text(asked.get("cell"), 1000)
    with server.classroom.changed:
        code = server.classroom.room(lesson).edits.get(cell)
    handler.send_json({"code": code if code is not None else server.live.code(lesson, cell)})


def live_cell(handler: Asking, route: str, lesson: str, data: dict[str, Any]) -> None:
    """Run a cell's edited code (`run`), or write the code it last ran to its file (`save`);
    the caller has checked the request is the presenter's."""
    server = handler.server
    if server.live is None:
        raise Refused(404, "live cells are off")
    cell = text(data.get("cell"), 1000)
    if route == "save":
        with server.classroom.changed:
            code = server.classroom.room(lesson).edits.get(cell)
        if code is None:
            raise Refused(409, "run the cell before saving it")
        handler.send_json({"saved": server.live.save(lesson, cell, code)})
        return
    code = text(data.get("code"), CODE)
    if not server.running_cell.acquire(blocking=False):
        raise Refused(409, "another cell is running")
    try:
        shown = (server.out / lesson / "index.html").read_text("utf-8", errors="replace")
        ran = server.live.run(lesson, cell, code, shown)
        if not ran.errors:
            server.classroom.relive(lesson, ran.slides, cell, code, ran.figures)
    finally:
        server.running_cell.release()
    handler.send_json({"errors": ran.errors, "slides": sorted(ran.slides)})


def follow_builds(status: Status, learn: Callable[[str, str], None]) -> None:
    """`learn(lesson, page)` for each lesson of every build the preview serves, until it
    closes (a thread of its own)."""
    version = None
    while not status.closed:
        found = status.wait_after(version, timeout=15)
        if found is None:
            continue
        version = found["version"]
        for lesson, info in found["lessons"].items():
            learn(lesson, info["page"])
