"""What a deck's settings (a `.qmd`'s front matter, or `lesson.yml`) do to its slides: the
title slide, as Quarto makes one from the front matter; the class every slide gets
(`smaller`, `scrollable`); and the files the settings name, read or checked."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from deck.errors import Diagnostic
from deck.model import Block, Div, LessonConfig, Loc, Prose, Section, Slide
from deck.source.contain import outside
from deck.source.qmdconfig import deck_option
from deck.source.toc import toc_title, with_toc

# What the slide shows under the title, in Quarto's order (`course` stands where Quarto puts
# the `institute`; a .qmd has none)
LINES = ("subtitle", "author", "course", "date")


def title_slide(
    config: LessonConfig, locs: dict[str, Loc], rel: str, attributes: dict[str, str] | None = None
) -> Slide | None:
    """Quarto's title slide: title, subtitle, author, course and date, with its
    `title-slide-attributes` (`data-background-image: a.png` → the slide's background)."""
    if not config.title:
        return None
    loc = locs.get("title", Loc(rel, 1))
    blocks: list[Block] = []
    for key in LINES:
        value = getattr(config, key)
        if value:
            at = locs.get(key, loc)
            blocks.append(Div((key,), {}, (Prose(value, at),), at))
    attrs = {"id": "title-slide"}
    classes = ["title-slide", "quarto-title-block"]
    for key, value in (attributes or {}).items():
        if key == "class":
            classes += value.split()
        else:
            attrs[key.removeprefix("data-")] = value
    at = locs.get("title-slide-attributes", loc)
    return Slide(config.title, 1, tuple(classes), attrs, tuple(blocks), at if attributes else loc)


def read_includes(
    config: LessonConfig,
    folder: Path,
    locs: dict[str, Loc],
    rel: str,
    diagnostics: list[Diagnostic],
) -> LessonConfig:
    """`include-in-header` (and `-before-body`, `-after-body`) files read into the config: HTML
    the author placed in the page, from files inside the project."""
    out = []
    for where, kind, text in config.slides.includes:
        key = f"include-{where}"
        loc = next((v for k, v in locs.items() if k.split(".")[-1] == key), Loc(rel, 1))
        if kind == "file":
            target = folder / text
            if outside(folder, text):
                diagnostics.append(
                    Diagnostic(loc, "path", f"{key} `{text}` lies outside the project")
                )
                continue
            try:
                text = target.read_text("utf-8")
            except (OSError, UnicodeDecodeError) as e:
                diagnostics.append(Diagnostic(loc, "path", f"{key} `{text}` cannot be read: {e}"))
                continue
        out.append((where, "text", text))
    slides = dataclasses.replace(config.slides, includes=tuple(out))
    cited = config.citations
    at = locs.get("bibliography", Loc(rel, 1))
    files = (
        ("bibliography", cited.bibliography),
        ("csl", (cited.csl or "",)),
        ("theme", config.slides.theme_files),
    )
    for key, names in files:
        for name in filter(None, names):
            named_at = next((v for k, v in locs.items() if k.split(".")[-1] == key), at)
            if outside(folder, name):
                message = f"{key} `{name}` lies outside the project"
                diagnostics.append(Diagnostic(named_at, "path", message))
            elif not (folder / name).is_file():
                diagnostics.append(Diagnostic(named_at, "path", f"{key} `{name}`: no such file"))
    citations = dataclasses.replace(cited, loc=at)
    return dataclasses.replace(config, slides=slides, citations=citations)


def dressed(
    sections: list[Section],
    config: LessonConfig,
    values: dict[str, Any],
    locs: dict[str, Loc],
    rel: str,
) -> list[Section]:
    """A lesson's sections with what its settings add: the title slide (when it has a title,
    `title-slide` is not false and no slide of its own has the `.title-slide` class), the
    deck-wide classes (`smaller`, `scrollable`) and a contents slide (`toc`)."""
    extra = tuple(c for c in ("smaller", "scrollable") if getattr(config.slides, c))
    if extra:
        sections = [
            dataclasses.replace(s, slides=tuple(with_classes(slide, extra) for slide in s.slides))
            for s in sections
        ]
    own = any("title-slide" in slide.classes for s in sections for slide in s.slides)
    if sections and config.title_slide and not own:
        attributes = deck_option(values, "title-slide-attributes")
        title = title_slide(config, locs, rel, attributes)
        if title is not None:
            first = sections[0]
            sections = [dataclasses.replace(first, slides=(title, *first.slides)), *sections[1:]]
    if sections and deck_option(values, "toc", False):
        heading = deck_option(values, "toc-title") or toc_title(config.lang)
        sections = with_toc(sections, heading, deck_option(values, "toc-depth", 2))
    return sections


def with_classes(slide: Slide, extra: tuple[str, ...]) -> Slide:
    classes = (*slide.classes, *(c for c in extra if c not in slide.classes))
    return dataclasses.replace(slide, classes=classes)
