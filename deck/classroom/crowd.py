"""A simulated lecture on a classroom server, for the load test and bench/classroom.py: many
audience devices (each its own cookie and event stream, all read by one thread through a
selector), a presenter changing slides, and every device voting in every quiz.

It measures how far behind the presenter each device is (from the presenter's request to the
first message of each device that shows the new slide), the votes' throughput, and the
presenter's own request times while the room is busy. Loopback only: the server is named by
its port on 127.0.0.1.
"""

from __future__ import annotations

import http.client
import json
import selectors
import socket
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Crowd:
    """What a simulated lecture found."""

    devices: int
    changes: int
    latencies: list[float] = field(default_factory=list)  # seconds, one per device per change
    missed: int = 0  # changes some device never saw
    votes_sent: int = 0
    retried: int = 0  # votes sent again after a 429
    vote_seconds: float = 0.0
    expected: dict[int, list[int]] = field(default_factory=dict)  # quiz → counts
    lead_seconds: list[float] = field(default_factory=list)  # the presenter's requests

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")

    def summary(self) -> dict[str, Any]:
        lead = sorted(self.lead_seconds)
        return {
            "devices": self.devices,
            "slide changes": self.changes,
            "follow median s": statistics.median(self.latencies) if self.latencies else None,
            "follow p99 s": self.quantile(0.99),
            "follow max s": max(self.latencies, default=float("nan")),
            "changes missed": self.missed,
            "votes": self.votes_sent,
            "votes retried (429)": self.retried,
            "votes per s": self.votes_sent / self.vote_seconds if self.vote_seconds else None,
            "presenter request median s": statistics.median(lead) if lead else None,
            "presenter request max s": lead[-1] if lead else None,
        }


def hall_deck(root: Path, lesson: str = "hall", slides: int = 12, quizzes: int = 6) -> Path:
    """A built-looking deck under `root/dist/` (and its empty lesson folder under
    `root/content/`): `slides` slides, `quizzes` quizzes of three choices; its folder."""
    (root / "content" / lesson).mkdir(parents=True, exist_ok=True)
    out = root / "dist" / lesson
    out.mkdir(parents=True, exist_ok=True)
    sections: list[str] = []
    records: list[dict[str, Any]] = []
    for k in range(slides):
        quiz = ""
        if k % 2 == 1 and len(records) < quizzes:
            buttons = "".join(
                '<li><button type="button" class="quiz-choice" '
                f'data-correct="{str(c == 1).lower()}">{c}</button></li>'
                for c in range(3)
            )
            quiz = (
                f'<div class="quiz"><ol class="quiz-choices">{buttons}</ol>'
                '<div class="quiz-feedback"></div><div class="quiz-explain" hidden><p>why</p>'
                "</div></div>"
            )
            records.append(
                {
                    "question": f"quiz {len(records) + 1}",
                    "choices": ["0", "1", "2"],
                    "answer": 1,
                    "answer_text": "1",
                    "explanation": "why",
                    "loc": f"content/{lesson}/01-a.md:{10 * k}",
                    "source": "",
                    "slide": k + 1,
                }
            )
        sections.append(f"<section><h2>Slide {k}</h2>{quiz}</section>")
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body>'
        f'<div class="reveal"><div class="slides">{"".join(sections)}</div></div>'
        '<script src="assets/reveal/reveal.js"></script></body></html>'
    )
    (out / "index.html").write_text(page, "utf-8")
    (out / "values.json").write_text(json.dumps({"quizzes": records}), "utf-8")
    return out


def request(
    port: int, method: str, path: str, body: Any = None, cookie: str = "", timeout: float = 30
) -> tuple[int, dict[str, str]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Host": f"127.0.0.1:{port}", "Cookie": cookie}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers.update(
                {"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{port}"}
            )
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


class Streams:
    """Every device's event stream, read by one thread: when each saw each slide change."""

    def __init__(self, port: int, lesson: str, cookies: list[str]) -> None:
        self.selector = selectors.DefaultSelector()
        self.seen: list[dict[int, float]] = [{} for _ in cookies]  # device → change → time
        self.messages = [0] * len(cookies)
        self.buffers = [b""] * len(cookies)
        self.sockets = []
        for n, cookie in enumerate(cookies):
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            s.sendall(
                f"GET /__deck/room/stream?lesson={lesson} HTTP/1.1\r\nHost: 127.0.0.1:{port}"
                f"\r\nCookie: {cookie}\r\nAccept: text/event-stream\r\n\r\n".encode()
            )
            s.setblocking(False)
            self.selector.register(s, selectors.EVENT_READ, n)
            self.sockets.append(s)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.read, name="crowd-streams", daemon=True)
        self.thread.start()

    def read(self) -> None:
        while not self.stop.is_set():
            for key, _ in self.selector.select(timeout=0.05):
                n = key.data
                try:
                    chunk = key.fileobj.recv(1 << 16)  # type: ignore[union-attr]
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    self.selector.unregister(key.fileobj)
                    continue
                now = time.monotonic()
                data = self.buffers[n] + chunk
                *events, self.buffers[n] = data.split(b"\n\n")
                for event in events:
                    for line in event.split(b"\n"):
                        if line.startswith(b"data: "):
                            self.messages[n] += 1
                            f = json.loads(line[6:])["position"].get("f")
                            if isinstance(f, int):
                                self.seen[n].setdefault(f, now)

    def wait(self, predicate: Any, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.02)
        return False

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for s in self.sockets:
            s.close()
        self.selector.close()


def lecture(
    port: int,
    lesson: str,
    lead_cookie: str,
    devices: int = 300,
    changes: int = 50,
    quizzes: int = 6,
    choices: int = 3,
    slides: int = 12,
    interval: float = 0.1,
    workers: int = 8,
) -> Crowd:
    """`devices` devices follow `changes` slide changes (one every `interval` s) while each
    votes once in each of `quizzes` quizzes (one device in five changes one vote)."""
    crowd = Crowd(devices, changes)
    cookies = []
    for _ in range(devices):  # each device opens the page: the server names it (a cookie)
        status, headers = request(port, "GET", f"/{lesson}/")
        assert status == 200, status
        cookies.append(headers["set-cookie"].split(";")[0])
    streams = Streams(port, lesson, cookies)
    try:
        if not streams.wait(lambda: all(streams.messages), 60):
            raise RuntimeError(f"{streams.messages.count(0)} devices got no first message")
        ballots = [(d, q, (d * 7 + q) % choices) for q in range(quizzes) for d in range(devices)]
        ballots += [(d, d % quizzes, (d + 1) % choices) for d in range(0, devices, 5)]
        final = {(d, q): c for d, q, c in ballots}
        crowd.expected = {q: [0] * choices for q in range(quizzes)}
        for (_, q), c in final.items():
            crowd.expected[q][c] += 1

        def cast(ballot: tuple[int, int, int]) -> int:
            d, q, c = ballot
            tries = 0
            while True:
                body = {"lesson": lesson, "quiz": q, "choice": c}
                status, _ = request(port, "POST", "/__deck/room/vote", body, cookies[d])
                if status != 429:
                    if status != 200:
                        raise RuntimeError(f"a vote was refused: {status}")
                    return tries
                tries += 1
                time.sleep(0.5)

        started = {}
        with ThreadPoolExecutor(workers) as pool:
            t0 = time.monotonic()
            voting = pool.map(cast, ballots)
            for i in range(1, changes + 1):
                started[i] = time.monotonic()
                body = {"lesson": lesson, "h": i % slides, "v": 0, "f": i}
                status, _ = request(port, "POST", "/__deck/room/position", body, lead_cookie)
                crowd.lead_seconds.append(time.monotonic() - started[i])
                if status != 200:
                    raise RuntimeError(f"the presenter's slide change was refused: {status}")
                time.sleep(max(0.0, interval - (time.monotonic() - started[i])))
            crowd.retried = sum(voting)
            crowd.vote_seconds = time.monotonic() - t0
        crowd.votes_sent = len(ballots)
        streams.wait(lambda: all(changes in seen for seen in streams.seen), 30)
        for seen in streams.seen:
            for i, at in started.items():
                later = [t for f, t in seen.items() if f >= i]
                if later:
                    crowd.latencies.append(max(0.0, min(later) - at))
                else:
                    crowd.missed += 1
    finally:
        streams.close()
    return crowd
