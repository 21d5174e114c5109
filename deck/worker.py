"""Runs one section's cells in a fresh process: `python -m deck.worker job.json result.json`.

The job names the cells (code and the .md line of their first code line), the inline
expressions, the seed and the folder for figures. Cells are compiled with the .md path as
file name and their real line numbers, so tracebacks already point into the .md file.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.abc
import importlib.util
import io
import json
import os
import random
import signal
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

from deck.figures import save_open_figures
from deck.show import inline_text, to_output


class CellTimeout(Exception):
    pass


class _SeedOnImport(importlib.abc.MetaPathFinder):
    """Seeds torch right after its first import, so sections without torch never load it."""

    def __init__(self, seed: int):
        self.seed = seed

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader, seed = spec.loader, self.seed

        class Seeding(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return loader.create_module(spec)

            def exec_module(self, module: Any) -> None:
                loader.exec_module(module)
                module.manual_seed(seed)

        spec.loader = Seeding()
        return spec


def _error(path: str, line: int, code: str, message: str) -> dict[str, Any]:
    return {"line": line, "code": code, "message": message, "path": path}


def _exception_error(exc: BaseException, path: str, fallback: int) -> dict[str, Any]:
    """Map an exception to the deepest line of the .md file in its traceback."""
    frames = traceback.extract_tb(exc.__traceback__)
    md = [f for f in frames if f.filename == path]
    line = md[-1].lineno if md and md[-1].lineno else fallback
    if isinstance(exc, SyntaxError) and exc.filename == path and exc.lineno:
        line = exc.lineno
    where = ""
    if frames and frames[-1].filename != path and "deck/worker.py" not in frames[-1].filename:
        last = frames[-1]
        where = f" (raised in {os.path.basename(last.filename)}:{last.lineno} {last.name})"
    if isinstance(exc, CellTimeout):
        return _error(path, line, "timeout", str(exc))
    if isinstance(exc, AssertionError):
        text = md[-1].line if md and md[-1].line else ""
        detail = f": {exc}" if str(exc) else ""
        return _error(path, line, "assert", f"assertion failed: {text}{detail}{where}")
    return _error(path, line, "exec", f"{type(exc).__name__}: {exc}{where}")


def _compile_cell(code: str, path: str, first_line: int) -> tuple[Any, Any]:
    """(statements, last expression or None), with line numbers of the .md file."""
    try:
        tree = ast.parse(code, filename=path)
    except SyntaxError as exc:
        exc.lineno = (exc.lineno or 1) + first_line - 1
        raise
    ast.increment_lineno(tree, first_line - 1)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
        last = compile(last, path, "eval")
    return compile(tree, path, "exec"), last


def _run_with_timeout(seconds: float, fn: Any) -> Any:
    def expire(signum: int, frame: Any) -> None:
        raise CellTimeout(f"cell still running after {seconds:g} s (set `#| timeout:`)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _set_figure_size(size: list[float | None] | None) -> list[float | None] | None:
    """`fig-width` / `fig-height` for one cell: matplotlib's default figure size set, the
    previous one returned (to set back after the cell)."""
    if not size or not any(size):
        return None
    import matplotlib

    before = [float(x) for x in matplotlib.rcParams["figure.figsize"]]
    wanted = [new or old for new, old in zip(size, before, strict=True)]
    matplotlib.rcParams["figure.figsize"] = wanted
    return before


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    path: str = job["path"]
    seed = int(job["seed"])
    figures = Path(job["figure_dir"])
    figures.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, job["lesson_dir"])
    os.chdir(job["lesson_dir"])
    random.seed(seed)
    if importlib.util.find_spec("numpy"):
        import numpy

        numpy.random.seed(seed)
    sys.meta_path.insert(0, _SeedOnImport(seed))
    # A glyph missing from every font would show as a box on the slide: make it an error.
    warnings.filterwarnings("error", message=r"Glyph .* missing from (current )?font")
    namespace: dict[str, Any] = {"__name__": "__main__"}
    cells_out = []
    started = time.perf_counter()
    for number, cell in enumerate(job["cells"], start=1):
        t0 = time.perf_counter()
        stdout = io.StringIO()
        outputs: list[list[str]] = []
        failure = None  # with `error: true`, an exception is shown and the cells go on
        size = _set_figure_size(cell.get("fig_size"))
        try:
            body, last = _compile_cell(cell["code"], path, cell["code_line"])

            def run(body: Any = body, last: Any = last, stdout: io.StringIO = stdout) -> Any:
                with contextlib.redirect_stdout(stdout):
                    exec(body, namespace)
                    return eval(last, namespace) if last is not None else None

            with warnings.catch_warnings(record=True) as caught:
                value = _run_with_timeout(float(cell["timeout"]), run)
        except BaseException as exc:  # noqa: BLE001 - every failure is the author's to see
            if isinstance(exc, KeyboardInterrupt):
                raise
            error = _exception_error(exc, path, cell["line"])
            if not cell.get("error") or isinstance(exc, CellTimeout):
                return {"error": error}
            value, caught = None, []
            failure = f"{os.path.basename(path)}:{error['line']}: {error['message']}"
        finally:
            _set_figure_size(size)
        if stdout.getvalue():
            outputs.append(["stdout", stdout.getvalue()])
        for w in caught:  # shown when the cell's `warning` option says so (render decides)
            where = f"{os.path.basename(w.filename)}:{w.lineno}"
            outputs.append(["warning", f"{where}: {w.category.__name__}: {w.message}"])
        if failure is not None:
            outputs.append(["error", failure])
        shown = to_output(value)
        if shown is not None:
            outputs.append([shown.kind, shown.data])
        stem = cell.get("label") or f"{job['section']}-{number}"
        saved = save_open_figures(figures, stem)
        cells_out.append(
            {
                "line": cell["line"],
                "seconds": round(time.perf_counter() - t0, 3),
                "outputs": outputs,
                "figures": [[f.file, f.width_in, f.height_in] for f in saved],
            }
        )
    inline: dict[str, str] = {}
    for item in job["inlines"]:
        expr = item["expr"]
        try:
            code = compile(expr.strip(), path, "eval")
            inline[expr] = inline_text(eval(code, namespace))
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, KeyboardInterrupt):
                raise
            detail = f"{type(exc).__name__}: {exc}"
            return {"error": _error(path, item["line"], "inline", f"`{expr}` failed: {detail}")}
    return {
        "key": job["key"],
        "seconds": round(time.perf_counter() - started, 3),
        "cells": cells_out,
        "inline": inline,
    }


def main() -> None:
    job_path, result_path = sys.argv[1], sys.argv[2]
    job = json.loads(Path(job_path).read_text("utf-8"))
    result = run_job(job)
    Path(result_path).write_text(json.dumps(result, ensure_ascii=False), "utf-8")


if __name__ == "__main__":
    main()
