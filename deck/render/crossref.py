"""Quarto's cross-references, on the document: figures (`#| label: fig-…`,
`![…](…){#fig-…}`), tables (`#| label: tbl-…`), equations (`$$…$$ {#eq-…}`) and slides
(`{#sec-…}`) numbered in the order the deck shows them; `@fig-x` shows "Figure 2" (a link to
the slide showing it), `[-@fig-x]` the number alone, and each caption starts with its label.

- `split` reads a text's references (and, where the deck has a bibliography, its citations)
  into typed parts (`Ref`, `Cite`) as the document is resolved, outside code, math and tags;
- `targets` numbers what they can name, from the document's nodes;
- `cross_references` is the document's transform resolving every `Ref` (a warning at the line
  of one naming nothing) and labelling the cells' captions for the outputs made from it;
- the HTML deck renders each reference, caption label, equation number and citation as a
  token of its own while a section renders (so a section's render stays its own, cached), and
  `fill` writes the tokens from the transformed document once the deck is assembled.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from deck.blocks.tex import MATH, extract
from deck.errors import Diagnostic, Loc
from deck.model.document import (
    Cite,
    DocSlide,
    Document,
    Group,
    Inline,
    Listing,
    Ref,
    ShownCell,
    Target,
    Text,
    equation_token,
    map_nodes,
    texts,
    walk,
)
from deck.render.cite import citations  # (Pandoc's citation syntax)
from deck.strings import strings

KINDS = ("fig", "tbl", "eq", "sec")
REFERENCE = re.compile(r"(?<!\\)(\[-?)?@((?:fig|tbl|eq|sec)-[\w-]*\w)(\])?")
# Where a reference is never read: code (spans, and raw elements), math, tags, link targets
SKIP = re.compile(
    MATH.pattern
    + r"|<(?P<raw>code|pre|script|style|kbd)\b.*?</(?P=raw)\s*>|<[^>\n]*>|(?<=\])\([^()\s]*\)",
    re.S,
)
VALUE = re.compile("\u2063V(\\d+)\u2063")  # an inline value's placeholder (model.placeholder)
# What names a figure or table in Markdown: `{#fig-x …}` attributes (an image's, a span's),
# and an `id` in raw HTML; an equation's `{#eq-x}` after its display formula
ATTR_ID = re.compile(r"\{[^{}\n]*?#((fig|tbl)-[\w-]+)[^{}\n]*\}")
HTML_ID = re.compile(
    r"""<(?:figure|img|div|span)\b[^>]*?\sid\s*=\s*["']((fig|tbl|eq)-[\w-]+)["']"""
)
EQ_LABEL = re.compile("(\u2063M(\\d+)\u2063)\\s*\\{#(eq-[\\w-]+)\\}")

# The HTML deck's tokens (deck.model.document: `ref_token`…)
TOKEN = re.compile("\u2063([RCLEB])([^\u2063]*)\u2063")
REF_TOKEN = re.compile(r"([at])(\[?-?)@([\w-]+)")


def names_for(lang: str) -> dict[str, str]:
    """The names of what references name (Figure, Table, …) in the deck's language."""
    return {kind: str(name) for kind, name in strings(lang, "crossref").items()}


# ---- reading a text -------------------------------------------------------------------------


def split(
    source: str, loc: Loc, value: Callable[[int], Inline], cites: bool
) -> tuple[str | Inline, ...]:
    """A text as written (each value a placeholder, `value(k)` its value) as its parts:
    Markdown, values, references and (with `cites`: the deck has a bibliography) citations,
    each at its line."""
    found: list[tuple[int, int, Inline | None]] = [
        (m.start(), m.end(), value(int(m.group(1)))) for m in VALUE.finditer(source)
    ]
    if "@" in source:
        found += list(_references(source, loc, cites))
    if not found:
        return (source,) if source else ()
    found.sort(key=lambda f: (f[0], -f[1]))
    parts: list[str | Inline] = []
    at = 0
    for start, end, part in found:
        if start < at or part is None:
            continue
        if start > at:
            parts.append(source[at:start])
        parts.append(part)
        at = end
    if at < len(source):
        parts.append(source[at:])
    return tuple(parts)


def _references(source: str, loc: Loc, cites: bool) -> Iterator[tuple[int, int, Inline]]:
    skipped = [(m.start(), m.end()) for m in SKIP.finditer(source)]

    def free(start: int) -> bool:
        return not any(a <= start < b for a, b in skipped)

    def line(start: int) -> Loc:
        return Loc(loc.path, loc.line + source.count("\n", 0, start))

    for m in REFERENCE.finditer(source):
        bracket, label, close = m.group(1), m.group(2), m.group(3)
        if (bracket and not close) or not free(m.start()):
            continue
        form = bracket or ""
        end = m.end() if form else m.end(2)
        yield m.start(), end, Ref(label, form, line(m.start()))
    if cites:
        for start, end, written in citations(source):
            if free(start):
                yield start, end, Cite(written, line(start))


# ---- numbering ------------------------------------------------------------------------------


def text_targets(source: str) -> list[tuple[str, str]]:
    """(label, kind) of each figure, table and equation a piece of Markdown names, in order."""
    if "fig-" not in source and "tbl-" not in source and "eq-" not in source:
        return []
    marked, formulas = extract(source)
    code = [(m.start(), m.end()) for m in MATH.finditer(marked) if m.group("code")]
    found = []
    for pattern in (ATTR_ID, HTML_ID):
        for m in pattern.finditer(marked):
            if not any(a <= m.start() < b for a, b in code):
                found.append((m.start(), m.group(1), m.group(2)))
    for m in EQ_LABEL.finditer(marked):
        if formulas[int(m.group(2))][1]:  # (after a display formula)
            found.append((m.start(), m.group(3), "eq"))
    return [(label, kind) for _, label, kind in sorted(found)]


def _markdown(node: Any) -> str:
    return node.markdown(lambda v: "") if isinstance(node, Text) else ""


def slide_targets(slide: DocSlide) -> Iterator[tuple[str, str, int]]:
    """(label, kind, slide number) of what a slide shows that a reference can name, in order
    (a cell's outputs on a slide of their own, `output-location: slide`, are on the next)."""
    label = slide.attrs.get("id", "")
    if label.startswith("sec-"):
        yield label, "sec", slide.number
    extra = 0
    for node in walk(slide.blocks):
        if isinstance(node, Text):
            for label, kind in text_targets(_markdown(node)):
                yield label, kind, slide.number
        elif isinstance(node, Listing) and node.lang == "=html":
            for label, kind in text_targets(node.text):
                yield label, kind, slide.number
        elif isinstance(node, Group):
            label = node.attrs.get("id", "")
            if label.startswith(("fig-", "tbl-", "eq-")):
                yield label, label.split("-")[0], slide.number
        elif isinstance(node, ShownCell):
            number = slide.number
            if node.location == "slide":
                extra += 1
                number += extra
            yield from _cell_targets(node, number)


def _cell_targets(cell: ShownCell, number: int) -> Iterator[tuple[str, str, int]]:
    if not cell.show_output:
        return
    for output in cell.outputs:  # (Markdown a cell printed is read as written)
        if output.kind == "markdown" or (cell.asis and output.kind == "stdout"):
            for label, kind in text_targets(output.data):
                yield label, kind, number
    label = cell.label or ""
    if label.startswith("fig-") and cell.figures:
        yield label, "fig", number
    if label.startswith("tbl-") and (cell.outputs or cell.figures):
        yield label, "tbl", number


def targets(document: Document) -> dict[str, Target]:
    """What the deck's references can name, numbered by kind in the order the deck shows them
    (a label named twice is the first)."""
    names = names_for(document.lang)
    found: dict[str, Target] = {}
    counts = dict.fromkeys(KINDS, 0)
    for slide in document.slides():
        for label, kind, number in slide_targets(slide):
            if label not in found:
                counts[kind] += 1
                n = counts[kind]
                found[label] = Target(kind, n, number, f"{names[kind]}\u00a0{n}")
    return found


# ---- the document's transform ---------------------------------------------------------------


def cross_references(document: Document) -> tuple[Document, list[Diagnostic]]:
    """The document with its targets numbered (`Document.targets`), every reference resolved
    (a warning at the line of one naming nothing), and each numbered cell's caption opening with
    its label ("Figure 2: "), as the slides show it."""
    found = targets(document)
    warnings: list[Diagnostic] = []

    def change(node: Any) -> Any:
        if isinstance(node, Ref):
            target = found.get(node.label)
            if target is None:
                kind = node.label.split("-")[0]
                message = f"cross-reference `@{node.label}` names no {kind} in the deck"
                warnings.append(Diagnostic(node.loc, "crossref", message, "warning"))
                return node
            text = str(target.number) if node.form == "[-" else target.name
            return replace(node, text=text, slide=target.slide)
        if isinstance(node, ShownCell) and node.label in found:
            label = f"{found[node.label].name}: "
            if node.caption is not None and node.label.startswith("fig-"):
                caption = replace(node.caption, parts=(label, *node.caption.parts))
                return replace(node, caption=caption)
            if node.table_caption is not None and node.label.startswith("tbl-"):
                caption = replace(node.table_caption, parts=(label, *node.table_caption.parts))
                return replace(node, table_caption=caption)
        return node

    if not found and not _has(document, Ref):
        return document, []
    out: Document = map_nodes(document, change)
    return replace(out, targets=found), warnings


def _has(document: Document, kind: type) -> bool:
    return any(isinstance(p, kind) for t in texts(document) for p in t.parts)


# ---- the HTML deck's tokens -----------------------------------------------------------------


def equation_labels(marked: str) -> tuple[str, dict[int, str]]:
    """Markdown with formulas as tokens, without each `{#eq-x}` after a formula; the labels
    by formula index (the deck marks a display formula's with its id and number)."""
    labels: dict[int, str] = {}

    def take(m: re.Match[str]) -> str:
        labels[int(m.group(2))] = m.group(3)
        return m.group(1)

    return EQ_LABEL.sub(take, marked), labels


def labelled_equation(markup: str, label: str) -> str:
    """KaTeX's display formula with its label's id and its number's token (at its end)."""
    head = '<span class="katex-display"'
    if not markup.startswith(head) or not markup.endswith("</span>"):
        return markup
    return (
        f'{head} id="{html.escape(label)}"{markup[len(head) : -len("</span>")]}'
        f"{equation_token(label)}</span>"
    )


def written(markup: str) -> str:
    """Rendered HTML with each token as the text was written (what a record or a quote keeps)."""
    if "\u2063" not in markup:
        return markup

    def sub(m: re.Match[str]) -> str:
        kind, rest = m.group(1), m.group(2)
        if kind == "R":
            return html.escape(rest[1:])
        if kind == "C":
            return html.escape(bytes.fromhex(rest[1:]).decode())
        if kind == "B":
            return bytes.fromhex(rest).decode()
        return ""

    return TOKEN.sub(sub, markup)


def fill(slides: list[Any], document: Document) -> list[Any]:
    """The deck's slides (`RenderedSlide`s) with every token written from the transformed
    document: references as links, captions' labels, equations' numbers, citations as
    formatted, and the references' list where the first `::: {#refs}` stands, else at the
    end of the last slide."""
    cited: dict[str, Cite] = {}
    if any("\u2063C" in f"{s.title}{s.body}{s.notes}" for s in slides):
        cited = {p.written: p for t in texts(document) for p in t.parts if isinstance(p, Cite)}
    found = document.targets
    block = (
        f'<div id="refs" class="references csl-bib-body">{document.bibliography}</div>'
        if document.bibliography
        else ""
    )
    first = next((k for k, s in enumerate(slides) if "\u2063B" in s.body), None)

    def sub_for(placed: bool) -> Callable[[re.Match[str]], str]:
        def sub(m: re.Match[str]) -> str:
            kind, rest = m.group(1), m.group(2)
            if kind == "R":
                return _reference(rest, found)
            if kind == "C":
                cite = cited.get(bytes.fromhex(rest[1:]).decode())
                if cite is None or not cite.html:
                    return html.escape(bytes.fromhex(rest[1:]).decode())
                return cite.html if rest[0] == "a" else html.escape(cite.text)
            if kind == "L":
                target = found.get(rest)
                if target is None or target.kind not in ("fig", "tbl"):
                    return ""
                name = target.name.replace("\u00a0", " ")
                return f'<span class="crossref-label">{html.escape(name)}: </span>'
            if kind == "E":
                target = found.get(rest)
                return f'<span class="eq-number">({target.number})</span>' if target else ""
            return block if placed and block else bytes.fromhex(rest).decode()  # B

        return sub

    out = []
    for k, slide in enumerate(slides):
        sub = sub_for(k == first)

        def filled(text: str, sub: Callable[[re.Match[str]], str] = sub) -> str:
            return TOKEN.sub(sub, text) if "\u2063" in text else text

        title = filled(slide.title) if slide.title is not None else None
        body, notes = filled(slide.body), filled(slide.notes)
        handouts = tuple(filled(h) for h in slide.handouts)
        if (title, body, notes, handouts) != (slide.title, slide.body, slide.notes, slide.handouts):
            slide = replace(slide, title=title, body=body, notes=notes, handouts=handouts)
        out.append(slide)
    if first is None and block and out:
        out[-1] = replace(out[-1], body=out[-1].body + block)
    return out


def _reference(rest: str, found: dict[str, Target]) -> str:
    m = REF_TOKEN.fullmatch(rest)
    if m is None:
        return ""
    mode, form, label = m.groups()
    target = found.get(label)
    if target is None:
        return html.escape(f"{form}@{label}{']' if form else ''}")
    shown = html.escape(str(target.number) if form == "[-" else target.name)
    if mode == "t":
        return shown
    shown = shown.replace("\u00a0", "&nbsp;")
    return f'<a class="quarto-xref" href="#/{target.slide - 1}">{shown}</a>'
