"""Per-section cache keys and a checked JSON store under `.cache/`.

The key covers what a section's code is: its cells and inline expressions exactly as written,
the cell options that change what running produces, the lesson's Python modules, the seed and
output limit, the Python version, and what chooses the math kernels (the CPU and the kernel
variables, `deck.host.kernel_selectors`). Prose, notes and line numbers are not in it,
so editing them re-runs nothing.

What the code depended on is recorded while it ran (see `deck.execute.deps`) and checked on
lookup (`deck.store.inputs`): the files it opened, listed or tested, the environment variables
it read, the distributions and files behind the modules it imported and the engine files the
worker used. No list of libraries or engine files is kept by hand.

Each entry carries a checksum of its JSON and of its figure files: a damaged entry is reported
and recomputed, never trusted and never fatal. Checking the checksum means writing the entry's
JSON again (2 MB for the main lesson, most of a prose edit's lookups); the SHA-256 of each entry
file's bytes, as written or as last found whole, is kept beside them (`VERIFIED`), and a file
with those very bytes is whole without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import deck.warm as warm
from deck.model import Dependency, Lesson, Section, SectionResult
from deck.store.files import digest, write_atomic
from deck.store.inputs import DAMAGED, check

# an entry as read: its result, its figures, the fingerprint and kernels it was made with
Read = tuple[SectionResult, tuple[Dependency, ...], Any, Any]
SCHEMA = 3
# section name -> the SHA-256 of its entry file's bytes when they were written or found whole
# (no `.json`: the no-change check reads every `*.json` here as an entry)
VERIFIED = ".verified"
# options that change what running a cell produces
KEYED_OPTIONS = ("label", "timeout", "error", "fig-width", "fig-height", "inputs")


def lesson_modules(lesson: Lesson, skip: tuple[Path, ...] = ()) -> list[Path]:
    """The lesson's Python modules: every `.py` file in its folder but widget kinds' checks
    (run by render, not by cells), `__pycache__` and the build's own folders (`skip`: a `.qmd`'s
    folder may hold its dist/, whose `code/` copies the modules)."""
    checks = {kind.source for kind in lesson.widgets}
    skipped = [p.resolve() for p in skip]
    found = []
    for path in sorted(lesson.path.rglob("*.py")):
        real = path.resolve()
        if "__pycache__" in path.parts or real in checks:
            continue
        if any(folder in real.parents for folder in skipped):
            continue
        found.append(path)
    return found


def environment_fingerprint(lesson: Lesson, skip: tuple[Path, ...] = ()) -> str:
    """What all sections of a lesson share that is known before running: Python, the lesson's
    modules and the exec settings that change results."""
    h = hashlib.sha256()
    h.update(f"schema={SCHEMA};python={sys.version};".encode())
    if lesson.config.python and lesson.config.python != sys.executable:  # the author's own
        from deck.interpreter import describe

        h.update(f"interpreter={lesson.config.python};{describe(lesson.config.python)};".encode())
    settings = dict(lesson.config.exec.fingerprint(), output=lesson.config.exec.output_limit)
    h.update(json.dumps(settings, sort_keys=True).encode())
    from deck.host import kernel_selectors  # (light: reads /proc/cpuinfo and os.environ)

    h.update(json.dumps(kernel_selectors(), sort_keys=True).encode())  # another CPU's kernels
    for path in lesson_modules(lesson, skip):
        rel = path.relative_to(lesson.path).as_posix()
        h.update(rel.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def cache_key(section: Section, fingerprint: str) -> str:
    """The section's code exactly as written (a blank line or a space inside a string literal
    is behaviour), its keyed options and inline expressions; not its prose or line numbers."""
    h = hashlib.sha256(fingerprint.encode())
    h.update(section.name.encode())
    for cell in section.cells():
        options = {k: cell.options[k] for k in KEYED_OPTIONS if k in cell.options}
        h.update(b"\0cell\0" + json.dumps(options, sort_keys=True).encode())
        code = cell.code.encode("utf-8", "surrogatepass")
        h.update(str(len(code)).encode() + b"\0" + code)
    for expr in sorted({e.expr for e in section.inlines}):
        h.update(b"\0inline\0" + expr.encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]


def _selectors() -> dict[str, Any]:
    from deck.host import kernel_selectors

    return kernel_selectors()


def _kernels_changed(recorded: Any) -> str:
    """Why a key changed when what chooses the math kernels did: "ATEN_CPU_CAPABILITY
    changed", "the CPU changed"; "" when they are as recorded (or were not recorded)."""
    if not isinstance(recorded, dict):
        return ""
    now = _selectors()
    if recorded == now:
        return ""
    if any(recorded.get(k) != now.get(k) for k in ("cpu", "cpu_flags")):
        return "the CPU changed (its kernels may give other last digits)"
    names = sorted(k for k in now if recorded.get(k) != now.get(k))
    return f"{', '.join(names)} changed (the math kernels may give other last digits)"


def _checksum(entry: Any) -> str:
    text = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Store:
    """`<root>/<lesson>/<section>.json` holds the last good result; figures beside it.

    A file is `{"schema", "checksum", "entry"}`; `entry` holds the result (with what it
    depended on) and the figure files' checksums; `checksum` is the sha256 of `entry`.
    """

    def __init__(
        self, root: Path, lesson: str, lesson_dir: Path | None = None, fingerprint: str = ""
    ):
        self.dir = root / lesson
        self.base = (lesson_dir or Path.cwd()).resolve()
        self.fingerprint = fingerprint  # `environment_fingerprint`: says why a key changed
        self._seconds: dict[str, float] = {}
        # an installed file's identity, stat'ed once for all the sections' lookups (sections
        # import the same files: 10.8k recorded paths, 1.9k distinct, in the main lesson)
        self._seen: dict[str, str] = {}
        # results `lookup` found holding while no section has run since: `still_holds` need
        # not look at their inputs again (nothing ran that could have written one)
        self._held: set[int] = set()
        self._whole: dict[str, str] | None = None  # (`VERIFIED`, read when first needed)

    def figure_dir(self, key: str) -> Path:
        return self.dir / "figures" / key

    def last_seconds(self, section: Section) -> float | None:
        """How long the section took when last computed (after `lookup`), if known."""
        return self._seconds.get(section.name)

    def lookup(self, section: Section, key: str) -> tuple[SectionResult | None, str]:
        """(result, "") on a hit; (None, why it missed) otherwise: "new", "code changed",
        "data.csv changed", "numpy 2.1.0 no longer installed", "entry damaged: …"."""
        path = self.dir / f"{section.name}.json"
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None, "new"
        except OSError as exc:
            return None, f"{DAMAGED}: {exc.strerror or exc}"
        as_read = hashlib.sha256(raw).hexdigest()
        at = warm.key(as_read, str(self.figure_dir(key)))  # (an entry read whole before)
        read = warm.get("entry", at)
        if read is None:
            read = self._read(section, raw, as_read, key)
            if isinstance(read, str):
                return None, read
            warm.put("entry", at, read)
        result, figures, fingerprint, kernels = read
        self._seconds[section.name] = result.seconds
        if result.key != key:
            if self.fingerprint and fingerprint not in (None, self.fingerprint):
                changed = _kernels_changed(kernels)
                return None, changed or "lesson modules or settings changed"
            return None, "code changed"
        refreshed = False
        folder = self.figure_dir(key)
        for dep in figures:
            why, fresh = check(dep, folder)
            if why:
                return None, why
            refreshed |= fresh is not dep
        deps = []
        for dep in result.deps:
            why, fresh = check(dep, self.base, self._seen)
            if why:
                return None, why
            refreshed |= fresh is not dep
            deps.append(fresh)
        if refreshed:  # a file was touched but not changed: remember its new stat
            result = replace(result, figure_dir=str(folder), deps=tuple(deps))
            self._write(section, result)
        self._held.add(id(result))
        return result, ""

    def _read(self, section: Section, raw: bytes, as_read: str, key: str) -> Read | str:
        """The entry in `raw` (its result, its figures, the fingerprint and kernels it was
        made with), or why it cannot be used."""
        try:
            data = json.loads(raw.decode("utf-8", "surrogatepass"))
        except ValueError:
            return f"{DAMAGED}: not valid JSON"
        if not isinstance(data, dict) or "entry" not in data:
            return f"{DAMAGED}: not a cache entry"
        if data.get("schema") != SCHEMA:
            return "cache format changed"
        entry = data["entry"]
        if self._verified().get(section.name) != as_read:
            if _checksum(entry) != data.get("checksum"):
                return f"{DAMAGED}: checksum mismatch"
            self._remember(section.name, as_read)
        try:
            result = SectionResult.from_json(entry["result"], str(self.figure_dir(key)))
            figures = tuple(Dependency.from_json(d) for d in entry["figures"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            return f"{DAMAGED}: unreadable ({type(exc).__name__})"
        return result, figures, entry.get("fingerprint"), entry.get("kernels")

    def still_holds(self, result: SectionResult) -> str:
        """ "" when what `result` read is as it was when it was recorded (what cannot be known
        apart); else why not. Asked after a build's sections ran, since one may write what
        another read."""
        if id(result) in self._held:  # checked by `lookup`, and no section has run since
            return ""
        for dep in result.deps:
            if dep.kind != "unknown":
                why, _ = check(dep, self.base)
                if why:
                    return why
        return ""

    def dependencies_hold(self) -> str:
        """ "" when every stored entry's recorded dependencies (files read, distributions,
        engine files) are as recorded; else why not. For the no-change check, which looks at
        entries without parsing the lesson. A dependency recorded alike by several sections
        (torch's files, imported by each) is checked once."""
        held: set[Dependency] = set()
        seen: dict[str, str] = {}  # an installed file's identity, stat'ed once
        for path in sorted(self.dir.glob("*.json")):
            try:
                data = json.loads(path.read_bytes().decode("utf-8", "surrogatepass"))
                deps = data["entry"]["result"].get("deps", [])
                recorded = [Dependency.from_json(d) for d in deps]
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                return f"{path.name} unreadable"
            for dep in recorded:
                if dep in held:
                    continue
                why, _ = check(dep, self.base, seen)
                if why:
                    return why
                held.add(dep)
        return ""

    def save(self, section: Section, result: SectionResult) -> None:
        """Keep a section's result that just ran (it may have written what another read)."""
        self._held.clear()
        self._write(section, result)

    def _write(self, section: Section, result: SectionResult) -> None:
        folder = Path(result.figure_dir) if result.figure_dir else self.figure_dir(result.key)
        figures = []
        for cell in result.cells:
            for figure in cell.figures:
                for name in filter(None, (figure.file, figure.png)):
                    stat = digest(folder / name)
                    figures.append(Dependency("figure", name, name, *stat))
        entry = {
            "result": result.to_json(),
            "figures": [d.to_json() for d in figures],
            "fingerprint": self.fingerprint,
            "kernels": _selectors(),  # says why a key changed when only these did
        }
        data = {"schema": SCHEMA, "checksum": _checksum(entry), "entry": entry}
        raw = json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8", "surrogatepass")
        write_atomic(self.dir / f"{section.name}.json", raw)
        whole = hashlib.sha256(raw).hexdigest()
        self._remember(section.name, whole)
        # as the next build's lookup reads it (deck.warm): a prose edit after a build that ran
        # the section reads no entry
        read = self._read(section, raw, whole, result.key)
        if not isinstance(read, str):
            warm.put("entry", warm.key(whole, str(self.figure_dir(result.key))), read)

    def _verified(self) -> dict[str, str]:
        """The entries whose bytes are known whole (`VERIFIED`): {} when it cannot be read."""
        if self._whole is None:
            try:
                known = json.loads((self.dir / VERIFIED).read_bytes())
            except (OSError, ValueError):
                known = None
            ok = isinstance(known, dict) and all(isinstance(v, str) for v in known.values())
            self._whole = known if ok else {}
        return self._whole

    def _remember(self, name: str, whole: str) -> None:
        known = self._verified()
        if known.get(name) != whole:
            known[name] = whole
            try:
                write_atomic(self.dir / VERIFIED, json.dumps(known, sort_keys=True).encode())
            except OSError:
                pass  # (the next lookup checks the checksum itself)

    def prune(self, keep: set[str]) -> None:
        """Drop figure folders no current section result refers to, and staging folders left
        by builds that were killed (their process no longer runs)."""
        root = self.dir / "figures"
        if not root.is_dir():
            return
        for folder in root.iterdir():
            if folder.name.startswith("."):
                if not _staging_owner_alive(folder.name):
                    _remove_tree(folder)
            elif folder.name not in keep:
                _remove_tree(folder)


def staging_name(key: str) -> str:
    """A figure staging folder name unique to this process: `.<key>.<pid>.tmp`."""
    return f".{key}.{os.getpid()}.tmp"


def _staging_owner_alive(name: str) -> bool:
    parts = name.split(".")
    if len(parts) != 4 or parts[3] != "tmp" or not parts[2].isdigit():
        return False
    pid = int(parts[2])
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_tree(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
