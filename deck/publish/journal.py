"""Publishing a lesson's output: one build at a time, both folders or neither, never half-written.

A build takes the lock of every folder it writes, fills staging places with names of its own,
and publishes them by renames recorded in a journal: if the build is killed halfway, the next
build of the lesson rolls the journal forward, so `dist/<lesson>`, `figures/<lesson>` and
`dist/<lesson>.html` (made, kept or dropped) are always all the old or all the new build.
"""

from __future__ import annotations

import errno
import fcntl
import json
import math
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from deck.options import UsageError

LOCK_TIMEOUT = 600.0  # seconds a build waits for another's lock, unless DECK_LOCK_TIMEOUT says


def lock_timeout() -> float:
    """`DECK_LOCK_TIMEOUT` (seconds, 0 or more), else `LOCK_TIMEOUT`; a bad value is a usage
    error naming the variable."""
    text = os.environ.get("DECK_LOCK_TIMEOUT", "").strip()
    if not text:
        return LOCK_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds < math.inf:
        raise UsageError(
            f"DECK_LOCK_TIMEOUT={text!r} must be a number of seconds, 0 or more (default 600)"
        )
    return seconds


class LockTimeout(Exception):
    """Another build of the same lesson held the lock for too long."""


@contextmanager
def output_lock(folders: list[Path], log: Callable[[str], None]) -> Iterator[None]:
    """Hold an advisory lock on every folder a build writes (out, figures, cache), each on the
    folder itself (no lock file to leave behind; the kernel drops the lock when the build
    exits, however it exits). Taken in one order, so two builds sharing any of them never
    deadlock: the second waits, up to `DECK_LOCK_TIMEOUT` seconds in all."""
    limit = lock_timeout()
    deadline = time.monotonic() + limit
    by_place: dict[Path, Path] = {}
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        by_place.setdefault(folder.resolve(), folder)
    with ExitStack() as held:
        for _, folder in sorted(by_place.items()):
            held.enter_context(_folder_lock(folder, log, limit, deadline))
        yield


@contextmanager
def _folder_lock(
    folder: Path, log: Callable[[str], None], limit: float, deadline: float
) -> Iterator[None]:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            log(f"waiting for another build writing into {folder} to finish")
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise LockTimeout(
                            f"another build still writes into {folder} after {limit:g} s "
                            "(DECK_LOCK_TIMEOUT); nothing was written"
                        ) from None
                    time.sleep(0.1)
        yield
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Target:
    """A published place (the folder `dist/<lesson>`, the file `dist/<lesson>.html`) and the
    names of its staging and old copies; `drop`: the place is removed (an output this build
    does not make any more), with the same journal as a replacement."""

    path: Path
    build_id: str
    drop: bool = False

    @property
    def staging(self) -> Path:
        return self.path.with_name(f".staging-{self.path.name}-{self.build_id}")

    @property
    def old(self) -> Path:
        return self.path.with_name(f".old-{self.path.name}-{self.build_id}")


def new_build_id() -> str:
    return f"{os.getpid()}-{uuid.uuid4().hex[:8]}"


def journal_path(target: Path) -> Path:
    return target.with_name(f".publish-{target.name}.json")


def clean_leftovers(targets: list[Path]) -> None:
    """Finish a publish a killed build left halfway, then remove its staging and old folders.

    Only called with the lesson's lock held, so no other build is using them.
    """
    for target in targets:
        journal = journal_path(target)
        if journal.is_file():
            try:
                steps = json.loads(journal.read_text("utf-8"))
                _roll_forward([Target(Path(t), b, *drop) for t, b, *drop in steps])
            except (OSError, ValueError, TypeError):
                pass
            journal.unlink(missing_ok=True)
    for target in targets:
        pattern = re.compile(rf"\.(staging|old)-{re.escape(target.name)}-\d+-[0-9a-f]{{8}}")
        if target.parent.is_dir():
            for leftover in target.parent.iterdir():
                if pattern.fullmatch(leftover.name):
                    _remove(leftover)


def _roll_forward(targets: list[Target]) -> None:
    for t in targets:
        if t.drop:
            if t.path.exists() or t.path.is_symlink():
                _remove(t.path)
        elif t.staging.exists():  # a folder, or a file (the single file)
            if t.path.exists() and not t.old.exists():
                t.path.rename(t.old)
            elif t.path.exists():
                _remove(t.path)
            t.staging.rename(t.path)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def publish(targets: list[Target]) -> None:
    """Replace every target by its complete staging folder: all of them, or none.

    A journal written first lets a later build finish the renames if this process dies
    between them; an error in a rename rolls the finished ones back before raising.
    """
    journal = journal_path(targets[0].path)
    steps = json.dumps([[str(t.path), t.build_id, t.drop] for t in targets])
    tmp = journal.with_name(journal.name + f".{targets[0].build_id}")
    tmp.write_text(steps, "utf-8")
    os.replace(tmp, journal)
    done: list[tuple[Target, bool]] = []
    try:
        for t in targets:
            t.path.parent.mkdir(parents=True, exist_ok=True)
            had_old = t.path.exists()
            if had_old:
                t.path.rename(t.old)
            if t.drop:
                done.append((t, had_old))
                continue
            try:
                t.staging.rename(t.path)
            except OSError:
                if had_old:
                    t.old.rename(t.path)
                raise
            done.append((t, had_old))
    except BaseException:
        for t, had_old in reversed(done):
            if not t.drop:
                t.path.rename(t.staging)
            if had_old:
                t.old.rename(t.path)
        journal.unlink(missing_ok=True)
        raise
    journal.unlink(missing_ok=True)
    for t in targets:
        _remove(t.old)
