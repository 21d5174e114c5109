"""What a section depended on while it ran, recorded inside the worker process.

Files come from Python's `open` audit events (every `open()`, `io.open`, `os.open`, and the
files that numpy, pandas, torch and matplotlib open through them); modules from `sys.modules`
at the end of the run. Each path is sorted into one of:

- the standard library: covered by the Python version in the cache key, not recorded;
- site-packages: the distribution that owns it is recorded with its version and the hash of
  its RECORD (which lists the hash of every file the distribution installed);
- the deck package itself: an "engine" file, recorded with its hash;
- anything else (the lesson folder, data files, fonts, modules on PYTHONPATH): a "file",
  recorded with its hash, unless the section itself wrote it before reading it (its output).

Not seen: files read by native code without Python's `open` (safetensors' Rust reader, for
example); the distribution behind such a reader is still recorded.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path
from typing import Any

from deck.model import Dependency
from deck.store.files import digest

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

    def __init__(self, lesson_dir: str, deck_dir: str, ignore: list[str]):
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
        self.written: set[str] = set()
        self._folders: dict[str, str] = {}

    # ---- recording (called for every audit event: keep it cheap) -----------------------

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if event != "open":
            return
        try:
            self._opened(*args[:3])
        except Exception:  # noqa: BLE001 - recording must never break the author's code
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
        if writes and fresh:
            self.written.add(path)  # made by the section (a temporary file, say): no input
        if reads and path not in self.read and path not in self.written:
            self.read[path] = None
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

    def dependencies(self) -> tuple[Dependency, ...]:
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
        dists = []
        for (site, top), paths in in_site.items():
            owners = _owners(site).get(_module_name(top))
            if owners:
                dists.extend(owners)
            else:  # in site-packages but no distribution's: track the files themselves
                files.update((p, "file") for p in paths if os.path.isfile(p))
        deps = []
        for real, kind in sorted(files.items()):
            name, stored = self._name(real, kind)
            deps.append(Dependency(kind, name, stored, *digest(Path(real))))
        for label, record in sorted(set(dists)):
            deps.append(Dependency("dist", label, record, *digest(Path(record))))
        return tuple(deps)


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
