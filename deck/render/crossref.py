"""Quarto's cross-references across the deck: figures (`#| label: fig-…`, `![…](…){#fig-…}`),
tables (`#| label: tbl-…`), equations (`$$…$$ {#eq-…}`) and slides (`{#sec-…}`) numbered in
the order they appear; `@fig-x` becomes a link "Figure 2" to the slide showing it, `[-@fig-x]`
the number alone, and each caption starts with its label.

This runs on the whole deck's slides after every section is rendered (a reference may point
into another section), on the HTML: text inside tags, code and scripts is never touched.
"""

from __future__ import annotations

import html
import re
from dataclasses import replace

from deck.errors import Diagnostic
from deck.render.store import RenderedSlide
from deck.strings import strings

KINDS = ("fig", "tbl", "eq", "sec")
TARGET = re.compile(r'<(figure|img|div|span)\b[^>]*?\sid="((fig|tbl|eq)-[\w-]+)"')
REFERENCE = re.compile(r"(\[-?)?@((?:fig|tbl|eq|sec)-[\w-]*\w)(\])?")
SKIP = re.compile(r"<(code|pre|script|style|kbd)\b.*?</\1>", re.S)
TAG = re.compile(r"<[^>]*>")
EQ_LABEL = re.compile(r"\s*\{#(eq-[\w-]+)\}")
DISPLAY = '<span class="katex-display">'


def names_for(lang: str) -> dict[str, str]:
    """The names of what references name (Figure, Table, …) in the deck's language."""
    return {kind: str(name) for kind, name in strings(lang, "crossref").items()}


def crossref(
    slides: list[RenderedSlide], lang: str, record: dict[str, tuple[str, str]] | None = None
) -> tuple[list[RenderedSlide], list[Diagnostic]]:
    """The slides with their references resolved and captions labelled, and a warning for
    each reference that names nothing. `record` gets each label's text as `@label` and as
    `[-@label]` show it ("Figure 2", "2"), for the outputs made from the document."""
    names = names_for(lang)
    slides = [replace(s, body=_equation_ids(s.body)) if "{#eq-" in s.body else s for s in slides]
    targets: dict[str, tuple[str, int, int]] = {}  # label → (kind, number, slide number)
    counts = dict.fromkeys(KINDS, 0)
    for slide in slides:
        label = slide.attrs.get("id", "")
        if label.startswith("sec-") and label not in targets:
            counts["sec"] += 1
            targets[label] = ("sec", counts["sec"], slide.number)
        for m in TARGET.finditer(slide.body):
            label, kind = m.group(2), m.group(3)
            if label not in targets:
                counts[kind] += 1
                targets[label] = (kind, counts[kind], slide.number)
    if record is not None:
        for label, (kind, number, _) in targets.items():
            record[label] = (f"{names[kind]}\u00a0{number}", str(number))
    if not targets and not any("@" in s.body or "@" in s.notes for s in slides):
        return slides, []
    warnings: list[Diagnostic] = []
    out = []
    for slide in slides:
        body = _captions(slide.body, targets, names)
        body = _references(body, targets, names, slide, warnings)
        notes = _references(slide.notes, targets, names, slide, warnings)
        out.append(replace(slide, body=body, notes=notes))
    return out, warnings


def _equation_ids(body: str) -> str:
    """`$$…$$ {#eq-x}`: the label becomes the id of the display formula before it."""

    out = body
    for m in reversed(list(EQ_LABEL.finditer(body))):
        start = out.rfind(DISPLAY, 0, m.start())
        if start < 0:
            continue
        at = start + len(DISPLAY) - 1  # before the opening tag's `>`
        out = out[: m.start()] + out[m.end() :]
        out = out[:at] + f' id="{m.group(1)}"' + out[at:]
    return out


def _captions(body: str, targets: dict[str, tuple[str, int, int]], names: dict[str, str]) -> str:
    """`Figure 2: ` before each numbered figure's or table's caption; `(3)` after an equation."""

    def label_of(label: str) -> str:
        kind, number, _ = targets[label]
        return f'<span class="crossref-label">{html.escape(names[kind])} {number}: </span>'

    for m in reversed(list(TARGET.finditer(body))):
        label, kind = m.group(2), m.group(3)
        if label not in targets:
            continue
        if kind == "eq":
            end = body.find(">", m.end()) + 1
            close = _closing(body, end, m.group(1))
            number = f'<span class="eq-number">({targets[label][1]})</span>'
            body = body[:close] + number + body[close:]
            continue
        tag = "<figcaption>" if kind == "fig" else '<div class="table-caption">'
        at = body.find(tag, m.end())
        stop = body.find("</figure>" if kind == "fig" else "</table>", m.end())
        if at >= 0 and (stop < 0 or at < stop):
            at += len(tag)
            body = body[:at] + label_of(label) + body[at:]
    return body


def _closing(body: str, start: int, tag: str) -> int:
    """Where the element opened just before `start` closes (nested same-name tags counted)."""
    depth, pos = 1, start
    pattern = re.compile(rf"<(/?){tag}\b[^>]*>")
    while depth:
        m = pattern.search(body, pos)
        if not m:
            return len(body)
        depth += -1 if m.group(1) else 1
        pos = m.end()
    return m.start() if m else len(body)


def _references(
    text: str,
    targets: dict[str, tuple[str, int, int]],
    names: dict[str, str],
    slide: RenderedSlide,
    warnings: list[Diagnostic],
) -> str:
    if "@" not in text:
        return text

    def sub(m: re.Match[str]) -> str:
        bracket, label, close = m.group(1), m.group(2), m.group(3)
        if bracket and not close:
            return m.group(0)
        found = targets.get(label)
        if found is None:
            message = f"cross-reference `@{label}` names no {label.split('-')[0]} in the deck"
            warnings.append(Diagnostic(slide.loc, "crossref", message, "warning"))
            return m.group(0)
        kind, number, at = found
        shown = str(number) if bracket == "[-" else f"{names[kind]}&nbsp;{number}"
        return f'<a class="quarto-xref" href="#/{at - 1}">{shown}</a>'

    pieces = []
    pos = 0
    for m in _skipped(text):  # text between tags and outside code
        pieces.append(text[pos : m[0]])
        pieces.append(REFERENCE.sub(sub, text[m[0] : m[1]]))
        pos = m[1]
    pieces.append(text[pos:])
    return "".join(pieces)


def _skipped(text: str) -> list[tuple[int, int]]:
    """The spans of `text` that are plain text: not a tag, not inside code or a script."""
    blocked = [(m.start(), m.end()) for m in SKIP.finditer(text)]
    blocked += [(m.start(), m.end()) for m in TAG.finditer(text)]
    blocked.sort()
    spans, pos = [], 0
    for start, end in blocked:
        if start > pos:
            spans.append((pos, start))
        pos = max(pos, end)
    if pos < len(text):
        spans.append((pos, len(text)))
    return spans
