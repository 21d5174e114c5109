"""What the whole deck shows besides its slides (a `.qmd`'s footer, logo, stylesheets,
theme and reveal.js options), and where the local files slides name are published."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from deck.blocks.tex import MATH_TOKEN, extract
from deck.errors import Diagnostic
from deck.model import Lesson, Loc
from deck.render.mathtex import KaTeX
from deck.render.pandoc import Media
from deck.render.sass import compile_theme, web_fonts
from deck.render.store import RenderedSlide, SectionRender
from deck.render.themefonts import named_families, theme_families
from deck.source.folder import display_path


def media_path(src: str) -> str:
    """Where a local file named in a deck is published, inside the deck's folder: under
    `media/`, its path as written (`..` as `up`), so it never meets the build's own files."""
    parts = [{"..": "up"}.get(p, p) for p in PurePosixPath(unquote(src)).parts if p != "."]
    return "media/" + "/".join(parts)


def is_local(src: str) -> bool:
    parts = urlsplit(src)
    return bool(src) and not parts.scheme and not parts.netloc and not src.startswith(("/", "#"))


def missing_media(lesson: Lesson, part: SectionRender) -> list[Diagnostic]:
    """A file a cached render names may have gone since: an error at the slide naming it."""
    return [
        Diagnostic(m.loc, "media", f"file `{m.source}` not found")
        for m in part.media
        if not (lesson.path / m.source).is_file()
    ]


@dataclass
class DeckSettings:
    """What the whole deck shows besides its slides: footer, logo, stylesheets, theme."""

    footer: str = ""
    logo: str = ""
    stylesheets: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)  # window.deckOptions (deck.js)
    media: dict[str, Path] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)
    formulas: list[tuple[str, bool]] = field(default_factory=list)  # in the footer
    includes: dict[str, str] = field(default_factory=dict)  # in-header, before-body, after-body
    errors: list[Diagnostic] = field(default_factory=list)

    def typeset(self, katex: KaTeX) -> None:
        def sub(m: re.Match[str]) -> str:
            tex, display = self.formulas[int(m.group(1))]
            return katex.html(tex, display) or html.escape(tex)

        self.footer = MATH_TOKEN.sub(sub, self.footer)

    def frame(self, slide: RenderedSlide) -> str:
        """The deck's footer (unless the slide has its own) and logo, on every slide, so
        that printed pages have them too."""
        out = ""
        if self.footer and 'class="footer slide-footer"' not in slide.body:
            out += f'<div class="footer footer-default">{self.footer}</div>'
        if self.logo:
            out += f'<img class="slide-logo" src="{html.escape(self.logo)}" alt="">'
        return out


def deck_settings(
    lesson: Lesson, markdown: Callable[[], Any], cache: Path | None = None
) -> DeckSettings:
    settings = lesson.config.slides
    options = {"reveal": settings.reveal_options(), "theme": settings.theme}
    options["quiz"] = {"mode": lesson.config.quiz.mode}  # deck.js: poll or check
    deck = DeckSettings(options=options)
    folder_loc = Loc(display_path(lesson.path), 1)

    def local(src: str) -> str:
        if not is_local(src):
            return src
        if not (lesson.path / unquote(src)).is_file():
            message = f"file `{src}` (front matter) not found in {lesson.path}"
            deck.warnings.append(Diagnostic(folder_loc, "media", message, "warning"))
            return src
        deck.media[media_path(src)] = lesson.path / unquote(src)
        return quote(media_path(src))

    if settings.footer:
        md = markdown()
        md.pandoc.media = Media(image=local)
        marked, found = extract(settings.footer)
        deck.formulas = [(tex, display) for tex, display, _ in found]
        out = md.reset().convert(marked)
        deck.footer = out[3:-4] if out.startswith("<p>") and out.count("<p>") == 1 else out
    if settings.logo:
        deck.logo = local(settings.logo)
    deck.stylesheets = [local(css) for css in settings.css]
    for where, _, text in settings.includes:  # the author's HTML, as they wrote it
        deck.includes[where] = deck.includes.get(where, "") + text + "\n"
    # the theme's web fonts, shipped with the deck (deck.publish.fonts reads this list)
    imported = web_fonts(settings.theme_files, lesson.path) if settings.theme_files else []
    families = theme_families(settings.theme, imported)
    if families:
        deck.options["fonts"] = families
    if settings.theme_files:  # the author's .scss over the base theme, compiled by dart-sass
        css, problems = compile_theme(
            settings.theme_files, lesson.path, folder_loc, cache, settings.theme
        )
        deck.warnings.extend(p for p in problems if p.severity != "error")
        deck.errors.extend(p for p in problems if p.severity == "error")
        if css is not None:
            # a packaged family the layers name without importing it ships as well
            named = [f for f in named_families(css) if f not in families]
            if named:
                deck.options["fonts"] = [*families, *named]
            style = "<style>" + css.replace("</style", "<\\/style") + "</style>\n"
            deck.includes["in-header"] = deck.includes.get("in-header", "") + style
            deck.options["customTheme"] = True
    return deck
