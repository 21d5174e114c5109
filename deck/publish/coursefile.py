"""`content/course.yml`, optional: the course page's title, lecturer, term, language, short
description, lesson order and whether it links the lecturer's notes (`lecturer-notes`), read
with the keys `deck.source.schemacourse` declares, by the engine lesson.yml is read with (a
wrong value is an error at its line, an unknown key a warning naming the nearest known key)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from deck.errors import DeckError, Diagnostic

COURSE_FILE = "course.yml"


@dataclass(frozen=True)
class CourseConfig:
    title: str | None = None
    lecturer: str | None = None
    term: str | None = None
    description: str | None = None
    lang: str | None = None
    lessons: tuple[str, ...] = ()  # the order; lessons it does not name follow by name
    # notes.pdf (the answer key) is linked for no lesson (False, the default), every lesson
    # (True) or the lessons named
    lecturer_notes: bool | tuple[str, ...] = False
    warnings: tuple[Diagnostic, ...] = ()

    def links_notes(self, name: str) -> bool:
        """Whether the course page links lesson `name`'s lecturer's notes (notes.pdf)."""
        notes = self.lecturer_notes
        return notes if isinstance(notes, bool) else name in notes


def read_course(content: Path, known: set[str]) -> CourseConfig:
    """The course settings (all defaults without the file); raises DeckError naming each
    wrong value at its line, including a lesson that is not a lesson folder of `content`."""
    path = content / COURSE_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return CourseConfig()
    import yaml

    from deck.source.config import yaml_error
    from deck.source.prepass import decoded
    from deck.source.schema import Reading
    from deck.source.schemacourse import COURSE_SCHEMA, Lessons

    shown = str(path)
    text = decoded(data, shown)  # not UTF-8: an error at the line of its first bad byte
    if isinstance(text, Diagnostic):
        raise DeckError([text])
    diagnostics: list[Diagnostic] = []
    try:
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        raise DeckError([yaml_error(exc, shown)]) from None
    reading = Reading(shown, diagnostics, context=Lessons(content, known))
    values = COURSE_SCHEMA.read(node, reading) if node is not None else {}
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        raise DeckError(errors)
    warnings = tuple(d for d in diagnostics if d.severity != "error")
    fields = {key.replace("-", "_"): value for key, value in values.items()}
    return CourseConfig(**fields, warnings=warnings)
