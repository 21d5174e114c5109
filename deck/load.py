"""Loading a lesson folder: `lesson.yml` and its section files, parsed, all problems at once."""

from __future__ import annotations

import re
from pathlib import Path

from deck.config import LessonConfig, parse_config
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
    config, meta = LessonConfig(), {}
    if not meta_path.is_file():
        diagnostics.append(
            Diagnostic(Loc(display_path(meta_path), 1), "lesson", "missing lesson.yml")
        )
    else:
        config, meta, found = parse_config(meta_path.read_text("utf-8"), display_path(meta_path))
        diagnostics.extend(found)
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
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        raise DeckError(errors)
    warnings = tuple(d for d in diagnostics if d.severity != "error")
    return Lesson(folder.name, folder, meta, tuple(sections), config, warnings)
