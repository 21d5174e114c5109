"""The document every output reads (`deck.model.document`), resolved from the parsed lesson,
its results and how render showed each section: values as text, cells as shown (the slides'
cell defaults), quizzes in the slides' order, and who sees each block. A `:::` block resolves
through its kind (`BlockKind.resolved`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from deck.blocks import BY_TYPE, kind_for
from deck.model import (
    Block,
    Cell,
    CellResult,
    Code,
    Div,
    Lesson,
    Loc,
    Notes,
    Pause,
    Prose,
    Quiz,
    Section,
    SectionResult,
)
from deck.model.document import (
    Aside,
    DocSection,
    DocSlide,
    Document,
    Listing,
    Node,
    QuizOrder,
    ShownCell,
    Text,
    Value,
)
from deck.render.section import CELL_DEFAULTS, QUARTO_CELL_DEFAULTS
from deck.render.store import SectionRender

PLACEHOLDER = re.compile("\u2063V(\\d+)\u2063")


@dataclass
class Resolver:
    """Resolves one section's blocks (the `ResolveContext` block kinds see)."""

    section: Section
    result: SectionResult
    orders: dict[str, QuizOrder]

    def __post_init__(self) -> None:
        cells = self.section.cells()
        self.cells: dict[int, CellResult] = {
            id(c): r for c, r in zip(cells, self.result.cells, strict=True)
        }
        defaults = QUARTO_CELL_DEFAULTS if self.section.settings.quarto else CELL_DEFAULTS
        self.defaults = {**defaults, **self.section.settings.execute}

    def text(self, source: str, loc: Loc) -> Text:
        parts: list[str | Value] = []
        at = 0
        for m in PLACEHOLDER.finditer(source):
            if m.start() > at:
                parts.append(source[at : m.start()])
            inline = self.section.inlines[int(m.group(1))]
            parts.append(Value(inline.expr, self.result.inline.get(inline.expr, ""), inline.loc))
            at = m.end()
        if at < len(source):
            parts.append(source[at:])
        return Text(tuple(parts), loc)

    def quiz_order(self, quiz: Quiz) -> QuizOrder:
        return self.orders[str(quiz.loc)]

    def nodes(self, blocks: tuple[Block, ...]) -> tuple[Node, ...]:
        out: list[Node] = []
        for block in blocks:
            node = self.node(block)
            if node is not None:
                out.append(node)
        return tuple(out)

    def node(self, block: Block) -> Node | None:
        if isinstance(block, Prose):
            return self.text(block.text, block.loc)
        if isinstance(block, Cell):
            return self.cell(block)
        if isinstance(block, Code):
            if block.attrs.get("cell") == "true" and not block.text.strip():
                return None  # (an empty `{.python .cell}` fence: nothing to show)
            return Listing(block.lang, block.text, block.loc)
        if isinstance(block, Pause):
            return Aside("pause", None, block.loc, frozenset({"slides"}))
        if isinstance(block, Div):
            return kind_for(block.classes).resolved(self, block)
        if isinstance(block, Quiz | Notes) or type(block) in BY_TYPE:
            return BY_TYPE[type(block)].resolved(self, block)
        raise TypeError(f"no resolution for {type(block).__name__} at {block.loc}")

    def option(self, cell: Cell, key: str) -> object:
        return cell.options.get(key, self.defaults.get(key))

    def cell(self, cell: Cell) -> ShownCell | None:
        result = self.cells.get(id(cell))
        if cell.replay or result is None:
            return None  # (a `.qmd` part's replay of earlier cells: shown where first run)
        included = self.option(cell, "include") is not False
        warnings = bool(self.option(cell, "warning"))
        outputs = tuple(o for o in result.outputs if o.kind != "warning" or warnings)
        alt = cell.options.get("fig-alt") or cell.options.get("fig-cap")
        caption = cell.options.get("fig-cap")
        echo = bool(self.option(cell, "echo")) and included
        location = str(cell.options.get("output-location", "default")) if echo else "default"
        table = cell.options.get("tbl-cap") if (cell.label or "").startswith("tbl-") else None
        return ShownCell(
            code=cell.code,
            loc=cell.loc,
            label=cell.label,
            echo=echo,
            exercise=cell.options.get("exercise") is True,
            show_output=self.option(cell, "output") is not False and included,
            outputs=outputs,
            figures=result.figures,
            figure_dir=self.result.figure_dir,
            alt=self.text(str(alt), cell.loc) if alt else None,
            caption=self.text(str(caption), cell.loc) if caption else None,
            location=location,
            asis=self.option(cell, "output") == "asis",
            fenced=echo and self.option(cell, "echo") == "fenced",
            table_caption=self.text(str(table), cell.loc) if table else None,
        )


def document(
    lesson: Lesson, results: dict[str, SectionResult], parts: dict[str, SectionRender]
) -> Document:
    """The lesson resolved for presentation, slides numbered through the deck as rendered."""
    sections = []
    first = 1
    for section in lesson.sections:
        result = results[section.name]
        part = parts[section.name]
        numbers: dict[Loc, int] = {}
        for k, shown in enumerate(part.slides):  # (a cell's `output-location: slide` adds one)
            numbers.setdefault(shown.loc, first + k)
        first += len(part.slides)
        r = Resolver(section, result, {q.loc: q for q in part.quiz_orders})
        slides = []
        for slide in section.slides:
            title = r.text(slide.title, slide.loc) if slide.title else None
            blocks = r.nodes(slide.blocks)
            number = numbers.get(slide.loc, 0)
            slides.append(
                DocSlide(number, title, slide.level, slide.classes, slide.loc, blocks, slide.attrs)
            )
        sections.append(DocSection(section.name, section.rel, section.settings.seed, tuple(slides)))
    config = lesson.config
    return Document(
        name=lesson.name,
        title=lesson.title,
        lang=config.lang,
        subtitle=config.subtitle,
        author=config.author,
        date=config.date,
        footer=config.slides.footer,
        sections=tuple(sections),
    )
