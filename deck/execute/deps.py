"""What a section depended on while it ran, recorded inside the worker process.

Files come from Python's `open` and `sqlite3.connect` audit events (every `open()`, `io.open`,
`os.open`, and the files that numpy, pandas, torch and matplotlib open through them); folder
listings from the `os.listdir` and `os.scandir` events (glob and os.walk use them) except
those of the import system; tests of a path from `os.stat` and `os.lstat` (which
`os.path.exists`, `isfile`, `pathlib`'s `exists` call), and environment variables from
`os.environ` (see `deck.execute.observe`); modules from `sys.modules` at the end of the run.
Each path is sorted into one of:

- the standard library: covered by the Python version in the cache key, not recorded;
- site-packages: the distribution that owns it is recorded with its version and the hash of
  its RECORD (which lists the hash of every file the distribution installed);
- the deck package itself: an "engine" file, recorded with its hash;
- anything else (the lesson folder, data files, fonts, modules on PYTHONPATH): a "file",
  recorded with its hash, unless the section itself wrote it before reading it (its output).

Besides its RECORD, a distribution's imported files are recorded by identity ("installed"), so
a file edited in place is seen. Not seen: files read by native code or a child process. When
the section's own code (a cell or a lesson module, not a library) starts a process, loads
native code with ctypes or opens a socket, the section's inputs are "not fully known" at
that line (see `deck.execute.observe`), unless the cell lists them (`#| inputs:`).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path
from typing import Any

from deck import jobs
from deck.execute.observe import UNSEEN, is_authors, is_import_system
from deck.model import Dependency
from deck.store.files import digest, identity
from deck.store.inputs import (
    env_state,
    installed_state,
    listing_state,
    matches,
    stat_state,
    text_state,
)

_stat = os.stat  # the real one (the worker wraps os.stat to see the section's tests)

SKIPPED_ROOTS = ("/dev/", "/proc/", "/sys/")
SITE_DIR_NAMES = ("site-packages", "dist-packages")
# Installed metadata that libraries scan for plugins (entry_points.txt of every distribution):
# not a dependency by itself; a plugin that is loaded is imported, and its distribution counted.
METADATA_FOLDERS = (".dist-info", ".egg-info")


def _real(path: str) -> str:
    return os.path.realpath(path)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Recorder:
    """Collects the files a section reads; `dependencies()` turns them into `Dependency`s."""

    def __init__(
        self,
        lesson_dir: str,
        deck_dir: str,
        ignore: list[str],
        cell_file: str = "",
        declared: dict[int, tuple[str, ...]] | None = None,
    ):
        self.cell_file = cell_file  # the file name the cells are compiled with
        self.declared = declared or {}  # a cell's line -> its `#| inputs:` patterns
        self.line = 0  # the line of the cell (or inline expression) running now
        self.on_write: Any = None  # told of each file written in the lesson folder, at once
        self.active = True
        self.lesson_dir = _real(lesson_dir)
        self.deck_dir = _real(deck_dir)
        self.ignore = [_real(p) for p in ignore]
        paths = sysconfig.get_paths()
        self.sites = sorted(
            {_real(p) for p in sys.path if p and os.path.basename(p) in SITE_DIR_NAMES}
            | {_real(paths[k]) for k in ("purelib", "platlib") if k in paths}
        )
        # The standard library: its folders, and the entries of sys.path inside the Python
        # installation that are not site folders (python311.zip, lib-dynload).
        prefixes = {_real(sys.prefix), _real(sys.base_prefix)}
        self.stdlib = sorted(
            {_real(paths[k]) for k in ("stdlib", "platstdlib") if k in paths}
            | {
                _real(p)
                for p in sys.path
                if p
                and _real(p) not in self.sites
                and any(_under(_real(p), prefix) for prefix in prefixes)
            }
        )
        self.read: dict[str, None] = {}  # input files in the order first read
        self.first_seen: dict[str, tuple[int, ...]] = {}  # identity when first read
        self.written: set[str] = set()
        self.listed: dict[str, None] = {}
        self.tested: dict[str, None] = {}
        self.env: dict[str, None] = {}
        # the environment the section started with: a variable a library sets for itself
        # (torch's TORCHINDUCTOR_CACHE_DIR) is recorded as it was, which the build can compare
        self.initial_env = dict(os.environ)
        self.unknown: dict[int, str] = {}  # line -> why its inputs cannot be known
        self._folders: dict[str, str] = {}
        self._roots = (*self.stdlib, self.deck_dir)
        # site folders may lie inside a stdlib root (a venv's lib/python3.X): a frame there is
        # a library's. Both spellings, as frames name files by the path they were imported by.
        raw_sites = [p for p in sys.path if p and os.path.basename(p) in SITE_DIR_NAMES]
        raw_sites += [paths[k] for k in ("purelib", "platlib") if k in paths]
        self._sites = tuple(sorted({os.path.join(p, "") for p in (*self.sites, *raw_sites)}))

    # ---- recording (called for every audit event: keep it cheap) -----------------------

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.active:
            return
        try:
            if event == "open":
                self._opened(*args[:3])
            elif event in ("os.listdir", "os.scandir"):
                folder = args[0] if args and args[0] is not None else "."
                if not isinstance(folder, int) and not is_import_system(sys._getframe(1)):
                    self.listed.setdefault(os.path.abspath(os.fsdecode(folder)))
            elif event == "sqlite3.connect":
                database = os.fsdecode(args[0])
                if database != ":memory:" and not database.startswith("file:"):
                    self.read.setdefault(os.path.abspath(database))
            elif event in UNSEEN and not (event == "ctypes.dlopen" and args[0] is None):
                if event == "os.fork" and jobs.FORKING[0]:
                    return  # (deck.jobs.each: its children's reads are carried back)
                if self.line not in self.unknown and self._by_author():
                    self.unknown[self.line] = UNSEEN[event]
        except Exception:  # noqa: BLE001 - recording must never break the author's code
            pass

    def _by_author(self) -> bool:
        return is_authors(
            sys._getframe(2), self.cell_file, self.lesson_dir, self._roots, self._sites
        )

    def tested_path(self, path: Any) -> None:
        """`os.stat`/`os.lstat` was called on `path` (by the section or a library)."""
        if self.active and not isinstance(path, int):
            try:
                self.tested.setdefault(os.path.abspath(os.fsdecode(path)))
            except (TypeError, ValueError):
                pass

    def _opened(self, file: Any, mode: Any, flags: Any) -> None:
        if isinstance(file, int):
            return
        path = os.fsdecode(os.fspath(file))
        path = os.path.abspath(path)
        flags = flags or 0
        if isinstance(mode, str):
            reads = "r" in mode or "+" in mode
            writes = any(c in mode for c in "wax+")
            fresh = "w" in mode or "x" in mode  # the old content, if any, is not read
        else:
            access = flags & os.O_ACCMODE
            reads = access in (os.O_RDONLY, os.O_RDWR)
            writes = access in (os.O_WRONLY, os.O_RDWR) or bool(flags & os.O_CREAT)
            fresh = bool(flags & (os.O_TRUNC | os.O_EXCL))
        if writes and path not in self.written and self.on_write is not None:
            if _under(path, self.lesson_dir):
                self.on_write(path)  # the preview must know before the file's event arrives
        if writes and fresh:
            self.written.add(path)  # made by the section (a temporary file, say): no input
        if reads and path not in self.read and path not in self.written:
            self.read[path] = None
            try:
                self.first_seen[path] = identity(_stat(path))
            except OSError:
                pass
        if writes:
            self.written.add(path)

    # ---- results ----------------------------------------------------------------------

    def _real(self, path: str) -> str:
        """The real path; folders are resolved once each (thousands of modules share them)."""
        folder, name = os.path.split(os.path.abspath(path))
        real_folder = self._folders.get(folder)
        if real_folder is None:
            real_folder = self._folders[folder] = _real(folder)
        real = os.path.join(real_folder, name)
        return _real(real) if os.path.islink(real) else real

    def _place(self, real: str) -> tuple[str, str] | None:
        """("engine" | "file", real) or ("site", the site folder); None: not a dependency."""
        if real.startswith(SKIPPED_ROOTS) or "__pycache__" in real.split(os.sep):
            return None
        if any(_under(real, p) for p in self.ignore):
            return None
        if _under(real, self.deck_dir):
            return "engine", real
        for site in self.sites:
            if _under(real, site):
                return "site", site
        if any(_under(real, p) for p in self.stdlib):
            return None
        return "file", real

    def _name(self, real: str, kind: str) -> tuple[str, str]:
        """(name shown in messages, path stored in the entry)."""
        if _under(real, self.lesson_dir):
            rel = os.path.relpath(real, self.lesson_dir)
            return rel, rel
        if kind == "engine":
            return "deck/" + os.path.relpath(real, self.deck_dir), real
        return real, real

    def _used(self) -> list[str]:
        """Real paths of the files read and of the imported modules' files."""
        paths = dict.fromkeys(self._real(p) for p in self.read)
        for module in list(sys.modules.values()):
            file = getattr(module, "__file__", None)
            if file is None:  # a namespace package: its first folder
                file = next(iter(getattr(module, "__path__", None) or []), None)
            if isinstance(file, str):
                paths.setdefault(self._real(file))
        return list(paths)

    def state(self) -> dict[str, Any]:
        """What this process recorded: a child of `deck.jobs.each` hands it to the section's
        worker (`merge`), so the files a call read there are the section's inputs."""
        modules = [getattr(m, "__file__", None) for m in list(sys.modules.values())]
        return {
            "read": list(self.read),
            "first_seen": dict(self.first_seen),
            "written": sorted(self.written),
            "listed": list(self.listed),
            "tested": list(self.tested),
            "env": list(self.env),
            "unknown": dict(self.unknown),
            "modules": [f for f in modules if isinstance(f, str)],
        }

    def merge(self, state: dict[str, Any]) -> None:
        """Adds what a child recorded (`state`) to this process's record."""
        self.written.update(state["written"])
        for path in (*state["read"], *state["modules"]):
            if path not in self.written:
                self.read.setdefault(path)
        for path, seen in state["first_seen"].items():
            self.first_seen.setdefault(path, tuple(seen))
        for name in ("listed", "tested", "env"):
            mine = getattr(self, name)
            for key in state[name]:
                mine.setdefault(key)
        for line, why in state["unknown"].items():
            self.unknown.setdefault(line, why)

    def dependencies(self) -> tuple[Dependency, ...]:
        self.active = False  # what the engine itself looks at from here on is no input
        files: dict[str, str] = {}  # real path -> kind
        in_site: dict[tuple[str, str], list[str]] = {}  # (site, top-level name) -> paths
        for real in self._used():
            place = self._place(real)
            if place is None:
                continue
            kind, where = place
            if kind == "site":
                top = real[len(where) + 1 :].split(os.sep)[0]
                if not top.endswith(METADATA_FOLDERS):
                    in_site.setdefault((where, top), []).append(real)
            elif os.path.isfile(real):
                files[real] = kind
        dists, installed = [], []
        for (site, top), paths in in_site.items():
            owners = _owners(site).get(_module_name(top))
            if owners:
                dists.extend(owners)
                mine = sorted(set(paths))
                state = installed_state(mine)
                installed.append(Dependency("installed", top, "\n".join(mine), state, 0, 0))
            else:  # in site-packages but no distribution's: track the files themselves
                files.update((p, "file") for p in paths if os.path.isfile(p))
        globs = []
        for pattern in sorted({p for patterns in self.declared.values() for p in patterns}):
            found = matches(pattern, self.lesson_dir)
            files.update((_real(os.path.join(self.lesson_dir, f)), "file") for f in found)
            globs.append(Dependency("glob", pattern, pattern, text_state("\0".join(found)), 0, 0))
        moved = self._moved()
        deps = []
        for real, kind in sorted(files.items()):
            name, stored = self._name(real, kind)
            dep = Dependency(kind, name, stored, *digest(Path(real)))
            if real in moved:  # another process wrote it while this section ran
                dep = Dependency(kind, name, stored, dep.sha256, dep.size, -2)
            deps.append(dep)
        for label, record in sorted(set(dists)):
            deps.append(Dependency("dist", label, record, *digest(Path(record))))
        deps += sorted(installed, key=lambda d: d.name) + globs
        deps += self._states(set(files))
        return tuple(deps)

    def _moved(self) -> set[str]:
        moved = set()
        for path, seen in self.first_seen.items():
            if path in self.written:
                continue
            try:
                now: tuple[int, ...] = identity(_stat(path))
            except OSError:
                now = ()
            if now != seen:
                moved.add(self._real(path))
        return moved

    def _states(self, files: set[str]) -> list[Dependency]:
        """Folders listed, paths tested, variables read, files written, what is unknown."""
        deps = []
        for kind, paths, state in (
            ("listing", self.listed, listing_state),
            ("stat", self.tested, stat_state),
        ):
            for real in sorted({self._real(p) for p in paths if p not in self.written}):
                if real in files or real in self.written or self._place(real) != ("file", real):
                    continue
                name, stored = self._name(real, "file")
                deps.append(Dependency(kind, name, stored, state(real), 0, 0))
        for name in sorted(self.env):
            deps.append(Dependency("env", name, name, env_state(name, self.initial_env), 0, 0))
        for real in sorted({self._real(p) for p in self.written}):
            if self._place(real) == ("file", real) and os.path.isfile(real):
                name, stored = self._name(real, "file")
                deps.append(Dependency("output", name, stored, "", 0, 0))
        for line, why in sorted(self.unknown.items()):
            if line not in self.declared:
                deps.append(Dependency("unknown", f"{self.cell_file}:{line}", why, "", 0, 0))
        return deps


def _module_name(entry: str) -> str:
    """The top-level module an entry of site-packages holds: `numpy`, `six.py` → `six`,
    `_cffi_backend.cpython-311-x86_64-linux-gnu.so` → `_cffi_backend`."""
    return entry.split(".")[0]


_OWNERS: dict[str, dict[str, list[tuple[str, str]]]] = {}


def _owners(site: str) -> dict[str, list[tuple[str, str]]]:
    """For each top-level module in a site folder, the distributions that installed it, as
    ("name version", path of the .dist-info's RECORD), read from the .dist-info folders."""
    if site in _OWNERS:
        return _OWNERS[site]
    owners: dict[str, list[tuple[str, str]]] = {}
    for entry in sorted(os.listdir(site)):
        if not entry.endswith(".dist-info"):
            continue
        name, _, version = entry.removesuffix(".dist-info").partition("-")
        folder = os.path.join(site, entry)
        record = os.path.join(folder, "RECORD")
        tops: set[str] = set()
        try:
            with open(os.path.join(folder, "top_level.txt"), encoding="utf-8") as f:
                tops = {line.strip() for line in f if line.strip()}
        except OSError:
            pass
        try:
            with open(record, encoding="utf-8") as f:
                for line in f:
                    first = line.split(",", 1)[0].split("/", 1)[0]
                    if first and not first.endswith((".dist-info", ".data")) and first != "..":
                        tops.add(_module_name(first))
        except OSError:
            record = os.path.join(folder, "METADATA")
        for top in tops:
            owners.setdefault(top, []).append((f"{name} {version}", record))
    _OWNERS[site] = owners
    return owners
