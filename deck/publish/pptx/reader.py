"""A text's Markdown element tree walked into slide blocks (paragraphs, lists, tables,
headings, pictures, code), its tokens resolved: a value a run of its text (never markup), an
inline formula text runs typeset from KaTeX's MathML, a display formula a picture of its TeX,
a footnote its raised number. `prepare` takes a text's values and formulas out first, as
render does (`deck.blocks.tex.extract`, values filled in); `prose.Prose` parses with the
deck's Markdown."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol
from xml.etree.ElementTree import Element

from deck.blocks.tex import extract
from deck.model.document import Text
from deck.publish.pptx.rawhtml import element_tree
from deck.publish.pptx.shapes import (
    Block,
    Cell,
    CodeBlock,
    Panel,
    Para,
    Paras,
    Picture,
    Run,
    Table,
    styled,
    trim,
)
from deck.render.pandoc import SPAN, mark_footnotes, take_definitions

TOKEN = re.compile("\u2063([VMN])(\\d+)\u2063|\x02wzxhzdk:(\\d+)\x03")
LABEL = re.compile("\u2063L([^\u2063]*)\u2063")  # where a numbered caption's label goes
CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
CJK_LINE_BREAK = re.compile(f"(?<=[{CJK}])\n(?=[{CJK}])")  # (as render joins them)
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
INLINE_TAGS = {"b": "bold", "strong": "bold", "i": "italic", "em": "italic", "code": "code"}
RAW_TAG = re.compile(r"^<(/?)([a-zA-Z][\w-]*)\b[^>]*?(/?)>$")
Item = Run | Picture  # what inline content makes: runs, and pictures standing in it


def _token(kind: str, k: int) -> str:
    return f"\u2063{kind}{k}\u2063"


@dataclass
class Prepared:
    """A text ready for Markdown: its values and formulas as tokens (`\u2063V0\u2063`,
    `\u2063M0\u2063`), its footnotes marked (`\u2063N0\u2063`) and their definitions taken."""

    marked: str
    values: list[str]
    formulas: list[tuple[str, bool]]  # TeX (values filled in), display
    footnotes: list[tuple[str, str]] = field(default_factory=list)  # ("inline", text) / ("ref", id)
    definitions: dict[str, str] = field(default_factory=dict)  # id → its text (tokens as here)


def prepare(text: Text) -> Prepared:
    values: list[str] = []
    source = ""
    for part in text.parts:  # (a reference, a citation: as a value, its shown text)
        source += part if isinstance(part, str) else _token("V", len(values))
        values += [] if isinstance(part, str) else [part.text]
    marked, found = extract(source)

    def filled(tex: str) -> str:
        return TOKEN.sub(lambda m: values[int(m.group(2))] if m.group(1) == "V" else "", tex)

    formulas = [(CJK_LINE_BREAK.sub("", filled(tex)), display) for tex, display, _ in found]
    marked = marked.replace("\\@", "@")  # (Pandoc's escaped `@`: not a citation)
    marked, defs = take_definitions(marked)
    notes: list[tuple[str, str]] = []

    def add(kind: str, content: str, _offset: int) -> int:
        notes.append((kind, content))
        return len(notes) - 1

    marked = mark_footnotes(marked, add)
    marked = SPAN.sub(lambda m: m.group(0) if m.group("code") else m.group("text"), marked)
    marked = CJK_LINE_BREAK.sub("", marked)
    return Prepared(marked, values, formulas, notes, {k: v for k, (v, _) in defs.items()})


class Context(Protocol):
    """What the reader asks of the texts' converter (`prose.Prose`)."""

    media: Callable[[str], Path | None]  # a picture's src as written → its file
    footnote: Callable[[str, str, Prepared], int]  # → the number the slide shows
    labels: dict[str, str]  # a numbered figure's label → its caption's start ("Figure 2: ")

    def math(self, tex: str, style: Run, display: bool = False) -> list[Run]: ...


class Reader:
    """Walks one text's element tree into blocks, resolving its tokens."""

    def __init__(self, prose: Context, prepared: Prepared, stash: list[str]) -> None:
        self.prose = prose
        self.prepared = prepared
        self.stash = stash
        self.out: list[Block] = []
        self.pending: list[Para] = []

    def read(self, root: Element) -> list[Block]:
        self.children(root)
        self.flush()
        return self.out

    def flush(self) -> None:
        if self.pending:
            self.out.append(Paras(self.pending))
            self.pending = []

    def add(self, block: Block) -> None:
        self.flush()
        self.out.append(block)

    def children(self, parent: Element, style: str = "") -> None:
        if (parent.text or "").strip():
            self.para(self.text(parent.text or "", Run("")), style)
        for child in parent:
            self.element(child, style)
            if (child.tail or "").strip():
                self.para(self.text(child.tail or "", Run("")), style)

    def element(self, el: Element, style: str) -> None:
        tag = el.tag
        raw = self.raw_block(el)
        if raw is not None:  # (its tokens, values and formulas, are this text's)
            inner = Reader(self.prose, self.prepared, self.stash).read(element_tree(raw))
            for block in inner:
                if isinstance(block, Paras):
                    for para in block.paras:
                        para.style = para.style or style
                    self.pending += block.paras
                else:
                    self.add(block)
        elif tag == "p":
            small = "small" in (el.get("class") or "").split()
            self.para(self.inline(el, Run("")), "small" if small else style)
        elif tag in HEADINGS:
            self.para(self.inline(el, Run("", bold=True)), "heading")
        elif tag in ("ul", "ol"):
            self.listing(el, 1)
        elif tag == "blockquote":  # (on its tinted ground)
            self.add(Panel("quote", None, Reader(self.prose, self.prepared, self.stash).read(el)))
        elif tag == "table":
            self.add(self.table(el))
        elif tag == "figure":
            for part in el:
                if part.tag == "figcaption":
                    part.text = LABEL.sub(self.label, part.text or "", 1)  # (crossref)
                    self.para(self.inline(part, Run("")), "caption")
                else:
                    self.element(part, style)
        elif tag == "img":
            self.add(self.picture(el))
        elif tag == "pre":
            self.add(CodeBlock(html.unescape("".join(el.itertext())).rstrip("\n")))
        elif tag == "hr":
            pass
        elif tag in ("div", "section", "details", "summary", "dl", "dt", "dd"):
            self.children(el, style)
        else:  # inline content standing alone
            holder = Element("p")
            holder.append(el)
            self.para(self.inline(holder, Run("")), style)

    def raw_block(self, el: Element) -> str | None:
        """A raw HTML block's markup: its paragraph holds only its stash token."""
        if el.tag != "p" or len(el):
            return None
        m = TOKEN.fullmatch((el.text or "").strip())
        return self.stash[int(m.group(3))] if m and m.group(3) is not None else None

    def para(self, items: list[Item], style: str = "", level: int = 0, bullet: str = "") -> None:
        """Inline items as paragraphs, a picture (a display formula, an image) standing
        between them as a block of its own."""
        runs: list[Run] = []
        for item in [*items, None]:
            if isinstance(item, Run):
                runs.append(item)
                continue
            trimmed = trim(runs)
            if trimmed or bullet:
                self.pending.append(Para(trimmed, level, bullet, style))
                bullet = ""  # (what follows a formula in an item is not a new item)
            runs = []
            if item is not None:
                self.add(item)

    def listing(self, el: Element, level: int) -> None:
        number = int(el.get("start") or 1)
        for item in el:
            if item.tag != "li":
                continue
            bullet = f"{number}." if el.tag == "ol" else "•"
            number += 1
            inline = Element("span")
            inline.text = item.text
            blocks: list[Element] = []
            for child in item:
                if blocks or child.tag in ("p", "ul", "ol", "pre", "table", "blockquote", "div"):
                    blocks.append(child)
                else:
                    inline.append(child)
            if not (item.text or "").strip() and not len(inline) and blocks:
                first = blocks[0]
                if first.tag == "p" and self.raw_block(first) is None:
                    inline, blocks = first, blocks[1:]
            self.para(self.inline(inline, Run("")), "", level, bullet)
            for child in blocks:
                if child.tag in ("ul", "ol"):
                    self.listing(child, level + 1)
                elif child.tag == "p" and self.raw_block(child) is None:
                    self.para(self.inline(child, Run("")), "", level, "")
                else:
                    self.element(child, "")

    def table(self, el: Element) -> Table:
        """A table's cells as runs; its header row only where the deck shows one: the rows
        of its `<thead>` (an empty one, a header-less Markdown table's, left out), else a
        first row of `<th>` only."""
        rows: list[list[Cell]] = []
        head = 0

        def walk(node: Element, in_head: bool) -> None:
            nonlocal head
            for child in node:
                if child.tag in ("caption", "colgroup"):
                    continue
                if child.tag == "tr":
                    row = [
                        Cell(cell_runs(self.inline(c, Run(""))), c.tag == "th", *spans(c))
                        for c in child
                        if c.tag in ("td", "th")
                    ]
                    if in_head and not any(cell.text.strip() for cell in row):
                        continue  # (an empty header: the deck draws no heading there)
                    rows.append(row)
                    head += in_head
                else:
                    walk(child, in_head or child.tag == "thead")

        walk(el, False)
        placed = on_grid(rows)
        width = max((len(r) for r in placed), default=0)
        header = head > 0 or bool(rows and rows[0] and all(c.header for c in rows[0]))
        return Table([r + [Cell([])] * (width - len(r)) for r in placed], header)

    def picture(self, el: Element) -> Picture:
        src = el.get("src") or ""
        alt = self.plain(el.get("alt") or "")
        return Picture("figure", src, alt, self.prose.media(src))

    def label(self, m: re.Match[str]) -> str:  # a caption's label, where its token stands
        return self.prose.labels.get(m[1], "")

    def plain(self, text: str) -> str:
        """Text of an attribute: values as their text, formulas as `$TeX$`."""

        def sub(m: re.Match[str]) -> str:
            kind, k = m.group(1), int(m.group(2) or 0)
            if kind == "V":
                return self.prepared.values[k]
            if kind == "M":
                return f"${self.prepared.formulas[k][0]}$"
            return ""

        return TOKEN.sub(sub, text)

    # ---- inline ---------------------------------------------------------------------
    def inline(self, el: Element, style: Run) -> list[Item]:
        items = self.text(el.text or "", style)
        for child in el:
            tag = str(child.tag)
            if tag in INLINE_TAGS:
                inner = styled(style, INLINE_TAGS[tag], True)
                if tag == "code":
                    text = html.unescape("".join(child.itertext()))
                    items.append(Run(text, style.bold, style.italic, True, style.script))
                else:
                    items += self.inline(child, inner)
            elif tag == "a":
                items += self.inline(child, replace(style, link=child.get("href")))
            elif tag == "br":
                items.append(Run("\v", style.bold, style.italic))
            elif tag == "img":
                items.append(self.picture(child))
            elif tag in ("sub", "sup"):
                items += self.inline(child, replace(style, script=-1 if tag == "sub" else 1))
            else:
                items += self.inline(child, style)
            items += self.text(child.tail or "", style)
        return items

    def text(self, text: str, style: Run) -> list[Item]:
        """Text with its tokens: values as runs of their text, formulas typeset, footnotes
        as their raised number, raw inline tags styling what follows."""
        items: list[Item] = []
        at = 0
        state = {"style": style}
        for m in [*TOKEN.finditer(text), None]:
            end = m.start() if m else len(text)
            piece = text[at:end]
            current = state["style"]
            if piece:
                code = current.code
                items.append(replace(current, text=piece if code else re.sub(r"\s+", " ", piece)))
            if m is None:
                break
            at = m.end()
            kind = m.group(1)
            if kind == "V":
                value = " ".join(self.prepared.values[int(m.group(2))].split("\n"))
                items.append(replace(current, text=value))
            elif kind == "M":
                tex, display = self.prepared.formulas[int(m.group(2))]
                if display:
                    items.append(Picture("formula", tex, tex))
                else:
                    items += self.prose.math(tex, current)
            elif kind == "N":
                what, content = self.prepared.footnotes[int(m.group(2))]
                number = self.prose.footnote(what, content, self.prepared)
                items.append(replace(current, text=str(number), script=1))
            else:
                self.raw_inline(self.stash[int(m.group(3))], state, items)
        return items

    def raw_inline(self, raw: str, state: dict[str, Run], items: list[Item]) -> None:
        """An inline raw tag or entity: `<br>` breaks the line, `<b>`, `<i>`, `<code>`,
        `<sub>`, `<sup>` style what follows until they close, an entity is its character;
        other tags are left out (their text stays)."""
        m = RAW_TAG.match(raw.strip())
        if m is None:
            if raw.startswith("&"):
                items.append(replace(state["style"], text=html.unescape(raw)))
            return
        closing, tag = bool(m.group(1)), m.group(2).lower()
        if tag == "br":
            items.append(replace(state["style"], text="\v"))
        elif tag in INLINE_TAGS:
            state["style"] = styled(state["style"], INLINE_TAGS[tag], not closing)
        elif tag in ("sub", "sup"):
            script = 0 if closing else (-1 if tag == "sub" else 1)
            state["style"] = replace(state["style"], script=script)


def cell_runs(items: list[Item]) -> list[Run]:
    """A table cell's runs: one paragraph, its line breaks spaces, white space collapsed."""
    runs = [
        replace(r, text=re.sub(r"\s+", " ", r.text.replace("\v", " ")))
        for r in items
        if isinstance(r, Run)
    ]
    out: list[Run] = []
    for run in runs:
        if out and out[-1].text.endswith(" ") and run.text.startswith(" "):
            run = replace(run, text=run.text[1:])
        if run.text:
            out.append(run)
    return trim(out)


def spans(cell: Element) -> tuple[int, int]:
    """(colspan, rowspan) of a `<td>`/`<th>`, at least 1 each."""

    def number(name: str) -> int:
        try:
            return max(1, min(int(cell.get(name) or 1), 1000))
        except ValueError:
            return 1

    return number("colspan"), number("rowspan")


def on_grid(rows: list[list[Cell]]) -> list[list[Cell]]:
    """The rows with each place a cell spans over filled by a covered cell, so that every row
    has a cell for each column it reaches (a spanning cell first, at its top-left)."""
    grid: dict[tuple[int, int], Cell] = {}
    for r, row in enumerate(rows):
        column = 0
        for cell in row:
            while (r, column) in grid:
                column += 1
            for dr in range(cell.down):
                for dc in range(cell.span):
                    grid[(r + dr, column + dc)] = cell if dr == dc == 0 else Cell([], covered=True)
            column += cell.span
    height = max((r for r, _ in grid), default=-1) + 1
    out = []
    for r in range(min(height, len(rows))):
        width = max((c for (row, c) in grid if row == r), default=-1) + 1
        out.append([grid.get((r, c), Cell([])) for c in range(width)])
    return out
