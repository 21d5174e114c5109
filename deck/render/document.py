"""The document every output reads (`deck.model.document`), resolved from the parsed lesson and
its results: values as text, cells as shown (the slides' cell defaults), quizzes in the order
the slides show them, and who sees each block. A `:::` block resolves through its kind
(`BlockKind.resolved`).

A section is resolved first and the HTML deck is rendered from its resolved slides
(`deck.render.section`); the quizzes' orders are kept with the section's render, so that the
document of a build whose sections come from the render cache reads as theirs did."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from deck.blocks import BY_TYPE, kind_for
from deck.blocks.provenance import Bindings
from deck.errors import Diagnostic
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
from deck.render.cells import option_line
from deck.render.crossref import split
from deck.render.store import SectionRender

# A cell's options default to the file's `execute:` settings, else to these: a lesson shows
# no code and no warnings unless asked, and neither does a `.qmd`, as Quarto's revealjs format
# (its defaults: `echo: false`, `warning: false`; an html document's are true).
CELL_DEFAULTS = {"echo": False, "output": True, "include": True, "warning": False}
QUARTO_CELL_DEFAULTS = {"echo": False, "output": True, "include": True, "warning": False}


@dataclass
class Resolver:
    """Resolves one section's blocks (the `ResolveContext` block kinds see)."""

    section: Section
    result: SectionResult
    # how the section's quizzes were shown (from its render), else None: they are ordered
    # now (`deck.blocks.quiz`), each choice read as the slide quotes it (`plain`)
    orders: dict[str, QuizOrder] | None = None
    plain: Callable[[Text], str] | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    made: list[QuizOrder] = field(default_factory=list)  # the orders found now
    parsed: Bindings | None = None  # the section's bindings, if the renderer has them
    cites: bool = False  # the deck has a bibliography: `@key` and `[@key]` are citations

    def __post_init__(self) -> None:
        cells = self.section.cells()
        self.cells: dict[int, CellResult] = {
            id(c): r for c, r in zip(cells, self.result.cells, strict=True)
        }
        defaults = QUARTO_CELL_DEFAULTS if self.section.settings.quarto else CELL_DEFAULTS
        self.defaults = {**defaults, **self.section.settings.execute}

    def text(self, source: str, loc: Loc) -> Text:
        """Markdown as written (each value a placeholder of the section's inline expressions)
        as a text: its values, cross-references and citations typed parts."""
        return Text(split(source, loc, self.value, self.cites), loc)

    def value(self, index: int) -> Value:
        """The section's inline expression `index` with its value."""
        inline = self.section.inlines[index]
        return Value(inline.expr, self.result.inline.get(inline.expr, ""), inline.loc)

    @property
    def bindings(self) -> Bindings:
        """The section's binding statements, parsed once, when a quiz first asks."""
        if self.parsed is None:
            self.parsed = Bindings(self.section)
        return self.parsed

    def inline_value(self, expr: str) -> str | None:
        return self.result.inline.get(expr)

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
            return Listing(block.lang, block.text, block.loc, dict(block.attrs))
        if isinstance(block, Pause):
            return Aside("pause", None, block.loc, frozenset({"slides"}))
        if isinstance(block, Div):
            return kind_for(block.classes).resolved(self, block)
        if isinstance(block, Quiz | Notes) or type(block) in BY_TYPE:
            return BY_TYPE[type(block)].resolved(self, block)
        raise TypeError(f"no resolution for {type(block).__name__} at {block.loc}")

    def slides(self) -> tuple[DocSlide, ...]:
        """The section's slides, resolved; numbered 0 (the deck numbers them, `document`)."""
        out = []
        for slide in self.section.slides:
            title = self.text(slide.title, slide.loc) if slide.title else None
            blocks = self.nodes(slide.blocks)
            out.append(
                DocSlide(0, title, slide.level, slide.classes, slide.loc, blocks, slide.attrs)
            )
        return tuple(out)

    def option(self, cell: Cell, key: str) -> object:
        return cell.options.get(key, self.defaults.get(key))

    def cell(self, cell: Cell) -> ShownCell | None:
        result = self.cells.get(id(cell))
        if cell.replay or result is None:
            return None  # (a `.qmd` part's replay of earlier cells: shown where first run)
        included = self.option(cell, "include") is not False
        warnings = bool(self.option(cell, "warning"))
        outputs = tuple(o for o in result.outputs if o.kind != "warning" or warnings)
        alt = cell.options.get("fig-alt")
        caption = cell.options.get("fig-cap")
        echo = bool(self.option(cell, "echo")) and included
        location = str(cell.options.get("output-location", "default"))
        if location != "default" and not echo:
            if included:
                message = "output-location needs the code shown (echo)"
                self.warnings.append(Diagnostic(cell.loc, "option", message, "warning"))
            location = "default"
        table = cell.options.get("tbl-cap") if (cell.label or "").startswith("tbl-") else None
        layout = {k: str(v) for k, v in cell.options.items() if k.startswith("layout")}
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
            caption=self.text(str(caption), option_line(cell, "fig-cap")) if caption else None,
            location=location,
            asis=self.option(cell, "output") == "asis",
            fenced=echo and self.option(cell, "echo") == "fenced",
            table_caption=self.text(str(table), option_line(cell, "tbl-cap")) if table else None,
            line_numbers=cell.options.get("code-line-numbers"),
            align=str(cell.options.get("fig-align", "default")),
            layout=layout,
        )


def document(
    lesson: Lesson,
    results: dict[str, SectionResult],
    parts: dict[str, SectionRender],
    resolved: dict[str, tuple[DocSlide, ...]] | None = None,
    cites: bool = False,
) -> Document:
    """The lesson resolved for presentation, slides numbered through the deck as rendered.
    `resolved`: the sections this build rendered, resolved already (the others are resolved
    again, their quizzes as their render recorded them)."""
    sections = []
    first = 1
    for section in lesson.sections:
        result = results[section.name]
        part = parts[section.name]
        numbers: dict[Loc, int] = {}
        for k, shown in enumerate(part.slides):  # (a cell's `output-location: slide` adds one)
            numbers.setdefault(shown.loc, first + k)
        first += len(part.slides)
        found = (resolved or {}).get(section.name)
        if found is None:
            orders = {q.loc: q for q in part.quiz_orders}
            found = Resolver(section, result, orders, cites=cites).slides()
        slides = tuple(replace(s, number=numbers.get(s.loc, 0)) for s in found)
        seed, setup = section.settings.seed, section.settings.setup
        sections.append(DocSection(section.name, section.rel, seed, slides, setup))
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
