"""A classroom server on loopback for the tests (deck.classroom): a built lesson served in a
thread, and plain HTTP requests to it with the headers a test chooses."""

from __future__ import annotations

import http.client as httpclient
import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deck.classroom.crowd import hall_deck
from deck.classroom.guard import Keys
from deck.classroom.serve import handouts, room_server
from deck.classroom.server import Limits
from deck.preview.serve import Preview, running
from deck.source.registry import LessonFolder
from fixture_build import ROOT, Built, Ran, copy_fixture, run_cli

KEY = "presenter-key-of-the-tests"


def build_room(root: Path, name: str = "room") -> Built:
    """The `room` fixture lesson (a cell, a fragment, two quizzes, notes) built without PDFs."""
    copy_fixture("room", root)
    if name != "room":
        (root / "content" / "room").rename(root / "content" / name)
    ran = run_cli(root, name, "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    return Built(root, name, ran)


@dataclass
class Served:
    preview: Preview
    lesson: str
    lines: list[str]

    @property
    def port(self) -> int:
        return self.preview.server.server_port

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def lead_url(self) -> str:
        return f"{self.origin}/__deck/lead?key={KEY}&lesson={self.lesson}"

    @property
    def audience_url(self) -> str:
        return f"{self.origin}/{self.lesson}/"

    @property
    def lead_cookie(self) -> str:
        return f"deck_lead_{self.port}={KEY}"

    @property
    def classroom(self) -> Any:
        return self.preview.server.classroom  # type: ignore[attr-defined]


@contextmanager
def serve_room(
    built: Built,
    build: Callable[[], object] = lambda: None,
    limits: Limits | None = None,
) -> Iterator[Served]:
    """The built lesson in a classroom, as `serve_classroom` serves it (its `handout:` read
    for the annotated handout when the class ends)."""
    lines: list[str] = []
    lesson = LessonFolder(built.lesson, built.root / "content" / built.lesson)
    handout = handouts([lesson])
    make = room_server("127.0.0.1", "127.0.0.1", Keys(KEY), limits or Limits(), handout=handout)
    with running(build, [lesson], built.root / "dist", lines.append, 0, make) as preview:
        served = Served(preview, built.lesson, lines)
        wait_for(lambda: served.classroom.rooms.get(built.lesson), 60)
        yield served


def wait_for(predicate: Callable[[], object], seconds: float = 30.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out")


def http(
    served: Served | Running,
    method: str,
    path: str,
    body: Any = None,
    headers: Mapping[str, str | None] | None = None,
    timeout: float = 10.0,
) -> tuple[int, dict[str, str], bytes]:
    """One request; `body` is sent as JSON (bytes as they are). Host is the server's own and
    a POST names the server as its Origin, unless `headers` says otherwise (None: no such
    header)."""
    connection = httpclient.HTTPConnection("127.0.0.1", served.port, timeout=timeout)
    try:
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        sent: dict[str, str | None] = {"Host": f"127.0.0.1:{served.port}"}
        if method == "POST":
            sent.update({"Origin": served.origin, "Content-Type": "application/json"})
        sent.update(headers or {})
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in sent.items():
            if value is not None:
                connection.putheader(name, value)
        if data is not None:
            connection.putheader("Content-Length", str(len(data)))
        connection.endheaders(data)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def device_cookie(served: Served) -> str:
    """A new device's cookie, as the audience page hands it out."""
    code, headers, _ = http(served, "GET", f"/{served.lesson}/")
    assert code == 200, code
    return headers["Set-Cookie"].split(";")[0]


def vote(served: Served, device: str, quiz: int, choice: int) -> int:
    body = {"lesson": served.lesson, "quiz": quiz, "choice": choice}
    return http(served, "POST", "/__deck/room/vote", body, {"Cookie": device})[0]


def lead(served: Served, route: str, body: dict[str, Any]) -> tuple[int, Any]:
    code, _, data = http(
        served,
        "POST",
        f"/__deck/room/{route}",
        {"lesson": served.lesson, **body},
        {"Cookie": served.lead_cookie},
    )
    return code, json.loads(data) if code == 200 else data


@dataclass
class Running:
    """`build.py LESSON --serve [--classroom]` in a process of its own, as a lecturer runs it."""

    proc: subprocess.Popen[str]
    lines: list[str]
    lead_url: str
    audience_url: str

    @property
    def port(self) -> int:
        return int(self.lead_url.split("/")[2].rsplit(":", 1)[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def key(self) -> str:
        return self.lead_url.split("key=", 1)[1].split("&", 1)[0]

    @property
    def lead_cookie(self) -> str:
        return f"deck_lead_{self.port}={self.key}"


@contextmanager
def classroom_process(root: Path, lesson: str = "room", seconds: float = 120) -> Iterator[Running]:
    """The real CLI serving `root`'s lesson on 127.0.0.1 (any free port); stopped with Ctrl-C
    (SIGINT) at the end, as a lecturer ends the class, and waited for (after-class files)."""
    with serve_process(root, [lesson, "--classroom", "--host", "127.0.0.1"], seconds) as running:
        yield running


@contextmanager
def preview_process(root: Path, lesson: str = "room", seconds: float = 120) -> Iterator[Running]:
    """The real CLI previewing `root`'s lesson (`--serve` alone, any free port): its
    `audience_url` is the deck's address, its `lead_url` the presenter's."""
    with serve_process(root, [lesson], seconds) as running:
        yield running


@contextmanager
def serve_process(root: Path, args: list[str], seconds: float) -> Iterator[Running]:
    command = [sys.executable, str(ROOT / "build.py"), *args, "--serve", "--port", "0"]
    proc = subprocess.Popen(command, cwd=root, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []

    def read() -> None:
        for line in proc.stderr or []:
            lines.append(line.rstrip("\n"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        wait_for(lambda: any("slides built" in x or "up to date" in x for x in lines), seconds)
        lead_url = next(x for x in lines if x.startswith("presenter")).split(": ", 1)[1].strip()
        deck = next(x for x in lines if x.startswith(("students join", "serving")))
        audience_url = deck.split(": ")[1] if "join" in deck else deck.split()[1]
        running = Running(proc, lines, lead_url, audience_url.strip())
        lesson = args[0]

        def served() -> bool:  # (the build is served a moment after it says it is built)
            status = http(running, "GET", "/__deck/status", headers={"Cookie": running.lead_cookie})
            return lesson in json.loads(status[2]).get("lessons", {})

        wait_for(served, seconds)
        yield running
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        reader.join(timeout=10)


def synthetic_deck(root: Path, lesson: str = "hall", slides: int = 12, quizzes: int = 6) -> Built:
    """A built-looking deck (deck.classroom.crowd.hall_deck: no build needed)."""
    hall_deck(root, lesson, slides, quizzes)
    return Built(root, lesson, Ran(0, "", ""))
