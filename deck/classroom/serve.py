"""`build.py LESSON --serve --classroom`: the preview, served to the room's network as a
classroom (deck.classroom.server), with the addresses printed for the presenter and students,
and the after-class files written when it stops (deck.classroom.record)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from pathlib import Path

from deck.classroom import guard, qr
from deck.classroom.live import LiveCells
from deck.classroom.routes import LEAD
from deck.classroom.server import Limits, RoomServer
from deck.errors import DeckError
from deck.options import Options
from deck.preview.serve import Build, Log, Preview, serve
from deck.publish.pdfs import handout_settings
from deck.source.registry import Source


def room_server(
    host: str,
    join_host: str,
    keys: guard.Keys,
    limits: Limits,
    record: bool = True,
    live: LiveCells | None = None,
    handout: Callable[[str], dict[str, int] | None] = lambda lesson: None,
) -> Callable[..., RoomServer]:
    """The factory the preview opens its server with."""
    return functools.partial(
        RoomServer,
        host=host,
        join_host=join_host,
        keys=keys,
        limits=limits,
        record=record,
        live=live,
        handout=handout,
    )


def handouts(sources: list[Source]) -> Callable[[str], dict[str, int] | None]:
    """Each served lesson's `handout:` settings as handout.pdf is printed with, read when the
    class ends (the lesson as it is then); None when it cannot be read (the default then)."""
    by_name = {source.name: source for source in sources}

    def read(lesson: str) -> dict[str, int] | None:
        source = by_name.get(lesson)
        try:
            return handout_settings(source.load().config) if source is not None else None
        except (DeckError, OSError):
            return None

    return read


def addresses(preview: Preview, keys: guard.Keys, join_host: str, lessons: list[str]) -> list[str]:
    """What the terminal says: the presenter's address (with the secret: for this screen
    only) and each lesson's address for students."""
    port = preview.server.server_port
    first = f"&lesson={lessons[0]}" if lessons else ""
    lines = [f"presenter (keep private): http://127.0.0.1:{port}{LEAD}?key={keys.lead}{first}"]
    lines += [f"students join: {qr.join_url(join_host, port, name)}" for name in lessons]
    return lines


def serve_classroom(
    build: Build,
    watched: list[Source],
    out: Path,
    port: int,
    log: Log,
    host: str | None = None,
    stop: threading.Event | None = None,
    limits: Limits | None = None,
    options: Options | None = None,
) -> None:
    """Serve `out` to the room (all IPv4 interfaces, or `host`), build now and after every
    change, until Ctrl-C or `stop`; with `options` (the rebuilds'), the presenter runs edited
    cells live."""
    keys = guard.Keys()
    join_host = host if host not in (None, "0.0.0.0", "") else qr.lan_address()
    assert join_host is not None
    live = LiveCells(watched, options, log) if options is not None else None
    make = room_server(
        host or "0.0.0.0", join_host, keys, limits or Limits(), live=live, handout=handouts(watched)
    )
    names = [source.name for source in watched]

    def started(preview: Preview) -> None:
        for line in addresses(preview, keys, join_host, names):
            log(line)
        log("the speaker view (S) shows students the QR code; Ctrl-C ends the class")

    serve(build, watched, out, port, log, stop, make, started)
