"""A lesson's settings as typed, frozen values: `LessonConfig` (from lesson.yml or a .qmd's
front matter), its execution and presentation parts, and the widget kinds it defines."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deck.errors import Loc

# (the outputs' names, for `--to` and lesson.yml's `outputs:`, come from one registry)
from deck.model.outputs import DEFAULT_OUTPUTS as DEFAULT_OUTPUTS
from deck.model.outputs import KNOWN_OUTPUTS as KNOWN_OUTPUTS
from deck.model.outputs import LESSON_OUTPUTS as LESSON_OUTPUTS
from deck.model.outputs import read_outputs as read_outputs

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
    theme: str = "default"  # a Quarto theme's name (deck.source.qmdchecks.THEMES)
    theme_files: tuple[str, ...] = ()  # the author's `.scss`/`.css` over it, compiled by dart-sass
    reveal: tuple[tuple[str, Any], ...] = ()  # reveal.js options as they are (transition…)
    # the author's own HTML for the page: `include-in-header`, `-before-body`, `-after-body`
    # (each a ("file", path) or ("text", html) until loading reads the files)
    includes: tuple[tuple[str, str, str], ...] = ()  # (where, "file"|"text", path or html)
    # the slide's size in CSS px (`width`/`height`): reveal.js, the CSS, the overflow lint
    # and the PDFs' pages all follow it
    width: int = 1280
    height: int = 720

    def reveal_options(self) -> dict[str, Any]:
        """What reveal.js is told besides the deck's own settings (`window.deckOptions`)."""
        options: dict[str, Any] = dict(self.reveal)
        if (self.width, self.height) != (1280, 720):
            options["width"], options["height"] = self.width, self.height
        if self.slide_number is not True:
            options["slideNumber"] = self.slide_number
        if self.controls is not None:
            options["controls"] = self.controls
        if self.progress is not None:
            options["progress"] = self.progress
        return options


@dataclass(frozen=True)
class QuizConfig:
    """`quiz:` in lesson.yml: `shuffle: true` orders each quiz's choices by the lesson's seed."""

    shuffle: bool = False
    # `mode: poll` (default): a click adds a hand to a choice, nothing is judged until `A`;
    # `check`: each click is judged at once (self-study). `?quiz=` in the URL overrides it.
    mode: str = "poll"


@dataclass(frozen=True)
class CitationConfig:
    """A `.qmd`'s `bibliography` (files inside its folder), `csl` style and `nocite` keys."""

    bibliography: tuple[str, ...] = ()
    csl: str | None = None
    nocite: str = ""  # as written: "@a, @b" or "@*"
    loc: Loc | None = None  # where `bibliography` was written


@dataclass(frozen=True)
class HandoutConfig:
    """`handout:` in lesson.yml: slides per page of the students' handout (1, 2 or 3; a slide
    too dense for that gets more room) and the ruled lines under each, at least (None: the
    layout's own number)."""

    per_page: int = 2
    lines: int | None = None


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
    setup: SetupSource | None = None  # the module every section starts with (`setup:`)
    quiz: QuizConfig = field(default_factory=QuizConfig)
    citations: CitationConfig = field(default_factory=CitationConfig)
    python: str = ""  # a `.qmd`'s cells run with this interpreter ("": this build's own)
    python_why: str = ""  # how it was chosen (QUARTO_PYTHON, a kernel, VIRTUAL_ENV…)
    kernel: str | None = None  # a `.qmd`'s `jupyter:` kernelspec name
    handout: HandoutConfig = field(default_factory=HandoutConfig)
    outputs: tuple[str, ...] | None = None  # `outputs: [html, pdf, ipynb]`; None: the defaults
    # `title-slide: false` in lesson.yml: no title slide made from the title (a lesson whose
    # slides have a `{.title-slide}` of their own gets none anyway)
    title_slide: bool = True


@dataclass(frozen=True)
class SetupSource:
    """`setup:` in `lesson.yml`: a module of the lesson's folder every section starts with."""

    module: str  # its import name: `common` for common.py
    loc: Loc  # where lesson.yml names it


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
