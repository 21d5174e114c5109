"""The transforms once every section is rendered, as two lists (as Sphinx's post-transforms),
each entry one function, tested alone (tests/render/test_transforms.py):

- `DOCUMENT_TRANSFORMS` on the document every output is made from (`deck.model.document`):
  cross-references resolved and numbered, citations formatted and the references placed. They
  run after the sections because what they do crosses sections: a reference may name what
  another section shows, citations are formatted together and the references placed once.
- `TRANSFORMS`, the HTML deck's own passes over its slides: the references, labels, numbers
  and citations written from the transformed document (each section's render marks where they
  go), Quarto's auto-stretch of a lone picture, the deck's footer and logo on every slide, and
  every slide but the first loading its pictures late.

`render_lesson` applies the document's first, then the deck's; a new pass is one function and
one entry here."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path

from deck.errors import Diagnostic
from deck.model import Lesson
from deck.model.document import Document
from deck.render import crossref
from deck.render.cite import citations_transform
from deck.render.frame import DeckSettings
from deck.render.htmltext import lazy_images
from deck.render.store import RenderedSlide


@dataclass(frozen=True)
class DeckPass:
    """What a pass may read besides what it changes: the lesson, the deck's settings, the
    build's cache folder (citations formatted before), and (for the HTML deck's passes) the
    transformed document."""

    lesson: Lesson
    settings: DeckSettings  # the deck's footer, logo, options
    cache: Path | None
    document: Document | None = None


DocumentTransform = Callable[[Document, DeckPass], tuple[Document, list[Diagnostic]]]
Slides = list[RenderedSlide]
Transform = Callable[[Slides, DeckPass], tuple[Slides, list[Diagnostic]]]


# ---- the document's -------------------------------------------------------------------------


def cross_references(document: Document, at: DeckPass) -> tuple[Document, list[Diagnostic]]:
    """`@fig-x` → "Figure 2" (`[-@fig-x]` → "2"), what it names numbered in deck order, the
    cells' captions labelled (deck.render.crossref)."""
    return crossref.cross_references(document)


def citations(document: Document, at: DeckPass) -> tuple[Document, list[Diagnostic]]:
    """`[@key]` formatted by Pandoc's citeproc, the references placed (deck.render.cite)."""
    config = at.lesson.config
    return citations_transform(document, config.citations, at.lesson.path, at.cache)


DOCUMENT_TRANSFORMS: tuple[tuple[str, DocumentTransform], ...] = (
    ("cross-references", cross_references),
    ("citations", citations),
)


def apply_to_document(document: Document, at: DeckPass) -> tuple[Document, list[Diagnostic]]:
    """The document after every transform in order, with all their warnings."""
    warnings: list[Diagnostic] = []
    for _, transform in DOCUMENT_TRANSFORMS:
        document, found = transform(document, at)
        warnings.extend(found)
    return document, warnings


# ---- the HTML deck's ------------------------------------------------------------------------


def references(slides: Slides, at: DeckPass) -> tuple[Slides, list[Diagnostic]]:
    """What the document's transforms resolved, where each section's render marked it:
    references as links, captions' labels, equations' numbers, citations, the references' list
    (deck.render.crossref.fill)."""
    if at.document is None:
        return slides, []
    return crossref.fill(slides, at.document), []


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
    ("references", references),
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
