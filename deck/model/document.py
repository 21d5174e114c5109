"""The lesson resolved for presentation: one typed document between render and publish.

Render resolves what a slide shows once: every computed value as text (with the line that
computed it), each quiz's choices in the order the slides show them with the answer, each
cell's code, outputs and figures as shown, and who sees each block (`AUDIENCES`). Exporters
read this document; none re-derives it from the parsed lesson or parses the deck's HTML.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from deck.errors import Loc
from deck.model.results import Figure, Output

# Who sees a block: the projected slides, the students' handout, the lecturer's notes, the
# students' notebook and its solutions.
AUDIENCES = ("slides", "handout", "notes", "notebook", "solutions")
EVERYONE = frozenset(AUDIENCES)


@dataclass(frozen=True)
class QuizOrder:
    """How render showed a quiz: its choices' written indices in the order shown, and the
    answer's position in that order (recorded with the section's render)."""

    loc: str  # the quiz's `file:line`
    order: tuple[int, ...]
    answer: int
    source: str = ""  # the `file:line` computing its answer (the quiz's own when none does)


@dataclass(frozen=True)
class Value:
    """A computed inline value, as the slide shows it (text, never markup)."""

    expr: str
    text: str
    loc: Loc


@dataclass(frozen=True)
class Ref:
    """A cross-reference as written (`@fig-x`, `[@fig-x]`, `[-@fig-x]`: `form` "", "[", "[-"),
    at its own line; the document's transforms resolve it (`text`, the slide it links to)."""

    label: str
    form: str
    loc: Loc
    text: str = ""  # as shown: "Figure 2" ("2" for `[-@…]`); as written until resolved
    slide: int = 0  # the deck-wide number of the slide showing what it names; 0: unresolved

    def __post_init__(self) -> None:
        if not self.text:
            object.__setattr__(self, "text", self.written)

    @property
    def written(self) -> str:
        return f"{self.form}@{self.label}{']' if self.form else ''}"


@dataclass(frozen=True)
class Cite:
    """A citation as written (`[@key]`, `@key [p. 3]`, `[-@key]`), at its own line; the
    document's transforms format it (`text`; `html` as Pandoc's citeproc writes it)."""

    written: str
    loc: Loc
    text: str = ""  # as shown; as written until formatted
    html: str = ""  # Pandoc's HTML for it ("" until formatted)

    def __post_init__(self) -> None:
        if not self.text:
            object.__setattr__(self, "text", self.written)


@dataclass(frozen=True)
class Target:
    """What a cross-reference can name: a figure, table, equation or slide, numbered in the
    order the deck shows them (`name`: "Figure 2", the slide it is on)."""

    kind: str  # fig, tbl, eq, sec
    number: int
    slide: int
    name: str


Inline = Value | Ref | Cite  # what stands in a text besides its Markdown


@dataclass(frozen=True)
class Text:
    """Markdown as written (math left as `$TeX$`), each computed value in place as a `Value`,
    each cross-reference a `Ref` and each citation a `Cite`."""

    parts: tuple[str | Inline, ...]
    loc: Loc

    def markdown(self, value: Callable[[Inline], str]) -> str:
        """The text with each value, reference and citation written by `value` (escaped as the
        output needs: each has its shown `text`)."""
        return "".join(p if isinstance(p, str) else value(p) for p in self.parts)

    @property
    def values(self) -> tuple[Value, ...]:
        return tuple(p for p in self.parts if isinstance(p, Value))


@dataclass(frozen=True)
class Listing:
    """A fenced code block shown as it is written (not run)."""

    lang: str
    text: str
    loc: Loc
    attrs: dict[str, str] = field(default_factory=dict)  # as written (`code-line-numbers`)

    @property
    def empty_cell(self) -> bool:
        """An empty `{.python .cell}` fence: the slide shows an empty cell, other outputs
        nothing."""
        return self.attrs.get("cell") == "true" and not self.text.strip()


@dataclass(frozen=True)
class ShownCell:
    """A cell as the build showed it: its code (when `echo`), its outputs and figures."""

    code: str
    loc: Loc
    label: str | None
    echo: bool  # its code is on the slide
    exercise: bool  # students write it themselves
    show_output: bool  # `output: false` hides what it printed and drew
    outputs: tuple[Output, ...]  # warnings left out where the slide leaves them out
    figures: tuple[Figure, ...]
    figure_dir: str
    alt: Text | None  # `fig-alt`, with its values
    caption: Text | None  # `fig-cap`
    # where its outputs show: "default" (below its code), "fragment", "column" (beside its
    # code), "column-fragment", or "slide" (a slide of their own right after this one)
    location: str = "default"
    asis: bool = False  # `output: asis`: what it printed is Markdown, read as written
    fenced: bool = False  # `echo: fenced`: its code shown inside its ```{python} fence
    table_caption: Text | None = None  # `tbl-cap` of a `tbl-` cell, above its outputs
    line_numbers: object = None  # `code-line-numbers` as written (else the deck's setting)
    align: str = "default"  # `fig-align`
    layout: dict[str, str] = field(default_factory=dict)  # `layout-ncol`…: figures side by side

    @property
    def description(self) -> Text | None:
        """What a picture of it says to who cannot see it: `fig-alt`, else `fig-cap`."""
        return self.alt if self.alt is not None else self.caption


@dataclass(frozen=True)
class ShownQuiz:
    """A quiz as the slides show it: choices in the order shown, the answer's position."""

    question: Text
    choices: tuple[Text, ...]
    answer: int
    explanation: Text | None
    loc: Loc
    order: tuple[int, ...] = ()  # the choices' written indices, in the order shown
    source: Loc | None = None  # the line computing its answer


@dataclass(frozen=True)
class Group:
    """A `:::` block of some kind (its name in `kind`) and the blocks inside it."""

    kind: str
    classes: tuple[str, ...]
    attrs: dict[str, str]
    blocks: tuple[Node, ...]
    loc: Loc
    seen_by: frozenset[str] = EVERYONE
    title: Text | None = None  # its name as shown, where the kind has one (a tab's)
    value: Value | None = None  # the computed value it is fed (a widget's data)


@dataclass(frozen=True)
class Aside:
    """What only the lecturer sees (speaker notes) or only the projector does (a pause)."""

    kind: str  # notes, pause
    text: Text | None
    loc: Loc
    seen_by: frozenset[str] = frozenset({"notes"})
    minutes: float | None = None  # a note's `minutes=` (said before its text)


Node = Text | Listing | ShownCell | ShownQuiz | Group | Aside


@dataclass(frozen=True)
class DocSlide:
    number: int  # deck-wide, from 1
    title: Text | None
    level: int  # 1: a section's title slide
    classes: tuple[str, ...]
    loc: Loc
    blocks: tuple[Node, ...]
    attrs: dict[str, str] = field(default_factory=dict)  # as written (`timing="90"`)


@dataclass(frozen=True)
class DocSection:
    name: str
    rel: str
    seed: int
    slides: tuple[DocSlide, ...]
    setup: str = ""  # the lesson's setup module every section starts with (`setup:`)


@dataclass(frozen=True)
class Document:
    name: str
    title: str
    lang: str
    subtitle: str | None
    author: str | None
    date: str | None
    footer: str | None
    sections: tuple[DocSection, ...]
    # found by the document's transforms (deck.render.transforms): what references name, by
    # label, and the references' list as Pandoc's citeproc writes it (HTML; its entries' text
    # stand in a `::: {#refs}` group)
    targets: dict[str, Target] = field(default_factory=dict)
    bibliography: str = ""

    def slides(self) -> list[DocSlide]:
        return [slide for section in self.sections for slide in section.slides]


# ---- where the HTML deck marks what the document's transforms resolve -------------------------
# A section's HTML is rendered (and cached) on its own; what crosses sections is marked with a
# token made of the engine's invisible separator (which no input holds) and written once the
# deck is assembled, from the transformed document (`deck.render.crossref.fill`): R a reference
# (mode a: a link, t: text; its form and label), C a citation (mode; as written, hex), L where
# a numbered caption's label goes, E an equation's number, B the references' list (the empty
# `::: {#refs}` block's own markup, hex, for a deck without one).


def ref_token(ref: Ref, link: bool) -> str:
    return f"\u2063R{'a' if link else 't'}{ref.form}@{ref.label}\u2063"


def cite_token(cite: Cite, markup: bool) -> str:
    return f"\u2063C{'a' if markup else 't'}{cite.written.encode().hex()}\u2063"


def label_token(label: str) -> str:
    return f"\u2063L{label}\u2063"


def equation_token(label: str) -> str:
    return f"\u2063E{label}\u2063"


def references_token(markup: str) -> str:
    return f"\u2063B{markup.encode().hex()}\u2063"


def map_nodes(node: Any, change: Callable[[Any], Any]) -> Any:
    """`node` (a document, a slide, a block, a text…) with every node inside it, then itself,
    passed through `change` (inner ones first)."""
    if isinstance(node, tuple):
        return tuple(map_nodes(n, change) for n in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        values = {f.name: getattr(node, f.name) for f in dataclasses.fields(node)}
        changed = {k: map_nodes(v, change) for k, v in values.items()}
        if any(changed[k] is not values[k] for k in values):
            node = replace(node, **changed)
        return change(node)
    return node


def texts(node: Any) -> Iterator[Text]:
    """Every text inside `node` (a document, a slide, a block…), in order."""
    if isinstance(node, Text):
        yield node
    elif isinstance(node, tuple):
        for n in node:
            yield from texts(n)
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            yield from texts(getattr(node, f.name))


def walk(nodes: tuple[Node, ...]):
    """Every node, depth first, those inside groups too."""
    for node in nodes:
        yield node
        if isinstance(node, Group):
            yield from walk(node.blocks)
