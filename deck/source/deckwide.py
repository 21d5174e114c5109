"""What a deck's settings (a `.qmd`'s front matter, or `lesson.yml`) do to its slides: the
title slide, as Quarto makes one from the front matter; the class every slide gets
(`smaller`, `scrollable`); and the files the settings name, read or checked."""

from __future__ import annotations

import dataclasses
import html
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from deck.errors import Diagnostic
from deck.model import Block, Div, LessonConfig, Loc, Prose, Section, Slide
from deck.source.authors import author_block
from deck.source.contain import from_root, outside
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
            line = Div((key,), {}, (Prose(value, at),), at)
            blocks.append(author_block(value, at) if key == "author" else line)
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
    the author placed in the page, from files inside the project. The files the settings name
    are checked there; a project-root path (`/css/x.css` in a Quarto project) becomes one from
    `folder`, and a raw `<img>` in the footer a Markdown image, so it is published as one."""
    out = []
    for where, kind, text in config.slides.includes:
        key = f"include-{where}"
        loc = next((v for k, v in locs.items() if k.split(".")[-1] == key), Loc(rel, 1))
        if kind == "file":
            name, text = text, from_root(folder, text)
            if outside(folder, text):
                diagnostics.append(
                    Diagnostic(loc, "path", f"{key} `{name}` lies outside the project")
                )
                continue
            try:
                text = (folder / text).read_text("utf-8")
            except (OSError, UnicodeDecodeError) as e:
                diagnostics.append(Diagnostic(loc, "path", f"{key} `{name}` cannot be read: {e}"))
                continue
        out.append((where, "text", text))
    settings = config.slides
    slides = dataclasses.replace(
        settings,
        includes=tuple(out),
        logo=from_root(folder, settings.logo) if settings.logo else settings.logo,
        css=tuple(from_root(folder, css) for css in settings.css),
        theme_files=tuple(from_root(folder, name) for name in settings.theme_files),
        footer=footer_images(settings.footer, folder) if settings.footer else settings.footer,
    )
    cited = config.citations
    cited = dataclasses.replace(
        cited,
        bibliography=tuple(from_root(folder, name) for name in cited.bibliography),
        csl=from_root(folder, cited.csl) if cited.csl else cited.csl,
    )
    at = locs.get("bibliography", Loc(rel, 1))
    files = (
        ("bibliography", cited.bibliography),
        ("csl", (cited.csl or "",)),
        ("theme", slides.theme_files),
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


RAW_IMG = re.compile(r"<img\b([^>]*?)/?>", re.I)
HTML_ATTR = re.compile(r"""([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")


def footer_images(footer: str, folder: Path) -> str:
    """The front matter's `footer:` with each raw `<img src="logo.png" …>` naming a local file
    written as the Markdown image it is (`![](logo.png){height="20"}`), so the footer's files
    are published as its Markdown images are; project-root paths made from `folder`."""

    def markdown(m: re.Match[str]) -> str:
        found = {
            a.group(1).lower(): html.unescape(a.group(2) or a.group(3) or a.group(4) or "")
            for a in HTML_ATTR.finditer(m.group(1))
        }
        src = found.pop("src", "")
        if not src or not is_file_src(src):
            return m.group(0)
        # (the alt text as `fig-alt`: `![alt](…)` alone would make a captioned figure)
        if "alt" in found:
            found["fig-alt"] = found.pop("alt")
        words = [f"#{found.pop('id')}"] if found.get("id") else []
        words += [f".{c}" for c in found.pop("class", "").split()]
        words += [f'{k}="{v.replace(chr(34), "&quot;")}"' for k, v in found.items()]
        shown = f"![](<{from_root(folder, src)}>)"
        return shown + (f"{{{' '.join(words)}}}" if words else "")

    return RAW_IMG.sub(markdown, footer)


def is_file_src(src: str) -> bool:
    parts = urlsplit(src)
    return not (parts.scheme or parts.netloc) or parts.scheme.lower() == "file"


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
    from deck.source.qmdconfig import deck_option  # (it reads this module's key checks)

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
