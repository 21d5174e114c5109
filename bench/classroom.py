"""A lecture's load on the classroom server (`build.py --serve --classroom`), on loopback.

    .venv/bin/python bench/classroom.py [--devices 300] [--changes 50] [--quizzes 6]
                                        [--interval 0.1] [--repeats 3] [--json FILE]

Each repeat serves a built-looking deck of 12 slides and `--quizzes` quizzes
(deck.classroom.crowd.hall_deck) with the classroom's own server in this process, and
simulates the room (deck.classroom.crowd.lecture): every device opens the page (its cookie),
holds the room's event stream, and votes once in each quiz (one device in five changes one
vote) while the presenter changes slides `--changes` times, one every `--interval` seconds.

It prints, per repeat and as medians over the repeats: how far behind the presenter the devices
were (from the presenter's request to each device's first message showing the new slide:
median, 99th percentile and maximum over every device and change), the votes' throughput
(votes per second while they were being cast, with the presenter's slide changes going on), the
presenter's own request times, and whether every vote was counted exactly once. The load
average is printed beside each repeat: on a shared machine these are indicative only. Times are
a benchmark, never asserted in tests (tests/classroom/test_room_load.py asserts a bound).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deck.classroom.crowd import hall_deck, lecture  # noqa: E402
from deck.classroom.guard import Keys  # noqa: E402
from deck.classroom.serve import room_server  # noqa: E402
from deck.classroom.server import Limits  # noqa: E402
from deck.preview.serve import running  # noqa: E402
from deck.source.registry import LessonFolder  # noqa: E402


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def one(args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix="deck-classroom-bench-") as folder:
        root = Path(folder)
        hall_deck(root, "hall", slides=12, quizzes=args.quizzes)
        keys = Keys()
        make = room_server("127.0.0.1", "127.0.0.1", keys, Limits(), record=False)
        lesson = LessonFolder("hall", root / "content" / "hall")
        with running(lambda: None, [lesson], root / "dist", port=0, make=make) as preview:
            while "hall" not in preview.server.classroom.rooms:  # type: ignore[attr-defined]
                pass
            port = preview.server.server_port
            before = load()
            crowd = lecture(
                port,
                "hall",
                f"deck_lead_{port}={keys.lead}",
                devices=args.devices,
                changes=args.changes,
                quizzes=args.quizzes,
                interval=args.interval,
            )
            room = preview.server.classroom.rooms["hall"]  # type: ignore[attr-defined]
            counted = {k: room.polls[k].counts(3) for k in range(args.quizzes)}
            after = load()
    found = crowd.summary()
    found["every vote counted once"] = counted == crowd.expected
    found["load average before"] = before
    found["load average after"] = after
    return found


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--devices", type=int, default=300)
    p.add_argument("--changes", type=int, default=50)
    p.add_argument("--quizzes", type=int, default=6)
    p.add_argument("--interval", type=float, default=0.1, help="seconds between slide changes")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", type=Path, help="write every measurement here")
    args = p.parse_args()
    runs = []
    for k in range(args.repeats):
        print(f"repeat {k + 1}/{args.repeats} (load average {load()})", file=sys.stderr)
        runs.append(one(args))
    keys = [k for k, v in runs[0].items() if isinstance(v, int | float)]
    width = max(len(k) for k in runs[0])
    print(
        f"{args.devices} devices, {args.changes} slide changes every {args.interval} s, "
        f"{args.quizzes} quizzes; {args.repeats} repeats"
    )
    for key in runs[0]:
        values = [run[key] for run in runs]
        shown = "  ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in values)
        middle = ""
        if key in keys and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in values
        ):
            middle = f"  (median {statistics.median(values):.3f})"
        print(f"{key:<{width}}  {shown}{middle}")
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))
    return 0 if all(run["every vote counted once"] for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
