"""`build.py LESSON --serve` without `--classroom`: the preview (deck.preview) on 127.0.0.1,
with live cells for the presenter.

The preview's pages are the author's (notes, answers and all, as built). The presenter is the
browser that opened the address the terminal prints (`/__deck/lead?key=…`: the secret becomes
its cookie, deck.classroom.presenter): its deck has an Edit button on each cell shown with its
code, and only its requests run code. A local process, or a page of another site or of another
server on 127.0.0.1 in the author's browser, is refused (403) and runs nothing: a live cell's
request must carry the secret and name this server as its Host and Origin, its body JSON.
Every page the preview serves (a second window, the speaker view's previews) shows what a run
changed: the main windows listen to the live cells' stream (static/cells.js), and pass it on
to their speaker view.
"""

from __future__ import annotations

import functools
import threading
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

from deck.classroom import guard, page, routes
from deck.classroom.live import LiveCells
from deck.classroom.presenter import (
    CODE,
    LEAD,
    ROOM,
    SMALL,
    PresenterHandler,
    cell_code,
    cells_config,
    cells_script,
    follow_builds,
    lesson_of,
    live_cell,
)
from deck.classroom.room import Classroom, Refused
from deck.options import Options
from deck.preview.serve import Build, Preview, serve
from deck.preview.server import MAX_URL, Log, MakeServer, PreviewServer, Status
from deck.source.registry import Source


class LivePreviewHandler(PresenterHandler):
    server: LivePreviewServer

    def answer(self, with_body: bool) -> None:
        route, _, query = self.path.partition("?")
        route = route.split("#", 1)[0]
        if route != LEAD and not route.startswith(ROOM):
            super().answer(with_body)  # (the preview's: it checks the URL's length and Host)
            return
        if not self.turned_away():
            asked = {k: v[0] for k, v in parse_qs(query, max_num_fields=8).items()}
            if route == LEAD:
                self.enter_lead(asked.get("key"), asked.get("lesson"))
            else:
                self.refusing(lambda: self.cells_get(route.removeprefix(ROOM), asked))

    def lesson(self, asked: dict[str, Any]) -> str:
        """The lesson a request names, when it is served (else Refused: 404)."""
        name = str(asked.get("lesson"))
        known = self.server.status.as_dict()["lessons"].get(name)
        if known is not None and name not in self.server.classroom.rooms:
            self.server.learn(name, known["page"])  # (served, not yet learned: its first build)
        return lesson_of(self.server, asked)

    def cells_get(self, route: str, asked: dict[str, str]) -> None:
        lesson = self.lesson(asked)
        if route == "stream":  # every page here is the author's: the slides as built
            routes.stream(self, lesson, True, None)
        elif route == "cell":
            cell_code(self, lesson, asked)
        else:
            raise Refused(404, "no such route")

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        route = self.path.split("?", 1)[0]
        if not route.startswith(ROOM):
            super().do_POST()  # (the layout a page measured)
        elif len(self.path) > MAX_URL:
            self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
        elif not self.host_allowed() or not self.origin_allowed():
            self.send_error(HTTPStatus.FORBIDDEN, "Origin must be this preview's own")
        else:
            self.refusing(lambda: self.cells_post(route.removeprefix(ROOM)))

    def cells_post(self, route: str) -> None:
        if route not in ("run", "save"):
            raise Refused(404, "no such route")
        if not self.lead:
            raise Refused(403, "for the presenter only: the address the terminal printed")
        data = self.body(CODE if route == "run" else SMALL)
        if not isinstance(data, dict):
            raise Refused(400, "a JSON object was expected")
        live_cell(self, route, self.lesson(data), data)

    def dress(self, lesson: str, text: str) -> str:
        config = cells_config(self.server, lesson, page.language(text), self.lead)
        config["stream"] = f"{ROOM}stream?lesson={quote(lesson)}"
        return page.insert_client(text, cells_script(config))


class LivePreviewServer(PreviewServer):
    """The preview's server on 127.0.0.1 with live cells (`live`; None: no run, no save) and
    the presenter's secret (`keys`); it learns each build it serves (a thread of its own),
    which replaces a live run's slides."""

    def __init__(
        self,
        port: int,
        out: Path,
        status: Status,
        log: Log,
        keys: guard.Keys,
        live: LiveCells | None,
    ) -> None:
        self.keys = keys
        self.live = live
        self.classroom = Classroom()  # (each lesson's live slides: no one else is in the room)
        self.running_cell = threading.Lock()
        super().__init__(port, out, status, log, "127.0.0.1", LivePreviewHandler)
        self.lead_cookie = f"{guard.LEAD_COOKIE}_{self.server_port}"
        self.follower = threading.Thread(
            target=follow_builds, args=(status, self.learn), name="deck-cells", daemon=True
        )
        self.follower.start()

    def learn(self, lesson: str, digest: str) -> None:
        self.classroom.built(lesson, digest, [], [])

    def shutdown(self) -> None:
        self.classroom.close()  # (its streams end)
        super().shutdown()


def live_server(keys: guard.Keys, live: LiveCells | None) -> MakeServer:
    """The factory the preview opens its server with."""
    return functools.partial(LivePreviewServer, keys=keys, live=live)


def addresses(preview: Preview, keys: guard.Keys, lessons: list[str], live: list[str]) -> list[str]:
    """What the terminal says: each deck's address, and the presenter's when a lesson has live
    cells (with the secret: the address to open in the browser that presents)."""
    decks = " ".join(f"{preview.url}{name}/" for name in lessons) or preview.url
    lines = [f"serving {decks} (Ctrl-C stops)"]
    if live:
        lead = f"{preview.url}{LEAD.lstrip('/')}?key={keys.lead}&lesson={quote(live[0])}"
        lines.append(f"presenter, to edit and run cells on the slides (keep private): {lead}")
    return lines


def serve_live(
    build: Build,
    watched: list[Source],
    out: Path,
    port: int,
    log: Log,
    options: Options | None,
    stop: threading.Event | None = None,
) -> None:
    """Serve `out` on 127.0.0.1:`port`, build now and after every change, until Ctrl-C or
    `stop`; with `options` (the rebuilds'), the presenter runs edited cells of the lesson
    folders served."""
    keys = guard.Keys()
    live = LiveCells(watched, options, log) if options is not None else None
    names = [source.name for source in watched]
    with_cells = [name for name in names if live is not None and live.has(name)]

    def started(preview: Preview) -> None:
        for line in addresses(preview, keys, names, with_cells):
            log(line)

    serve(build, watched, out, port, log, stop, live_server(keys, live), started)
