"""A lecture's shared state: where the presenter is, each quiz's poll, the ink drawn, the
slides a live cell changed. One `Classroom` holds a `Room` per lesson; request threads read
and change it under one condition, and the open streams wait on it.

Two versions tell the streams what changed: `version` (what every device sees: the slide, a
poll's stage, the ink, a live cell's slides, a new build) and `lead_version` (what only the
presenter sees: the votes as they come in).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deck.classroom.page import QuizInfo, audience_page

STAGES = ("open", "closed", "shown", "answered")  # a poll's, in the order `step` walks them
MOST_VOTERS = 5000  # devices one poll counts (beyond them a vote is refused)
INK_KEPT = 20000  # ink events a stream can catch up on; further behind, it reloads the ink


class Refused(Exception):
    """A request the room turns down: `status` is the HTTP status, the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Poll:
    votes: dict[str, int] = field(default_factory=dict)  # device → choice
    stage: str = "open"

    def counts(self, choices: int) -> list[int]:
        counts = [0] * choices
        for choice in self.votes.values():
            counts[choice] += 1
        return counts


@dataclass
class Room:
    """One lesson's lecture."""

    lesson: str
    page: str | None = None  # the hash of the page served (a new build changes it)
    quizzes: list[QuizInfo] = field(default_factory=list)
    locs: list[dict[str, Any]] = field(default_factory=list)  # values.json's quiz records
    polls: dict[int, Poll] = field(default_factory=dict)
    position: dict[str, Any] = field(default_factory=lambda: {"h": 0, "v": 0, "f": None})
    ink: deque[tuple[int, Any]] = field(default_factory=lambda: deque(maxlen=INK_KEPT))
    ink_seq: int = 0
    storage: bytes | None = None  # the presenter's last saved drawings (the chalkboard's JSON)
    storage_upto: int = 0  # the ink event that storage holds up to
    ink_saves: int = 0  # one more each time the presenter saves the drawings
    live: dict[int, str] = field(default_factory=dict)  # slide → its HTML after a live run
    live_audience: dict[int, str] = field(default_factory=dict)  # the same, as devices see it
    live_version: int = 0
    edits: dict[str, str] = field(default_factory=dict)  # cell → the code last run live
    live_files: dict[str, Path] = field(default_factory=dict)  # figures a live run drew
    version: int = 0
    lead_version: int = 0
    watching: int = 0  # audience streams open

    def versions(self, lead: bool) -> tuple[int, int]:
        """What a stream has sent when it is up to date (the presenter's sees the votes too)."""
        return self.version, self.lead_version if lead else 0

    def poll(self, quiz: int) -> Poll:
        if not 0 <= quiz < len(self.quizzes):
            raise Refused(404, f"no quiz {quiz} in {self.lesson}")
        return self.polls.setdefault(quiz, Poll())

    def stages(self) -> dict[str, Poll]:
        return {str(k): self.poll(k) for k in range(len(self.quizzes))}

    def audience_view(self, device: str | None) -> dict[str, Any]:
        """What a device is sent: the slide, each poll's stage, its counts once shown, the
        answer and explanation once revealed, and this device's own votes."""
        polls = {}
        for key, poll in self.stages().items():
            quiz = self.quizzes[int(key)]
            view: dict[str, Any] = {"stage": poll.stage, "mine": poll.votes.get(device or "")}
            if poll.stage in ("shown", "answered"):
                view["counts"] = poll.counts(quiz.choices)
            if poll.stage == "answered":
                view.update(answer=quiz.answer, explain=quiz.explain)
            polls[key] = view
        return {"position": self.position, "page": self.page, "polls": polls}

    def lead_view(self) -> dict[str, Any]:
        polls = {}
        for key, poll in self.stages().items():
            counts = poll.counts(self.quizzes[int(key)].choices)
            shown = poll.stage in ("shown", "answered")
            polls[key] = {"stage": poll.stage, "all": counts, "counts": counts if shown else None}
        return {
            "position": self.position,
            "page": self.page,
            "polls": polls,
            "devices": self.watching,
        }


class Classroom:
    """Every room, under one condition that the streams wait on."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.rooms: dict[str, Room] = {}
        self.closed = False

    def room(self, lesson: str) -> Room:
        """The room of a built lesson (call with the condition held)."""
        room = self.rooms.get(lesson)
        if room is None:
            raise Refused(404, f"no lesson {lesson!r} is served")
        return room

    def touch(self, room: Room, everyone: bool = True) -> None:
        """Tell the streams (call with the condition held)."""
        room.lead_version += 1
        if everyone:
            room.version += 1
        self.changed.notify_all()

    def built(
        self,
        lesson: str,
        page: str,
        quizzes: list[QuizInfo],
        locs: list[dict],
        ink: Callable[[], bytes | None] = lambda: None,
    ) -> None:
        """A build of `lesson` is served now: its quizzes are known again. A poll's votes stay
        while its quiz keeps its place and choices; a live run's slides go (the page has the
        code that was saved, or the lesson as it is). A new room starts with the ink a lecture
        kept (`ink`)."""
        with self.changed:
            room = self.rooms.get(lesson)
            if room is None:
                room = self.rooms[lesson] = Room(lesson, storage=ink())
            if room.page == page:
                return
            same = [
                k
                for k, q in enumerate(quizzes)
                if k < len(room.quizzes) and room.quizzes[k].choices == q.choices
            ]
            room.polls = {k: p for k, p in room.polls.items() if k in same}
            room.page, room.quizzes, room.locs = page, quizzes, locs
            room.live, room.live_audience = {}, {}
            room.live_version += 1
            room.edits, room.live_files = {}, {}
            self.touch(room)

    def move(self, lesson: str, h: int, v: int, f: int | None) -> None:
        with self.changed:
            room = self.room(lesson)
            room.position = {"h": h, "v": v, "f": f}
            self.touch(room)

    def vote(self, lesson: str, quiz: int, choice: int, device: str) -> None:
        with self.changed:
            room = self.room(lesson)
            poll = room.poll(quiz)
            if not 0 <= choice < room.quizzes[quiz].choices:
                raise Refused(400, f"quiz {quiz} has no choice {choice}")
            if poll.stage != "open":
                raise Refused(409, "voting is closed")
            if device not in poll.votes and len(poll.votes) >= MOST_VOTERS:
                raise Refused(503, "this poll counts no more devices")
            if poll.votes.get(device) == choice:
                return
            poll.votes[device] = choice
            self.touch(room, everyone=False)

    def steer(self, lesson: str, quiz: int, action: str) -> str:
        """The presenter's `step` (open → shown → answered, and back to shown), `close` (voting
        closed or open again) or `reset` (no votes, open); the poll's stage after it."""
        with self.changed:
            room = self.room(lesson)
            poll = room.poll(quiz)
            if action == "step":
                poll.stage = {"answered": "shown", "shown": "answered"}.get(poll.stage, "shown")
            elif action == "close":
                poll.stage = {"open": "closed", "closed": "open"}.get(poll.stage, poll.stage)
            elif action == "reset":
                poll.votes.clear()
                poll.stage = "open"
            else:
                raise Refused(400, f"no poll action {action!r}")
            self.touch(room)
            return poll.stage

    def draw(self, lesson: str, events: list[Any]) -> int:
        """Ink the presenter drew (the chalkboard's broadcast messages), for the devices to
        draw too; the last event's number."""
        with self.changed:
            room = self.room(lesson)
            for event in events:
                room.ink_seq += 1
                room.ink.append((room.ink_seq, event))
            self.touch(room)
            return room.ink_seq

    def keep_ink(self, lesson: str, storage: bytes, upto: int) -> None:
        with self.changed:
            room = self.room(lesson)
            room.storage, room.storage_upto = storage, min(upto, room.ink_seq)
            room.ink_saves += 1

    def ink_since(self, room: Room, seq: int) -> list[Any] | None:
        """The ink events after `seq` (call with the condition held); None when some of them
        are no longer kept."""
        if seq >= room.ink_seq:
            return []
        if room.ink and room.ink[0][0] > seq + 1:
            return None
        return [event for n, event in room.ink if n > seq]

    def relive(
        self, lesson: str, slides: dict[int, str], cell: str, code: str, files: dict[str, Path]
    ) -> None:
        """A live run of `cell` with `code` changed `slides` (and drew `files`)."""
        with self.changed:
            room = self.room(lesson)
            room.live_files = {**room.live_files, **files}
            room.live = {**room.live, **slides}
            stripped = {k: audience_page(v) for k, v in slides.items()}
            room.live_audience = {**room.live_audience, **stripped}
            room.live_version += 1
            room.edits[cell] = code
            self.touch(room)

    def watch(self, lesson: str, by: int) -> None:
        with self.changed:
            room = self.room(lesson)
            room.watching += by
            self.touch(room, everyone=False)

    def close(self) -> None:
        with self.changed:
            self.closed = True
            self.changed.notify_all()
