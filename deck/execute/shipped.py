"""One section on a cluster's worker: `python -m deck.execute.shipped JOB_DIR FIRST_LINE`, run
by `deck.execute.task` with the engine it was sent, beside the lesson it was sent.

It supervises the section's worker exactly as a local build does (`deck.execute.supervise`:
the per-step time limits, the memory limit, the process group killed at the end) and writes
`answer.json`: how the worker ended, its result with what it depended on in portable form
(`deck.store.portable`: this machine's paths mean nothing to the build), and the last line it
printed. When its input closes (the Dask worker that started it died) it stops the section
at once."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from deck.execute.supervise import (
    STARTUP_LIMIT,
    Step,
    allow_starts,
    log_tail,
    run_worker,
    stop_all,
    worker_env,
)
from deck.model import Dependency
from deck.store.portable import Places, to_portable


def _watch_parent() -> None:
    """Block on stdin; at its end (the task's process is gone) stop everything and leave."""
    try:
        while sys.stdin.buffer.read(1):
            pass
    except OSError:
        pass
    stop_all()
    os._exit(3)


def answer(job_dir: Path, first_line: int) -> dict[str, Any]:
    job = json.loads((job_dir / "job.json").read_text("utf-8"))
    first = Step("start", 0, first_line, STARTUP_LIMIT, time.monotonic())
    result_file, log_file = job_dir / "result.json", job_dir / "worker.log"
    ended = run_worker(job_dir / "job.json", result_file, log_file, first, lambda step: None)
    data: Any = None
    if ended.returncode == 0:
        try:
            data = json.loads(result_file.read_text("utf-8"))
        except (OSError, ValueError):
            data = None
    if isinstance(data, dict) and "deps" in data:
        deps = [Dependency.from_json(d) for d in data.pop("deps")]
        lesson = Path(job["lesson_dir"])  # (nothing beside it was sent: the project is it)
        data["inputs"], data["left_out"] = to_portable(deps, Places(lesson, lesson), worker_env())
    step = ended.step
    return {
        "returncode": ended.returncode,
        "timed_out": ended.timed_out,
        "step": [step.kind, step.index, step.line, step.limit],
        "data": data,
        "tail": log_tail(log_file) if step.kind in ("start", "finish") else "",
    }


def main() -> None:
    job_dir, first_line = Path(sys.argv[1]), int(sys.argv[2])
    threading.Thread(target=_watch_parent, daemon=True).start()
    allow_starts()
    found = answer(job_dir, first_line)
    text = json.dumps(found, ensure_ascii=False)
    (job_dir / "answer.json").write_text(text, "utf-8")
    os._exit(0)  # (the thread reading stdin must not hold the interpreter's shutdown)


if __name__ == "__main__":
    main()
