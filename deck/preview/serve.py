"""Live preview: serve the built decks on 127.0.0.1 and rebuild when a lesson file changes.

Pages only ever show a good build: a failed rebuild leaves `dist/` as it was (the pipeline
guarantees that) and the errors appear in a banner. Each finished build is pushed to open pages
at once (server-sent events); a page then fetches the new index.html and swaps in only the
slides that changed, staying where it was (static/live.js), or reloads when more changed.
The HTTP side, and what it refuses to serve, is in serve_http.py; which saves call for a
rebuild is in watch.py.
"""

from __future__ import annotations

import hashlib
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deck.errors import DeckError
from deck.preview.server import (
    PAGE,
    STATUS,
    MakeServer,
    PreviewServer,
    ServeError,
    Status,
    hidden,
    open_server,
)
from deck.preview.watch import Changes, Watcher
from deck.source.registry import Source
from deck.theme import SLIDE_VIEWPORT

__all__ = [
    "STATUS",
    "Preview",
    "ServeError",
    "measure_reload_latency",
    "parse_port",
    "running",
    "serve",
]
NOT_WATCHED = {PAGE, "values.json"}  # the page has its own hash; values.json is not shown
NOT_SHOWN = {".pdf", ".ipynb"}  # files beside the page that the page never loads
Log = Callable[[str], None]
Build = Callable[[], object]


def parse_port(text: str | int) -> int:
    try:
        port = int(text)
    except ValueError:
        raise ServeError(f"--port {text!r} is not a number") from None
    if not 0 <= port <= 65535:
        raise ServeError(f"--port {port} is out of range (1-65535, or 0 for any free port)")
    return port


def describe(exc: BaseException) -> list[str]:
    """A failed build as banner lines: the author's diagnostics, or the exception in one line."""
    if isinstance(exc, DeckError):
        return [str(d) for d in exc.diagnostics] or [str(exc) or "build failed"]
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<")]
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return [f"error: {type(exc).__name__}: {exc}{where}"]


class Outputs:
    """Hashes of the served files per lesson: how an open page learns what to update."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.memo: dict[Path, tuple[tuple[int, ...], str]] = {}

    def digest(self, path: Path) -> str | None:
        try:
            st = path.stat()
            stamp = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            memo = self.memo.get(path)
            if memo and memo[0] == stamp:
                return memo[1]
            value = hashlib.blake2b(path.read_bytes(), digest_size=12).hexdigest()
        except OSError:
            return None
        self.memo[path] = (stamp, value)
        return value

    def scan(self) -> dict[str, dict]:
        lessons = {}
        folders = sorted(self.out.iterdir()) if self.out.is_dir() else []
        for folder in folders:
            page = self.digest(folder / PAGE)
            if folder.name.startswith(".") or page is None:
                continue
            files = {}
            for path in sorted(folder.rglob("*")):
                rel = path.relative_to(folder).as_posix()
                if rel in NOT_WATCHED or path.suffix in NOT_SHOWN or hidden(rel):
                    continue
                if rel.startswith("code/"):  # (the notebook's: the page loads none of it)
                    continue
                value = self.digest(path) if path.is_file() else None
                if value is not None:
                    files[rel] = value
            lessons[folder.name] = {"page": page, "files": files}
        return lessons


@dataclass
class Run:
    """One build started by the preview (in its own thread)."""

    start: float
    end: float = float("inf")
    cancelled: bool = False
    thread: threading.Thread = field(default_factory=threading.Thread)


class Preview:
    """A bound preview server and its rebuild loop (`run`); `serve` runs one in the foreground,
    tests and benchmarks in a thread (`running`)."""

    def __init__(
        self,
        build: Build,
        watched: list[Source],
        out: Path,
        port: int,
        log: Log,
        make: MakeServer = PreviewServer,
    ):
        self.build = build
        self.log = log
        self.status = Status()
        self.outputs = Outputs(out)
        self.server = open_server(port, out, self.status, log, make)
        self.watcher = Watcher(watched, log)
        try:
            self.watcher.start()
            self.changes = Changes(watched)
        except BaseException:
            self.watcher.close()
            self.server.server_close()
            raise
        self.current: Run | None = None
        self.thread = threading.Thread(
            target=self.server.serve_forever, name="deck-preview", daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/"

    def run(self, stop: threading.Event) -> None:
        """Build now, then after every relevant change, until `stop` is set. Builds run in a
        thread of their own: a change that arrives while one runs cancels it (its workers are
        killed) and starts the newer build, so a fix never waits for a cell's time limit."""
        self.start_build()
        try:
            while not stop.is_set():
                batches = self.watcher.take(timeout=0.2)
                if not batches:
                    continue
                try:
                    changed = self.changes.rebuild_for(batches, self.interval(), self.log)
                except Exception as exc:  # never let a file event stop the preview
                    self.log(describe(exc)[0])
                    continue
                if changed:
                    names = ", ".join(p.name for p in changed)
                    if self.cancel():
                        self.log(f"changed: {names}: running build cancelled, rebuilding")
                    else:
                        self.log(f"changed: {names}: rebuilding")
                    self.start_build()
        finally:
            self.wait_or_cancel(stop)

    def interval(self) -> tuple[float, float]:
        """When the latest build ran (monotonic start, end; end is +inf while it runs)."""
        current = self.current
        return (current.start, current.end) if current else (0.0, 0.0)

    def start_build(self) -> None:
        current = Run(time.monotonic())
        current.thread = threading.Thread(
            target=self.rebuild, args=(current,), name="deck-build", daemon=True
        )
        self.current = current
        current.thread.start()

    def cancel(self) -> bool:
        """Stop the running build, if any (killing its workers until it has ended)."""
        current = self.current
        if current is None or not current.thread.is_alive():
            return False
        from deck.execute.supervise import stop_all

        current.cancelled = True
        while current.thread.is_alive():
            stop_all()  # again and again: the build may reach its cells only now
            current.thread.join(0.05)
        return True

    def wait_or_cancel(self, stop: threading.Event) -> None:
        """On the way out: a build still running is cancelled (Ctrl-C) or, when `stop` was
        set by the caller, allowed to finish."""
        current = self.current
        if current is not None and current.thread.is_alive():
            if stop.is_set():
                current.thread.join()
            else:
                self.cancel()

    def rebuild(self, current: Run) -> None:
        """One build, whatever it raises; its outcome is shown unless it was cancelled."""
        try:
            self.build()
            errors = []
        except (Exception, SystemExit) as exc:
            errors = describe(exc)
        current.end = time.monotonic()
        if current.cancelled:
            return
        for line in errors:
            self.log(line)
        try:
            lessons = self.outputs.scan()
        except OSError as exc:
            self.log(describe(exc)[0])
            lessons = self.status.lessons
        self.status.record(errors, lessons)

    def close(self) -> None:
        self.status.close()
        self.watcher.close()
        self.server.shutdown()
        self.server.server_close()


def serve(
    build: Build,
    watched: list[Source],
    out: Path,
    port: int,
    log: Log,
    stop: threading.Event | None = None,
    make: MakeServer = PreviewServer,
    started: Callable[[Preview], None] | None = None,
) -> None:
    """Serve `out` on 127.0.0.1:`port` (`make`: the server; `--serve` opens one with live
    cells, `--classroom` the classroom's), build now and after every change, until Ctrl-C or
    `stop`. Raises ServeError, before building anything, when the port cannot be used.
    `started(preview)` says how to reach it."""
    preview = Preview(build, watched, out, port, log, make)
    if started is not None:
        started(preview)
    else:
        names = " ".join(f"{preview.url}{source.name}/" for source in watched)
        log(f"serving {names or preview.url} (Ctrl-C stops)")
    try:
        preview.run(stop or threading.Event())
    except KeyboardInterrupt:
        log("stopped")
    finally:
        preview.close()


@contextmanager
def running(
    build: Build,
    watched: list[Source],
    out: Path,
    log: Log = lambda _: None,
    port: int = 0,
    make: MakeServer = PreviewServer,
) -> Iterator[Preview]:
    """A preview serving and rebuilding in a background thread (for tests and benchmarks)."""
    preview = Preview(build, watched, out, port, log, make)
    stop = threading.Event()
    thread = threading.Thread(target=preview.run, args=(stop,), name="deck-rebuild", daemon=True)
    thread.start()
    try:
        yield preview
    finally:
        stop.set()
        thread.join(timeout=120)
        preview.close()


SHOWN = """text => {
  const slide = window.Reveal && Reveal.isReady() && Reveal.getCurrentSlide();
  return slide && slide.textContent.includes(text) ? performance.timeOrigin + performance.now()
                                                   : false;
}"""


def measure_reload_latency(
    lesson_dir: Path,
    out_url: str,
    edit: Callable[[Path], str],
    *,
    slide: int = 0,
    timeout: float = 30.0,
    browser: object | None = None,
) -> float:
    """Seconds from saving an edit to the open page showing it, measured in real Chromium.

    `out_url` is a lesson's page on a running preview (e.g. `http://127.0.0.1:8000/mini/`);
    the page is opened on slide `slide` (0-based). `edit(lesson_dir)` saves a change to a file
    of the lesson and returns a text that this slide shows once the change is there. The clock
    starts just before `edit` and stops at the first animation frame whose current slide
    contains the text (whether the page patched itself or reloaded). `browser`: a Playwright
    Browser to reuse (a new Chromium is launched otherwise).
    """
    if browser is not None:
        return time_edit(browser, lesson_dir, out_url, edit, slide, timeout)
    from playwright.sync_api import sync_playwright

    from deck.publish.pdf import launch

    with sync_playwright() as playwright:
        own = launch(playwright)
        try:
            return time_edit(own, lesson_dir, out_url, edit, slide, timeout)
        finally:
            own.close()


def time_edit(
    browser: Any,
    lesson_dir: Path,
    out_url: str,
    edit: Callable[[Path], str],
    slide: int,
    timeout: float,
) -> float:
    context = browser.new_context(viewport=SLIDE_VIEWPORT)
    try:
        page = context.new_page()
        page.goto(f"{out_url}#/{slide}")
        page.wait_for_function(
            "window.deckLive && deckLive.ready && window.Reveal && Reveal.isReady()"
        )
        start = page.evaluate("performance.timeOrigin + performance.now()")
        expected = edit(lesson_dir)
        shown = page.wait_for_function(SHOWN, arg=expected, polling="raf", timeout=timeout * 1000)
        return (shown.json_value() - start) / 1000
    finally:
        context.close()
