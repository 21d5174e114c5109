"""Live progress on long work: one updating line per running section (and while printing),
drawn by rich on a terminal, plain lines otherwise (CI logs), nothing under `-q`."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol, TextIO


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`1 cell`, `0 cells`, `2 cells`: a count in the engine's English messages (the pages'
    words, in every language, are deck/static/strings.json's count forms)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


class Progress(Protocol):
    """What a build tells while it works: log lines, and long tasks (a running section, the
    PDFs printing) that start, change and stop. Called from several threads at once."""

    def log(self, message: str) -> None: ...

    def start(self, key: str, label: str, detail: str = "") -> None: ...

    def update(self, key: str, detail: str) -> None: ...

    def stop(self, key: str) -> None: ...

    def step(self, event: Any) -> None:
        """A step of a running section (`deck.execute.run.SectionStep`)."""


class LogOnly:
    """Progress that only passes the log lines on (to a list, a logger, nowhere)."""

    def __init__(self, log: Callable[[str], None] = lambda _: None):
        self.log = log

    def start(self, key: str, label: str, detail: str = "") -> None:
        pass

    def update(self, key: str, detail: str) -> None:
        pass

    def stop(self, key: str) -> None:
        pass

    def step(self, event: Any) -> None:
        pass


class ProgressDisplay:
    """Progress on the terminal: the executor's step events and other long tasks.

    Use as a context manager; `log` prints a message above the live lines.
    """

    def __init__(self, stream: TextIO = sys.stderr, quiet: bool = False, live: bool | None = None):
        self.stream = stream
        self.quiet = quiet
        self.live_mode = stream.isatty() if live is None else live
        self.tasks: dict[str, tuple[str, float, str]] = {}  # key → (label, started, detail)
        self.lock = threading.Lock()
        self._live: Any = None
        self._console: Any = None

    # ---- lifecycle -------------------------------------------------------------------

    def __enter__(self) -> ProgressDisplay:
        if self.live_mode and not self.quiet:
            from rich.console import Console
            from rich.live import Live

            self._console = Console(file=self.stream, highlight=False, soft_wrap=True)
            self._live = Live(
                self, console=self._console, refresh_per_second=8, transient=True
            ).__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
            self._live = None

    def log(self, message: str) -> None:
        if self.quiet:
            return
        if self._console is not None:
            self._console.print(message, markup=False, highlight=False)
        else:
            print(message, file=self.stream, flush=True)

    # ---- what is running ---------------------------------------------------------------

    def start(self, key: str, label: str, detail: str = "") -> None:
        with self.lock:
            self.tasks[key] = (label, time.monotonic(), detail)
        if self._live is None and not self.quiet:
            print(f"  … {label}{'  ' + detail if detail else ''}", file=self.stream, flush=True)

    def update(self, key: str, detail: str) -> None:
        with self.lock:
            if key in self.tasks:
                label, started, _ = self.tasks[key]
                self.tasks[key] = (label, started, detail)

    def stop(self, key: str) -> None:
        with self.lock:
            self.tasks.pop(key, None)

    def step(self, event: Any) -> None:
        """A step of a running section (see `deck.execute.run.SectionStep`)."""
        key = f"section:{event.section}"
        if event.step == "done":
            self.stop(key)
            return
        estimate = f", last time {event.estimate:.1f} s" if event.estimate else ""
        if event.step == "cell":
            detail = f"cell {event.cell}/{event.cells} (line {event.line}){estimate}"
        elif event.step == "inline":
            detail = f"inline values{estimate}"
        elif event.step == "finish":
            detail = "recording what it read"
        else:
            detail = f"starting{estimate}"
        with self.lock:
            known = key in self.tasks
            if not known:
                self.tasks[key] = (event.rel, event.section_started, detail)
            else:
                label, started, _ = self.tasks[key]
                self.tasks[key] = (label, started, detail)
        if self._live is None and not self.quiet and event.step == "cell":
            print(f"  … {event.rel}  {detail}", file=self.stream, flush=True)

    # ---- drawing (rich calls this on every refresh) ------------------------------------

    def __rich__(self) -> Any:
        from rich.text import Text

        now = time.monotonic()
        with self.lock:
            rows = list(self.tasks.values())
        text = Text()
        for n, (label, started, detail) in enumerate(rows):
            if n:
                text.append("\n")
            text.append("  running ", style="bold cyan")
            text.append(f"{label}  ")
            text.append(f"{now - started:5.1f} s", style="yellow")
            if detail:
                text.append(f"  {detail}", style="dim")
        return text
