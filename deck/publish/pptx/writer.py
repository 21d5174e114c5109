"""The document as PowerPoint slides, before they are placed: each deck slide's title, body
blocks, speaker notes (with the answer key) and footer, plus a slide after it for each cell
whose outputs go on a slide of their own (`output-location: slide`). Prose, listings and
cells are written here; every `:::` kind writes its own node (`deck.blocks.handler`,
`"pptx"`) through the `deck.blocks.base.SlidesWriter` protocol this class meets."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from deck.blocks import base, handler
from deck.errors import Loc
from deck.model.document import (
    EVERYONE,
    Aside,
    DocSlide,
    Document,
    Listing,
    Node,
    ShownCell,
    Text,
    walk,
)
from deck.publish.pptx.prose import Prose, lines_of
from deck.publish.pptx.reader import Prepared, prepare
from deck.publish.pptx.shapes import (
    Block,
    CodeBlock,
    ColumnsBlock,
    Flow,
    Panel,
    Para,
    Paras,
    Picture,
    Run,
)

AUDIENCE = "slides"  # what the slides show; the notes pane holds what only the lecturer does


@dataclass
class SlidePlan:
    """One PowerPoint slide's content."""

    number: int
    title: list[Run]
    level: int
    blocks: list[Block]
    notes: list[str]
    footer: list[Para]
    loc: Loc
    title_slide: bool = False  # the lesson's title slide (`.title-slide`)


@dataclass
class _Slide:
    """What the slide being written collects."""

    notes: list[str] = field(default_factory=list)
    key: list[str] = field(default_factory=list)  # the answer key, after the notes
    footer: list[Para] | None = None  # its own `::: footer`
    asides: list[Para] = field(default_factory=list)  # at its foot, above its footnotes
    foot: list[Para] = field(default_factory=list)  # its footnotes
    footnotes: dict[object, int] = field(default_factory=dict)
    later: list[ShownCell] = field(default_factory=list)  # outputs on slides of their own


class SlidesWriter:
    """Writes the document's slides (`plans`) with `prose` (the deck's Markdown and KaTeX)."""

    audience = AUDIENCE

    def __init__(self, doc: Document, prose: Prose, lang: str) -> None:
        self.doc = doc
        self.texts = prose
        self.lang = lang
        self.out: list[Block] = []
        self.state = _Slide()
        self.definitions: dict[str, tuple[str, Prepared]] = {}
        prose.footnote = self.footnote
        footer = Text((doc.footer,), Loc("lesson.yml", 1)) if doc.footer else None
        self.deck_footer = self.paras_of(prose.blocks(footer)) if footer else []

    # ---- the document -----------------------------------------------------------------
    def plans(self) -> list[SlidePlan]:
        found: list[SlidePlan] = []
        for section in self.doc.sections:
            self.definitions = section_definitions(section.slides)
            for slide in section.slides:
                found += self.slide(slide)
        return found

    def slide(self, slide: DocSlide) -> list[SlidePlan]:
        self.state = _Slide()
        self.out = []
        title = self.texts.runs(slide.title) if slide.title is not None else []
        self.nodes(slide.blocks, False)
        blocks = self.out
        state = self.state
        if state.asides or state.foot:
            blocks.append(Paras([*state.asides, *state.foot]))
        footer = state.footer if state.footer is not None else self.deck_footer
        notes = [*state.notes, *state.key]
        first = SlidePlan(slide.number, title, slide.level, blocks, notes, footer, slide.loc)
        first.title_slide = "title-slide" in slide.classes
        plans = [first]
        for k, cell in enumerate(state.later, start=1):  # (each with the deck's footer)
            self.out = []
            self.add_blocks(self.outputs(cell))
            plans.append(
                SlidePlan(
                    slide.number + k, title, slide.level, self.out, [], self.deck_footer, cell.loc
                )
            )
        return plans

    def nodes(self, nodes: tuple[Node, ...], exercise: bool) -> None:
        for node in nodes:
            if AUDIENCE not in getattr(node, "seen_by", EVERYONE) and not isinstance(node, Aside):
                continue  # (a `::: handout` block: never on the slides)
            if isinstance(node, Text):
                self.prose_blocks(node)
            elif isinstance(node, ShownCell):
                self.cell(node)
            elif isinstance(node, Listing):
                if not node.empty_cell:
                    self.listing(node)
            elif isinstance(node, Aside) and node.kind == "pause":
                continue  # (a slide shows its fragments at once)
            else:
                handler("pptx", node)(self, node, exercise)

    def prose_blocks(self, text: Text) -> None:
        self.add_blocks(self.texts.blocks(text))

    def listing(self, listing: Listing) -> None:
        if listing.lang == "=html":  # a raw block: HTML as it is; other formats' are dropped
            self.add_blocks(self.texts.html(listing.text))
        elif not listing.lang.startswith("="):
            self.add(CodeBlock(listing.text.rstrip("\n"), listing.lang))

    def cell(self, cell: ShownCell) -> None:
        """Its code (when shown) and its outputs, where `output-location` puts them."""
        text = cell.code.strip("\n")
        if cell.fenced:
            text = f"```{{python}}\n{text}\n```"
        code: list[Block] = [CodeBlock(text, "python")] if cell.echo else []
        if cell.location == "slide":
            self.add_blocks(code)
            self.state.later.append(cell)
            return
        shown = self.outputs(cell)
        if cell.location in ("column", "column-fragment") and code and shown:
            self.add(ColumnsBlock([code, shown], [None, None]))
        else:
            self.add_blocks(code + shown)

    def outputs(self, cell: ShownCell) -> list[Block]:
        if not cell.show_output:
            return []
        found: list[Block] = []
        if cell.table_caption is not None and cell.outputs:
            found.append(Paras([Para(self.texts.runs(cell.table_caption), style="caption")]))
        for output in cell.outputs:
            if output.kind == "html":
                found += self.texts.html(output.data)
            elif cell.asis or output.kind == "markdown":
                found += self.texts.blocks(Text((output.data,), cell.loc))
            elif output.data.strip("\n"):
                found.append(CodeBlock(output.data.rstrip("\n")))
        described = cell.description
        alt = described.markdown(lambda v: v.text) if described is not None else ""
        folder = Path(cell.figure_dir)
        for figure in cell.figures:
            png = folder / figure.png if figure.png else None
            found.append(Picture("figure", figure.file, alt, folder / figure.file, png))
            if cell.caption is not None:
                found.append(Paras([Para(self.texts.runs(cell.caption), style="caption")]))
        return found

    # ---- what block kinds call (deck.blocks.base.SlidesWriter) ------------------------
    def add(self, block: Block) -> None:
        if isinstance(block, Paras) and self.out and isinstance(self.out[-1], Paras):
            self.out[-1].paras.extend(block.paras)  # (one text box for text that follows on)
        else:
            self.out.append(block)

    def add_blocks(self, blocks: list[Block]) -> None:
        for block in blocks:
            self.add(block)

    def prose(self, text: Text) -> None:
        self.prose_blocks(text)

    def heading(self, text: Text | str) -> None:
        runs = self.runs(text)
        self.add(Paras([Para([replace(r, bold=True) for r in runs], style="heading")]))

    def lettered(self, choices: tuple[Text, ...]) -> None:
        letters = [Para(self.runs(c), 1, f"{chr(65 + k)}.") for k, c in enumerate(choices)]
        self.add(Paras(letters))

    def plain(self, text: Text) -> str:
        return " ".join(self.text_of(text).split())

    def note(self, text: Text | str, key: bool = False) -> None:
        found = self.texts.lines(text) if isinstance(text, Text) else [text]
        (self.state.key if key else self.state.notes).extend(found)

    def columns(self, columns: tuple[tuple[str | None, tuple[Node, ...]], ...]) -> None:
        blocks, widths = [], []
        for width, nodes in columns:
            with self.into() as inside:
                self.nodes(nodes, False)
            blocks.append(inside)
            widths.append(fraction(width))
        self.add(ColumnsBlock(blocks, widths))

    def boxes(self, nodes: tuple[Node, ...], vertical: bool = False, cards: bool = False) -> None:
        """The list among `nodes` as boxes (text outside the list stays text)."""
        with self.into() as inside:
            self.nodes(nodes, False)
        boxes: list[list[Run]] = []
        for block in inside:
            rest = []
            for para in block.paras if isinstance(block, Paras) else []:
                if para.level == 1 and para.bullet:
                    boxes.append(box_runs(para.runs))
                elif para.level and boxes:  # (a nested item keeps its bullet)
                    mark = [Run("  " * (para.level - 2) + para.bullet + " ")] if para.bullet else []
                    boxes[-1] += [Run("\v"), *mark, *box_runs(para.runs)]
                else:
                    rest.append(para)
            if not isinstance(block, Paras):
                self.add(block)
            elif rest:
                self.add(Paras(rest))
        if boxes:
            self.out.append(Flow([Para(b) for b in boxes], vertical, cards))

    def panel(self, kind: str, title: Text | str, nodes: tuple[Node, ...]) -> None:
        runs = [replace(r, bold=True) for r in self.runs(title)]
        with self.into() as inside:
            self.nodes(nodes, False)
        self.out.append(Panel(kind, Para(runs, style="small"), inside))

    def footer(self, nodes: tuple[Node, ...]) -> None:
        with self.into() as inside:
            self.nodes(nodes, False)
        self.state.footer = self.paras_of(inside)

    def aside(self, nodes: tuple[Node, ...]) -> None:
        with self.into() as inside:
            self.nodes(nodes, False)
        self.state.asides += [replace(p, style="small") for p in self.paras_of(inside)]

    # ---- helpers ----------------------------------------------------------------------
    @contextmanager
    def into(self) -> Iterator[list[Block]]:
        """Blocks written inside go to the list it gives, not the slide's body."""
        before, self.out = self.out, []
        inside = self.out
        try:
            yield inside
        finally:
            self.out = before

    def runs(self, text: Text | str) -> list[Run]:
        return self.texts.runs(text if isinstance(text, Text) else Text((text,), Loc("", 0)))

    def text_of(self, text: Text) -> str:
        return "\n".join(lines_of(self.texts.blocks(text)))

    def paras_of(self, blocks: list[Block]) -> list[Para]:
        return [p for b in blocks if isinstance(b, Paras) for p in b.paras if p.text.strip()]

    def footnote(self, kind: str, content: str, prepared: Prepared) -> int:
        """The number a footnote shows on this slide (a second reference to one: the same);
        its text goes to the slide's foot."""
        ident: object = ("ref", content) if kind == "ref" else (id(prepared), content)
        state = self.state
        if ident in state.footnotes:
            return state.footnotes[ident]
        number = len(state.footnotes) + 1
        state.footnotes[ident] = number
        body, at = (
            (content, prepared)
            if kind == "inline"
            else self.definitions.get(content, ("", prepared))
        )
        runs = [
            r
            for b in self.texts.blocks_of(body, at)
            if isinstance(b, Paras)
            for p in b.paras
            for r in p.runs
        ]
        state.foot.append(Para([Run(f"{number}. "), *runs], style="small"))
        return number


def section_definitions(slides: tuple[DocSlide, ...]) -> dict[str, tuple[str, Prepared]]:
    """The section's footnote definitions (`[^id]: text`), each with the text it is in."""
    found: dict[str, tuple[str, Prepared]] = {}
    for slide in slides:
        for node in walk(slide.blocks):
            if isinstance(node, Text) and any(isinstance(p, str) and "[^" in p for p in node.parts):
                prepared = prepare(node)
                for key, body in prepared.definitions.items():
                    found.setdefault(key, (body, prepared))
    return found


def box_runs(runs: list[Run]) -> list[Run]:
    """A box's runs with a bold part on a line of its own (the deck shows `strong` as a
    block in flows and cards)."""
    out: list[Run] = []
    bold: bool | None = None  # the last part with text: bold or not
    for run in runs:
        if not run.text.strip():
            out.append(run)
            continue
        if bold is not None and run.bold != bold:
            while out and not out[-1].text.strip():
                out.pop()
            out[-1] = replace(out[-1], text=out[-1].text.rstrip())
            out.append(Run("\v"))
            run = replace(run, text=run.text.lstrip())
        out.append(run)
        bold = run.bold
    return [r for r in out if r.text]


def fraction(width: str | None) -> float | None:
    """A column's `width="40%"` as 0.4."""
    if not width or not width.strip().endswith("%"):
        return None
    try:
        return float(width.strip()[:-1]) / 100
    except ValueError:
        return None


def as_kinds_see_it(writer: SlidesWriter) -> base.SlidesWriter:
    """(For mypy: the writer meets the protocol block kinds write through.)"""
    return writer
