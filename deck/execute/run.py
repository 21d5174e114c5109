"""Executes the sections whose cache key missed, one worker process each, in parallel.

Each section runs in a fresh `deck.execute.worker` process started and kept within its limits by
`deck.execute.supervise`; this module prepares the job, turns what the worker left (a result, an
error, or a crash at a known step) into a `SectionResult` or a `Diagnostic`, and reports
progress.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deck import jobs as calls  # (`deck.jobs`: the name `jobs` is the sections to run here)
from deck.errors import Diagnostic
from deck.execute import supervise
from deck.execute.hints import other_section_hint
from deck.execute.job import CellJob, InlineJob, JobSpec
from deck.execute.places import Places
from deck.execute.supervise import (
    STARTUP_LIMIT,
    Ended,
    Step,
    allow_starts,
    log_tail,
    run_worker,
    signal_words,
    stop_all,
)
from deck.model import Lesson, Section, SectionResult
from deck.store.sections import staging_name


@dataclass(frozen=True)
class Job:
    section: Section
    key: str
    figure_dir: Path
    estimate: float | None = None  # seconds the section took when last computed, if known


@dataclass(frozen=True)
class SectionStep:
    """A section's worker started a step. Sent to `on_progress` from the thread that runs the
    section (several sections run at once): keep the callback quick and thread-safe.

    `step` is "start" (worker launched), "cell" (cell `cell` of `cells` began), "inline" (the
    inline expressions are being evaluated; `cell` == `cells`), "finish" (recording what the
    section read) or "done" (the worker ended; `ok` says whether it produced a result).
    """

    section: str  # the section's name, e.g. "02-self-attention"
    rel: str  # its .md path as messages show it
    step: str
    cell: int  # 1..cells for "cell"; 0 before the first cell
    cells: int
    line: int  # the .md line of the running cell's fence (or inline expression)
    started: float  # time.monotonic() when this step began
    section_started: float  # time.monotonic() when the worker was launched
    estimate: float | None  # seconds the section took when last computed, if known
    ok: bool = True


OnProgress = Callable[[SectionStep], None]
# told each job's outcome and seconds as it finishes (`run_sections`, the executors)
Report = Callable[[Job, "SectionResult | Diagnostic", float], None]


def threads_per_worker(workers: int) -> int:
    """Math-library threads (OpenMP, MKL, OpenBLAS) for each section worker: the machine's cores
    shared among the workers that may run at once. It depends on `--jobs` only, never on how
    many sections happen to run, so a section computes the same bits alone as beside others.
    (Waiting OpenMP threads spin: two workers of two threads each on two cores oversubscribe.)
    A thread count set in the environment is kept."""
    return max(1, (os.cpu_count() or 1) // max(1, workers))


def job_spec(lesson: Lesson, job: Job, threads: int = 1) -> JobSpec:
    settings = lesson.config.exec
    seen: set[str] = set()
    inlines = []
    for e in job.section.inlines:
        if e.expr not in seen:
            seen.add(e.expr)
            inlines.append(InlineJob(e.expr, e.loc.line))
    return JobSpec(
        path=job.section.rel,
        md_file=str(job.section.path.resolve()),
        section=job.section.name,
        key=job.key,
        seed=settings.seed,
        timeout=settings.timeout,
        memory_mb=settings.memory_mb,
        output_limit=settings.output_limit,
        threads=threads,
        lesson_dir=str(lesson.path.resolve()),
        figure_dir=str(job.figure_dir.resolve()),
        cells=tuple(
            CellJob(
                code=cell.code,
                line=cell.loc.line,
                code_line=cell.code_line,
                label=cell.label,
                timeout=float(cell.options.get("timeout", settings.timeout)),
                error=bool(cell.options.get("error", False)),
                fig_size=(cell.options.get("fig-width"), cell.options.get("fig-height")),
                inputs=declared_inputs(cell.options.get("inputs")),
            )
            for cell in job.section.cells()
        ),
        inlines=tuple(inlines),
        quarto=job.section.settings.quarto,
    )


def declared_inputs(value: object) -> tuple[str, ...]:
    """The cell option `inputs` (one glob or a list of them) as a tuple of globs."""
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value) if isinstance(value, list | tuple) else ()


def run_section(
    lesson: Lesson,
    job: Job,
    verbose: bool = False,
    on_progress: OnProgress | None = None,
    threads: int = 1,
) -> SectionResult | Diagnostic:
    """Run one section in a fresh worker process; figures land in `job.figure_dir`."""
    staging = job.figure_dir.with_name(staging_name(job.key))
    shutil.rmtree(staging, ignore_errors=True)
    spec = job_spec(lesson, job, threads).with_folders(figure_dir=str(staging.resolve()))
    try:
        with tempfile.TemporaryDirectory(prefix="deck-job-") as tmp:
            outcome = _run_worker(job, spec, Path(tmp), verbose, on_progress, lesson.config.python)
        if isinstance(outcome, Diagnostic):
            return outcome
        shutil.rmtree(job.figure_dir, ignore_errors=True)
        staging.rename(job.figure_dir)
        return SectionResult.from_json(outcome, str(job.figure_dir))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _run_worker(
    job: Job,
    spec: JobSpec,
    tmp: Path,
    verbose: bool,
    on_progress: OnProgress | None,
    python: str = "",
) -> dict[str, Any] | Diagnostic:
    """Run the worker (with `python`, else this build's interpreter); the result JSON, or the
    problem at the step that was running."""
    spec = spec.with_folders(job_dir=str(tmp.resolve()))
    job_file, result_file, log_file = tmp / "job.json", tmp / "result.json", tmp / "worker.log"
    job_file.write_text(json.dumps(spec.to_json(), ensure_ascii=False), "utf-8")
    first_line = job.section.slides[0].loc.line if job.section.slides else 1
    launched = time.monotonic()
    cells = len(spec.cells)

    def tell(step: Step, kind: str | None = None, ok: bool = True) -> None:
        if on_progress is None:
            return
        kind = kind or step.kind
        cell = step.index if step.kind == "cell" else (0 if step.kind == "start" else cells)
        on_progress(
            SectionStep(
                job.section.name,
                job.section.rel,
                kind,
                cell,
                cells,
                step.line,
                step.started,
                launched,
                job.estimate,
                ok,
            )
        )

    first = Step("start", 0, first_line, STARTUP_LIMIT, launched)
    ended = run_worker(job_file, result_file, log_file, first, tell, python)
    if verbose:
        text = log_file.read_text("utf-8", "replace")
        if text.strip():
            sys.stderr.write(text)
    data: Any = None
    if ended.returncode == 0:
        try:
            data = json.loads(result_file.read_text("utf-8"))
        except (OSError, ValueError):
            data = None
    tail = log_tail(log_file) if ended.step.kind in ("start", "finish") else ""
    result = outcome(job, ended, data, tail, verbose)
    tell(ended.step, "done", ok=not isinstance(result, Diagnostic))
    return result


def outcome(
    job: Job, ended: Ended, data: Any, tail: str = "", verbose: bool = False
) -> dict[str, Any] | Diagnostic:
    """What a worker's end means: its result (`data`, the worker's JSON, with its warnings
    placed), or the problem at the step it was running (`tail`: the last line it printed,
    for a crash outside the cells). Wherever the worker ran (`deck.execute.cluster`)."""
    step = ended.step
    places = Places(job.section)
    loc = places.step(step.kind, step.index, step.line)
    if ended.timed_out:
        if step.kind == "cell":
            message = (
                f"cell still running after {step.limit:g} s and did not stop when asked: "
                "stopped with every process it started (set `#| timeout:`)"
            )
        elif step.kind == "inline":
            message = (
                f"inline expression still running after {step.limit:g} s and did not stop "
                "when asked: stopped (set `timeout:` under `exec:` in lesson.yml)"
            )
        else:
            message = f"the worker did not finish its {step.kind} step in {step.limit:g} s"
        return Diagnostic(loc, "timeout", message)
    if isinstance(data, dict) and "error" in data:
        err = data["error"]
        at, message, frames = places.error(err, step.kind, step.index)
        if verbose and frames:  # `-v`: every frame, at its .md or .py line
            message += "\n" + "\n".join(f"    {line}" for line in frames)
        return Diagnostic(at, err["code"], message)
    if isinstance(data, dict):
        return places.result(data)
    if ended.returncode < 0:
        cause = signal_words(-ended.returncode)
    elif ended.returncode > 0:
        cause = f"exited with code {ended.returncode} (os._exit?)"
    else:
        cause = "ended without a result"
    where = {
        "start": "while starting",
        "cell": "while this cell ran",
        "inline": "while this inline expression ran",
        "finish": "after the last cell",
    }[step.kind]
    return Diagnostic(loc, "crash", f"worker {where}: {cause}" + (f": {tail}" if tail else ""))


# ---- many sections ------------------------------------------------------------------------


def longest_first(jobs: list[Job]) -> list[Job]:
    """The order in which to start `jobs`: the sections never computed first (their time is
    not known), the one with the most code first (a guess: on a first build, the lesson's
    training section is not left until its other sections have run), then the others by the
    seconds they took when last computed, longest first, so the longest does not start last
    and hold the build alone (the order otherwise kept)."""

    def order(job: Job) -> tuple[float, float]:
        if job.estimate is None:
            return (-math.inf, -sum(len(cell.code) for cell in job.section.cells()))
        return (-job.estimate, 0.0)

    return sorted(jobs, key=order)


def run_sections(
    lesson: Lesson,
    jobs: list[Job],
    workers: int,
    report: Callable[[Job, SectionResult | Diagnostic, float], None],
    verbose: bool = False,
    on_progress: OnProgress | None = None,
) -> dict[str, SectionResult | Diagnostic]:
    """Run `jobs` with at most `workers` processes at once; `report` each (in job order) as it
    finishes, `on_progress` for every step of every section while they run.

    On KeyboardInterrupt (or any other exception here) every worker's process group is killed
    before the exception goes on.
    """
    allow_starts()
    spare = SpareCores(workers, len(jobs))

    def one(job: Job) -> tuple[SectionResult | Diagnostic, float]:
        t0 = time.perf_counter()
        spare.starting()
        try:
            outcome = run_section(lesson, job, verbose, on_progress, threads_per_worker(workers))
        finally:
            spare.ended()
        if isinstance(outcome, Diagnostic):
            outcome = other_section_hint(lesson, outcome, job.section)
        return outcome, time.perf_counter() - t0

    results: dict[str, SectionResult | Diagnostic] = {}
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    supervise.SPARE.append(spare.fds)
    try:
        started: dict[int, Future[tuple[SectionResult | Diagnostic, float]]] = {
            id(job): pool.submit(one, job) for job in longest_first(jobs)
        }
        futures = [started[id(job)] for job in jobs]
        for job, future in zip(jobs, futures, strict=True):
            outcome, seconds = future.result()
            report(job, outcome, seconds)
            results[job.section.name] = outcome
    except BaseException:
        stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        supervise.SPARE.remove(spare.fds)
        spare.close()
    pool.shutdown()
    return results


class SpareCores:
    """The cores no section's worker uses, for the calls of `deck.jobs.each` in the workers: a
    pipe with a byte for each (the workers take them without waiting and give them back). At
    first the cores beyond the workers that start; then one more each time a worker ends with
    no section left to start. (A byte a killed worker held is lost: fewer calls at once.)"""

    def __init__(self, workers: int, sections: int):
        self.fds = os.pipe()
        os.set_blocking(self.fds[0], False)
        self.cores = calls.cores()
        self.unstarted = sections
        self.running = 0
        self.lock = threading.Lock()
        self._give(self.cores - min(workers, sections))

    def starting(self) -> None:
        with self.lock:
            self.unstarted -= 1
            self.running += 1

    def ended(self) -> None:
        with self.lock:
            self.running -= 1
            if not self.unstarted and self.running < self.cores:
                self._give(1)

    def _give(self, count: int) -> None:
        with contextlib.suppress(OSError):
            os.write(self.fds[1], b"+" * max(0, count))

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
