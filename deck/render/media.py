"""The local files a section's slides name (Markdown images, slide backgrounds, and raw HTML's
`<img src>`, `<video poster>`, `<source src>`, quoted or not): each checked (there, and inside
the project folder) and recorded for publishing under `media/`, its src rewritten, or an error
at the line that names it."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from deck.errors import Diagnostic, Loc
from deck.render.frame import media_path
from deck.render.htmltext import file_attributes
from deck.render.store import MediaFile
from deck.source.contain import from_root, outside, shown_root

RAW_MEDIA_ATTRS = ("src", "poster")  # of raw HTML's <img>, <video>, <audio> and <source>
IMAGE_TOKEN = re.compile("\u2063I(\\d+)\u2063")  # a Markdown image's src, while raw HTML is read


@dataclass
class SectionFiles:
    """The files one section's slides name, relative to its `folder`, recorded in `media` as
    they are met; a problem is an error in `diagnostics` at the line that names the file."""

    folder: Path
    media: list[MediaFile]
    diagnostics: list[Diagnostic]

    def publish(self, src: str, loc: Loc) -> str | None:
        """The src to publish a file with (URL-quoted, under `media/`); None and an error at
        `loc` when it is not there. (What the author wrote is contained at load, by
        `deck.source.contain`; the publish stage checks again.) A project-root path
        (`/images/x.png` in a Quarto project) is read from the project's folder."""
        src = from_root(self.folder, src)
        if not (self.folder / unquote(src)).is_file():
            message = f"file `{src}` not found (paths are read from {self.folder})"
            self.diagnostics.append(Diagnostic(loc, "media", message))
            return None
        published = media_path(src)
        self.media.append(MediaFile(published, unquote(src), loc))
        return quote(published)

    def raw(self, markup: str, loc: Loc, source: str | None = None) -> str:
        """`markup` (raw HTML written from `loc`, or HTML Markdown made of `source`) with each
        file its tags name (`RAW_MEDIA_ATTRS`, quoted or not) published and its src rewritten.
        A relative path, an absolute one or a `file:` URL names a file (the last two, and a
        path leaving the folder, are refused: raw HTML a cell printed or a `{=html}` block was
        not read at load); web and `data:` URLs do not. Errors are at the tag's line in
        `source` (else at `loc`)."""
        source = markup if source is None else source

        def change(src: str, at: int) -> str | None:
            parts = urlsplit(src)
            if parts.scheme.lower() != "file" and (parts.scheme or parts.netloc):
                return None
            if not src or src.startswith("#") or IMAGE_TOKEN.fullmatch(src):
                return None  # (a Markdown image's src: published already)
            offset = source.find(markup[at : markup.find(">", at) + 1])
            line = loc.line + (source.count("\n", 0, offset) if offset >= 0 else 0)
            if outside(self.folder, from_root(self.folder, src)):
                message = (
                    f"file `{src}` is outside the project folder {shown_root(self.folder)}: "
                    "a build publishes only files inside it (copy the file into the folder)"
                )
                self.diagnostics.append(Diagnostic(Loc(loc.path, line), "media", message))
                return None
            return self.publish(src, Loc(loc.path, line))

        return file_attributes(markup, RAW_MEDIA_ATTRS, change)


class MarkdownImages:
    """The Markdown images of one text: each src published (`publish`) as the Markdown is
    converted, a token standing for it until raw HTML's files are read (`raw_files`), so a
    raw tag is never taken for a Markdown image's or the other way round."""

    def __init__(self, publish: Callable[[str], str | None]) -> None:
        self.publish = publish
        self.shown: list[str] = []

    def token(self, src: str) -> str:
        self.shown.append(self.publish(src) or src)
        return f"\u2063I{len(self.shown) - 1}\u2063"

    def restore(self, markup: str) -> str:
        return IMAGE_TOKEN.sub(lambda m: html.escape(self.shown[int(m.group(1))]), markup)
