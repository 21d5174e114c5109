"""What a PowerPoint slide is made of, before it is placed: paragraphs of styled runs (computed
values and inline formulas as text), tables, pictures (figures with their file, display
formulas with their TeX), code, columns, flows and card rows, and titled panels (callouts).
The writer (`writer.py`) makes them from the document; `layout.py` places them and
`compose.py` draws them. Runs of one style join (`merge`); a paragraph's ends are trimmed."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path


@dataclass
class Run:
    text: str
    bold: bool = False
    italic: bool = False
    code: bool = False
    script: int = 0  # -1 subscript, +1 superscript (inline math)
    link: str | None = None


@dataclass
class Para:
    runs: list[Run] = field(default_factory=list)
    level: int = 0  # list nesting (0: not a list item)
    bullet: str = ""  # "•" or "1." … for list items, "A." … for a quiz's choices
    style: str = ""  # "quote", "caption", "small", "heading"

    @property
    def text(self) -> str:
        return "".join(r.text for r in self.runs)


@dataclass
class Paras:
    paras: list[Para]


@dataclass
class Cell:
    runs: list[Run]  # as a paragraph's: formulas' scripts raised or lowered
    header: bool = False  # a `<th>`
    span: int = 1  # columns it spans (`colspan`)
    down: int = 1  # rows it spans (`rowspan`)
    covered: bool = False  # a place another cell spans over: merged into that one

    @property
    def text(self) -> str:
        return "".join(r.text for r in self.runs)


@dataclass
class Table:
    rows: list[list[Cell]]
    header: bool = False  # its first row is a header row (`<thead>`, or all `<th>`)


@dataclass
class Picture:
    kind: str  # "figure" (a file), "formula" (TeX)
    source: str  # the figure's src as written, or the formula's TeX
    alt: str = ""
    path: Path | None = None  # the figure's file (None: not found)
    png: Path | None = None  # its PNG at twice its size, saved when its cell ran


@dataclass
class CodeBlock:
    text: str
    lang: str = ""  # its language, highlighted as the deck highlights it ("": plain text)


@dataclass
class ColumnsBlock:
    columns: list[list[Block]]
    widths: list[float | None]


@dataclass
class Flow:
    """`::: flow`: its list's items as boxes joined by arrows, side by side (`.vertical`:
    stacked), each box's text one paragraph (a `**bold**` part on a line of its own);
    `::: cards` (`cards`): the boxes in a row, without arrows."""

    boxes: list[Para]
    vertical: bool = False
    cards: bool = False


@dataclass
class Panel:
    """A box holding blocks: a callout (`kind`: note, tip, warning, caution, important) with
    its title line, or a block quote (`quote`, no title) on its tinted ground."""

    kind: str
    title: Para | None
    blocks: list[Block]


Block = Paras | Table | Picture | CodeBlock | ColumnsBlock | Flow | Panel


def pictures_in(blocks: list[Block]) -> list[Picture]:
    """Every picture among `blocks`, those in columns and panels too."""
    found: list[Picture] = []
    for block in blocks:
        if isinstance(block, ColumnsBlock):
            for column in block.columns:
                found += pictures_in(column)
        elif isinstance(block, Panel):
            found += pictures_in(block.blocks)
        elif isinstance(block, Picture):
            found.append(block)
    return found


def styled(style: Run, what: str, on: bool) -> Run:
    """`style` made bold, italic or code (`what`), or not."""
    if what == "bold":
        return replace(style, bold=on)
    if what == "italic":
        return replace(style, italic=on)
    return replace(style, code=on)


def trim(runs: list[Run]) -> list[Run]:
    """Runs merged, without white space at either end (a paragraph's)."""
    runs = [r for r in merge(runs) if r.text]
    while runs and not runs[0].text.strip() and not runs[0].code:
        runs.pop(0)
    while runs and not runs[-1].text.strip() and not runs[-1].code:
        runs.pop()
    if runs and not runs[0].code:
        runs[0].text = runs[0].text.lstrip(" ")
    if runs and not runs[-1].code:
        runs[-1].text = runs[-1].text.rstrip(" ")
    return runs


def merge(runs: list[Run]) -> list[Run]:
    merged: list[Run] = []
    for run in runs:
        last = merged[-1] if merged else None
        if last is not None and (last.bold, last.italic, last.code, last.script, last.link) == (
            run.bold,
            run.italic,
            run.code,
            run.script,
            run.link,
        ):
            last.text += run.text
        else:
            merged.append(replace(run))
    return merged
