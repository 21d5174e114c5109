"""The worker's job: what one section's worker process is told to run (its cells, inline
expressions, limits and folders), a typed spec written as JSON by the build and read back by
the worker."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class CellJob:
    code: str
    line: int  # the fence's line in the .md file
    code_line: int  # the .md line of the code's first line (tracebacks point there)
    label: str | None
    timeout: float  # seconds
    error: bool = False  # Quarto's `error: true`: an exception is shown, cells go on
    fig_size: tuple[float | None, float | None] = (None, None)  # `fig-width`, `fig-height`
    inputs: tuple[str, ...] = ()  # `#| inputs:` globs, relative to the lesson folder


@dataclass(frozen=True)
class InlineJob:
    expr: str
    line: int


@dataclass(frozen=True)
class JobSpec:
    path: str  # the section's .md path as messages show it (and the cells' filename)
    md_file: str  # its absolute path
    section: str
    key: str  # the section's cache key
    seed: int
    timeout: float  # seconds per inline expression
    memory_mb: int
    output_limit: int  # characters of printed output kept per cell
    lesson_dir: str  # the cells run here, and import the lesson's modules from here
    figure_dir: str
    threads: int = 1  # math-library threads
    job_dir: str = ""  # the job's own files (not dependencies)
    cells: tuple[CellJob, ...] = ()
    inlines: tuple[InlineJob, ...] = field(default_factory=tuple)
    quarto: bool = False  # a Quarto file's cells: `display()` and pandas tables as Quarto shows

    def with_folders(self, figure_dir: str | None = None, job_dir: str | None = None) -> JobSpec:
        return replace(
            self, figure_dir=figure_dir or self.figure_dir, job_dir=job_dir or self.job_dir
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> JobSpec:
        cells = tuple(
            CellJob(
                **{
                    **c,
                    "fig_size": tuple(c.get("fig_size") or (None, None)),
                    "inputs": tuple(c.get("inputs") or ()),
                }
            )
            for c in data["cells"]
        )
        inlines = tuple(InlineJob(**i) for i in data["inlines"])
        return JobSpec(**{**data, "cells": cells, "inlines": inlines})
