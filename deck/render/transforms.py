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
from html.parser import HTMLParser
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


def auto_stretch(slides: Slides, at: DeckPass) -> tuple[Slides, list[Diagnostic]]:
    """A slide's lone image grows to the height the slide has left, as Quarto's `auto-stretch`
    (reveal.js's `r-stretch`; deck.css lays the slide out as a column around it): on in a
    `.qmd` (Quarto's default), off in a lesson folder unless its `slides:` asks; an image with
    `.r-stretch` of its own is stretched either way."""
    asked = dict(at.lesson.config.slides.reveal).get("autoStretch")
    quarto = any(section.settings.quarto for section in at.lesson.sections)
    on = bool(quarto if asked is None else asked)
    out = []
    for s in slides:
        body = None if "nostretch" in s.classes else stretched(s.body, on)
        out.append(s if body is None else replace(s, body=body, classes=(*s.classes, STRETCH)))
    return out, []


def frame(slides: Slides, at: DeckPass) -> tuple[Slides, list[Diagnostic]]:
    """The deck's footer (unless a slide has its own) and logo on every slide."""
    return [replace(s, body=s.body + at.settings.frame(s)) for s in slides], []


def late_pictures(slides: Slides, at: DeckPass) -> tuple[Slides, list[Diagnostic]]:
    """Every slide but the first loads its pictures when it comes near (reveal's data-src)."""
    return slides[:1] + [replace(s, body=lazy_images(s.body)) for s in slides[1:]], []


TRANSFORMS: tuple[tuple[str, Transform], ...] = (
    ("cross-references", cross_references),
    ("citations", citations),
    ("auto-stretch", auto_stretch),  # (before the frame: the logo is no picture of the slide)
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


# ---- auto-stretch -------------------------------------------------------------------------
# Quarto's rules (`applyStretch`, quarto-cli src/format/reveal/format-reveal.ts): a slide with
# one <img> and no aside; the image not in a column, layout panel, fragment or tab panel; the
# slide-level block holding it a paragraph of that image alone, a figure, a cell's output, or
# a block of class `r-stretch`; the image without a height of its own, not `.absolute`, not
# inside a link (and here: not `.nostretch`).

STRETCH = "deck-stretch"  # the slide's class; its blocks around the image: "deck-stretch-box"
STRETCHES = {"r-stretch", "stretch"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}  # fmt: skip
IN_PLACE = {"column", "columns", "fragment", "output-location-slide", "r-stack"}


@dataclass
class _Tag:
    name: str
    classes: set[str]
    attrs: dict[str, str]
    start: int  # where its start tag is in the body
    length: int  # and its length
    children: int = 0  # elements and non-blank texts directly inside it


class _Pictures(HTMLParser):
    """Each <img> of a slide's body with the elements around it (outermost first), and the
    asides (those of the notes apart)."""

    def __init__(self, body: str) -> None:
        super().__init__(convert_charrefs=True)
        self.lines = [0]
        for line in body.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.stack: list[_Tag] = []
        self.images: list[tuple[_Tag, list[_Tag]]] = []
        self.asides = 0
        self.feed(body)
        self.close()

    def _at(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        raw = self.get_starttag_text() or ""
        node = _Tag(tag, set(values.get("class", "").split()), values, self._at(), len(raw))
        if self.stack:
            self.stack[-1].children += 1
        if tag == "aside" and "notes" not in node.classes:
            self.asides += 1
        if tag == "img":
            self.images.append((node, list(self.stack)))
        elif tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1].name == tag:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k].name == tag:
                del self.stack[k:]
                return

    def handle_data(self, data: str) -> None:
        if self.stack and data.strip():
            self.stack[-1].children += 1


def stretched(body: str, on: bool) -> str | None:
    """The body with its lone image marked to stretch (and the blocks around it), or None
    where Quarto's rules leave the slide as it is (see above)."""
    if "<img" not in body.lower() or not on and "r-stretch" not in body:
        return None  # (off, and no image asks for it: nothing to parse)
    found = _Pictures(body)
    if len(found.images) != 1 or found.asides:
        return None
    image, around = found.images[0]
    if not around or any(
        t.classes & IN_PLACE or any(c.startswith("panel-") for c in t.classes)
        or "grid" in t.attrs.get("style", "")
        for t in around
    ):  # fmt: skip
        return None
    top = around[0]
    known = (
        (top.name == "p" and top.children == 1)
        or top.name == "figure"
        or (top.name == "div" and bool(top.classes & ({"cell", "quarto-figure"} | STRETCHES)))
    )
    own = bool(image.classes & STRETCHES)
    if not known or not (own or on):
        return None
    style = image.attrs.get("style", "").replace(" ", "")
    if not own and (
        "height" in image.attrs
        or "height:" in style
        or image.classes & {"absolute", "nostretch"}
        or around[-1].name == "a"
    ):
        return None
    marks = [(t, "deck-stretch-box") for t in around] + [(image, "r-stretch")]
    for t, name in sorted(marks, key=lambda m: -m[0].start):
        end = t.start + t.length
        body = body[: t.start] + _with_class(body[t.start : end], name) + body[end:]
    return body


TAG_NAME = re.compile(r"<[\w-]+")
CLASS_ATTR = re.compile(r"""(\sclass\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""", re.I)


def _with_class(tag: str, name: str) -> str:
    """A start tag with `name` among its classes."""
    m = CLASS_ATTR.search(tag)
    if m is None:
        at = TAG_NAME.match(tag)
        assert at is not None
        tag = f'{tag[: at.end()]} class="{name}"{tag[at.end() :]}'
    else:
        classes = (m.group(2) or m.group(3) or m.group(4) or "").split()
        if name not in classes:
            joined = " ".join([*classes, name])
            tag = f'{tag[: m.start()]}{m.group(1)}"{joined}"{tag[m.end() :]}'
    return tag


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
