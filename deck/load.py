"""Loading a lesson folder: `lesson.yml` and its section files, parsed, all problems at once."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from deck.errors import DeckError, Diagnostic
from deck.model import Lesson, Loc
from deck.parse import parse_section

SECTION_FILE = re.compile(r"^\d+[-_].*\.md$")


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def load_lesson(folder: Path) -> Lesson:
    """Read `lesson.yml` and every `NN-*.md` section in name order; raise with all problems."""
    diagnostics: list[Diagnostic] = []
    meta_path = folder / "lesson.yml"
    meta: dict[str, Any] = {}
    if not meta_path.is_file():
        diagnostics.append(
            Diagnostic(Loc(display_path(meta_path), 1), "lesson", "missing lesson.yml")
        )
    else:
        try:
            loaded = yaml.safe_load(meta_path.read_text(encoding="utf-8")) or {}
            if not isinstance(loaded, dict):
                raise yaml.YAMLError("lesson.yml must be a mapping")
            meta = loaded
        except yaml.YAMLError as exc:
            line = getattr(getattr(exc, "problem_mark", None), "line", 0) + 1
            diagnostics.append(
                Diagnostic(Loc(display_path(meta_path), line), "lesson", f"bad YAML: {exc}")
            )
    files = sorted(p for p in folder.glob("*.md") if SECTION_FILE.match(p.name))
    if not files:
        diagnostics.append(
            Diagnostic(Loc(display_path(folder), 1), "lesson", "no section files NN-name.md")
        )
    sections = []
    for path in files:
        section, problems = parse_section(path, display_path(path), path.read_text("utf-8"))
        sections.append(section)
        diagnostics.extend(problems)
    if diagnostics:
        raise DeckError(diagnostics)
    return Lesson(folder.name, folder, meta, tuple(sections))
