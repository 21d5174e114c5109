"""Containment: every local file a lesson or `.qmd` names for its slides (images, slide
backgrounds, the logo, stylesheets, raw HTML `src`, `{{< include >}}`) lies inside its
project folder: a lesson's own folder; a `.qmd`'s Quarto project (the folder of the nearest
`_quarto.yml` at or above it, as Quarto has it), else the `.qmd`'s folder. In a Quarto project
`/images/x.png` is the project's `images/x.png` (`from_root`), as Quarto reads it.

A path that leaves it (`../../etc/passwd`, `/etc/passwd`, `file:` URLs, a symlink pointing
out) is an error at the line that names it, so that nothing outside is ever copied into, or
inlined in, what a build publishes. The publish stage checks again before it copies
(`deck.publish.html`, `deck.publish.singlefile`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from deck.errors import Diagnostic, Loc
from deck.model import Lesson, Notes, Prose, Quiz, walk_blocks
from deck.source.projectfind import NAMES, find_project

MEDIA_ATTRS = ("background-image", "background-video")  # slide attributes naming files
IMAGE = re.compile(r"!\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]+)")  # ![alt](src "title")
IMAGE_REF = re.compile(r"!\[((?:[^\]\\]|\\.)*)\](?:\[([^\]]*)\])?")  # ![alt][id], ![id]
DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:\s*(<[^>]*>|\S+)", re.M)  # [id]: src
VALUE = r"""\s*=\s*["']?([^"'\s>]+)"""  # an HTML attribute's value
HTML_SRC = re.compile(r"<[a-z][\w-]*\b[^>]*?\s(?:src|poster|data|srcset)" + VALUE, re.I)
HTML_LINK = re.compile(r"<link\b[^>]*?\shref" + VALUE, re.I)
INCLUDE = re.compile(r"\{\{<\s*include\s+(\S+?)\s*>\}\}")  # Quarto's include shortcode
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def project_root(folder: Path) -> Path:
    """The folder `folder`'s files may come from (resolved): a lesson's own (it holds
    `lesson.yml`); else the Quarto project's around it (its `_quarto.yml`'s folder); else
    `folder`."""
    folder = folder.resolve()
    if (folder / "lesson.yml").is_file():
        return folder
    found = find_project(folder / "_")  # (it looks from a file's folder upwards)
    return found.parent if found is not None else folder


def from_root(folder: Path, src: str) -> str:
    """`src` as written, with a project-root path (`/images/x.png`, Quarto's meaning inside a
    project) made relative to `folder` (`../../images/x.png`); any other `src` as it is (an
    absolute path outside a project stays one, and `outside` refuses it)."""
    stripped = src.strip().strip("<>")
    parts = urlsplit(stripped)
    if parts.scheme or parts.netloc or not stripped.startswith("/"):
        return src
    root = project_root(folder)
    if not any((root / name).is_file() for name in NAMES):
        return src  # no Quarto project: an absolute path
    rel = os.path.relpath(root / unquote(stripped).lstrip("/"), folder.resolve())
    return quote(Path(rel).as_posix())


def outside(folder: Path, src: str) -> bool:
    """Whether the file `src` names (as written in Markdown or HTML: URL-quoted, relative to
    `folder`) lies outside `folder`'s project (`project_root`): an absolute path, a `file:`
    URL, `..` past the project's folder, or a symlink pointing out. Web URLs and `#anchors`
    name no file here. (A project-root path is `from_root`'s to rewrite first.)"""
    src = src.strip().strip("<>")
    parts = urlsplit(src)
    if parts.scheme.lower() == "file":
        return True
    if not src or parts.scheme or parts.netloc or src.startswith("#"):
        return False
    path = unquote(parts.path)
    if path.startswith(("/", "\\")):
        return True
    root = project_root(folder)
    try:
        target = (folder.resolve() / path).resolve()
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL
        return True
    return target != root and root not in target.parents


def shown_root(folder: Path) -> str:
    """The project folder as a message names it: as given when it is `folder` itself."""
    root = project_root(folder)
    return str(folder) if root == folder.resolve() else str(root)


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
        if outside(folder, from_root(folder, src)):
            message = (
                f"{what} `{src}` is outside the project folder {shown_root(folder)}: a build "
                "publishes only files inside it (copy the file into the folder)"
            )
            problems.append(Diagnostic(loc, "media", message))

    slides = lesson.config.slides
    locs = locs or {}
    fallback = Loc(str(folder), 1)

    def written(key: str) -> Loc:  # (the format's key, the top level's, a project's)
        found = locs.get(f"format.revealjs.{key}") or locs.get(key)
        return found or next((v for k, v in locs.items() if k.split(".")[-1] == key), fallback)

    if slides.logo:
        check(slides.logo, written("logo"), "logo")
    for css in slides.css:
        check(css, written("css"), "stylesheet")
    for offset, ref in _text_refs(slides.footer or ""):  # its images and raw `<img>`s
        at = written("footer")
        check(ref, Loc(at.path, at.line + offset), "footer file")
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
