"""The passes over the whole deck once every section is rendered, as one list (as Sphinx's
post-transforms): each takes the deck's slides and what it may read (`DeckPass`), and gives
the slides back with its warnings. `render_lesson` applies `TRANSFORMS` in order; a new pass is
one function and one entry here, and each is tested alone (tests/render/test_transforms.py).

They run after the sections because what they do crosses sections: a reference may point into
another section, citations are formatted together and the bibliography placed once, the deck's
footer and logo go on every slide, and every slide but the first loads its pictures late."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from deck.errors import Diagnostic
from deck.model import Lesson
from deck.model.document import Document, Group, ShownCell, Text
from deck.render.cite import _replace, cite
from deck.render.crossref import REFERENCE, crossref
from deck.render.frame import DeckSettings
from deck.render.htmltext import lazy_images
from deck.render.store import RenderedSlide


@dataclass(frozen=True)
class DeckPass:
    """What a pass may read besides the slides, and what it found that the document's
    transforms carry to the outputs made from it (`found`)."""

    lesson: Lesson
    settings: DeckSettings  # the deck's footer, logo, options
    cache: Path | None  # the build's cache folder (citations formatted before)
    found: dict[str, Any] = field(default_factory=dict)


Slides = list[RenderedSlide]
Transform = Callable[[Slides, DeckPass], tuple[Slides, list[Diagnostic]]]


def cross_references(slides: Slides, at: DeckPass) -> tuple[Slides, list[Diagnostic]]:
    """`@fig-x` → "Figure 2", linked to its slide; captions labelled (deck.render.crossref)."""
    return crossref(slides, at.lesson.config.lang, at.found.setdefault("references", {}))


def citations(slides: Slides, at: DeckPass) -> tuple[Slides, list[Diagnostic]]:
    """`[@key]` formatted by Pandoc's citeproc, the references placed (deck.render.cite)."""
    config = at.lesson.config
    found = at.found.setdefault("citations", {})
    return cite(slides, config.citations, at.lesson.path, config.lang, at.cache, found)


def frame(slides: Slides, at: DeckPass) -> tuple[Slides, list[Diagnostic]]:
    """The deck's footer (unless a slide has its own) and logo on every slide."""
    return [replace(s, body=s.body + at.settings.frame(s)) for s in slides], []


def late_pictures(slides: Slides, at: DeckPass) -> tuple[Slides, list[Diagnostic]]:
    """Every slide but the first loads its pictures when it comes near (reveal's data-src)."""
    return slides[:1] + [replace(s, body=lazy_images(s.body)) for s in slides[1:]], []


TRANSFORMS: tuple[tuple[str, Transform], ...] = (
    ("cross-references", cross_references),
    ("citations", citations),
    ("frame", frame),
    ("late pictures", late_pictures),
)


def apply(slides: Slides, at: DeckPass) -> tuple[Slides, list[Diagnostic]]:
    """The slides after every pass in order, with all their warnings."""
    warnings: list[Diagnostic] = []
    for _, transform in TRANSFORMS:
        slides, found = transform(slides, at)
        warnings.extend(found)
    return slides, warnings


# ---- the document's transforms ------------------------------------------------------------
# What the passes above did to the slides' HTML, done to the document every other output is
# made from (the notebook, the PPTX): its text in Markdown, so what they put in is escaped.

CODE_SPAN = re.compile(r"(`+).*?\1", re.S)
MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def _escaped(text: str) -> str:
    return MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _outside_code(text: str, change: Callable[[str], str]) -> str:
    pieces, pos = [], 0
    for m in CODE_SPAN.finditer(text):
        pieces += [change(text[pos : m.start()]), m.group(0)]
        pos = m.end()
    return "".join([*pieces, change(text[pos:])])


def _map_nodes(node: Any, change: Callable[[Any], Any]) -> Any:
    """`node` (a document, a slide, a block, a text…) with every node inside it, then itself,
    passed through `change` (inner ones first)."""
    if isinstance(node, tuple):
        return tuple(_map_nodes(n, change) for n in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        values = {f.name: getattr(node, f.name) for f in dataclasses.fields(node)}
        changed = {k: _map_nodes(v, change) for k, v in values.items()}
        if any(changed[k] is not values[k] for k in values):
            node = replace(node, **changed)
        return change(node)
    return node


def resolved_references(document: Document, found: dict[str, Any]) -> Document:
    """Cross-references as the slides show them (`@fig-x` → "Figure 2", `[-@fig-x]` → "2") and
    citations as formatted, in every text of the document; the references' entries where a
    `::: {#refs}` block stands, else after the last slide's blocks."""
    references: dict[str, tuple[str, str]] = found.get("references", {})
    citations: dict[str, Any] = found.get("citations", {})
    shown = {w: _escaped(t) for w, t in citations.get("citations", {}).items()}

    def one(m: re.Match[str]) -> str:
        bracket, label, close = m.group(1), m.group(2), m.group(3)
        if label not in references or (bracket and not close):
            return m.group(0)
        return _escaped(references[label][1 if bracket == "[-" else 0])

    def plain(text: str) -> str:
        if references and "@" in text:
            text = REFERENCE.sub(one, text)
        return _replace(text, shown) if shown else text

    def change(node: Any) -> Any:
        if isinstance(node, Text):
            parts = tuple(_outside_code(p, plain) if isinstance(p, str) else p for p in node.parts)
            return node if parts == node.parts else replace(node, parts=parts)
        if isinstance(node, ShownCell) and node.caption is not None and node.label in references:
            label = f"{references[node.label][0]}: "  # (its caption opens with it, as on the slide)
            return replace(node, caption=replace(node.caption, parts=(label, *node.caption.parts)))
        return node

    if not references and not shown:
        return document
    out: Document = _map_nodes(document, change)
    entries = citations.get("bibliography", [])
    return _with_bibliography(out, entries) if entries else out


def _with_bibliography(document: Document, entries: list[str]) -> Document:
    slides = [
        (k, j, s) for k, sec in enumerate(document.sections) for j, s in enumerate(sec.slides)
    ]
    if not slides:
        return document

    def texts(loc: Any) -> tuple[Text, ...]:
        return tuple(Text((_escaped(e),), loc) for e in entries)

    def placed(node: Any) -> Any:
        if isinstance(node, Group) and node.attrs.get("id") == "refs" and not node.blocks:
            return replace(node, blocks=texts(node.loc))
        if isinstance(node, Group):
            return replace(node, blocks=tuple(placed(b) for b in node.blocks))
        return node

    sections = list(document.sections)
    found = False
    for k, section in enumerate(sections):
        new = []
        for slide in section.slides:
            blocks = tuple(placed(b) for b in slide.blocks)
            found = found or blocks != slide.blocks
            new.append(replace(slide, blocks=blocks))
        sections[k] = replace(section, slides=tuple(new))
    if not found:  # (after the last slide's blocks, as the slides place them)
        k, j, last = slides[-1]
        refs = Group("div", (), {"id": "refs"}, texts(last.loc), last.loc)
        section = sections[k]
        slide = replace(section.slides[j], blocks=(*section.slides[j].blocks, refs))
        sections[k] = replace(
            section, slides=(*section.slides[:j], slide, *section.slides[j + 1 :])
        )
    return replace(document, sections=tuple(sections))


DOCUMENT_TRANSFORMS: tuple[tuple[str, Callable[[Document, dict[str, Any]], Document]], ...] = (
    ("cross-references and citations", resolved_references),
)


def apply_to_document(document: Document, at: DeckPass) -> Document:
    """The document after every transform in order, with what the slides' passes found."""
    for _, transform in DOCUMENT_TRANSFORMS:
        document = transform(document, at.found)
    return document
