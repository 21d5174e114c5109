"""Per-section cache keys and an atomic JSON store under `.cache/`.

The key covers what can change a section's computed results: its cells and inline
expressions (whitespace-normalised), the lesson's Python modules and seed, the versions of
Python and the numeric libraries, and the engine's execution code. Prose, notes and line
numbers are not in it, so editing them re-runs nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from deck.model import Lesson, Section, SectionResult

SCHEMA = 1
# options that change what running a cell produces
KEYED_OPTIONS = ("label", "timeout", "error", "fig-width", "fig-height")
ENGINE_FILES = ("worker.py", "show.py", "figures.py", "static/matplotlibrc")


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "-"


def _normalise(code: str) -> str:
    lines = [line.rstrip() for line in code.strip().splitlines()]
    return "\n".join(line for line in lines if line)


def environment_fingerprint(lesson: Lesson) -> str:
    """Everything shared by all sections of a lesson that affects their results."""
    h = hashlib.sha256()
    h.update(f"schema={SCHEMA};python={sys.version};".encode())
    for dist in ("torch", "numpy", "matplotlib"):
        h.update(f"{dist}={_version(dist)};".encode())
    h.update(json.dumps(lesson.config.exec.fingerprint(), sort_keys=True).encode())
    engine = Path(__file__).parent
    for name in ENGINE_FILES:
        h.update(name.encode() + b"\0" + (engine / name).read_bytes())
    for path in sorted(lesson.path.rglob("*.py")):
        if "__pycache__" not in path.parts:
            rel = path.relative_to(lesson.path).as_posix()
            h.update(rel.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def cache_key(section: Section, fingerprint: str) -> str:
    h = hashlib.sha256(fingerprint.encode())
    h.update(section.name.encode())
    for cell in section.cells():
        options = {k: cell.options[k] for k in KEYED_OPTIONS if k in cell.options}
        h.update(b"\0cell\0" + json.dumps(options, sort_keys=True).encode())
        h.update(_normalise(cell.code).encode())
    for expr in sorted({e.expr.strip() for e in section.inlines}):
        h.update(b"\0inline\0" + expr.encode())
    return h.hexdigest()[:32]


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Store:
    """`<root>/<lesson>/<section>.json` holds the last good result; figures beside it."""

    def __init__(self, root: Path, lesson: str):
        self.dir = root / lesson

    def figure_dir(self, key: str) -> Path:
        return self.dir / "figures" / key

    def load(self, section: Section, key: str) -> SectionResult | None:
        path = self.dir / f"{section.name}.json"
        try:
            data: dict[str, Any] = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if data.get("key") != key or not self.figure_dir(key).is_dir():
            return None
        return SectionResult.from_json(data, str(self.figure_dir(key)))

    def save(self, section: Section, result: SectionResult) -> None:
        data = json.dumps(result.to_json(), ensure_ascii=False, indent=1)
        write_atomic(self.dir / f"{section.name}.json", data.encode("utf-8"))

    def prune(self, keep: set[str]) -> None:
        """Drop figure folders no current section result refers to."""
        root = self.dir / "figures"
        if root.is_dir():
            for folder in root.iterdir():
                if folder.name not in keep and not folder.name.startswith("."):
                    for f in folder.iterdir():
                        f.unlink()
                    folder.rmdir()
