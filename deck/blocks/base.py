"""What a block kind is: `BlockKind` (parse and render of one `:::` kind together), the
scanner's side it parses with (`ParseContext`), and small helpers the kinds share."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from deck.blocks.context import RenderContext
from deck.blocks.provenance import Bindings
from deck.blocks.styles import layout_style, position_style, style_join
from deck.errors import Diagnostic, Loc
from deck.model import Block, Div, InlineExpr, Prose, Section
from deck.model.document import EVERYONE, Group, Node, QuizOrder, Text, references_token

SUB_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")  # a callout's title, a tab's name
HTML_ATTRS = {"id", "style", "title", "role", "lang", "dir"}


@dataclass(frozen=True)
class Opening:
    """A `::: {.name key="value"}` line as the scanner read it."""

    start: int  # 0-based index of the line in its file
    fence: str  # the colons
    spec: str  # what follows them
    classes: tuple[str, ...]
    attrs: dict[str, str]

    def unclosed(self) -> str:
        return f"`{self.fence} {self.spec}` is never closed by `:::`"


class ParseContext(Protocol):
    """The scanner, as block kinds see it while they parse."""

    lines: list[str]
    pos: int  # the next line to read (0-based)

    @property
    def widgets(self) -> dict[str, str]:
        """The widget kinds the lesson defines, each with its data's format."""
        ...

    @property
    def meta(self) -> dict[str, Any]:
        """The front matter (or `lesson.yml`) as written: what `when-meta` reads."""
        ...

    @property
    def tolerant(self) -> bool:
        """Whether the file is read as Pandoc reads it (a Quarto file), not strictly."""
        ...

    def loc(self, index: int) -> Loc: ...

    def error(self, index: int, code: str, message: str) -> None: ...

    def warn(self, index: int, code: str, message: str) -> None: ...

    def inline(self, text: str, index: int) -> str:
        """`{python} expr` spans → placeholders, the expressions recorded."""
        ...

    def add_inline(self, expr: str, loc: Loc) -> InlineExpr:
        """An expression evaluated like an inline value (a quiz's answer, a widget's data)."""
        ...

    def body(self) -> tuple[list[Block], bool]:
        """The blocks up to the closing `:::`, and whether it came."""
        ...

    def block_text(self, blocks: list[Block], start: int) -> str:
        """Blocks that must be prose, as one Markdown text keeping the file's lines."""
        ...


class ResolveContext(Protocol):
    """The document builder, as block kinds see it while they resolve a parsed block into
    what every output shows (`deck.model.document`)."""

    section: Section
    # how the section's quizzes were shown by its render, else None (they are ordered now)
    orders: dict[str, QuizOrder] | None
    plain: Callable[[Text], str] | None  # a text as the slide quotes it, formulas as `$TeX$`
    diagnostics: list[Diagnostic]
    warnings: list[Diagnostic]
    made: list[QuizOrder]  # the quizzes' orders found while resolving

    @property
    def bindings(self) -> Bindings:
        """The section's binding statements, parsed once (deck.blocks.provenance)."""
        ...

    def text(self, source: str, loc: Loc) -> Text:
        """Markdown with its inline values in place, as text."""
        ...

    def nodes(self, blocks: tuple[Block, ...]) -> tuple[Node, ...]: ...

    def inline_value(self, expr: str) -> str | None:
        """The computed text of an inline expression, None when there is none."""
        ...


class NotebookWriter(Protocol):
    """The notebook exporter, as block kinds see it: they write their node's cells."""

    audience: str  # "notebook" (students') or "solutions"
    lang: str

    def nodes(self, nodes: tuple[Node, ...], exercise: bool) -> None: ...

    def text(self, text: Text) -> str:
        """Markdown reading as the slide does, each computed value escaped as text."""
        ...

    def prose(self, text: Text) -> None: ...

    def markdown(self, markdown: str) -> None: ...


class SlidesWriter(Protocol):
    """The PowerPoint exporter, as block kinds see it: they put their node on the slide being
    written (its body, its notes pane, its foot). Every text is the document's `Text`."""

    audience: str  # "slides": the notes pane holds what only the lecturer sees
    lang: str

    def nodes(self, nodes: tuple[Node, ...], exercise: bool) -> None:
        """The blocks inside, in the slide's flow."""
        ...

    def prose(self, text: Text) -> None: ...

    def heading(self, text: Text | str) -> None:
        """A bold line (a tab's name)."""
        ...

    def lettered(self, choices: tuple[Text, ...]) -> None:
        """Choices lettered A., B., … as on the slides."""
        ...

    def plain(self, text: Text) -> str:
        """The text as the slide reads it, on one line (values and formulas as text)."""
        ...

    def note(self, text: Text | str, key: bool = False) -> None:
        """Lines of the notes pane (`key`: of the answer key, after the speaker notes)."""
        ...

    def columns(self, columns: tuple[tuple[str | None, tuple[Node, ...]], ...]) -> None:
        """Side by side: each column's width as written (`40%`, or None) and its blocks."""
        ...

    def boxes(self, nodes: tuple[Node, ...], vertical: bool = False, cards: bool = False) -> None:
        """The list among `nodes` as boxes joined by arrows (`cards`: a row, no arrows)."""
        ...

    def panel(self, kind: str, title: Text | str, nodes: tuple[Node, ...]) -> None:
        """A titled box of a callout's `kind` (note, tip, warning, caution, important)."""
        ...

    def footer(self, nodes: tuple[Node, ...]) -> None:
        """This slide's own footer, instead of the deck's."""
        ...

    def aside(self, nodes: tuple[Node, ...]) -> None:
        """Small text at the slide's foot."""
        ...


Parse = Callable[[ParseContext, Opening], Block | None]
# (the render context, the kind's resolved node, the slide's notes so far) → its HTML
Render = Callable[[RenderContext, Any, list[str]], str]
Resolve = Callable[[ResolveContext, Any], Node | None]
Handler = Callable[[Any, Any, bool], None]  # (the output's writer, the node, inside an exercise)
# The outputs made from the document (`deck.model.document`): every kind has a handler for
# each (the notebook's writer is a `NotebookWriter`, the PowerPoint file's a `SlidesWriter`),
# or says explicitly how it falls back (`contents`, `left_out`).
DOCUMENT_OUTPUTS = ("ipynb", "pptx")


def resolve_group(r: ResolveContext, div: Div, kind: str, seen_by: frozenset[str]) -> Group:
    return Group(kind, div.classes, div.attrs, r.nodes(div.blocks), div.loc, seen_by)


def contents(writer: Any, node: Group, exercise: bool) -> None:
    """The fallback handler: the blocks inside, as that output shows them (a `.exercise`
    group makes its cells exercises)."""
    writer.nodes(node.blocks, exercise or "exercise" in node.classes)


def left_out(writer: Any, node: Node, exercise: bool) -> None:
    """The handler of a kind an output does not show (the lecturer's notes in a notebook)."""


@dataclass(frozen=True)
class BlockKind:
    """One kind of `::: {.name}` block: which classes open it, how its lines become a block,
    how it resolves into the document (`resolve`, else a `Group` seen by `seen_by`), how that
    node becomes the HTML deck (`render`), and its handler for each other output made from
    the document."""

    name: str
    claims: Callable[[str], bool]  # a class that makes a block of this kind
    parse: Parse
    render: Render
    outputs: dict[str, Handler] = field(
        default_factory=lambda: {"ipynb": contents, "pptx": contents}
    )
    resolve: Resolve | None = None
    seen_by: frozenset[str] = EVERYONE
    # For the reference (docs/reference/blocks.md): how an author opens it, then what it does.
    doc: str = ""

    def resolved(self, r: ResolveContext, block: Any) -> Node | None:
        if self.resolve is not None:
            return self.resolve(r, block)
        return resolve_group(r, block, self.name, self.seen_by)


def check_handlers(kinds: tuple[BlockKind, ...], outputs: tuple[str, ...]) -> None:
    """Every kind has a handler for every output made from the document: a gap is an error
    at start-up, never a block that silently vanishes from one output."""
    missing = [f"{k.name} → {o}" for k in kinds for o in outputs if o not in k.outputs]
    if missing:
        raise RuntimeError("block kinds without a handler: " + ", ".join(missing))
    undocumented = [k.name for k in kinds if not k.doc.strip()]
    if undocumented:
        raise RuntimeError("block kinds without their reference (doc=): " + ", ".join(undocumented))


def named(name: str) -> Callable[[str], bool]:
    return lambda cls: cls == name


def parse_div(p: ParseContext, opening: Opening) -> Div | None:
    """The plain parse: the blocks inside, kept as a `Div` with the opening's classes."""
    blocks, closed = p.body()
    if not closed:
        p.error(opening.start, "parse", opening.unclosed())
        return None
    return Div(opening.classes, opening.attrs, tuple(blocks), p.loc(opening.start))


class Attributed(Protocol):
    @property
    def classes(self) -> tuple[str, ...]: ...

    @property
    def attrs(self) -> dict[str, str]: ...


def attributes(div: Attributed, classes: list[str] | None = None) -> str:
    """` class="…" style="…" data-…="…"`: `.absolute` placement as a style, other keys as
    `data-` attributes (reveal.js reads `data-fragment-index`, `data-id`…)."""
    attrs = dict(div.attrs)
    names = list(div.classes) if classes is None else classes
    if "absolute" in names:
        attrs["style"] = style_join(attrs.get("style"), position_style(attrs))
    grid = layout_style(attrs)  # `layout-ncol=2`: the panels side by side
    if grid:
        attrs["style"] = style_join(attrs.get("style"), grid)
    out = f' class="{html.escape(" ".join(names))}"' if names else ""
    for key, value in attrs.items():
        name = key if key in HTML_ATTRS or key.startswith("data-") else f"data-{key}"
        out += f' {name}="{html.escape(value)}"'
    return out


def render_plain(r: RenderContext, div: Group, notes: list[str]) -> str:
    markup = f"<div{attributes(div)}>{r.blocks(div.blocks, notes)}</div>"
    if div.attrs.get("id") == "refs" and not div.blocks:  # the references' place (citations)
        return references_token(markup)
    return markup


def split_at_headings(prose: Prose) -> list[Prose]:
    """A prose block cut before and after each heading line, each piece with its own line."""
    lines = prose.text.split("\n")
    pieces: list[Prose] = []
    start = 0
    for k, line in enumerate(lines):
        if SUB_HEADING.match(line):
            pieces.append(_piece(lines, start, k, prose.loc))
            pieces.append(_piece(lines, k, k + 1, prose.loc))
            start = k + 1
    pieces.append(_piece(lines, start, len(lines), prose.loc))
    return [p for p in pieces if p.text]


def _piece(lines: list[str], start: int, end: int, loc: Loc) -> Prose:
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return Prose("\n".join(lines[start:end]), Loc(loc.path, loc.line + start))
