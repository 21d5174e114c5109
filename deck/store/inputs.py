"""How a recorded dependency is checked against the disk and the environment as they are now.

Files ("file", "engine", "dist", "figure") by identity (size, mtime, ctime, inode) and, when
that changed, by the sha256 of their bytes. The other kinds store a state in `sha256`, computed
by the same function in the worker (when recording) and here (when checking):

- "installed": the identity of every file a site-packages module was imported from (`path`
  lists them), so a file edited in place is seen even when its RECORD is not;
- "listing": the names in a folder the section listed (`os.listdir`, `os.scandir`, `glob`);
- "glob": the files matching a pattern of the cell option `inputs`;
- "stat": whether a path the section tested (`os.stat`, `os.path.exists`, `Path.is_file`, …)
  is absent, a folder, or a file with that identity;
- "env": the value of an environment variable the section read (absent is a value too);
- "version": the version of an installed distribution, for a result computed elsewhere (a
  frozen result, a cluster's worker: `deck.store.portable`): another version installed here
  means it no longer holds; none installed means it stands (this machine could not compute it).

"output" (a file the section wrote) and "module" (a module a result computed elsewhere imported
from the distribution `path`: its "version" is checked) always hold; "unknown" (a child
process, native code, a socket: inputs the engine cannot see) never does.
"""

from __future__ import annotations

import glob
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from deck.model import Dependency
from deck.store.files import digest, identity

DAMAGED = "entry damaged"
UNKNOWN = "inputs not fully known"


def text_state(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def installed_state(paths: list[str], seen: dict[str, str] | None = None) -> str:
    """`seen`: each path's part as found earlier in this same check (sections import the
    same files: 10.8k recorded paths, 1.9k distinct, in the main lesson)."""
    parts = []
    for path in paths:
        part = seen.get(path) if seen is not None else None
        if part is None:
            try:
                part = f"{path} {identity(os.stat(path))}"
            except OSError:
                part = f"{path} absent"
            if seen is not None:
                seen[path] = part
        parts.append(part)
    return text_state("\n".join(parts))


def listing_state(path: str) -> str:
    try:
        return text_state("\0".join(sorted(os.listdir(path))))
    except OSError:
        return ""  # no such folder (or not one)


def glob_state(pattern: str, base: str) -> str:
    return text_state("\0".join(matches(pattern, base)))


def matches(pattern: str, base: str) -> list[str]:
    """The files a `#| inputs:` pattern names, relative to the lesson folder `base`."""
    found = glob.glob(pattern, root_dir=base, recursive=True)
    return sorted(p for p in found if os.path.isfile(os.path.join(base, p)))


def stat_state(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "absent"
    if os.path.isdir(path):
        return "folder"
    return text_state(f"file {identity(st)}")


def env_state(name: str, environ: Mapping[str, str] = os.environ) -> str:
    value = environ.get(name)
    return "" if value is None else text_state(value)


def version_state(name: str, seen: dict[str, str] | None = None) -> str:
    """The version of the installed distribution `name`, "" when none is (read from its
    metadata: nothing is imported)."""
    if seen is not None and f"version:{name}" in seen:
        return seen[f"version:{name}"]
    from importlib import metadata

    try:
        version = metadata.version(name) or ""
    except (metadata.PackageNotFoundError, ValueError):
        version = ""
    if seen is not None:
        seen[f"version:{name}"] = version
    return version


def state(dep: Dependency, base: Path, seen: dict[str, str] | None = None) -> str:
    """The state of a dependency of a state kind, as it is now (`seen`: installed_state's)."""
    if dep.kind == "env":
        return env_state(dep.path)
    if dep.kind == "version":
        return version_state(dep.path, seen)
    if dep.kind == "installed":
        return installed_state(dep.path.split("\n"), seen)
    if dep.kind == "glob":
        return glob_state(dep.path, str(base))
    path = os.path.join(base, dep.path)  # (an absolute dep.path stays as it is)
    return listing_state(path) if dep.kind == "listing" else stat_state(path)


STATE_KINDS = ("installed", "listing", "glob", "stat", "env", "version")


def check(
    dep: Dependency, base: Path, seen: dict[str, str] | None = None
) -> tuple[str, Dependency]:
    """("", dep) when `dep` is as recorded (dep with a fresh stat if it had to be hashed),
    else (why it is not, dep). `seen` lets one check of many dependencies stat a file once."""
    if dep.kind in ("output", "module"):  # ("module": a result computed elsewhere)
        return "", dep
    if dep.kind == "unknown":
        return f"{UNKNOWN}: {dep.path} at {dep.name}", dep
    if dep.kind in STATE_KINDS:
        now = state(dep, base, seen)
        holds = now == dep.sha256 or (dep.kind == "version" and now == "")  # (none installed)
        return ("" if holds else _state_changed(dep, now)), dep
    if dep.mtime_ns == -2:
        return f"{dep.name} changed while the section ran", dep
    # (an absolute dep.path stays as it is; os.path, not pathlib: a no-change build checks
    # hundreds)
    path = os.path.join(base, dep.path)
    try:
        st = os.stat(path)
    except OSError:
        if dep.sha256 == "":
            return "", dep
        return _gone(dep), dep
    same = identity(st) == (dep.size, dep.mtime_ns, dep.ctime_ns, dep.inode)
    if dep.sha256 and dep.mtime_ns >= 0 and same:
        return "", dep
    sha, *stat = digest(path)
    if sha != dep.sha256:
        return (_gone(dep) if sha == "" else _changed(dep)), dep
    return "", Dependency(dep.kind, dep.name, dep.path, sha, *stat)


def _state_changed(dep: Dependency, now: str) -> str:
    if dep.kind == "env":
        return f"environment variable {dep.name} changed"
    if dep.kind == "installed":
        return f"installed files of {dep.name} changed"
    if dep.kind == "version":
        return f"{dep.name} computed it, {dep.path} {now} is installed here"
    if dep.kind == "glob":
        return f"the files matching {dep.name} changed"
    if dep.kind == "listing":
        return f"the list of files in {dep.name} changed"
    if dep.sha256 == "absent":
        return f"{dep.name} appeared"
    return f"{dep.name} vanished" if now == "absent" else f"{dep.name} changed"


def _gone(dep: Dependency) -> str:
    if dep.kind == "dist":
        return f"{dep.name} no longer installed"
    if dep.kind == "figure":
        return f"{DAMAGED}: figure {dep.name} missing"
    return f"{dep.name} vanished"


def _changed(dep: Dependency) -> str:
    if dep.kind == "figure":
        return f"{DAMAGED}: figure {dep.name} changed"
    if dep.sha256 == "":
        return f"{dep.name} appeared"
    if dep.kind == "engine":
        return f"engine file {dep.name} changed"
    return f"{dep.name} changed"
