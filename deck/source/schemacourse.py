"""`content/course.yml`'s keys, declared for the schema engine (`deck.source.schema`): the
course page's title, lecturer, term, language, short description, lesson order and whether it
links the lecturer's notes. `deck.publish.coursefile` reads the file with them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from deck.source.schema import Key, Reading, Schema, plain, text


@dataclass(frozen=True)
class Lessons:
    """What a course.yml is read against (its reading's `context`): the lesson folders."""

    content: Path
    known: set[str]


def _lesson_list(node: yaml.SequenceNode, name: str, reading: Reading) -> tuple[str, ...]:
    lessons: Lessons = reading.context
    order: list[str] = []
    for item in node.value:
        value = item.value if isinstance(item, yaml.ScalarNode) else None
        if not isinstance(value, str) or value not in lessons.known:
            names = ", ".join(sorted(lessons.known)) or "none"
            message = f"`{name}`: {value!r} is not a lesson folder of {lessons.content} ({names})"
            reading.error(item, message)
        elif value in order:
            reading.error(item, f"`{name}`: {value} is named twice")
        else:
            order.append(value)
    return tuple(order)


def _lessons(node: yaml.Node, name: str, reading: Reading) -> tuple[str, ...] | None:
    if not isinstance(node, yaml.SequenceNode):
        reading.error(node, f"`{name}` must be a list of lesson folders")
        return None
    return _lesson_list(node, name, reading)


def _notes(node: yaml.Node, name: str, reading: Reading) -> Any:
    if isinstance(node, yaml.SequenceNode):
        return _lesson_list(node, name, reading)
    scalar = isinstance(node, yaml.ScalarNode)
    if not scalar or not isinstance(plain(node), bool):
        shown = node.value if scalar else "…"
        message = (
            f"`{name}: {shown}` must be true (link every lesson's notes.pdf, the answer "
            "key, on the course page), false (the default) or a list of lesson folders"
        )
        reading.error(node, message)
        return None
    return plain(node)


COURSE_SCHEMA = Schema(
    "course.yml",
    {
        "title": text("the course page's title"),
        "lecturer": text("who teaches it, under the title"),
        "term": text("when, beside the lecturer"),
        "description": text("a short introduction under them"),
        "lang": text("the page's language", shown="the first lesson's"),
        "lessons": Key(
            "list of lesson folders",
            "the lessons' order; lessons not named follow by name",
            read=_lessons,
            default=(),
            shown="by folder name",
        ),
        "lecturer-notes": Key(
            "true/false or list of lesson folders",
            "link the lecturer's `notes.pdf` (the answer key): `true` every lesson's, a list "
            "those lessons'",
            read=_notes,
            default=False,
        ),
    },
    "`content/course.yml`, optional: the course page (`dist/index.html`).",
)
