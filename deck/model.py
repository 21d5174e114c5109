"""The immutable values that flow through a build: source locations, lessons, slides, results."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deck.errors import Loc

DEFAULT_TIMEOUT = 300.0
DEFAULT_OUTPUT_LIMIT = 1_000_000  # characters of printed output kept per cell


def _half_the_memory_mb() -> int:
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 4096
    return max(512, total // 2 // 2**20)


@dataclass(frozen=True)
class ExecConfig:
    seed: int = 0
    timeout: float = DEFAULT_TIMEOUT  # seconds per cell (a cell's `#| timeout:` overrides)
    memory_mb: int = field(default_factory=_half_the_memory_mb)  # address space per worker
    output_limit: int = DEFAULT_OUTPUT_LIMIT

    def fingerprint(self) -> dict[str, Any]:
        """What of these settings can change results (the cache key's part)."""
        return {"seed": self.seed}


@dataclass(frozen=True)
class SlideConfig:
    """How the deck is presented: a `.qmd`'s `format: revealjs:` options."""

    slide_number: bool | str = True  # true: the deck's own "c/t"
    controls: bool | None = None  # None: reveal.js's default
    progress: bool | None = None
    incremental: bool = False
    smaller: bool = False
    scrollable: bool = False
    footer: str | None = None
    logo: str | None = None
    code_line_numbers: bool | str = False
    css: tuple[str, ...] = ()
    theme: str = "default"  # or "dark"

    def reveal_options(self) -> dict[str, Any]:
        """What reveal.js is told besides the deck's own settings (`window.deckOptions`)."""
        options: dict[str, Any] = {}
        if self.slide_number is not True:
            options["slideNumber"] = self.slide_number
        if self.controls is not None:
            options["controls"] = self.controls
        if self.progress is not None:
            options["progress"] = self.progress
        return options


@dataclass(frozen=True)
class LessonConfig:
    title: str | None = None
    subtitle: str | None = None
    course: str | None = None
    author: str | None = None
    date: str | None = None
    lang: str = "zh-CN"
    exec: ExecConfig = field(default_factory=ExecConfig)
    slides: SlideConfig = field(default_factory=SlideConfig)
    execute: dict[str, Any] = field(default_factory=dict)  # cells' defaults (`execute:`)
    widgets: tuple[WidgetSource, ...] = ()  # the widget kinds the lesson defines


@dataclass(frozen=True)
class WidgetSource:
    """A widget kind named in `lesson.yml`: `<path>.py` checks its data, `<path>.js` draws it."""

    path: str  # as written, from the lesson's folder, without a suffix
    loc: Loc

    @property
    def name(self) -> str:
        return self.path.rstrip("/").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class WidgetKind:
    """A widget kind a lesson defines, loaded: its data check and its script."""

    name: str
    check: Callable[[Any], Any]  # the data as JSON → what to embed; raises DataProblem
    summary: str  # the data format in one line, quoted in errors
    script: Path  # the JS that draws it (registers itself with `deckWidgets.register`)
    source: Path  # the Python module holding `check`


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
    config: LessonConfig = field(default_factory=LessonConfig)
    warnings: tuple[Any, ...] = ()  # Diagnostics with severity "warning" found while loading
    widgets: tuple[WidgetKind, ...] = ()  # the widget kinds it defines, loaded


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
class Dependency:
    """Something a section's results depend on, recorded while it ran and checked on lookup.

    `kind` is "file" (a file the section opened for reading: data, weights, fonts, a module
    outside site-packages), "engine" (a file of the deck package the worker used) or "dist"
    (an installed distribution behind a module the section imported; `path` is its RECORD).
    `path` is relative to the lesson folder when inside it, else absolute. `sha256` is "" for a
    file that did not exist; `mtime_ns` is -1 when the stat cannot be trusted (hash again).
    """

    kind: str
    name: str  # what messages call it: "data.csv", "deck/show.py", "numpy 2.1.0"
    path: str
    sha256: str
    size: int
    mtime_ns: int

    def to_json(self) -> list[Any]:
        return [self.kind, self.name, self.path, self.sha256, self.size, self.mtime_ns]

    @staticmethod
    def from_json(data: list[Any]) -> Dependency:
        kind, name, path, sha256, size, mtime_ns = data
        return Dependency(str(kind), str(name), str(path), str(sha256), int(size), int(mtime_ns))


@dataclass(frozen=True)
class SectionResult:
    """What executing a section produced; JSON-able via `to_json`/`from_json` (the worker's
    answer and the cache entry use this one form)."""

    key: str
    cells: tuple[CellResult, ...]
    inline: dict[str, str]  # expression -> text shown
    seconds: float
    figure_dir: str = ""  # where the figure files of this result are kept (cache folder)
    deps: tuple[Dependency, ...] = ()  # what the results depend on besides the key

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
            "deps": [d.to_json() for d in self.deps],
        }

    @staticmethod
    def from_json(data: dict[str, Any], figure_dir: str = "") -> SectionResult:
        return SectionResult(
            key=str(data["key"]),
            seconds=float(data["seconds"]),
            inline={str(k): str(v) for k, v in data["inline"].items()},
            cells=tuple(
                CellResult(
                    line=int(c["line"]),
                    seconds=float(c["seconds"]),
                    outputs=tuple(Output(str(k), str(d)) for k, d in c["outputs"]),
                    figures=tuple(Figure(str(f), float(w), float(h)) for f, w, h in c["figures"]),
                )
                for c in data["cells"]
            ),
            figure_dir=figure_dir,
            deps=tuple(Dependency.from_json(d) for d in data.get("deps", ())),
        )
