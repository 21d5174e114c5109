"""The classroom's routes under `/__deck/room/`: what a device reads (the stream, the ink) and
sends (a vote), and what the presenter sends (the slide, a poll's stage, ink, a live cell).

A stream is server-sent events: the room's state for this device now, then again whenever it
changes (with the ink drawn since the last message, numbered so that a reconnecting device
says where it was: `Last-Event-ID`). Each message is written outside the room's lock, so a
device that stops reading holds up only its own thread, until the socket's timeout drops it.
"""

from __future__ import annotations

import functools
import json
import threading
from email.message import Message
from io import BufferedIOBase
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from deck.classroom import page, qr
from deck.classroom.guard import RateLimit
from deck.classroom.live import LiveCells
from deck.classroom.presenter import CODE, LEAD, ROOM, SMALL, cell_code, lesson_of, live_cell, text
from deck.classroom.record import load_ink, record_folder
from deck.classroom.room import Classroom, Refused, Room

__all__ = ["LEAD", "ROOM", "client_config", "get", "learn_build", "post", "stream"]
INK = 1 << 20  # bytes of one batch of ink events
STORAGE = 16 << 20  # bytes of the presenter's saved drawings
IDLE = 15.0  # seconds between two messages of a quiet stream (it finds out a device has gone)


class RoomServer(Protocol):
    """What the routes use of the classroom's server (deck.classroom.server)."""

    classroom: Classroom
    out: Path
    join_host: str
    server_port: int
    votes: RateLimit
    live: LiveCells | None
    running_cell: threading.Lock

    def text(self, lang: str) -> dict[str, Any]: ...


class RoomHandler(Protocol):
    """What the routes use of a request's handler (deck.classroom.server)."""

    server: Any  # a RoomServer
    headers: Message
    wfile: BufferedIOBase

    @property
    def lead(self) -> bool: ...
    def device(self) -> str | None: ...
    def body(self, most: int) -> Any: ...
    def send_json(self, value: Any, code: int = 200) -> None: ...
    def reply(self, body: bytes, kind: str, with_body: bool) -> None: ...
    def open_stream(self, retry_ms: int) -> None: ...


def client_config(server: RoomServer, lesson: str, lang: str, lead: bool) -> dict[str, Any]:
    """What the page's room client is told: where to listen and post, its words; the
    presenter's also how students join."""
    at = quote(lesson)
    config: dict[str, Any] = {
        "role": "lead" if lead else "audience",
        "lesson": lesson,
        "room": ROOM,
        "stream": f"{ROOM}stream?lesson={at}",
        "ink": f"{ROOM}ink?lesson={at}",
        "text": server.text(lang),
    }
    if lead:
        config["join"] = qr.join_url(server.join_host, server.server_port, lesson)
        config["qr"] = f"{ROOM}qr.svg?lesson={at}"
    return config


def learn_build(server: RoomServer, lesson: str, digest: str) -> None:
    """A build of `lesson` is served: its quizzes, read from the page and values.json."""
    folder = server.out / lesson
    try:
        text = (folder / "index.html").read_text("utf-8", errors="replace")
        values = json.loads((folder / "values.json").read_text("utf-8"))
        locs = [q for q in values.get("quizzes", []) if isinstance(q, dict)]
    except (OSError, ValueError):
        text, locs = "", []
    quizzes = page.quizzes(text) if text else []
    if len(locs) != len(quizzes):  # (a page and its values from two builds: the page wins)
        locs = [{} for _ in quizzes]
    kept = record_folder(server.out, lesson)
    server.classroom.built(lesson, digest, quizzes, locs, lambda: load_ink(kept))


def number(value: Any, low: int = 0, high: int = 1 << 30) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Refused(400, f"{value!r} is not a number from {low} to {high}")
    return value


def get(handler: RoomHandler, route: str, asked: dict[str, str], with_body: bool) -> None:
    server = handler.server
    lesson = lesson_of(server, asked)
    if route == "stream":
        stream(handler, lesson, handler.lead, asked.get("ink"))
    elif route == "ink":
        with server.classroom.changed:
            room = server.classroom.room(lesson)
            storage = room.storage.decode() if room.storage is not None else None
            events = server.classroom.ink_since(room, room.storage_upto) or []
            answer = {"storage": storage, "upto": room.storage_upto, "events": events}
            answer["seq"] = room.ink_seq
        handler.send_json(answer)
    elif route == "cell":
        cell_code(handler, lesson, asked)
    elif route == "qr.svg" and handler.lead:
        url = qr.join_url(server.join_host, server.server_port, lesson)
        handler.reply(qr.qr_svg(url), "image/svg+xml", with_body)
    else:
        raise Refused(404, "no such room route")


def post(handler: RoomHandler, route: str) -> None:
    server = handler.server
    classroom = server.classroom
    if route == "vote":
        device = handler.device()
        if device is None:
            raise Refused(403, "open the deck's page first: it names this device")
        data = handler.body(SMALL)
        if not isinstance(data, dict):
            raise Refused(400, "a JSON object was expected")
        lesson = lesson_of(server, data)
        quiz, choice = number(data.get("quiz"), 0, 10_000), number(data.get("choice"), 0, 100)
        if not server.votes.allow(device):
            raise Refused(429, "too many votes: wait a moment")
        classroom.vote(lesson, quiz, choice, device)
        handler.send_json({"quiz": quiz, "choice": choice})
        return
    if not handler.lead:
        raise Refused(403, "for the presenter only")
    most = {"ink/save": STORAGE, "ink": INK, "run": CODE}.get(route, SMALL)
    data = handler.body(most)
    if not isinstance(data, dict):
        raise Refused(400, "a JSON object was expected")
    lesson = lesson_of(server, data)
    if route == "position":
        f = data.get("f")
        classroom.move(
            lesson,
            number(data.get("h"), 0, 100_000),
            number(data.get("v"), 0, 100_000),
            None if f is None else number(f, -1, 10_000),
        )
        handler.send_json({})
    elif route == "poll":
        action = text(data.get("action"), 10)
        stage = classroom.steer(lesson, number(data.get("quiz"), 0, 10_000), action)
        handler.send_json({"stage": stage})
    elif route == "ink":
        events = data.get("events")
        if not isinstance(events, list) or len(events) > 5000:
            raise Refused(400, "events: a list of at most 5000")
        handler.send_json({"seq": classroom.draw(lesson, events)})
    elif route in ("run", "save"):
        live_cell(handler, route, lesson, data)
    elif route == "ink/save":
        storage = data.get("storage")
        if not isinstance(storage, list):
            raise Refused(400, "storage: the chalkboard's list of canvases")
        saved = json.dumps(storage, separators=(",", ":")).encode()
        classroom.keep_ink(lesson, saved, number(data.get("upto", 0)))
        handler.send_json({})
    else:
        raise Refused(404, "no such room route")


def changed(classroom: Classroom, room: Room, lead: bool, seen: tuple[int, int]) -> bool:
    return classroom.closed or room.versions(lead) != seen


def stream(handler: RoomHandler, lesson: str, lead: bool, ink: str | None) -> None:
    """The room's state as server-sent events, until the device goes or the server stops."""
    classroom = handler.server.classroom
    device = None if lead else handler.device()
    with classroom.changed:
        room = classroom.room(lesson)
        last = handler.headers.get("Last-Event-ID") or ink
        seq = int(last) if last and last.isdigit() and len(last) < 12 else room.ink_seq
    handler.open_stream(1000)
    if not lead:
        classroom.watch(lesson, 1)
    seen = (-1, -1)
    live = -1
    try:
        while True:
            with classroom.changed:
                moved = functools.partial(changed, classroom, room, lead, seen)
                classroom.changed.wait_for(moved, IDLE)
                if classroom.closed:
                    return
                message = None
                if room.versions(lead) != seen:
                    seen = room.versions(lead)
                    message = room.lead_view() if lead else room.audience_view(device)
                    if room.live_version != live:
                        live = room.live_version
                        patches = room.live if lead else room.live_audience
                        message["live"] = {str(k): v for k, v in patches.items()}
                    if not lead:
                        events = classroom.ink_since(room, seq)
                        message["ink"] = events if events is not None else "reload"
                        message["inkTo"] = room.ink_seq
                    seq = room.ink_seq
            if message is None:
                handler.wfile.write(b": idle\n\n")
            else:
                data = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
                handler.wfile.write(f"id: {seq}\ndata: {data}\n\n".encode())
    finally:
        if not lead:
            classroom.watch(lesson, -1)
