"""The immutable values that flow through a build: a lesson's config, the lesson as parsed, what
running its sections produced, and the values record. Every stage imports them from here.

The names are loaded on first use (PEP 562), so a no-change build, which needs the
settings alone, does not create the lesson's and results' dataclasses (30 ms)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The same names as imports, for readers of the source: type checkers, and the static walk of
# deck's imports that picks the engine files a notebook ships (deck.publish.notebook).
if TYPE_CHECKING:
    from deck.errors import Loc
    from deck.model.config import (
        DEFAULT_OUTPUT_LIMIT,
        DEFAULT_TIMEOUT,
        CitationConfig,
        ExecConfig,
        LessonConfig,
        QuizConfig,
        SlideConfig,
        WidgetKind,
        WidgetSource,
    )
    from deck.model.lesson import (
        Block,
        Cell,
        Choice,
        Code,
        Column,
        Columns,
        Div,
        InlineExpr,
        Lesson,
        Notes,
        Pause,
        Prose,
        Quiz,
        Section,
        SectionSettings,
        Slide,
        placeholder,
        walk_blocks,
    )
    from deck.model.results import CellResult, Dependency, Figure, Output, SectionResult
    from deck.model.values import (
        FigureRecord,
        OutputRecord,
        QuizRecord,
        Records,
        ValueRecord,
        WidgetRecord,
    )

_WHERE = {
    "Loc": "deck.errors",
    "DEFAULT_OUTPUT_LIMIT": "deck.model.config",
    "DEFAULT_TIMEOUT": "deck.model.config",
    "CitationConfig": "deck.model.config",
    "ExecConfig": "deck.model.config",
    "LessonConfig": "deck.model.config",
    "QuizConfig": "deck.model.config",
    "SlideConfig": "deck.model.config",
    "WidgetKind": "deck.model.config",
    "WidgetSource": "deck.model.config",
    "Block": "deck.model.lesson",
    "Cell": "deck.model.lesson",
    "Choice": "deck.model.lesson",
    "Code": "deck.model.lesson",
    "Column": "deck.model.lesson",
    "Columns": "deck.model.lesson",
    "Div": "deck.model.lesson",
    "InlineExpr": "deck.model.lesson",
    "Lesson": "deck.model.lesson",
    "Notes": "deck.model.lesson",
    "Pause": "deck.model.lesson",
    "Prose": "deck.model.lesson",
    "Quiz": "deck.model.lesson",
    "Section": "deck.model.lesson",
    "SectionSettings": "deck.model.lesson",
    "Slide": "deck.model.lesson",
    "placeholder": "deck.model.lesson",
    "walk_blocks": "deck.model.lesson",
    "CellResult": "deck.model.results",
    "Dependency": "deck.model.results",
    "Figure": "deck.model.results",
    "Output": "deck.model.results",
    "SectionResult": "deck.model.results",
    "FigureRecord": "deck.model.values",
    "OutputRecord": "deck.model.values",
    "QuizRecord": "deck.model.values",
    "Records": "deck.model.values",
    "ValueRecord": "deck.model.values",
    "WidgetRecord": "deck.model.values",
}

__all__ = [
    "DEFAULT_OUTPUT_LIMIT",
    "DEFAULT_TIMEOUT",
    "Block",
    "Cell",
    "CellResult",
    "Choice",
    "Code",
    "Column",
    "Columns",
    "Dependency",
    "Div",
    "ExecConfig",
    "Figure",
    "FigureRecord",
    "InlineExpr",
    "Lesson",
    "LessonConfig",
    "Loc",
    "Notes",
    "Output",
    "OutputRecord",
    "Pause",
    "Prose",
    "Quiz",
    "QuizConfig",
    "CitationConfig",
    "QuizRecord",
    "Records",
    "Section",
    "SectionResult",
    "SectionSettings",
    "Slide",
    "SlideConfig",
    "ValueRecord",
    "WidgetKind",
    "WidgetRecord",
    "WidgetSource",
    "placeholder",
    "walk_blocks",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'deck.model' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
