"""Containment: every local file a lesson or `.qmd` names for its slides (images, slide
backgrounds, the logo, stylesheets, raw HTML `src`, `{{< include >}}`) lies inside its
project folder.

A path that leaves it (`../../etc/passwd`, `/etc/passwd`, `file:` URLs, a symlink pointing
out) is an error at the line that names it, so that nothing outside is ever copied into, or
inlined in, what a build publishes. The publish stage checks again before it copies
(`deck.publish.html`, `deck.publish.singlefile`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

from deck.errors import Diagnostic, Loc
from deck.model import Lesson, Notes, Prose, Quiz, walk_blocks

MEDIA_ATTRS = ("background-image", "background-video")  # slide attributes naming files
IMAGE = re.compile(r"!\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)")  # ![alt](src "title")
IMAGE_REF = re.compile(r"!\[((?:[^\]\\]|\\.)*)\](?:\[([^\]]*)\])?")  # ![alt][id], ![id]
DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:\s*(<[^>]*>|\S+)", re.M)  # [id]: src
VALUE = r"""\s*=\s*["']?([^"'\s>]+)"""  # an HTML attribute's value
HTML_SRC = re.compile(r"<[a-z][\w-]*\b[^>]*?\s(?:src|poster|data|srcset)" + VALUE, re.I)
HTML_LINK = re.compile(r"<link\b[^>]*?\shref" + VALUE, re.I)
INCLUDE = re.compile(r"\{\{<\s*include\s+(\S+?)\s*>\}\}")  # Quarto's include shortcode
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def outside(folder: Path, src: str) -> bool:
    """Whether the file `src` names (as written in Markdown or HTML: URL-quoted, relative to
    `folder`) lies outside `folder`: an absolute path, a `file:` URL, `..` past the folder,
    or a symlink pointing out. Web URLs and `#anchors` name no file here."""
    src = src.strip().strip("<>")
    parts = urlsplit(src)
    if parts.scheme.lower() == "file":
        return True
    if not src or parts.scheme or parts.netloc or src.startswith("#"):
        return False
    path = unquote(parts.path)
    if path.startswith(("/", "\\")):
        return True
    root = folder.resolve()
    try:
        target = (root / path).resolve()
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL
        return True
    return target != root and root not in target.parents


def _text_refs(text: str) -> Iterator[tuple[int, str]]:
    """(line offset in `text`, reference) for every file a piece of prose names (not in
    `code spans`, which show text)."""
    text = CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    used = {(m.group(2) or m.group(1)).strip().lower() for m in IMAGE_REF.finditer(text)}
    found = [(m.start(), m.group(1)) for m in IMAGE.finditer(text)]
    found += [(m.start(), m.group(1)) for m in HTML_SRC.finditer(text)]
    found += [(m.start(), m.group(1)) for m in HTML_LINK.finditer(text)]
    found += [(m.start(), m.group(1)) for m in INCLUDE.finditer(text)]
    found += [
        (m.start(), m.group(2))
        for m in DEFINITION.finditer(text)
        if m.group(1).strip().lower() in used
    ]
    for start, ref in sorted(found):
        for one in ref.split(","):  # srcset="a.png 1x, b.png 2x"
            yield text.count("\n", 0, start), one.strip().split(" ")[0]


def escapes(lesson: Lesson, locs: dict[str, Loc] | None = None) -> list[Diagnostic]:
    """Every reference of `lesson` to a file outside its folder, as an error at its line;
    `locs`: where a `.qmd`'s front matter keys were written (for the logo and stylesheets)."""
    folder = lesson.path
    problems: list[Diagnostic] = []

    def check(src: str, loc: Loc, what: str) -> None:
        if outside(folder, src):
            message = (
                f"{what} `{src}` is outside the project folder {folder}: a build publishes "
                "only files inside it (copy the file into the folder)"
            )
            problems.append(Diagnostic(loc, "media", message))

    slides = lesson.config.slides
    locs = locs or {}
    fallback = Loc(str(folder), 1)
    if slides.logo:
        check(slides.logo, locs.get("format.revealjs.logo", fallback), "logo")
    for css in slides.css:
        check(css, locs.get("format.revealjs.css", fallback), "stylesheet")
    for section in lesson.sections:
        for slide in section.slides:
            for key in MEDIA_ATTRS:
                if key in slide.attrs:
                    check(slide.attrs[key], slide.loc, key)
            texts = [(slide.title or "", slide.loc)]
            for block in walk_blocks(slide.blocks):
                if isinstance(block, Prose | Notes):
                    texts.append((block.text, block.loc))
                elif isinstance(block, Quiz):
                    texts += [(block.question, block.loc), (block.explanation, block.loc)]
                    texts += [(choice.text, choice.loc) for choice in block.choices]
            for text, loc in texts:
                for offset, ref in _text_refs(text):
                    check(ref, Loc(loc.path, loc.line + offset), "file")
    return problems
