"""What a section depended on, in a form another machine can check: frozen results committed
beside a lesson (`deck.store.frozen`) and results coming back from a cluster's worker
(`deck.execute.cluster`) carry it; the section cache's own form (`deck.execute.deps`) holds this
machine's paths and file identities.

The same inputs as the cache records, each as `[kind, name, state]`:

- "file": a file of the project (the lesson folder, or the folder the build runs in), by the
  sha256 of its bytes, named by its path relative to the lesson folder (`helper.py`,
  `../data.csv`);
- "engine": a file of the deck package (`deck/show.py`), by content;
- "dist": an installed distribution by name and version (`numpy`, `2.4.6`): another version
  installed means the result no longer holds, none installed means it stands (the machine
  reading it could not compute it: a frozen result, the author's);
- "stat", "listing", "glob": a path of the project tested (absent, a folder, or a file by
  content), a folder listed, the files a `#| inputs:` pattern matched;
- "env": an environment variable read, by a digest of its value (or its absence);
- "output": a file the section wrote, "module": a top-level module imported from a distribution
  (what the notebook's requirements list), never checked; "unknown": what the section did that
  hides its inputs (never holds).

Left out, and counted: what lies outside the project (the Python installation, the machine's
fonts, matplotlib's font list, the home folder), the identities of installed files (their
distribution's version stands for them) and a variable whose value is a path outside the
project (`HOME`).
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from pathlib import Path

from deck.model import Dependency
from deck.store.files import content_hash, digest
from deck.store.inputs import env_state, glob_state, listing_state, stat_state, version_state
from deck.theme import ENGINE

Portable = list[str]  # [kind, name, state]
KEPT = ("file", "engine", "dist", "stat", "listing", "glob", "env", "output", "module", "unknown")


def python_places() -> list[str]:
    """The Python installation and its site folders: never the project's, wherever they lie
    (a `.venv` inside the project is the machine's)."""
    paths = sysconfig.get_paths()
    found = {sys.prefix, sys.base_prefix, *(paths[k] for k in ("stdlib", "purelib", "platlib"))}
    try:
        found.update(site.getsitepackages())
    except AttributeError:
        pass
    return sorted({os.path.realpath(p) for p in found if p})


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class Places:
    """Where a lesson's files are on this machine, to name a path portably."""

    def __init__(self, lesson_dir: Path, project: Path):
        self.lesson = os.path.realpath(lesson_dir)
        self.project = os.path.realpath(project)
        self.machine = python_places()

    def name(self, path: str) -> str | None:
        """`path` (absolute, or relative to the lesson folder) relative to the lesson folder
        when it is the project's; None when it is the machine's."""
        real = os.path.realpath(os.path.join(self.lesson, path))
        inside = _under(real, self.lesson) or _under(real, self.project)
        if not inside or any(_under(real, p) for p in self.machine):
            return None
        return Path(os.path.relpath(real, self.lesson)).as_posix()


def portable_stat(path: Path) -> str:
    """ "absent", "folder", or "file <sha256>": a tested path's state on any machine."""
    if path.is_dir():
        return "folder"
    try:
        return f"file {content_hash(path)}"
    except OSError:
        return "absent"


def to_portable(
    deps: Iterable[Dependency], places: Places, environ: Mapping[str, str] = os.environ
) -> tuple[list[Portable], int]:
    """The portable form of a result's dependencies, sorted, and how many were left out (see
    the module's docstring). Read from the disk as it is now: call it while they hold."""
    kept: dict[tuple[str, str], str] = {}
    left_out = 0
    deps = list(deps)
    owners = _owners(d for d in deps if d.kind == "dist")
    for dep in deps:
        name: str | None = dep.name
        value = dep.sha256
        if dep.kind == "engine":
            name = dep.name  # "deck/…": the package's own path
        elif dep.kind == "dist":
            name, _, value = dep.name.rpartition(" ")
        elif dep.kind == "version":  # (a result computed elsewhere: already by version)
            kept[("dist", dep.path)] = dep.sha256
            continue
        elif dep.kind == "module":
            kept[("module", dep.name)] = dep.path
            continue
        elif dep.kind in ("file", "stat", "listing", "output"):
            name = places.name(dep.path)
            if name is not None and dep.kind == "stat":
                value = portable_stat(Path(places.lesson) / name)
        elif dep.kind == "env":
            now = environ.get(dep.name)
            if env_state(dep.name, environ) == dep.sha256 and _machine_path(now, places):
                name = None
        elif dep.kind == "unknown":
            value = dep.path  # why
        elif dep.kind == "installed" and dep.name.removesuffix(".py") in owners:
            name = dep.name.removesuffix(".py")  # its files: the distribution's version
            kept[("module", name)] = owners[name]
            continue
        elif dep.kind not in KEPT:
            name = None
        if name is None:
            left_out += dep.kind != "installed"
            continue
        kept[(dep.kind, name)] = value
    return [[kind, name, value] for (kind, name), value in sorted(kept.items())], left_out


def _owners(dists: Iterable[Dependency]) -> dict[str, str]:
    """Top-level module → the distribution that installed it, from each distribution's
    `top_level.txt`, else its RECORD (beside which `dep.path` lies)."""
    owners: dict[str, str] = {}
    for dep in dists:
        name = dep.name.rpartition(" ")[0]
        info = Path(dep.path).parent
        try:
            listed = (info / "top_level.txt").read_text("utf-8").split()
        except OSError:
            listed = []
        if not listed:
            try:
                lines = (info / "RECORD").read_text("utf-8").splitlines()
            except OSError:
                lines = []
            firsts = {line.split(",", 1)[0].split("/", 1)[0] for line in lines}
            listed = [f.removesuffix(".py") for f in firsts if f and not f.endswith(".dist-info")]
        for top in listed:
            owners.setdefault(top, name)
    return owners


def _machine_path(value: str | None, places: Places) -> bool:
    return bool(value) and os.path.isabs(str(value)) and places.name(str(value)) is None


def check(dep: Portable, lesson_dir: Path, seen: dict[str, str]) -> str:
    """ "" when `dep` holds on this machine (a distribution not installed holds: see
    `absent`), else why not: "helper.py changed", "numpy 2.4.6 computed it, 2.4.5 is installed
    here", "engine file deck/show.py changed"."""
    kind, name, value = dep
    if kind in ("file", "engine"):
        path = (ENGINE.parent if kind == "engine" else lesson_dir) / name
        try:
            now = content_hash(path)
        except OSError:
            return f"{name} vanished"
        if now == value:
            return ""
        return f"engine file {name} changed" if kind == "engine" else f"{name} changed"
    if kind == "dist":
        now = version_state(name, seen)
        return "" if now in ("", value) else f"{name} {value} computed it, {now} is installed here"
    if kind == "env":
        return "" if env_state(name) == value else f"environment variable {name} changed"
    if kind == "stat":
        now = portable_stat(lesson_dir / name)
        if now == value:
            return ""
        return f"{name} appeared" if value == "absent" else f"{name} changed"
    if kind == "listing":
        ok = listing_state(str(lesson_dir / name)) == value
        return "" if ok else f"the list of files in {name} changed"
    if kind == "glob":
        ok = glob_state(name, str(lesson_dir)) == value
        return "" if ok else f"the files matching {name} changed"
    if kind in ("output", "module"):
        return ""
    if kind == "unknown":
        return f"inputs not fully known: {value} at {name}"
    return f"unknown kind of input {kind!r}"


def absent(deps: Iterable[Portable], seen: dict[str, str]) -> list[str]:
    """The distributions a result was computed with that are not installed here ("torch
    2.13.0")."""
    return [f"{n} {v}" for k, n, v in deps if k == "dist" and version_state(n, seen) == ""]


def to_local(deps: Iterable[Portable], lesson_dir: Path) -> tuple[Dependency, ...]:
    """The section cache's form of portable dependencies that hold here: files with this
    machine's identity (a file whose content differs keeps the recorded hash, so the cache
    sees it changed), distributions by version ("version"), tested paths by identity."""
    local = []
    for kind, name, value in deps:
        if kind in ("file", "engine"):
            path = (ENGINE.parent if kind == "engine" else lesson_dir) / name
            now = digest(path)
            stored = str(path) if kind == "engine" else name
            if now[0] != value:  # hashed again on lookup, and found changed
                now = (value, 0, -1, 0, 0)
            local.append(Dependency(kind, name, stored, *now))
        elif kind == "dist":
            local.append(Dependency("version", f"{name} {value}", name, value, 0, 0))
        elif kind == "stat":
            path = lesson_dir / name
            state = stat_state(str(path)) if portable_stat(path) == value else f"was {value}"
            local.append(Dependency("stat", name, name, state, 0, 0))
        elif kind in ("unknown", "module"):  # (why; the distribution)
            local.append(Dependency(kind, name, value, "", 0, 0))
        else:  # env, listing, glob, output: the same states on any machine
            local.append(Dependency(kind, name, name, value if kind != "output" else "", 0, 0))
    return tuple(local)


def from_json(data: object) -> list[Portable]:
    """Portable dependencies read back from JSON; raises ValueError when they are not."""
    if not isinstance(data, list):
        raise ValueError("inputs: not a list")
    deps = []
    for item in data:
        strings = isinstance(item, list) and all(isinstance(x, str) for x in item)
        if not strings or len(item) != 3:
            raise ValueError(f"inputs: {item!r} is not [kind, name, state]")
        if item[0] not in KEPT:
            raise ValueError(f"inputs: unknown kind {item[0]!r}")
        deps.append(list(item))
    return deps
