"""What the worker watches besides audit events: path tests (`os.stat`, `os.lstat`), environment
variables read (`os.environ`, `os.getenv`), which frame is the author's, and bytecode that
cannot be trusted.

Python raises no audit event for `os.stat` or for reading `os.environ`, so the worker wraps
both (in its own process only). A variable counts when it is read by name (`os.environ[...]`,
`.get`, `in`, `os.getenv`); walking the whole environment (`items()`) is not counted, or
every section importing tqdm would depend on PWD and SHLVL.

A child process, native code loaded with ctypes or a socket hide what they read: when the
section's own code (a cell, or a module of the lesson) does one of them, its inputs are "not
fully known". A library doing so is not counted: its distribution and files are recorded, and
whatever it reads is its own business.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from types import FrameType
from typing import Any, Protocol

_os_stat = os.stat  # the real one, whatever `watch` does

# audit events after which the section's inputs cannot all be known
UNSEEN = {
    "subprocess.Popen": "runs a child process (subprocess)",
    "os.system": "runs a shell command (os.system)",
    "os.posix_spawn": "starts a process (os.posix_spawn)",
    "os.exec": "replaces the process (os.exec*)",
    "os.fork": "forks a process (os.fork)",
    "os.forkpty": "forks a process (os.forkpty)",
    "ctypes.dlopen": "loads native code (ctypes)",
    "socket.connect": "opens a network connection (socket)",
    "socket.getaddrinfo": "looks up a network address (socket)",
    "socket.sendto": "sends on a socket",
}

# set by the engine for every worker (deck.execute.supervise.worker_env): not the author's input
ENGINE_VARIABLES = frozenset(
    {"MPLBACKEND", "MATPLOTLIBRC", "PYTHONHASHSEED", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE"}
    | {"DECK_JOBS", "DECK_SPARE_CORES"}  # (deck.jobs: how many calls at once, never a value)
)


class Watcher(Protocol):
    active: bool
    env: dict[str, None]

    def tested_path(self, path: Any) -> None: ...


def is_import_system(frame: FrameType | None) -> bool:
    """Whether the innermost Python frame is the import system's: it lists sys.path folders
    to find modules, distributions and entry points (`importlib.metadata`, `pkgutil`)."""
    if frame is None:
        return False
    name = frame.f_code.co_filename
    return name.startswith("<frozen importlib") or name.endswith(IMPORT_SYSTEM)


IMPORT_SYSTEM = (
    f"{os.sep}importlib{os.sep}metadata{os.sep}__init__.py",
    f"{os.sep}importlib{os.sep}resources{os.sep}readers.py",
    f"{os.sep}pkgutil.py",
)


def is_authors(
    frame: FrameType | None,
    cell_file: str,
    lesson_dir: str,
    engine_roots: tuple[str, ...],
    sites: tuple[str, ...] = (),
) -> bool:
    """Whether the innermost frame that is neither the standard library's nor the engine's is
    a cell's or a lesson module's (else a library's, or none)."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name == cell_file or name.startswith(lesson_dir + os.sep):
            return True
        if name.startswith(sites) or (
            not name.startswith("<") and not name.startswith(engine_roots)
        ):
            return False  # a library (site-packages, even inside a venv's stdlib root)
        frame = frame.f_back
    return False


def watch(recorder: Watcher, skip_env: set[str]) -> None:
    """Wrap `os.stat`, `os.lstat` and `os.environ` so that they tell `recorder`."""
    for name in ("stat", "lstat"):
        real = getattr(os, name)

        def wrapped(path: Any, *args: Any, _real: Any = real, **kw: Any) -> Any:
            recorder.tested_path(path)
            return _real(path, *args, **kw)

        wrapped.__name__ = wrapped.__qualname__ = name
        wrapped.__doc__ = real.__doc__
        setattr(os, name, wrapped)
    skip = ENGINE_VARIABLES | skip_env

    class Environ(type(os.environ)):  # type: ignore[misc]
        def __getitem__(self, key: Any) -> Any:
            if recorder.active and isinstance(key, str) and key not in skip:
                caller = sys._getframe(1).f_code
                # a variable read by name, not one met while walking the whole environment
                # (`items()`, `values()`: tqdm looks for TQDM_* so at import)
                if not (caller.co_name == "__iter__" and caller.co_filename.startswith("<")):
                    recorder.env.setdefault(key)
            return super().__getitem__(key)

    os.environ.__class__ = Environ


def distrust_reset_mtimes() -> None:
    """Python trusts a module's cached bytecode while the source's size and mtime match; a
    same-size edit whose mtime was set back (`touch -r`, `cp -p`) would run the old code. When
    a source's ctime differs from its mtime and is later than its bytecode file, its ctime (in
    microseconds) stands in for the mtime, so the module is compiled from its source again.
    (Installed files whose ctime differs from their mtime, as hard-linked or unpacked ones do,
    keep their bytecode: it was written after them.)"""
    loader = importlib.machinery.SourceFileLoader
    plain = loader.path_stats

    def path_stats(self: Any, path: str) -> dict[str, Any]:
        stats = dict(plain(self, path))
        try:
            st = _os_stat(path)
            if st.st_ctime_ns != st.st_mtime_ns:
                cached = _os_stat(importlib.util.cache_from_source(path))
                if st.st_ctime_ns > cached.st_mtime_ns:
                    stats = dict(stats, mtime=st.st_ctime_ns // 1000)
        except (OSError, ValueError, NotImplementedError):
            pass
        return stats

    loader.path_stats = path_stats  # type: ignore[method-assign]
    sys.path_importer_cache.clear()
