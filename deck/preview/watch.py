"""Which saved files call for a rebuild: OS file events (watchfiles), filtered so a build never
triggers itself.

A file a cell wrote (the workers report each one as it is opened: `deck.execute.written`)
never triggers a rebuild. Source files (`lesson.yml`, `_metadata.yml`, `*.md`, `*.qmd`, `*.py`)
trigger a rebuild whenever their content changes, even while a build runs (a newer save
cancels that build). Any other file in a lesson folder (a data file a cell reads) triggers a
rebuild when it changes between builds; a change made while a build was running is taken to
be the build's own (a cell's child process writing a file) and ignored, so such a lesson
cannot loop.

A `.qmd` root is watched through its folder, which may hold anything (its own dist/ too): only
its inputs count, as the build's no-change check counts them (`Source.is_input`); the files
its parent Quarto project names from outside that folder are watched through their own
folders, one level deep.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import watchfiles

from deck.execute.written import was_written
from deck.source.registry import Source

SOURCE_NAMES = frozenset({"lesson.yml", "_metadata.yml"})
SOURCE_SUFFIXES = frozenset({".md", ".qmd", ".py"})
# Events reach us a watchfiles step (20 ms) or two after the write: a data file written at the
# very end of a build still counts as written by it for this long afterwards.
GRACE = 0.3
Signature = tuple[str, int, int] | None


def is_source(path: Path) -> bool:
    return path.name in SOURCE_NAMES or path.suffix in SOURCE_SUFFIXES


def signature(path: Path) -> Signature:
    """Content hash for sources (rewriting the same text is no change), size + mtime otherwise."""
    try:
        if not path.is_file():
            return None
        if is_source(path):
            return (hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest(), 0, 0)
        stat = path.stat()
        return ("", stat.st_size, stat.st_mtime_ns)
    except OSError:  # deleted or replaced between the event and now
        return None


def ignored(path: Path, sources: Iterable[Source]) -> bool:
    """Hidden files and folders, caches, editor droppings, and anything that is not an input of
    a watched source (for a `.qmd`: anything in its folder that it does not read)."""
    return not any(source.is_input(path) for source in sources)


def absolute(sources: Iterable[Source]) -> list[Source]:
    return [dataclasses.replace(s, path=s.path.absolute()) for s in sources]  # type: ignore[type-var]


def walk(sources: list[Source]) -> Iterator[Path]:
    """Every file in the sources' folders, and the project files they read from outside them;
    files and folders that vanish meanwhile are skipped."""
    for root in dict.fromkeys(s.folder for s in sources):
        if root.is_file():
            yield root
        for folder, _dirs, files in os.walk(root):  # os.walk ignores errors (unlike rglob)
            for name in files:
                yield Path(folder, name)
    yield from outside_files(sources)


def outside_files(sources: list[Source]) -> list[Path]:
    """What a `.qmd` reads from outside its folder: its parent project's `_quarto.yml` and the
    files that names (a root `refs.bib`, `style.css`; `Source.is_input` counts them)."""
    from deck.source.projectfind import find_project
    from deck.source.registry import project_files

    found: list[Path] = []
    for source in sources:
        project = find_project(source.path) if source.path.is_file() else None
        if project is not None:
            for path in (Path(os.path.abspath(project)), *project_files(project)):
                if source.folder.absolute() not in path.parents:
                    found.append(path)
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class Batch:
    received: float  # time.monotonic() when watchfiles reported it
    paths: frozenset[Path]


class Changes:
    """The last seen signature of every file under the watched roots; decides what is new."""

    def __init__(self, sources: list[Source]) -> None:
        self.roots = absolute(sources)
        self.known: dict[Path, Signature] = {}
        self.noted: set[Path] = set()
        for path in walk(self.roots):
            if not ignored(path, self.roots):
                sig = signature(path)
                if sig is not None:
                    self.known[path] = sig

    def rebuild_for(
        self, batches: list[Batch], building: tuple[float, float], log: Callable[[str], None]
    ) -> list[Path]:
        """The changed files that call for a rebuild; `building` is the last build's interval."""
        start, end = building
        wanted = []
        for batch in batches:
            during_build = start <= batch.received <= end + GRACE
            for path in sorted(batch.paths):
                if ignored(path, self.roots) or was_written(str(path)):
                    continue
                sig = signature(path)
                if sig == self.known.get(path):
                    continue  # the same content again, or created and deleted again
                if sig is None:
                    del self.known[path]
                else:
                    self.known[path] = sig
                if during_build and not is_source(path):
                    if path not in self.noted:
                        self.noted.add(path)
                        log(f"note: {path} changed during a build (written by a cell?): ignored")
                    continue
                wanted.append(path)
        return wanted


class Watcher:
    """A thread that reports batches of changed paths under `roots` from OS file events."""

    def __init__(self, sources: list[Source], log: Callable[[str], None]) -> None:
        self.roots = absolute(sources)
        self.log = log
        self.batches: queue.Queue[Batch] = queue.Queue()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, name="deck-watch", daemon=True)

        # the folders of the project files read from outside the sources' folders, watched
        # one level deep (a project's root may hold a whole website)
        self.outside = sorted({p.parent for p in outside_files(self.roots)})
        self.beside = threading.Thread(target=self.run, args=(False,), daemon=True)

    def start(self) -> None:
        self.thread.start()
        if self.outside:
            self.beside.start()

    def close(self) -> None:
        self.stop.set()
        for thread in (self.thread, self.beside):
            if thread.is_alive():
                thread.join(timeout=5)

    def run(self, inside: bool = True) -> None:
        failed = False
        while not self.stop.is_set():
            roots = [r for r in self.roots if r.path.exists()]
            places = dict.fromkeys(r.folder for r in roots) if inside else self.outside
            if not roots or not places:
                self.stop.wait(0.5)  # a lesson folder moved away: wait for it to come back
                continue
            try:
                for changes in watchfiles.watch(
                    *places,
                    watch_filter=lambda _change, path: not ignored(Path(path), self.roots),
                    step=20,
                    stop_event=self.stop,
                    raise_interrupt=False,
                    rust_timeout=1000,
                    recursive=inside,
                ):
                    paths = frozenset(Path(p) for _, p in changes)
                    self.batches.put(Batch(time.monotonic(), paths))
                    if not all(r.path.exists() for r in roots):
                        break  # watch again once the folder is back
            except Exception as exc:  # the OS watcher failed: say so once, retry
                if not failed:
                    self.log(f"note: watching files failed ({type(exc).__name__}: {exc}); retrying")
                failed = True
                self.stop.wait(1.0)

    def take(self, timeout: float) -> list[Batch]:
        """Every batch waiting (the first one waited for up to `timeout` seconds)."""
        try:
            batches = [self.batches.get(timeout=timeout)]
        except queue.Empty:
            return []
        while True:
            try:
                batches.append(self.batches.get_nowait())
            except queue.Empty:
                return batches
