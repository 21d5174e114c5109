"""Frozen results: each section's results written beside the lesson to be committed
(`content/<lesson>/_freeze/<section>.json`, its figures in `_freeze/<section>_files/`), so a
clone with no cache, or a machine without the lesson's packages, builds the deck without
running a cell.

A record holds the section's results (values, outputs, figures' checksums), what its code was
(the Python version, the exec settings, the lesson's modules by content, each cell and inline
expression by digest: the parts of the section cache's key that mean the same on any machine)
and what it depended on in portable form (`deck.store.portable`). It stands while every part
is as recorded; the CPU it ran on is recorded (`computed`), not required: a frozen result is
the numbers of the machine that froze it. JSON with sorted keys, one file a section, figures
as files: a diff reviews well, and an unchanged result writes no byte.

A record taken is written into the section cache as an entry of its own (`seed`), which depends
on the record's file: a later build finds it there, and a new record replaces it.
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from deck.errors import Loc
from deck.model import Dependency, Lesson, Section, SectionResult
from deck.progress import counted
from deck.store.files import content_hash, digest, write_atomic
from deck.store.portable import Places, absent, check, from_json, to_local, to_portable
from deck.store.sections import KEYED_OPTIONS, Store, lesson_modules, staging_name
from deck.theme import FREEZE_FOLDER

SCHEMA = 1
NONE = "no frozen result"
DAMAGED = "frozen result damaged"


def freeze_dir(lesson: Lesson) -> Path:
    """`<lesson>/_freeze/` for a lesson folder; `_freeze/<name>/deck/` beside a `.qmd` (Quarto
    keeps its own `_freeze/<name>/execute-results/`)."""
    if (lesson.path / "lesson.yml").is_file():
        return lesson.path / FREEZE_FOLDER
    return lesson.path / FREEZE_FOLDER / lesson.name / "deck"


def _short(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def lesson_parts(lesson: Lesson, skip: tuple[Path, ...] = ()) -> dict[str, Any]:
    """What every section of the lesson shares in its frozen key: the Python version, the exec
    settings that change results, the lesson's modules by content (`skip`: the build's own
    folders, `lesson_modules`)."""
    python = f"{platform.python_implementation()} {platform.python_version()}"
    if lesson.config.python:  # a `.qmd`'s own interpreter (its path is this machine's)
        from deck.interpreter import describe

        python += f"; {describe(lesson.config.python)}"
    modules = {
        path.relative_to(lesson.path).as_posix(): content_hash(path)
        for path in lesson_modules(lesson, skip)
    }
    settings = dict(lesson.config.exec.fingerprint(), output=lesson.config.exec.output_limit)
    return {"python": python, "settings": settings, "modules": modules}


def section_parts(section: Section) -> dict[str, Any]:
    """The section's code as the cache key has it: each cell (keyed options and code as
    written) and each inline expression, by digest."""
    cells = []
    for cell in section.cells():
        options = {k: cell.options[k] for k in KEYED_OPTIONS if k in cell.options}
        cells.append(_short(json.dumps(options, sort_keys=True) + "\0" + cell.code))
    inlines = sorted({_short(e.expr) for e in section.inlines})
    return {"cells": cells, "inlines": inlines}


def frozen_key(name: str, parts: dict[str, Any]) -> str:
    text = json.dumps({"section": name, **parts}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True)
class Found:
    """A lookup's answer: the record when it stands, else why not and the line to blame."""

    record: dict[str, Any] | None
    why: str = ""
    at: Loc | None = None  # the cell that changed, else the section's first
    absent: tuple[str, ...] = ()  # distributions it was computed with, not installed here
    host: dict[str, Any] = field(default_factory=dict)  # what it was computed on


class Frozen:
    """The frozen results of one lesson."""

    def __init__(self, lesson: Lesson, project: Path | None = None, skip: tuple[Path, ...] = ()):
        self.lesson = lesson
        self.skip = skip  # the build's own folders (out, figures, cache)
        self.dir = freeze_dir(lesson)
        self.project = (project or Path.cwd()).resolve()
        self._shared: dict[str, Any] | None = None
        self._seen: dict[str, str] = {}  # installed versions, read once

    @property
    def shared(self) -> dict[str, Any]:
        if self._shared is None:
            self._shared = lesson_parts(self.lesson, self.skip)
        return self._shared

    def parts(self, section: Section) -> dict[str, Any]:
        return {**self.shared, **section_parts(section)}

    def path(self, section: Section) -> Path:
        return self.dir / f"{section.name}.json"

    def figures(self, section: Section) -> Path:
        """The section's figure files, beside its record (`_freeze/02-figure_files/`, as Quarto
        names a document's: never a folder named `figures`, which many a .gitignore leaves
        out)."""
        return self.dir / f"{section.name}_files"

    def lookup(self, section: Section) -> Found:
        first = next((c.loc for c in section.cells()), None)
        path = self.path(section)
        try:
            record = json.loads(path.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            return Found(None, NONE, first)
        except (OSError, ValueError) as exc:
            return Found(None, f"{DAMAGED} ({type(exc).__name__})", first)
        try:
            if record.get("deck-frozen") != SCHEMA:
                return Found(None, f"{DAMAGED} (format {record.get('deck-frozen')!r})", first)
            inputs = from_json(record["inputs"])
            SectionResult.from_json({**record["result"], "key": "", "seconds": 0})
            figures = dict(record["figures"])
            code = dict(record["code"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            return Found(None, f"{DAMAGED} ({type(exc).__name__}: {exc})", first)
        parts = self.parts(section)
        if record.get("key") != frozen_key(section.name, parts):
            why, at = self._changed(section, code, parts)
            return Found(None, why, at or first)
        for dep in inputs:
            why = check(dep, self.lesson.path, self._seen)
            if why:
                return Found(None, why, first)
        folder = self.figures(section)
        for name, sha in sorted(figures.items()):
            try:
                same = content_hash(folder / name) == sha
            except OSError:
                same = False
            if not same:
                return Found(None, f"{DAMAGED} (figure {name})", first)
        host = dict(record.get("computed", {}).get("host") or {})
        return Found(record, "", first, tuple(absent(inputs, self._seen)), host)

    def _changed(
        self, section: Section, code: dict[str, Any], parts: dict[str, Any]
    ) -> tuple[str, Loc | None]:
        """Why the key differs, at the first cell (or inline expression) that changed if one
        did."""
        if code.get("python") != parts["python"]:
            return f"frozen with {code.get('python')}, this is {parts['python']}", None
        if code.get("settings") != parts["settings"]:
            return "exec settings changed (lesson.yml)", None
        old, new = code.get("modules") or {}, parts["modules"]
        if old != new:
            names = sorted(n for n in {*old, *new} if old.get(n) != new.get(n))
            return f"lesson module {', '.join(names)} changed", None
        cells = section.cells()
        for cell, before, now in zip(cells, code.get("cells") or [], parts["cells"], strict=False):
            if before != now:
                return "code changed", cell.loc
        if len(code.get("cells") or []) != len(parts["cells"]):
            return "cells added or removed", None
        known = set(code.get("inlines") or [])
        for expr in section.inlines:
            if _short(expr.expr) not in known:
                return f"inline expression `{expr.expr}` is new", expr.loc
        return "inline expressions changed", None

    def seed(self, section: Section, found: Found, store: Store, key: str) -> SectionResult:
        """The record as this machine's cache entry under `key` (its figures copied, its
        inputs with this machine's identities, plus the record's own file)."""
        record = found.record
        assert record is not None
        folder = store.figure_dir(key)
        staging = folder.with_name(staging_name(key))
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for name in sorted(record["figures"]):
            shutil.copyfile(self.figures(section) / name, staging / name)
        shutil.rmtree(folder, ignore_errors=True)
        staging.rename(folder)
        rel = self.path(section).relative_to(self.lesson.path).as_posix()
        own = Dependency("file", rel, rel, *digest(self.path(section)))
        deps = (*to_local(from_json(record["inputs"]), self.lesson.path), own)
        seconds = float(record.get("computed", {}).get("seconds", 0.0))
        data = {**record["result"], "key": key, "seconds": seconds}
        result = replace(SectionResult.from_json(data, str(folder)), deps=deps)
        store.save(section, result)
        return result

    def write(self, section: Section, result: SectionResult) -> bool:
        """Freeze `result` (computed or checked by this build); whether a file changed. A
        result taken from this very record is left as it is."""
        if is_seeded(result):
            return False
        inputs, left_out = to_portable(result.deps, Places(self.lesson.path, self.project))
        data = result.to_json()
        for name in ("key", "seconds", "deps"):
            data.pop(name, None)
        source = Path(result.figure_dir)
        folder = self.figures(section)
        figures: dict[str, str] = {}
        changed = False
        for cell in result.cells:
            for figure in cell.figures:
                for name in filter(None, (figure.file, figure.png)):
                    content = (source / name).read_bytes()
                    figures[name] = hashlib.sha256(content).hexdigest()
                    changed |= _write_if_changed(folder / name, content)
        for old in sorted(folder.iterdir()) if folder.is_dir() else []:
            if old.name not in figures:
                old.unlink()
                changed = True
        parts = self.parts(section)
        record = {  # keys in order; the result's own as the worker wrote them (values.json's)
            "code": {k: parts[k] for k in sorted(parts)},
            "computed": {"host": self._host(result), "seconds": result.seconds},
            "deck-frozen": SCHEMA,
            "figures": dict(sorted(figures.items())),
            "inputs": inputs,
            "key": frozen_key(section.name, parts),
            "left_out": left_out,
            "result": data,
            "section": section.name,
        }
        text = _dumps(record)
        changed |= _write_if_changed(self.path(section), text.encode("utf-8", "surrogatepass"))
        return changed

    @staticmethod
    def _host(result: SectionResult) -> dict[str, Any]:
        """What chose the kernels where `result` was computed: this machine's, unless it came
        from elsewhere (a cluster's worker: unknown here, {})."""
        if any(d.kind == "version" for d in result.deps):
            return {}
        from deck.host import kernel_selectors

        return dict(kernel_selectors())

    def prune(self, keep: set[str]) -> bool:
        """Remove the records and figures of sections no longer in the lesson."""
        changed = False
        for path in sorted(self.dir.glob("*.json")):
            if path.stem not in keep:
                path.unlink()
                changed = True
        for folder in sorted(self.dir.iterdir()) if self.dir.is_dir() else []:
            if folder.is_dir() and folder.name.removesuffix("_files") not in keep:
                shutil.rmtree(folder)
                changed = True
        return changed


STRING = r'"(?:[^"\\]|\\.)*"'
TRIPLE = re.compile(rf"\[\n\s+({STRING}),\n\s+({STRING}),\n\s+({STRING})\n\s+\]")


def _dumps(record: dict[str, Any]) -> str:
    """One level a line, each input `[kind, name, state]` on one line."""
    text = json.dumps(record, ensure_ascii=False, indent=1)
    return TRIPLE.sub(r"[\1, \2, \3]", text) + "\n"


def is_seeded(result: SectionResult) -> bool:
    """Whether a cache entry was taken from a frozen record (it depends on the record)."""
    return any(d.kind == "file" and d.path.startswith(f"{FREEZE_FOLDER}/") for d in result.deps)


def _write_if_changed(path: Path, content: bytes) -> bool:
    try:
        if path.read_bytes() == content:
            return False
    except OSError:
        pass
    write_atomic(path, content)
    return True


def freeze_lesson(
    lesson: Lesson, results: dict[str, SectionResult], project: Path, skip: tuple[Path, ...]
) -> str:
    """Write every section's frozen record; what was done, for the log."""
    frozen = Frozen(lesson, project, skip)
    written = [s.name for s in lesson.sections if frozen.write(s, results[s.name])]
    pruned = frozen.prune({s.name for s in lesson.sections})
    where = frozen.dir.as_posix()
    if not written and not pruned:
        return f"{where}/ unchanged ({counted(len(lesson.sections), 'section')})"
    return f"{where}/: {len(written)} of {len(lesson.sections)} sections written" + (
        ", old records removed" if pruned else ""
    )
