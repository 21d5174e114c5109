"""A lesson as parsed: sections of slides of blocks (prose, cells, quizzes, `:::` blocks…), each
with the `Loc` the author wrote it at."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deck.errors import Loc
from deck.model.config import LessonConfig, WidgetKind


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
    part to rebuild the state that part reads (see `deck.source.replay`); it shows nothing."""

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
    minutes: float | None = None  # `::: {.notes minutes=3}`


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
    label: str | None = None  # its `#id`: with its file, what names it (shuffling keys on it)


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
class SectionSettings:
    """How a section's slides render, from its lesson's config."""

    lang: str = "en"  # the deck's language (UI strings such as a callout's title)
    quarto: bool = False  # read as Quarto reads it: its cells show code and warnings
    execute: dict[str, Any] = field(default_factory=dict)  # the cells' defaults (`execute:`)
    incremental: bool = False  # list items appear one by one
    code_line_numbers: bool | str = False
    seed: int = 0  # the lesson's `exec.seed`
    shuffle_quizzes: bool = False  # `quiz: {shuffle: true}`: choices ordered by seed and quiz
    setup: str = ""  # the lesson's setup module (`setup:`), run first, as `from … import *`
    # With shuffling: the choice each of the section's quizzes (in order) shows its answer at,
    # planned across the whole lesson so that no position holds most answers.
    answer_slots: tuple[int, ...] = ()


@dataclass(frozen=True)
class Section:
    path: Path
    name: str  # the file name stem, e.g. "02-self-attention"
    rel: str  # the path shown in messages, relative to the working directory
    settings: SectionSettings
    slides: tuple[Slide, ...]
    inlines: tuple[InlineExpr, ...]

    def cells(self) -> list[Cell]:
        return [b for s in self.slides for b in walk_blocks(s.blocks) if isinstance(b, Cell)]


@dataclass(frozen=True)
class Lesson:
    name: str
    path: Path
    sections: tuple[Section, ...]
    config: LessonConfig = field(default_factory=LessonConfig)
    warnings: tuple[Any, ...] = ()  # Diagnostics with severity "warning" found while loading
    widgets: tuple[WidgetKind, ...] = ()  # the widget kinds it defines, loaded

    @property
    def title(self) -> str:
        return self.config.title if self.config.title is not None else self.name


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
