"""The public render context: what the section renderer offers to block kinds and cells while
a section renders (text, nested blocks, records, diagnostics, the slide's state)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from deck.errors import Diagnostic, Loc
from deck.model import Records, Section, WidgetKind
from deck.model.document import Node, Text


@dataclass
class SlideState:
    """What a slide collects while its blocks render, placed when the slide is done."""

    footnotes: list[tuple[str, str, Loc]] = field(default_factory=list)  # kind, content, loc
    footer: str | None = None
    asides: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)  # bodies of `output-location: slide` slides
    handouts: list[str] = field(default_factory=list)  # `::: handout` blocks, as in the body


class RenderContext(Protocol):
    section: Section
    number: int  # the slide being rendered, within its section (from 1)
    incremental: bool  # list items appear one by one
    slide_state: SlideState
    quarto: bool  # the section is read as Quarto reads it (its cell defaults)
    records: Records  # the values record
    diagnostics: list[Diagnostic]  # errors: the build fails
    warnings: list[Diagnostic]
    figure_files: list[str]
    figure_ids: set[str]  # `fig-…` labels given to a figure already (an id is given once)
    widget_kinds: dict[str, WidgetKind]  # the lesson's widget kinds, by name

    @property
    def lang(self) -> str:
        """The deck's language (`zh`, `en`), for UI strings."""
        ...

    def text(self, text: Text, inline: bool = False, wrap: bool = True) -> str:
        """A resolved text (Markdown, math, computed values) → HTML (formulas as placeholders).
        Values become controls telling where they come from, unless `wrap` is false."""
        ...

    def markdown(self, source: str, loc: Loc, inline: bool = False) -> str:
        """Markdown as a cell printed it (`output: asis`) → HTML."""
        ...

    def blocks(self, blocks: tuple[Node, ...], notes: list[str]) -> str:
        """Nested blocks in order; speaker notes met among them go to `notes`."""
        ...

    def block(self, block: Node, notes: list[str]) -> str: ...

    def plain(self, markup: str) -> str:
        """Rendered HTML as plain text, as a reader would quote it."""
        ...

    def fill(self, text: Text | None) -> str:
        """A text as plain text, its values in place (and recorded)."""
        ...

    def numbers(self, value: Any) -> bool | str: ...

    def template(self, name: str) -> Any:
        """A Jinja2 template of `deck/templates/`."""
        ...
