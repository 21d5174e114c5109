"""Loading a lesson folder: `lesson.yml` and its section files, parsed, all problems at once."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import yaml

import deck.warm as warm
from deck.blocks.quiz import plan_answer_slots
from deck.errors import DeckError, Diagnostic
from deck.model import Cell, Lesson, LessonConfig, Loc, Section, SectionSettings
from deck.model.config import SetupSource
from deck.source.contain import escapes
from deck.source.deckwide import dressed, read_includes
from deck.source.lessonyml import find_project, lesson_settings
from deck.source.prepass import Context, decoded, display_path, project_variables
from deck.source.scanner import Dialect, parse_section
from deck.source.widgetkinds import load_widget_kinds

SECTION_FILE = re.compile(r"^\d+[-_].*\.md$")
# Files that look like lesson text but are not read: each gets a one-line note.
MARKDOWN_SUFFIXES = {".md", ".markdown", ".qmd"}


def read_text(path: Path) -> str | Diagnostic:
    """A source file's text (UTF-8, a byte-order mark allowed), or the error at the line of its
    first byte that is not UTF-8."""
    return decoded(path.read_bytes(), display_path(path))


def ignored_files(folder: Path, read: set[Path]) -> list[Diagnostic]:
    """A note for each file beside the sections that looks like lesson text but is not read
    (neither a section file nor included by one: `read` holds those, resolved)."""
    notes = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() in MARKDOWN_SUFFIXES and not SECTION_FILE.match(path.name):
            if path.resolve() in read:
                continue
            message = f"{path.name} is not read: section files are named NN-name.md"
            notes.append(Diagnostic(Loc(display_path(path), 1), "lesson", message, "warning"))
    return notes


def raw_yaml(path: Path) -> dict[str, Any]:
    """`lesson.yml` as written: what `{{< meta >}}` reads (its problems are reported where
    it is checked)."""
    try:
        values = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    return values if isinstance(values, dict) else {}


def project(folder: Path, diagnostics: list[Diagnostic]) -> tuple[str, str] | None:
    """The text and path of a `_quarto.yml` beside the lesson (read under its lesson.yml)."""
    found = find_project(folder)
    if found is None:
        return None
    text = read_text(found)
    if isinstance(text, Diagnostic):
        diagnostics.append(text)
        return None
    return text, display_path(found)


def with_setup(
    sections: list[Section], setup: SetupSource, folder: Path, diagnostics: list[Diagnostic]
) -> list[Section]:
    """Each section starting with the lesson's setup module (`setup:` in lesson.yml): a cell
    `from <module> import *` run first, after seeding, showing nothing (the slides, handouts
    and notes never see it; the notebook runs it with its first cell). An error in the module
    is reported at its own line, and its lines are an input of every section."""
    if not (folder / f"{setup.module}.py").is_file():
        message = f"`setup`: no file {setup.module}.py in the lesson's folder"
        diagnostics.append(Diagnostic(setup.loc, "config", message))
        return sections
    cell = Cell(f"from {setup.module} import *", {}, setup.loc, setup.loc.line, replay=True)
    started = []
    for section in sections:
        if not section.slides:
            started.append(section)
            continue
        first = section.slides[0]
        slides = (dataclasses.replace(first, blocks=(cell, *first.blocks)), *section.slides[1:])
        settings = dataclasses.replace(section.settings, setup=setup.module)
        started.append(dataclasses.replace(section, slides=slides, settings=settings))
    return started


def _parsed(
    path: Path, rel: str, text: str, dialect: Dialect, context: Context, included: list[Path]
) -> tuple[Section, list[Diagnostic]]:
    """`parse_section`, or the same file's parse kept from an earlier build (deck.warm): a
    file without shortcodes, whose parse is its text's, its names' and the dialect's alone."""
    if "{{<" in text:  # (what a shortcode reads is more than the file: parsed each time)
        return parse_section(path, rel, text, dialect, context, included)
    at = warm.key(str(path), rel, text, repr(dialect))
    kept = warm.get("section", at)
    if kept is None:
        kept = parse_section(path, rel, text, dialect, context, included)
        warm.put("section", at, kept)
    section, problems = kept
    return section, list(problems)


def load_lesson(folder: Path) -> Lesson:
    """Read `lesson.yml` and every `NN-*.md` section in name order; raise with all problems."""
    diagnostics: list[Diagnostic] = []
    meta_path = folder / "lesson.yml"
    rel = display_path(meta_path)
    config = LessonConfig()
    values: dict[str, Any] = {}
    locs: dict[str, Loc] = {}
    if not meta_path.is_file():
        diagnostics.append(Diagnostic(Loc(rel, 1), "lesson", "missing lesson.yml"))
    else:
        text = read_text(meta_path)
        if isinstance(text, Diagnostic):
            diagnostics.append(text)
        else:
            config, values, locs = lesson_settings(
                text, rel, project(folder, diagnostics), diagnostics
            )
            config = read_includes(config, folder, locs, rel, diagnostics)
    files = sorted(p for p in folder.glob("*.md") if SECTION_FILE.match(p.name) and p.is_file())
    if not files:
        diagnostics.append(
            Diagnostic(Loc(display_path(folder), 1), "lesson", "no section files NN-name.md")
        )
    widgets, problems = load_widget_kinds(folder, config.widgets)
    diagnostics.extend(problems)
    summaries = {kind.name: kind.summary for kind in widgets}
    # a kind that failed to load is still known by name: its directives add no second error
    meta = raw_yaml(meta_path)
    widget_formats = {w.name: summaries.get(w.name, "") for w in config.widgets}
    dialect = Dialect(widgets=widget_formats, meta=meta)
    context = Context(folder, meta, project_variables(folder, diagnostics))
    sections = []
    included: list[Path] = []
    for path in files:
        text = read_text(path)
        if isinstance(text, Diagnostic):
            diagnostics.append(text)
            continue
        section, problems = _parsed(path, display_path(path), text, dialect, context, included)
        settings = SectionSettings(
            config.lang,
            incremental=config.slides.incremental,
            code_line_numbers=config.slides.code_line_numbers,
            seed=config.exec.seed,
            shuffle_quizzes=config.quiz.shuffle,
        )
        sections.append(dataclasses.replace(section, settings=settings))
        diagnostics.extend(problems)
        if not section.slides and all(d.severity != "error" for d in problems):
            message = "the section has no slides: write one (`## Title`) or remove the file"
            diagnostics.append(Diagnostic(Loc(section.rel, 1), "lesson", message))
    diagnostics.extend(ignored_files(folder, set(included)))
    if config.setup is not None:
        sections = with_setup(sections, config.setup, folder, diagnostics)
    sections = dressed(sections, config, values, locs, rel)
    if config.quiz.shuffle:
        plan = plan_answer_slots(sections, config.exec.seed)
        sections = [
            dataclasses.replace(s, settings=dataclasses.replace(s.settings, answer_slots=slots))
            for s, slots in zip(sections, plan, strict=True)
        ]
    lesson = Lesson(folder.name, folder, tuple(sections), config, (), widgets)
    diagnostics.extend(escapes(lesson, locs))
    errors = [d for d in diagnostics if d.severity == "error"]
    warnings = tuple(d for d in diagnostics if d.severity != "error")
    if errors:  # (its warnings too: a typo's did-you-mean may be why it fails)
        raise DeckError([*errors, *warnings])
    return dataclasses.replace(lesson, warnings=warnings)
