"""Executes the sections whose cache key missed, one worker process each, in parallel."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deck.errors import Diagnostic
from deck.model import Lesson, Loc, Section, SectionResult

STATIC = Path(__file__).parent / "static"


@dataclass(frozen=True)
class Job:
    section: Section
    key: str
    figure_dir: Path


def job_spec(lesson: Lesson, job: Job) -> dict[str, Any]:
    settings = lesson.config.exec
    default_timeout = settings.timeout
    seen: set[str] = set()
    inlines = []
    for e in job.section.inlines:
        if e.expr not in seen:
            seen.add(e.expr)
            inlines.append({"expr": e.expr, "line": e.loc.line})
    return {
        "path": job.section.rel,
        "section": job.section.name,
        "key": job.key,
        "seed": settings.seed,
        "lesson_dir": str(lesson.path.resolve()),
        "figure_dir": str(job.figure_dir.resolve()),
        "cells": [
            {
                "code": cell.code,
                "line": cell.loc.line,
                "code_line": cell.code_line,
                "label": cell.label,
                "timeout": float(cell.options.get("timeout", default_timeout)),
                # Quarto's `error: true` and `fig-width` / `fig-height` (deck.worker)
                "error": bool(cell.options.get("error", False)),
                "fig_size": [cell.options.get("fig-width"), cell.options.get("fig-height")],
            }
            for cell in job.section.cells()
        ],
        "inlines": inlines,
    }


def run_section(lesson: Lesson, job: Job, verbose: bool = False) -> SectionResult | Diagnostic:
    """Run one section in a fresh worker process; figures land in `job.figure_dir`."""
    spec = job_spec(lesson, job)
    total_timeout = sum(c["timeout"] for c in spec["cells"]) + 120
    staging = job.figure_dir.with_name(f".{job.figure_dir.name}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    spec["figure_dir"] = str(staging.resolve())
    env = dict(os.environ, MPLBACKEND="Agg", MATPLOTLIBRC=str(STATIC / "matplotlibrc"))
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parent.parent), env.get("PYTHONPATH", "")]
    ).rstrip(os.pathsep)
    with tempfile.TemporaryDirectory(prefix="deck-job-") as tmp:
        job_file, result_file = Path(tmp) / "job.json", Path(tmp) / "result.json"
        job_file.write_text(json.dumps(spec, ensure_ascii=False), "utf-8")
        cmd = [sys.executable, "-m", "deck.worker", str(job_file), str(result_file)]
        try:
            proc = subprocess.run(
                cmd, env=env, capture_output=True, text=True, timeout=total_timeout
            )
        except subprocess.TimeoutExpired:
            return Diagnostic(job.section.slides[0].loc, "timeout", "section timed out")
        if verbose and proc.stderr.strip():
            sys.stderr.write(proc.stderr)
        if proc.returncode != 0 or not result_file.exists():
            tail = proc.stderr.strip().splitlines()[-1:] or [f"exit code {proc.returncode}"]
            loc = Loc(job.section.rel, 1)
            return Diagnostic(loc, "exec", f"worker crashed: {tail[0]}")
        data = json.loads(result_file.read_text("utf-8"))
    if "error" in data:
        shutil.rmtree(staging, ignore_errors=True)
        err = data["error"]
        return Diagnostic(Loc(err["path"], err["line"]), err["code"], err["message"])
    shutil.rmtree(job.figure_dir, ignore_errors=True)
    staging.rename(job.figure_dir)
    return SectionResult.from_json(data, str(job.figure_dir))


def run_sections(
    lesson: Lesson,
    jobs: list[Job],
    workers: int,
    report: Callable[[Job, SectionResult | Diagnostic, float], None],
    verbose: bool = False,
) -> dict[str, SectionResult | Diagnostic]:
    """Run `jobs` with at most `workers` processes at once; report each as it finishes."""

    def one(job: Job) -> tuple[Job, SectionResult | Diagnostic, float]:
        t0 = time.perf_counter()
        outcome = run_section(lesson, job, verbose)
        return job, outcome, time.perf_counter() - t0

    results: dict[str, SectionResult | Diagnostic] = {}
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for job, outcome, seconds in pool.map(one, jobs):
            report(job, outcome, seconds)
            results[job.section.name] = outcome
    return results
