"""What a lecture leaves beside the lesson's outputs, in `OUT/<lesson>.classroom/`: each quiz's
counts (`votes.json`, `votes.csv`, with the quiz's `file:line`) and the presenter's ink
(`ink.json`, the chalkboard's drawings). Written as they change (at most once a second) and
when the server stops, each file whole (`write_atomic`: a reader sees the old file or the new
one). A build never touches the folder: a rebuild replaces `OUT/<lesson>/` only.
"""

from __future__ import annotations

import csv
import io
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deck.classroom.room import Classroom, Room
from deck.store.files import write_atomic

SUFFIX = ".classroom"
COLUMNS = ["lesson", "quiz", "loc", "slide", "question", "choice", "text", "right", "votes"]


def record_folder(out: Path, lesson: str) -> Path:
    return out / f"{lesson}{SUFFIX}"


def votes_record(room: Room) -> dict[str, Any]:
    """Each quiz's counts with where it is written (call with the room's condition held)."""
    quizzes = []
    for k, quiz in enumerate(room.quizzes):
        poll = room.polls.get(k)
        counts = poll.counts(quiz.choices) if poll else [0] * quiz.choices
        known = room.locs[k] if k < len(room.locs) else {}
        quizzes.append(
            {
                "quiz": k + 1,
                "loc": known.get("loc", ""),
                "slide": quiz.slide + 1,
                "question": known.get("question", ""),
                "choices": known.get("choices", [""] * quiz.choices),
                "answer": quiz.answer,
                "answer_text": known.get("answer_text", ""),
                "source": known.get("source", ""),
                "votes": counts,
                "voters": sum(counts),
                "stage": poll.stage if poll else "open",
            }
        )
    return {"lesson": room.lesson, "quizzes": quizzes}


def votes_csv(record: dict[str, Any]) -> str:
    """One row per choice: the quiz, its `file:line`, the choice and its votes."""
    out = io.StringIO()
    rows = csv.writer(out, lineterminator="\n")
    rows.writerow(
        ["lesson", "quiz", "loc", "slide", "question", "choice", "text", "right", "votes"]
    )
    for quiz in record["quizzes"]:
        for k, count in enumerate(quiz["votes"]):
            text = quiz["choices"][k] if k < len(quiz["choices"]) else ""
            right = "yes" if k == quiz["answer"] else ""
            row = [record["lesson"], quiz["quiz"], quiz["loc"], quiz["slide"], quiz["question"]]
            rows.writerow([*row, chr(65 + k), text, right, count])
    return out.getvalue()


class Recorder:
    """Writes each room's record when it changed, from a thread of its own (`flush` at the end)."""

    def __init__(self, classroom: Classroom, folder: Callable[[str], Path], log: Callable) -> None:
        self.classroom = classroom
        self.folder = folder
        self.log = log
        self.written: dict[str, tuple[int, int]] = {}  # lesson → (votes version, ink written)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, name="deck-room-record", daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.wait(1.0):
            self.flush(quiet=True)

    def flush(self, quiet: bool = False) -> list[Path]:
        """Write what changed since the last write; the files written."""
        done = []
        with self.lock:
            for lesson, votes, ink, storage, record in self.changes():
                folder = self.folder(lesson)
                try:
                    if record is not None:
                        data = json.dumps(record, ensure_ascii=False, indent=1) + "\n"
                        write_atomic(folder / "votes.json", data.encode())
                        write_atomic(folder / "votes.csv", votes_csv(record).encode())
                        done += [folder / "votes.json", folder / "votes.csv"]
                    if storage is not None:
                        write_atomic(folder / "ink.json", storage)
                        done.append(folder / "ink.json")
                except OSError as exc:
                    self.log(f"note: classroom: could not write {folder}: {exc}")
                    continue
                self.written[lesson] = (votes, ink)
        if done and not quiet:
            self.log(f"  wrote   {', '.join(str(p) for p in done)}")
        return done

    def changes(self) -> list[tuple[str, int, int, bytes | None, dict | None]]:
        found = []
        with self.classroom.changed:
            for lesson, room in self.classroom.rooms.items():
                votes, ink = self.written.get(lesson, (-1, -1))
                voted = room.lead_version != votes and (room.polls or votes >= 0)
                drawn = room.ink_saves != ink and room.storage is not None
                if voted or drawn:
                    record = votes_record(room) if voted else None
                    storage = room.storage if drawn else None
                    found.append((lesson, room.lead_version, room.ink_saves, storage, record))
        return found

    def close(self) -> list[Path]:
        self.stop.set()
        self.thread.join(5)
        return self.flush()


def load_ink(folder: Path) -> bytes | None:
    """The ink a lecture kept (`ink.json`), to draw on again after a restart; None when there
    is none or it is not the chalkboard's JSON."""
    try:
        data = (folder / "ink.json").read_bytes()
        if isinstance(json.loads(data), list):
            return data
    except (OSError, ValueError):
        pass
    return None
