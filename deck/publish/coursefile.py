"""`content/course.yml`, optional: the course page's title, lecturer, term, language, short
description, lesson order and whether it links the lecturer's notes (`lecturer-notes`),
checked with line numbers as lesson.yml is (a wrong value is an error at its line, an unknown
key a warning naming the nearest known key)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deck.errors import DeckError, Diagnostic, Loc

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

    from deck.source.config import NodeCheck, as_text, check_mapping, yaml_error
    from deck.source.prepass import decoded

    shown = str(path)
    text = decoded(data, shown)  # not UTF-8: an error at the line of its first bad byte
    if isinstance(text, Diagnostic):
        raise DeckError([text])
    diagnostics: list[Diagnostic] = []

    def lessons(node: yaml.Node, name: str, at_path: str, found: list[Diagnostic], _: Any):
        at = Loc(at_path, node.start_mark.line + 1)
        if not isinstance(node, yaml.SequenceNode):
            found.append(Diagnostic(at, "config", f"`{name}` must be a list of lesson folders"))
            return None
        return lesson_list(node, name, at_path, found)

    def notes(node: yaml.Node, name: str, at_path: str, found: list[Diagnostic], _: Any):
        at = Loc(at_path, node.start_mark.line + 1)
        if isinstance(node, yaml.SequenceNode):
            return lesson_list(node, name, at_path, found)
        scalar = isinstance(node, yaml.ScalarNode)
        if not scalar or not isinstance(yaml.safe_load(yaml.serialize(node)), bool):
            shown = node.value if scalar else "…"
            message = (
                f"`{name}: {shown}` must be true (link every lesson's notes.pdf, the answer "
                "key, on the course page), false (the default) or a list of lesson folders"
            )
            found.append(Diagnostic(at, "config", message))
            return None
        return yaml.safe_load(yaml.serialize(node))

    def lesson_list(node: yaml.SequenceNode, name: str, at_path: str, found: list[Diagnostic]):
        order: list[str] = []
        for item in node.value:
            loc = Loc(at_path, item.start_mark.line + 1)
            value = item.value if isinstance(item, yaml.ScalarNode) else None
            if not isinstance(value, str) or value not in known:
                names = ", ".join(sorted(known)) or "none"
                message = f"`{name}`: {value!r} is not a lesson folder of {content} ({names})"
                found.append(Diagnostic(loc, "config", message))
            elif value in order:
                found.append(Diagnostic(loc, "config", f"`{name}`: {value} is named twice"))
            else:
                order.append(value)
        return tuple(order)

    schema = {
        "title": as_text,
        "lecturer": as_text,
        "term": as_text,
        "description": as_text,
        "lang": as_text,
        "lessons": NodeCheck(lessons),
        "lecturer-notes": NodeCheck(notes),
    }
    try:
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        raise DeckError([yaml_error(exc, shown)]) from None
    values = check_mapping(node, schema, "", shown, diagnostics) if node is not None else {}
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        raise DeckError(errors)
    warnings = tuple(d for d in diagnostics if d.severity != "error")
    fields = {key.replace("-", "_"): value for key, value in values.items()}
    return CourseConfig(**fields, warnings=warnings)
