"""Where sections run, chosen by `--executor`: this machine's worker processes (`LocalPool`,
`--jobs` at once), or the workers of a Dask cluster (`dask://HOST:PORT`,
`deck.execute.cluster`). Either runs the same worker with the same per-cell limits and
dependency recording and answers each job with a `SectionResult` (its figures in the job's
folder of this machine's cache) or a `Diagnostic` at the section's line; the store and the
publish steps stay in the build's process.

`submit` starts jobs early (a course's lessons fan out over the cluster together before the
first lesson renders); `run` returns their outcomes, starting those not submitted yet. Nothing
here imports Dask: a build that runs no section never does."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from deck.options import UsageError

if TYPE_CHECKING:
    from deck.errors import Diagnostic
    from deck.execute.run import Job, OnProgress, Report
    from deck.model import Lesson, SectionResult

DASK = re.compile(r"^dask://(\[[0-9a-fA-F:.]+\]|[\w.-]+):(\d{1,5})$")


def executor_address(text: str) -> str:
    """`--executor`'s value as `Options.executor`: "" for `local`, else `dask://HOST:PORT`
    as given; raises UsageError for anything else."""
    if text in ("", "local"):
        return ""
    if not DASK.match(text):
        raise UsageError(
            f"--executor {text!r}: give `local` or `dask://HOST:PORT` (a Dask scheduler, e.g. "
            "dask://127.0.0.1:8786)"
        )
    return text


class Executor(Protocol):
    fans_out: bool  # whether a course's lessons should submit their sections together

    def submit(self, lesson: Lesson, jobs: list[Job]) -> None: ...

    def run(
        self,
        lesson: Lesson,
        jobs: list[Job],
        report: Report,
        verbose: bool = False,
        on_progress: OnProgress | None = None,
    ) -> dict[str, SectionResult | Diagnostic]: ...

    def close(self) -> None: ...


class LocalPool:
    """This machine's worker processes, at most `workers` at once (`deck.execute.run`)."""

    fans_out = False

    def __init__(self, workers: int):
        self.workers = workers

    def submit(self, lesson: Lesson, jobs: list[Job]) -> None:
        pass  # (run starts them)

    def run(
        self,
        lesson: Lesson,
        jobs: list[Job],
        report: Report,
        verbose: bool = False,
        on_progress: OnProgress | None = None,
    ) -> dict[str, SectionResult | Diagnostic]:
        from deck.execute.run import run_sections

        return run_sections(lesson, jobs, self.workers, report, verbose, on_progress)

    def close(self) -> None:
        pass


def open_executor(address: str, jobs: int, cache_places: tuple[str, ...] = ()) -> Executor:
    """The executor `Options.executor` names (connecting to a cluster only when a job is
    submitted); `cache_places`: the build's output folders, never shipped to a cluster."""
    if not address:
        return LocalPool(jobs)
    from deck.execute.cluster import DaskExecutor  # (light: Dask is imported on first use)

    return DaskExecutor(address, cache_places)
