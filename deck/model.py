"""The immutable values that flow through a build: source locations, lessons, slides, results."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deck.config import LessonConfig


@dataclass(frozen=True)
class Loc:
    """A place in a source file: the path as the author knows it and a 1-based line."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class InlineExpr:
    """`` `{python} expr` `` in prose; `index` is its placeholder number within the section."""

    index: int
    expr: str
    loc: Loc


@dataclass(frozen=True)
class Prose:
    """Markdown text; inline expressions are replaced by placeholders (see `placeholder`)."""

    text: str
    loc: Loc


@dataclass(frozen=True)
class Cell:
    """An executed `{python}` cell; `code_line` is the .md line of its first code line.

    A `replay` cell is an earlier cell of a `.qmd` run again, silently, at the start of a later
    part to rebuild the state that part reads (see `deck.replay`); it shows nothing."""

    code: str
    options: dict[str, Any]
    loc: Loc
    code_line: int
    replay: bool = False

    @property
    def label(self) -> str | None:
        return self.options.get("label")


@dataclass(frozen=True)
class Code:
    """An ordinary fenced code block (not executed), highlighted by Pygments. `attrs` holds
    what its fence's braces set (`{.python code-line-numbers="1-3|5"}`)."""

    lang: str
    text: str
    loc: Loc
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Notes:
    text: str
    loc: Loc


@dataclass(frozen=True)
class Pause:
    loc: Loc


@dataclass(frozen=True)
class Column:
    width: str | None
    blocks: tuple[Block, ...]
    loc: Loc


@dataclass(frozen=True)
class Columns:
    columns: tuple[Column, ...]
    loc: Loc


@dataclass(frozen=True)
class Div:
    """A generic `::: {.class}` container rendered as a <div>."""

    classes: tuple[str, ...]
    attrs: dict[str, str]
    blocks: tuple[Block, ...]
    loc: Loc


@dataclass(frozen=True)
class Choice:
    text: str
    correct: bool
    loc: Loc


@dataclass(frozen=True)
class Quiz:
    """A multiple-choice question. The answer is the `[x]` choice, or the choice whose text
    equals the value of the `answer` expression."""

    question: str
    choices: tuple[Choice, ...]
    explanation: str
    answer: InlineExpr | None
    loc: Loc


Block = Prose | Code | Cell | Notes | Pause | Columns | Div | Quiz


@dataclass(frozen=True)
class Slide:
    title: str | None
    level: int  # 1: section title slide, 2: ordinary slide
    classes: tuple[str, ...]
    attrs: dict[str, str]
    blocks: tuple[Block, ...]
    loc: Loc


@dataclass(frozen=True)
class Section:
    path: Path
    name: str  # the file name stem, e.g. "02-self-attention"
    rel: str  # the path shown in messages, relative to the working directory
    meta: dict[str, Any]
    slides: tuple[Slide, ...]
    inlines: tuple[InlineExpr, ...]

    def cells(self) -> list[Cell]:
        return [b for s in self.slides for b in walk_blocks(s.blocks) if isinstance(b, Cell)]


@dataclass(frozen=True)
class Lesson:
    name: str
    path: Path
    meta: dict[str, Any]  # lesson.yml's checked values, as written (templates read it)
    sections: tuple[Section, ...]
    config: LessonConfig = field(default_factory=lambda: _default_config())
    warnings: tuple[Any, ...] = ()  # Diagnostics with severity "warning" found while loading


def walk_blocks(blocks: tuple[Block, ...]):
    """Every block, depth first, including those nested in columns and divs."""
    for block in blocks:
        yield block
        if isinstance(block, Columns):
            for column in block.columns:
                yield from walk_blocks(column.blocks)
        elif isinstance(block, Div):
            yield from walk_blocks(block.blocks)


def placeholder(index: int) -> str:
    """The token that stands for inline value `index` in prose until rendering substitutes it."""
    return f"\u2063V{index}\u2063"


@dataclass(frozen=True)
class Output:
    """One displayed result of a cell: `kind` is "html", "text" or "stdout"."""

    kind: str
    data: str


@dataclass(frozen=True)
class Figure:
    file: str  # file name inside figures/<lesson>/
    width_in: float
    height_in: float


@dataclass(frozen=True)
class CellResult:
    line: int  # the .md line of the cell fence
    outputs: tuple[Output, ...]
    figures: tuple[Figure, ...]
    seconds: float


@dataclass(frozen=True)
class SectionResult:
    """What executing a section produced; JSON-able via `to_json`/`from_json` for the cache."""

    key: str
    cells: tuple[CellResult, ...]
    inline: dict[str, str]  # expression -> text shown
    seconds: float
    figure_dir: str = ""  # where the figure files of this result are kept (cache folder)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "seconds": self.seconds,
            "inline": self.inline,
            "cells": [
                {
                    "line": c.line,
                    "seconds": c.seconds,
                    "outputs": [[o.kind, o.data] for o in c.outputs],
                    "figures": [[f.file, f.width_in, f.height_in] for f in c.figures],
                }
                for c in self.cells
            ],
        }

    @staticmethod
    def from_json(data: dict[str, Any], figure_dir: str = "") -> SectionResult:
        return SectionResult(
            key=data["key"],
            seconds=data["seconds"],
            inline=dict(data["inline"]),
            cells=tuple(
                CellResult(
                    line=c["line"],
                    seconds=c["seconds"],
                    outputs=tuple(Output(k, d) for k, d in c["outputs"]),
                    figures=tuple(Figure(f, w, h) for f, w, h in c["figures"]),
                )
                for c in data["cells"]
            ),
            figure_dir=figure_dir,
        )


def _default_config() -> LessonConfig:
    from deck.config import LessonConfig

    return LessonConfig()
