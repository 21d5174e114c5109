"""The passes over the whole deck once every section is rendered, as one list (as Sphinx's
post-transforms): each takes the deck's slides and what it may read (`DeckPass`), and gives
the slides back with its warnings. `render_lesson` applies `TRANSFORMS` in order; a new pass is
one function and one entry here, and each is tested alone (tests/render/test_transforms.py).

They run after the sections because what they do crosses sections: a reference may point into
another section, citations are formatted together and the bibliography placed once, the deck's
footer and logo go on every slide, and every slide but the first loads its pictures late."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from deck.errors import Diagnostic
from deck.model import Lesson
from deck.render.cite import cite
from deck.render.crossref import crossref
from deck.render.frame import DeckSettings
from deck.render.htmltext import lazy_images
from deck.render.store import RenderedSlide


@dataclass(frozen=True)
class DeckPass:
    """What a pass may read besides the slides."""

    lesson: Lesson
    settings: DeckSettings  # the deck's footer, logo, options
    cache: Path | None  # the build's cache folder (citations formatted before)


Slides = list[RenderedSlide]
Transform = Callable[[Slides, DeckPass], tuple[Slides, list[Diagnostic]]]


def cross_references(slides: Slides, at: DeckPass) -> tuple[Slides, list[Diagnostic]]:
    """`@fig-x` → "Figure 2", linked to its slide; captions labelled (deck.render.crossref)."""
    return crossref(slides, at.lesson.config.lang)


def citations(slides: Slides, at: DeckPass) -> tuple[Slides, list[Diagnostic]]:
    """`[@key]` formatted by Pandoc's citeproc, the references placed (deck.render.cite)."""
    config = at.lesson.config
    return cite(slides, config.citations, at.lesson.path, config.lang, at.cache)


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
