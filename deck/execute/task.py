"""What a Dask worker runs for one section (`deck.execute.cluster` sends it by value: this module
imports only the standard library, and the worker needs no copy of deck, nor the lesson's
files, nor any filesystem shared with the build). The files a section writes in its copy of the
lesson go back with its answer, as a local run leaves them in the lesson's folder.

The task writes the engine and the lesson it was sent (each once per worker, by digest) into the
worker's own folder, copies the lesson for this section (a cell may write beside it), and runs
`python -m deck.execute.shipped` with that engine: the same supervisor and section worker as a
local build, with the same limits and recording. It answers with what the supervisor found and
the figure files' bytes. When the Dask worker dies, the supervisor sees its input close and
stops the section's processes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

Bundle = dict[str, Any]  # {"digest": str, "files": {relative path: bytes}}


def same(bundle: Bundle) -> Bundle:
    """The files sent, as a task's result the other tasks take."""
    return bundle


def materialize(folder: Path, bundle: Bundle, compiled: bool = False) -> Path:
    """`folder` holding the bundle's files, written once (a finished copy is kept);
    `compiled`: with the bytecode of what a section's processes import (the engine: an
    environment may say not to write bytecode, PYTHONDONTWRITEBYTECODE, and every section
    would compile it again)."""
    done = folder / ".complete"
    if done.is_file():
        return folder
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=folder.parent))
    try:
        for rel, content in bundle["files"].items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        if compiled:  # what a section's processes import: deck/, its execute, model, store
            import compileall

            compileall.compile_dir(staging / "deck", maxlevels=0, quiet=2)
            for part in ("execute", "model", "store"):
                compileall.compile_dir(staging / "deck" / part, maxlevels=0, quiet=2)
        (staging / ".complete").write_text(bundle["digest"], "utf-8")
        try:
            staging.rename(folder)
        except OSError:  # another task of this worker made it meanwhile
            if not done.is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder


OUTPUTS_LIMIT = 64 * 2**20  # bytes of files a section wrote that go back to the build


def _written(lesson_dir: Path, data: Any) -> tuple[dict[str, bytes], list[str]]:
    """The files the section wrote in its lesson folder (as a local run leaves them in the
    lesson's), up to OUTPUTS_LIMIT bytes in all; and the names of those left here."""
    outputs: dict[str, bytes] = {}
    left: list[str] = []
    total = 0
    inputs = data.get("inputs", []) if isinstance(data, dict) else []
    for kind, name, _ in inputs:
        path = lesson_dir / name
        if kind != "output" or name.startswith("..") or not path.is_file():
            continue
        size = path.stat().st_size
        if total + size > OUTPUTS_LIMIT:
            left.append(name)
            continue
        outputs[name] = path.read_bytes()
        total += size
    return outputs, left


def _place() -> tuple[Path, int]:
    """The Dask worker's own folder and how many tasks it runs at once."""
    try:
        from distributed import get_worker

        worker = get_worker()
        return Path(worker.local_directory), int(worker.state.nthreads)
    except (ImportError, ValueError, AttributeError):
        return Path(tempfile.gettempdir()), 1


def run_section(
    engine: Bundle, lesson: Bundle, spec: dict[str, Any], first_line: int, limit: float
) -> dict[str, Any]:
    """Run one section's job here; `spec` is its `JobSpec` as JSON with the section file's
    path relative to the lesson folder in `md_file`; `limit`: seconds the whole run may take
    (the supervisor enforces each step's own)."""
    started = time.monotonic()
    base, slots = _place()
    root = base / "deck-sections"
    for sub in ("engine", "lessons", "tasks"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    engine_dir = materialize(root / "engine" / engine["digest"], engine, compiled=True)
    source = materialize(root / "lessons" / lesson["digest"], lesson)
    tmp = Path(tempfile.mkdtemp(prefix="task-", dir=root / "tasks"))
    try:
        lesson_dir, job_dir = tmp / "lesson", tmp / "job"
        shutil.copytree(source, lesson_dir, ignore=shutil.ignore_patterns(".complete"))
        job_dir.mkdir()
        job = {
            **spec,
            "lesson_dir": str(lesson_dir),
            "md_file": str(lesson_dir / spec["md_file"]),
            "figure_dir": str(tmp / "figures"),
            "job_dir": str(job_dir),
            "threads": max(1, (os.cpu_count() or 1) // max(1, slots)),
        }
        (job_dir / "job.json").write_text(json.dumps(job, ensure_ascii=False), "utf-8")
        env = dict(os.environ, PYTHONPATH=str(engine_dir))
        command = [sys.executable, "-m", "deck.execute.shipped", str(job_dir), str(first_line)]
        with open(job_dir / "shipped.log", "wb") as log:
            proc = subprocess.Popen(
                command, cwd=tmp, env=env, stdin=subprocess.PIPE, stdout=log, stderr=log
            )
            try:
                proc.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        try:
            answer = json.loads((job_dir / "answer.json").read_text("utf-8"))
        except (OSError, ValueError):
            text = (job_dir / "shipped.log").read_text("utf-8", "replace").strip()
            answer = {"failed": f"exit {proc.returncode}: {text[-2000:]}"}
        figures = {}
        data = answer.get("data")
        for cell in (data or {}).get("cells", []) if isinstance(data, dict) else []:
            for figure in cell.get("figures", []):
                for name in (figure[0], figure[3] if len(figure) > 3 else ""):
                    if name and (tmp / "figures" / name).is_file():
                        figures[name] = (tmp / "figures" / name).read_bytes()
        outputs, left = _written(lesson_dir, data)
        import platform

        answer.update(
            outputs=outputs,
            outputs_left=left,
            figures=figures,
            host=platform.node(),
            python=platform.python_version(),
            seconds=round(time.monotonic() - started, 3),
        )
        return answer
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
