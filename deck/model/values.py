"""The values record (`values.json`): every inline value, figure, quiz, cell output and widget a
slide shows, with the `file:line` it came from and its slide number."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any


@dataclass(frozen=True)
class ValueRecord:
    expr: str
    text: str  # as the slide shows it
    loc: str
    slide: int
    section: str


@dataclass(frozen=True)
class FigureRecord:
    label: str | None
    file: str
    caption: str
    alt: str
    loc: str
    slide: int


@dataclass(frozen=True)
class QuizRecord:
    question: str
    choices: list[str]
    answer: int  # the right choice's index
    answer_text: str
    explanation: str
    loc: str
    source: str  # the line that computed the answer
    slide: int


@dataclass(frozen=True)
class OutputRecord:
    label: str | None
    loc: str
    slide: int
    kind: str  # stdout, warning, error, text, html, …
    text: str


@dataclass(frozen=True)
class WidgetRecord:
    kind: str
    data: str  # the expression, as written
    loc: str
    slide: int


Record = ValueRecord | FigureRecord | QuizRecord | OutputRecord | WidgetRecord
KINDS: dict[str, type] = {
    "values": ValueRecord,
    "figures": FigureRecord,
    "quizzes": QuizRecord,
    "outputs": OutputRecord,
    "widgets": WidgetRecord,
}


@dataclass
class Records:
    """The records of some slides, by kind, in reading order (filled while a section renders)."""

    values: list[ValueRecord] = field(default_factory=list)
    figures: list[FigureRecord] = field(default_factory=list)
    quizzes: list[QuizRecord] = field(default_factory=list)
    outputs: list[OutputRecord] = field(default_factory=list)
    widgets: list[WidgetRecord] = field(default_factory=list)

    def extend(self, other: Records) -> None:
        for kind in KINDS:
            getattr(self, kind).extend(getattr(other, kind))

    def shifted(self, by: int) -> Records:
        """The same records, their slide numbers `by` later."""
        return Records(
            **{
                kind: [replace(r, slide=r.slide + by) for r in getattr(self, kind)]
                for kind in KINDS
            }
        )

    def to_json(self) -> dict[str, list[dict[str, Any]]]:
        """By kind; widgets only when there are any (as a deck without them always had it)."""
        data = {kind: [_as_dict(r) for r in getattr(self, kind)] for kind in KINDS}
        if not self.widgets:
            del data["widgets"]
        return data

    @staticmethod
    def from_json(data: dict[str, Any]) -> Records:
        records = Records()
        for kind, record_type in KINDS.items():
            names = [f.name for f in fields(record_type)]
            for item in data.get(kind, []):
                if set(item) != set(names):
                    raise ValueError(f"a {kind} record has keys {sorted(item)}")
                getattr(records, kind).append(record_type(**item))
        return records


_NAMES: dict[type, tuple[str, ...]] = {
    kind: tuple(f.name for f in fields(kind)) for kind in KINDS.values()
}


def _as_dict(record: Record) -> dict[str, Any]:
    """`dataclasses.asdict` of a record, field by field (a deck has hundreds of records and
    asdict copies each value through its deep-copying walk; a record's only container is a
    quiz's list of choices, copied here)."""
    data = {name: getattr(record, name) for name in _NAMES[type(record)]}
    if isinstance(record, QuizRecord):
        data["choices"] = list(record.choices)
    return data
