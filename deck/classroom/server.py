"""The classroom's HTTP server: the preview's (deck.preview.server), on the room's network.

Anyone who can reach it reads the deck (the audience page: no speaker notes, no answers before
the lecturer reveals them) and casts votes; only the presenter, whose browser holds the secret
printed in the terminal (a cookie set by `/__deck/lead?key=…`), moves the slides, steers the
polls, draws ink and runs cells. Every request names an IP address or localhost as its Host
and, from a page, this server as its Origin; bodies are JSON of a bounded size; each device's
votes are rate-limited; the connections open at once are bounded; a client that stops reading
(or never finishes its request) is dropped after `timeout` seconds. The routes are in
routes.py.
"""

from __future__ import annotations

import functools
import hashlib
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote

from deck.classroom import guard, page, routes
from deck.classroom.live import LiveCells
from deck.classroom.presenter import (
    PresenterHandler,
    cells_config,
    cells_script,
    follow_builds,
    static,
)
from deck.classroom.record import Recorder, record_folder
from deck.classroom.room import Classroom
from deck.preview.server import (
    EVENTS,
    LAYOUT,
    MAX_URL,
    OVERFLOW,
    STATUS,
    Log,
    PreviewServer,
    Status,
    client,
)
from deck.strings import table_language, tables
from deck.theme import SLIDE_VIEWPORT

SEND_BUFFER = 256 * 1024  # bytes the kernel holds for one connection (it doubles it)
NOT_FOR_AUDIENCE = {".pdf", ".ipynb", ".pptx", ".py", ".csv"}  # notes.pdf holds the answer key


@dataclass(frozen=True)
class Limits:
    """What one client may ask of the server."""

    connections: int = 1000  # open at once (each stream holds one)
    timeout: float = 20.0  # seconds a client may take to send its request or read what it is sent
    votes_burst: float = 5.0  # votes a device may cast at once,
    votes_per_second: float = 1.0  # then this many a second


class RoomHandler(PresenterHandler):
    server: RoomServer

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.limits.timeout)

    # ---- who asks ----------------------------------------------------------------------

    def host_allowed(self) -> bool:
        return guard.host_allowed(self.headers.get("Host"), self.server.server_port)

    def origin_allowed(self) -> bool:
        return guard.origin_allowed(self.headers.get_all("Origin"), self.headers.get("Host"))

    def device(self) -> str | None:
        return self.server.keys.device(self.cookie(guard.DEVICE_COOKIE))

    # ---- GET ---------------------------------------------------------------------------

    HOST_RULE = "Host must name this server by its address"

    def answer(self, with_body: bool) -> None:
        if self.turned_away():
            return
        route, _, query = self.path.partition("?")
        route = route.split("#", 1)[0]
        asked = {k: v[0] for k, v in parse_qs(query, max_num_fields=8).items()}
        if route == routes.LEAD:
            self.enter_lead(asked.get("key"), asked.get("lesson"))
        elif route.startswith(routes.ROOM):
            self.refusing(
                lambda: routes.get(self, route.removeprefix(routes.ROOM), asked, with_body)
            )
        elif self.lead or route == "/favicon.ico":
            super().answer(with_body)
        elif route == "/":
            self.to_lesson(None)
        elif route in (STATUS, EVENTS) or not self.audience_may(route):
            self.send_error(HTTPStatus.NOT_FOUND)
        else:
            super().answer(with_body)

    def audience_may(self, route: str) -> bool:
        """A file of a served lesson's deck that is not for the lecturer alone."""
        parts = unquote(route, errors="replace").strip("/").split("/")
        if parts[0] not in self.server.status.as_dict()["lessons"]:
            return False
        rest = parts[1:]
        if rest[:1] == ["code"] or rest == ["values.json"]:
            return False
        return not rest or Path(rest[-1]).suffix.lower() not in NOT_FOR_AUDIENCE

    def serve_page(self, path: Path, data: bytes, with_body: bool) -> None:
        lesson = path.parent.relative_to(self.root()).as_posix()
        digest = hashlib.blake2b(data, digest_size=12).hexdigest()
        text = data.decode("utf-8", errors="replace")
        lang = page.language(text)
        extra = {"X-Deck-Page": digest}
        config = routes.client_config(self.server, lesson, lang, self.lead)
        role = ("room.js", "roomlead.js") if self.lead else ("room.js",)
        snippet = cells_script(cells_config(self.server, lesson, lang, self.lead))
        snippet += page.config_script("DECK_ROOM", config, static(*role), static("room.css"))
        if self.lead:
            known = self.server.status.as_dict()["lessons"].get(lesson, {})
            live: dict[str, Any] = {"events": EVENTS, "lesson": lesson, "page": digest}
            live.update(files=known.get("files"), layout=LAYOUT, lint=OVERFLOW)
            live.update(viewport=SLIDE_VIEWPORT)
            snippet = client(live) + snippet
        else:
            text = page.audience_page(text)
            if self.device() is None:
                extra["Set-Cookie"] = (
                    f"{guard.DEVICE_COOKIE}={self.server.keys.new_device()}; Path=/; "
                    "HttpOnly; SameSite=Strict; Max-Age=43200"
                )
        body = page.insert_client(text, snippet).encode("utf-8")
        self.reply(body, "text/html; charset=utf-8", with_body, headers=extra)

    # ---- POST --------------------------------------------------------------------------

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        if len(self.path) > MAX_URL:
            self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
            return
        if not self.host_allowed() or not self.origin_allowed():
            self.send_error(HTTPStatus.FORBIDDEN, "Origin must be this server's own")
            return
        route = self.path.split("?", 1)[0]
        if route == LAYOUT:
            if self.lead:
                super().do_POST()
            else:
                self.send_error(HTTPStatus.FORBIDDEN)
            return
        if not route.startswith(routes.ROOM):
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        self.refusing(lambda: routes.post(self, route.removeprefix(routes.ROOM)))


class RoomServer(PreviewServer):
    """The preview's server on `host`, with the classroom's rooms and guards; it learns each
    build the preview serves from its status (a thread of its own)."""

    def __init__(
        self,
        port: int,
        out: Path,
        status: Status,
        log: Log,
        host: str,
        join_host: str,
        keys: guard.Keys,
        limits: Limits,
        record: bool = True,
        live: LiveCells | None = None,
        handout: Callable[[str], dict[str, int] | None] = lambda lesson: None,
    ) -> None:
        self.keys = keys
        self.handout = handout  # a lesson's `handout:` settings, for the annotated handout
        self.limits = limits
        self.join_host = join_host
        self.classroom = Classroom()
        self.gate = guard.Gate(limits.connections)
        self.votes = guard.RateLimit(limits.votes_burst, limits.votes_per_second)
        self.running_cell = threading.Lock()
        self.live = live
        super().__init__(port, out, status, log, host, RoomHandler)
        self.lead_cookie = f"{guard.LEAD_COOKIE}_{self.server_port}"
        self.recorder = (
            Recorder(self.classroom, lambda lesson: record_folder(out, lesson), log)
            if record
            else None
        )
        learn = functools.partial(routes.learn_build, self)
        self.follower = threading.Thread(
            target=follow_builds, args=(status, learn), name="deck-room", daemon=True
        )
        self.follower.start()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.gate.enter():  # too many open: refused at once, nothing read
            try:
                request.setblocking(False)
                request.send(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            # a device that stops reading fills this much, then its writes wait (`timeout`)
            request.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
            super().process_request(request, client_address)
        except BaseException:
            self.gate.leave()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.gate.leave()

    def shutdown(self) -> None:
        self.classroom.close()
        super().shutdown()
        if self.recorder is not None:
            self.recorder.close()  # the counts and the ink, as the lecture left them
            self.annotate()

    def annotate(self) -> None:
        """The lecture's ink over its slides and handout (printed in a thread of its own: the
        printer runs an event loop, which the caller's thread may already have)."""
        from deck.classroom.annotate import after_class

        def work() -> None:
            for lesson in sorted(self.classroom.rooms):
                try:
                    folder = record_folder(self.out, lesson)
                    after_class(self.out / lesson, folder, self.log, self.handout(lesson))
                except Exception as exc:  # a broken browser: the ink stays in ink.json
                    self.log(f"note: classroom: no annotated PDFs for {lesson}: {exc}")

        thread = threading.Thread(target=work, name="deck-room-annotate")
        thread.start()
        thread.join(600)

    def text(self, lang: str) -> dict[str, Any]:
        """The room's words, as the page's strings.js reads them: the deck's language's table
        and English's (what the first lacks, and each message's arguments)."""
        own = table_language(lang)
        return {name: tables()[name].get("room", {}) for name in sorted({own, "en"})}
