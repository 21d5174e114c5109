"""Sections on a Dask cluster: `--executor dask://HOST:PORT` sends each section that must run
as a task to an existing scheduler's workers (`deck.execute.task`, sent by value), with the
engine's files and the lesson's (each sent once, by digest: the workers share no filesystem
with the build and need no copy of deck, only Python and the lesson's packages).

A task runs the same supervisor and worker as a local build (`deck.execute.shipped`) and answers
with the worker's result, its inputs in portable form and its figures' bytes. Here the answer
becomes what a local run gives: the same `outcome` (a `SectionResult`, or a `Diagnostic` at the
section's line), the figures in the job's folder of this machine's cache, the inputs as this
machine's (`deck.store.portable.to_local`); the build stores and publishes as always.

A worker that dies mid-section: the scheduler runs the task again elsewhere (its
`allowed-failures`); past those, the section fails at its line (`KilledWorker`), and so does
one whose answer does not come within the longest its steps may take.
"""

from __future__ import annotations

import hashlib
import shutil
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

from deck.errors import Diagnostic
from deck.execute.places import Places
from deck.execute.run import Job, OnProgress, Report, SectionStep, job_spec, outcome
from deck.execute.supervise import FINISH_LIMIT, GRACE, STARTUP_LIMIT, Ended, Step
from deck.execute.task import OUTPUTS_LIMIT
from deck.execute.written import note
from deck.model import Lesson, SectionResult
from deck.options import UsageError
from deck.store.files import write_atomic
from deck.store.portable import check, from_json, to_local
from deck.store.sections import staging_name
from deck.theme import ENGINE, FREEZE_FOLDER

CONNECT_SECONDS = 20.0
SKIPPED = {"__pycache__", ".git", ".ipynb_checkpoints", FREEZE_FOLDER}


def bundle(folder: Path, skip: tuple[Path, ...] = (), prefix: str = "") -> dict[str, Any]:
    """Every file under `folder` (not hidden, not in `skip`) by `prefix` + its relative path,
    with a digest of them all."""
    files: dict[str, bytes] = {}
    skipped = {p.resolve() for p in skip}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if any(p in SKIPPED or p.startswith(".") for p in rel.parts) or not path.is_file():
            continue
        if path.resolve() in skipped or any(s in path.resolve().parents for s in skipped):
            continue
        files[prefix + rel.as_posix()] = path.read_bytes()
    h = hashlib.sha256()
    for name, content in files.items():
        h.update(name.encode() + b"\0" + hashlib.sha256(content).digest())
    return {"digest": h.hexdigest()[:32], "files": files}


def longest(spec_cells: list[float], inline: float, inlines: int) -> float:
    """The most seconds a section may take, every step at its limit, plus starting and
    finishing."""
    steps = sum(t + GRACE for t in spec_cells) + inlines * (inline + GRACE)
    return STARTUP_LIMIT + steps + FINISH_LIMIT + 30.0


class ByValue:
    """A function sent by value: the workers (and the scheduler, which reads the task) load it
    with cloudpickle, not by importing its module (they have no deck)."""

    def __init__(self, function: Any):
        self.function = function

    def __call__(self, *args: Any) -> Any:
        return self.function(*args)

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        import cloudpickle

        return cloudpickle.loads, (cloudpickle.dumps(self.function),)


class DaskExecutor:
    """The sections of a build on a Dask cluster (connected when the first job is sent)."""

    fans_out = True

    def __init__(self, address: str, skip: tuple[str, ...] = ()):
        self.address = address
        self.scheduler = "tcp://" + address.removeprefix("dask://")
        self.skip = tuple(Path(p) for p in skip)
        self._client: Any = None
        self._engine: Any = None
        self._lessons: dict[str, Any] = {}
        self._futures: dict[tuple[str, str, str], tuple[Any, float]] = {}

    def client(self) -> Any:
        if self._client is None:
            import cloudpickle
            from distributed import Client

            from deck.execute import task

            cloudpickle.register_pickle_by_value(task)  # (the workers have no deck)
            try:
                self._client = Client(self.scheduler, timeout=CONNECT_SECONDS, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise UsageError(
                    f"--executor {self.address}: no Dask scheduler answered at "
                    f"{self.scheduler} within {CONNECT_SECONDS:g} s ({exc})"
                ) from None
            self._engine = self._send(bundle(ENGINE, prefix="deck/"), "engine")
        return self._client

    def _send(self, files: dict[str, Any], name: str) -> Any:
        """Files as a task's result (not scattered data: should the worker holding them die,
        the scheduler makes them again from the task, which holds them)."""
        from deck.execute.task import same

        key = f"deck-files-{name}-{files['digest'][:8]}-{uuid.uuid4().hex[:8]}"
        return self._client.submit(ByValue(same), files, key=key, pure=False)

    def submit(self, lesson: Lesson, jobs: list[Job]) -> None:
        jobs = [j for j in jobs if (lesson.name, j.section.name, j.key) not in self._futures]
        if not jobs:
            return  # (sent before: a course's lessons are sent together)
        client = self.client()
        files = bundle(lesson.path, self.skip)  # (as it is now: a section may have written)
        if files["digest"] not in self._lessons:
            self._lessons[files["digest"]] = self._send(files, lesson.name)
        lesson_files = self._lessons[files["digest"]]
        from deck.execute.task import run_section

        for job in jobs:
            name = (lesson.name, job.section.name, job.key)
            spec = job_spec(lesson, job).to_json()
            spec["md_file"] = job.section.path.resolve().relative_to(lesson.path.resolve())
            spec["md_file"] = spec["md_file"].as_posix()
            cells = [float(c["timeout"]) for c in spec["cells"]]
            limit = longest(cells, float(spec["timeout"]), len(spec["inlines"]))
            first = job.section.slides[0].loc.line if job.section.slides else 1
            future = client.submit(
                ByValue(run_section),
                self._engine,
                lesson_files,
                spec,
                first,
                limit,
                key=f"deck-{lesson.name}-{job.section.name}-{uuid.uuid4().hex[:8]}",
                pure=False,
            )
            self._futures[name] = (future, limit)

    def run(
        self,
        lesson: Lesson,
        jobs: list[Job],
        report: Report,
        verbose: bool = False,
        on_progress: OnProgress | None = None,
    ) -> dict[str, SectionResult | Diagnostic]:
        """Each job's outcome, reported in job order; bounded by the longest the jobs may
        take one after another."""
        self.submit(lesson, jobs)
        pending = [
            (job, *self._futures.pop((lesson.name, job.section.name, job.key))) for job in jobs
        ]
        deadline = time.monotonic() + sum(limit for _, _, limit in pending) + 60.0
        results: dict[str, SectionResult | Diagnostic] = {}
        tell = on_progress or (lambda step: None)
        sent = time.monotonic()
        for job, _, _ in pending:  # (on the cluster: its steps are not followed from here)
            tell(
                SectionStep(
                    job.section.name, job.section.rel, "start", 0, 0, 0, sent, sent, job.estimate
                )
            )
        for job, future, _ in pending:
            t0 = time.perf_counter()
            found = self._answer(job, future, deadline - time.monotonic())
            result = (
                found
                if isinstance(found, Diagnostic)
                else self._outcome(lesson, job, found, verbose)
            )
            seconds = (
                found.get("seconds", 0.0) if isinstance(found, dict) else time.perf_counter() - t0
            )
            done = time.monotonic()
            ok = not isinstance(result, Diagnostic)
            tell(
                SectionStep(
                    job.section.name, job.section.rel, "done", 0, 0, 0, done, sent, None, ok
                )
            )
            report(job, result, float(seconds))
            results[job.section.name] = result
        return results

    def _answer(self, job: Job, future: Any, timeout: float) -> dict[str, Any] | Diagnostic:
        from distributed import KilledWorker

        first = job.section.slides[0].loc.line if job.section.slides else 1
        loc = Places(job.section).step("start", 0, first)
        try:
            return dict(future.result(timeout=max(1.0, timeout)))
        except KilledWorker as exc:
            message = (
                f"the Dask worker running this section died, and so did each one it was "
                f"given to again ({exc}): see the workers' logs (out of memory?)"
            )
        except TimeoutError:
            message = f"no answer from the Dask cluster at {self.address} in time"
        except Exception as exc:  # noqa: BLE001 - the scheduler lost, a task cancelled…
            message = f"the Dask cluster at {self.address} failed: {type(exc).__name__}: {exc}"
        return Diagnostic(loc, "cluster", message)

    def _outcome(
        self, lesson: Lesson, job: Job, found: dict[str, Any], verbose: bool
    ) -> SectionResult | Diagnostic:
        first = job.section.slides[0].loc.line if job.section.slides else 1
        if "failed" in found:
            loc = Places(job.section).step("start", 0, first)
            return Diagnostic(
                loc,
                "cluster",
                f"the section's task failed on {found.get('host')}: {found['failed']}",
            )
        kind, index, line, limit = found["step"]
        ended = Ended(
            int(found["returncode"]), bool(found["timed_out"]), Step(kind, index, line, limit, 0.0)
        )
        data = outcome(job, ended, found["data"], found.get("tail", ""), verbose)
        if isinstance(data, Diagnostic):
            return data
        staging = job.figure_dir.with_name(staging_name(job.key))
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for name, content in found["figures"].items():
            (staging / name).write_bytes(content)
        shutil.rmtree(job.figure_dir, ignore_errors=True)
        staging.rename(job.figure_dir)
        warnings = self._write_outputs(lesson, job, found)
        inputs = from_json(data.pop("inputs", []))
        data.pop("left_out", None)
        result = SectionResult.from_json({**data, "deps": []}, str(job.figure_dir))
        seen: dict[str, str] = {}
        known = [d for d in inputs if d[0] != "unknown"]  # (said by the plan)
        differs = next((w for d in known if (w := check(d, lesson.path, seen))), "")
        warnings = (*result.warnings, *warnings)
        if differs:  # the worker's packages or files are not this machine's
            warnings += (
                f"{job.section.rel}: warning: ran on Dask worker {found.get('host')}, whose "
                f"inputs differ from this machine's ({differs}): the next build runs it again",
            )
        return replace(result, deps=to_local(inputs, lesson.path), warnings=warnings)

    @staticmethod
    def _write_outputs(lesson: Lesson, job: Job, found: dict[str, Any]) -> tuple[str, ...]:
        """Write the files the section wrote in its lesson folder into this one, as a local
        run does (a section reading one runs again after it); warnings for those left on the
        worker (too large to send back)."""
        folder = lesson.path.resolve()
        for name, content in found.get("outputs", {}).items():
            path = (folder / name).resolve()
            if folder in path.parents:
                note(str(path))  # (written by a cell: the preview ignores it)
                write_atomic(path, content)
        return tuple(
            f"{job.section.rel}: warning: {name}, which this section wrote, stayed on Dask "
            f"worker {found.get('host')} (more than {OUTPUTS_LIMIT >> 20} MB written)"
            for name in found.get("outputs_left", [])
        )

    def close(self) -> None:
        if self._client is None:
            return
        for future, _ in self._futures.values():
            future.cancel()
        self._futures.clear()
        try:
            self._client.close(timeout=10)
        except Exception:  # noqa: BLE001, S110 - closing a connection already lost
            pass
