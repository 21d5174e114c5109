"""Runs one section's cells in a fresh process: `python -m deck.worker JOB RESULT EVENTS_FD`.

The job names the cells (code and the .md line of their first code line), the inline
expressions, the seed, the limits and the folder for figures. Cells are compiled with the .md
path as file name and their real line numbers, so tracebacks already point into the .md file.

The parent (`deck.execute.run`) started this process in its own process group with stdin from
/dev/null. Before each cell and inline expression the worker sends a progress event on the
EVENTS_FD socket, so the parent knows what is running: it enforces the time limit itself and
reports crashes at that line. When the parent goes away (the socket reaches end of file) the
worker kills its whole process group, its children included.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import random
import resource
import signal
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deck import jobs
from deck.execute import display
from deck.execute.capture import CappedText, truncated, without_addresses
from deck.execute.deps import Recorder
from deck.execute.ending import Leftovers, become_subreaper, kill_descendants, leave
from deck.execute.figures import save_figures
from deck.execute.frames import lesson_frames
from deck.execute.hints import near_name
from deck.execute.job import CellJob, JobSpec
from deck.execute.observe import distrust_reset_mtimes, watch
from deck.execute.raised import raised_in
from deck.execute.seeding import SeedOnImport
from deck.host import kernels
from deck.model import CellResult, Output, SectionResult
from deck.show import inline_text, to_output
from deck.theme import ENGINE

LINE = [0]  # the line of the cell (or inline expression) running now


class CellTimeout(Exception):
    pass


class StepError(Exception):
    """A problem with a cell's result (not its code): reported at the cell's line."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class Channel:
    """Progress events to the parent, one JSON line each; watches for the parent going away."""

    def __init__(self, fd: int):
        self.fd = fd
        threading.Thread(target=self._watch, daemon=True).start()

    def send(self, **event: Any) -> None:
        try:
            os.write(self.fd, (json.dumps(event) + "\n").encode())
        except OSError:
            _kill_my_group()

    def _watch(self) -> None:
        try:
            while os.read(self.fd, 4096):
                pass
        except OSError:
            pass
        _kill_my_group()  # the parent is gone: nothing of this section may outlive it


def _kill_my_group() -> None:
    kill_descendants(os.getpid(), 0.5)  # those that left the group too (see deck.execute.ending)
    os.killpg(os.getpgrp(), signal.SIGKILL)


def _valid_text(text: str, what: str) -> str:
    """`text` (without memory addresses) if it can be written as UTF-8; else a StepError
    naming the bad character."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise StepError(
            "exec",
            f"{what} is not valid Unicode: {bad!r} at character {exc.start + 1} "
            "(a lone surrogate, e.g. from decoding bytes with errors='surrogateescape')",
        ) from None
    return without_addresses(text)


def _error(path: str, line: int, code: str, message: str) -> dict[str, Any]:
    # an exception's text may hold lone surrogates: show them escaped rather than crash
    message = message.encode("utf-8", "backslashreplace").decode("utf-8")
    return {"line": line, "code": code, "message": message, "path": path}


def _describe(exc: BaseException) -> str:
    try:
        detail = str(exc)
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails still has a type
        detail = "(its message could not be shown)"
    return f"{type(exc).__name__}: {detail}"


def _memory_hint(job: JobSpec) -> str:
    return (
        f"out of memory: this worker may use at most exec.memory = {job.memory_mb:,} MB "
        "(raise `memory:` under `exec:` in lesson.yml if the cell really needs more)"
    )


def _is_out_of_memory(exc: BaseException) -> bool:
    return isinstance(exc, MemoryError) or "can't allocate memory" in _describe(exc)


def _exception_error(
    exc: BaseException, path: str, fallback: int, job: JobSpec, names: list[str] | None = None
) -> dict[str, Any]:
    """The error at its .md line, with its whole traceback in the lesson's terms (`-v`)."""
    frames = lesson_frames(exc, path, job.md_file, job.lesson_dir)
    return {**_located_error(exc, path, fallback, job, names), "traceback": frames}


def _located_error(
    exc: BaseException, path: str, fallback: int, job: JobSpec, names: list[str] | None = None
) -> dict[str, Any]:
    """Map an exception to the deepest line of the .md file in its traceback."""
    if isinstance(exc, StepError):
        return _error(path, fallback, exc.code, str(exc))
    frames = traceback.extract_tb(exc.__traceback__)
    md = [f for f in frames if f.filename == path]
    line = md[-1].lineno if md and md[-1].lineno else fallback
    if isinstance(exc, SyntaxError) and exc.filename == path and exc.lineno:
        line = exc.lineno
    where = raised_in(frames, path, job.md_file, job.lesson_dir)
    if isinstance(exc, CellTimeout):
        return _error(path, line, "timeout", str(exc))
    if _is_out_of_memory(exc):
        return _error(path, line, "memory", f"{type(exc).__name__}: {_memory_hint(job)}")
    if isinstance(exc, AssertionError):
        text = md[-1].line if md and md[-1].line else ""
        message = _describe(exc).partition(": ")[2]
        detail = f": {message}" if message else ""
        return _error(path, line, "assert", f"assertion failed: {text}{detail}{where}")
    if isinstance(exc, NameError) and exc.name and names is not None:
        near = near_name(exc.name, names)
        where += f" (did you mean `{near}`?)" if near else ""
    if isinstance(exc, ImportError) and exc.name:  # a package the interpreter lacks
        where += (
            f" (cells run with {sys.executable}: install `{exc.name.split('.')[0]}` there, "
            "or choose the interpreter with QUARTO_PYTHON)"
        )
    return _error(path, line, "exec", f"{_describe(exc)}{where}")


def _compile_cell(code: str, path: str, first_line: int) -> tuple[Any, Any]:
    """(statements, last expression or None), with line numbers of the .md file."""
    try:
        tree = ast.parse(code, filename=path)
    except SyntaxError as exc:
        exc.lineno = (exc.lineno or 1) + first_line - 1
        raise
    ast.increment_lineno(tree, first_line - 1)
    last = None
    if tree.body and isinstance(expr := tree.body[-1], ast.Expr):
        tree.body.pop()
        last = compile(ast.Expression(expr.value), path, "eval")
    return compile(tree, path, "exec"), last


def _run_with_timeout(seconds: float, what: str, fn: Any) -> Any:
    def expire(signum: int, frame: Any) -> None:
        raise CellTimeout(f"{what} still running after {seconds:g} s (set `#| timeout:`)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _shown(value: Any, limit: int, quarto: bool = False) -> Output | None:
    """The cell's last value as an output, within the output limit (a Quarto file shows it
    as Quarto does: `deck.execute.display.last_value`)."""
    shown = display.last_value(value) if quarto else to_output(value)
    return None if shown is None else _within(shown, limit)


def _within(shown: Output, limit: int) -> Output:
    data = _valid_text(shown.data, "the cell's value")
    if len(data) > limit:
        if shown.kind == "html":
            raise StepError(
                "output",
                f"the cell's value is {len(data):,} characters of HTML, more than "
                f"exec.output = {limit:,}: show a smaller part of it",
            )
        data = truncated(data, len(data), limit)
    return Output(shown.kind, data)


def _limit_memory(megabytes: int) -> None:
    limit = megabytes * 2**20
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _prepare(job: JobSpec, engine_set: set[str]) -> Recorder:
    seed = job.seed
    Path(job.figure_dir).mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, job.lesson_dir)
    os.chdir(job.lesson_dir)
    random.seed(seed)
    sys.meta_path.insert(0, SeedOnImport(seed))
    # A glyph missing from every font would show as a box on the slide: make it an error.
    warnings.filterwarnings("error", message=r"Glyph .* missing from (current )?font")
    # Not dependencies: the section's own .md (tracebacks and warnings read its lines; its
    # code is in the key), the figures it writes and the job's own files.
    ignore = [job.md_file, job.figure_dir, job.job_dir]
    declared = {cell.line: cell.inputs for cell in job.cells if cell.inputs}
    recorder = Recorder(job.lesson_dir, str(ENGINE), ignore, job.path, declared)
    sys.addaudithook(recorder.hook)
    watch(recorder, engine_set)
    jobs.CARRY.append((recorder.state, recorder.merge))  # (what `deck.jobs.each`'s calls read)
    distrust_reset_mtimes()
    _limit_memory(job.memory_mb)
    return recorder


def _set_figure_size(size: Sequence[float | None] | None) -> list[float] | None:
    """`fig-width` / `fig-height` for one cell: matplotlib's default figure size set, the
    previous one returned (to set back after the cell)."""
    if not size or not any(size):
        return None
    import matplotlib

    before = [float(x) for x in matplotlib.rcParams["figure.figsize"]]
    wanted = [new or old for new, old in zip(size, before, strict=True)]
    matplotlib.rcParams["figure.figsize"] = wanted
    return before


def run_job(job: JobSpec, channel: Channel, engine_set: set[str]) -> dict[str, Any]:
    path = job.path
    limit = job.output_limit
    figures = Path(job.figure_dir)
    recorder = _prepare(job, engine_set)
    recorder.on_write = lambda written: channel.send(step="wrote", path=written)
    namespace: dict[str, Any] = {"__name__": "__main__"}
    if job.quarto:
        display.install(namespace, figures)
    cells_out = []
    started = time.perf_counter()
    for number, cell in enumerate(job.cells, start=1):
        channel.send(step="cell", index=number, line=cell.line, timeout=cell.timeout)
        LINE[0] = recorder.line = cell.line
        t0 = time.perf_counter()
        stdout = CappedText(limit)
        stem = cell.label or f"{job.section}-{number}"

        def run(cell: CellJob = cell, stdout: CappedText = stdout, stem: str = stem) -> Any:
            failure = None  # with Quarto's `error: true`, an exception is shown, cells go on
            size = _set_figure_size(cell.fig_size)
            try:
                with warnings.catch_warnings(record=True) as caught:
                    try:
                        body, last = _compile_cell(cell.code, path, cell.code_line)
                        with contextlib.redirect_stdout(stdout):
                            exec(body, namespace)
                            value = eval(last, namespace) if last is not None else None
                    except Exception as exc:
                        if not cell.error or isinstance(exc, CellTimeout):
                            raise
                        error = _exception_error(exc, path, cell.line, job, list(namespace))
                        value = None
                        failure = f"{os.path.basename(path)}:{error['line']}: {error['message']}"
            finally:
                _set_figure_size(size)
            outputs = []
            if stdout.total:
                outputs.append(Output("stdout", _valid_text(stdout.getvalue(), "printed text")))
            outputs += [_within(o, limit) for o in display.SHOWN]  # `display(…)` in a .qmd
            display.SHOWN.clear()
            for w in caught:  # shown when the cell's `warning` option says so (render decides)
                where = f"{os.path.basename(w.filename)}:{w.lineno}"
                text = _valid_text(f"{where}: {w.category.__name__}: {w.message}", "a warning")
                outputs.append(Output("warning", text))
            if failure is not None:
                outputs.append(Output("error", _valid_text(failure, "an error message")))
            shown = _shown(value, limit, job.quarto)  # (a picture: before matplotlib's)
            if shown is not None:
                outputs.append(shown)
            return outputs, save_figures(figures, stem, display.take_images())

        try:
            outputs, saved = _run_with_timeout(cell.timeout, "cell", run)
        except BaseException as exc:  # noqa: BLE001 - every failure is the author's to see
            if isinstance(exc, KeyboardInterrupt):
                raise
            return {"error": _exception_error(exc, path, cell.line, job, list(namespace))}
        cells_out.append(
            CellResult(
                line=cell.line,
                seconds=round(time.perf_counter() - t0, 3),
                outputs=tuple(outputs),
                figures=tuple(saved),
            )
        )
    inline: dict[str, str] = {}
    for number, item in enumerate(job.inlines, start=1):
        expr = item.expr
        channel.send(step="inline", index=number, line=item.line, timeout=job.timeout)
        LINE[0] = recorder.line = item.line

        def evaluate(expr: str = expr) -> str:
            code = compile(expr.strip(), path, "eval")
            text = inline_text(eval(code, namespace))
            text = _valid_text(text, f"the value of `{expr}`")
            return truncated(text, len(text), limit)

        try:
            inline[expr] = _run_with_timeout(job.timeout, "inline expression", evaluate)
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, KeyboardInterrupt):
                raise
            if _is_out_of_memory(exc):
                detail = _memory_hint(job)
            elif isinstance(exc, CellTimeout | StepError):
                detail = str(exc)
            else:
                detail = _describe(exc)
            code = "timeout" if isinstance(exc, CellTimeout) else "inline"
            from deck.blocks.widgetembed import shown_expression  # (only on failure)

            shown = shown_expression(expr)  # a widget's data= as written, not its wrapper
            message = f"{shown} failed: {detail.replace(f'`{expr}`', shown)}"
            return {"error": _error(path, item.line, code, message)}
    channel.send(step="finish")
    result = SectionResult(
        key=job.key,
        cells=tuple(cells_out),
        inline=inline,
        seconds=round(time.perf_counter() - started, 3),
        deps=recorder.dependencies(),
        kernels=kernels(),  # (after the dependencies: what the engine reads is no input)
    )
    return result.to_json()


# The thread pools of the math libraries a cell may import (deck.execute.threads_per_worker).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def main() -> None:
    job_path, result_path, events_fd = sys.argv[1], sys.argv[2], int(sys.argv[3])
    job = JobSpec.from_json(json.loads(Path(job_path).read_text("utf-8")))
    engine_set: set[str] = set()
    if not any(name in os.environ for name in THREAD_VARIABLES):  # else the user's choice
        for name in THREAD_VARIABLES:  # read when torch or numpy is imported, in the cells
            os.environ[name] = str(job.threads)
        engine_set.update(THREAD_VARIABLES)
    become_subreaper()
    channel = Channel(events_fd)
    leftovers = Leftovers(job.path, lambda: LINE[0])
    result = run_job(job, channel, engine_set)
    warnings = leftovers.finish()
    if warnings and "error" not in result:
        result["warnings"] = warnings
    text = json.dumps(result, ensure_ascii=False)
    Path(result_path).write_text(text, "utf-8")
    leave(0)


if __name__ == "__main__":
    main()
