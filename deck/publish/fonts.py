"""The deck's own fonts: subsets of the body, heading and code fonts holding exactly the
characters the deck can show, as WOFF2 files in `assets/fonts/` with their `@font-face` rules
in `assets/fonts.css`, so a laptop without these fonts shows what the build measured.

Each face's `@font-face` family is the family the stylesheets already name first ("Noto Sans
CJK SC", "DejaVu Sans Mono", "DejaVu Sans"): a web font of that name stands in for the
installed one in every stack that names it (slides, widgets, popover, speaker view), on every
machine. The characters are read from everything the page shows or writes: the page's text
and attributes, and the strings of its scripts and stylesheets (quizzes, widgets' labels, the
speaker view, the menu), plus printable ASCII for values typed into widgets.

A subset is cached in `<cache>/fonts/` under a key of the font file's identity (path, size,
mtime, ctime, inode), the face and the sorted characters: a prose edit that adds no new
character makes no subset.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import subprocess
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from deck.store.files import identity, write_atomic

FOLDER = "fonts"  # under assets/, and under the build cache
STYLESHEET = "fonts.css"  # under assets/ (from deck/static/), linked by deck.html.j2
VERSION = "3"  # of what a subset holds (deck.publish.subset): a change makes every subset anew
KEEP_CACHED = 64  # subsets kept in the cache, the least recently used dropped first


@dataclass(frozen=True)
class Face:
    family: str  # as the stylesheets name it, and as the font names itself
    weight: int
    italic: bool = False

    @property
    def pattern(self) -> str:
        """fontconfig's pattern for it (as `fc-match` takes it)."""
        return self.family + (":bold" if self.weight >= 600 else "") + (":italic" * self.italic)

    @property
    def file(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "-", self.family.lower()).strip("-")
        return f"{slug}-{self.weight}{'-italic' if self.italic else ''}.woff2"


# Every face the deck's stylesheets can ask for: the body and headings (CJK), code (pygments
# marks keywords bold, comments italic), and the widgets' chart labels (DejaVu Sans).
FACES = (
    Face("Noto Sans CJK SC", 400),
    Face("Noto Sans CJK SC", 700),
    Face("DejaVu Sans Mono", 400),
    Face("DejaVu Sans Mono", 700),
    Face("DejaVu Sans Mono", 400, italic=True),
    Face("DejaVu Sans Mono", 700, italic=True),
    Face("DejaVu Sans", 400),
    Face("DejaVu Sans", 700),
)

ASCII = "".join(chr(c) for c in range(0x20, 0x7F))
JS_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})")
CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6}) ?")
DATA_URL = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]+")
SHOWN = {".html", ".js", ".css"}  # what the page loads that can put text on it
UNSHOWN = {"Cc", "Cs", "Co", "Cn"}  # controls, surrogates, private use (icon fonts), unassigned


def _unescape_js(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        return chr(int(next(g for g in m.groups() if g), 16))

    pairs = JS_ESCAPE.sub(one, text).encode("utf-16-le", "surrogatepass")
    return pairs.decode("utf-16-le", "ignore")  # (escaped surrogate pairs become one character)


def _unescape_css(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        code = int(m.group(1), 16)
        return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code < 0xE000 else ""

    return CSS_ESCAPE.sub(one, text)


def deck_characters(folder: Path) -> str:
    """Every character the deck in `folder` can show, sorted: from `index.html` (text and
    attribute values, entities decoded) and the scripts and stylesheets it loads (escapes
    decoded), plus printable ASCII. Controls and private-use characters are left out."""
    found = set(ASCII)
    for path in sorted(folder.rglob("*")):
        if path.suffix.lower() not in SHOWN or not path.is_file() or FOLDER in path.parts:
            continue
        text = DATA_URL.sub("", path.read_text("utf-8", "replace"))
        if path.suffix.lower() == ".html":
            text = html.unescape(text)
        text = _unescape_css(text) if path.suffix.lower() == ".css" else _unescape_js(text)
        found.update(text)
    return "".join(sorted(c for c in found if unicodedata.category(c) not in UNSHOWN))


def locate(face: Face) -> tuple[Path, int] | None:
    """The file and face number of `face` as fontconfig finds it (the face checked by name:
    fc-match answers a stand-in when the family is not installed), or None."""
    from deck.publish.subset import face_number

    try:
        ran = subprocess.run(
            ["fc-match", "-f", "%{file}\n%{index}\n", face.pattern],
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = ran.stdout.splitlines()
    if ran.returncode != 0 or len(lines) < 2 or not lines[1].isdigit():
        return None
    path = Path(lines[0])
    try:
        number = face_number(path, face.family, int(lines[1]))
    except Exception:  # noqa: BLE001 (a font file fontTools cannot read: no subset of it)
        return None
    return None if number is None else (path, number)


def cache_key(path: Path, number: int, face: Face, characters: str) -> str:
    """The subset's cache key: the font file's identity, the face, the characters."""
    import fontTools

    st = path.stat()
    what = [VERSION, fontTools.version, str(path), *identity(st), number, face.file, characters]
    return hashlib.sha256(json.dumps(what).encode()).hexdigest()


@dataclass(frozen=True)
class Staged:
    """What `stage_fonts` did: faces written, how many were subset now (not cached), the
    characters, the seconds it took, and the faces not found on this machine."""

    faces: tuple[str, ...]
    subset: int
    characters: int
    seconds: float
    missing: tuple[str, ...]


def _subset(path: Path, number: int, characters: str) -> bytes:
    from deck.publish.subset import subset_face

    return subset_face(path, number, characters)


def font_face(face: Face) -> str:
    style = "italic" if face.italic else "normal"
    return (
        f'@font-face {{ font-family: "{face.family}"; font-weight: {face.weight}; '
        f'font-style: {style}; font-display: block; src: url("{FOLDER}/{face.file}") '
        'format("woff2"); }\n'
    )


def stage_fonts(folder: Path, cache: Path) -> Staged:
    """Write the subsets and `assets/fonts.css` into the staged deck `folder` (its page,
    scripts and stylesheets already there), taking subsets from `cache` when it has them."""
    t0 = time.perf_counter()
    characters = deck_characters(folder)
    store = cache / FOLDER
    target = folder / "assets" / FOLDER
    target.mkdir(parents=True, exist_ok=True)
    rules = ["\n/* The faces of this deck, subset for its characters by deck.publish.fonts. */\n"]
    written, missing, made = [], [], 0
    for face in FACES:
        found = locate(face)
        if found is None:
            missing.append(face.file)
            continue
        path, number = found
        cached = store / f"{cache_key(path, number, face, characters)}.woff2"
        try:
            data = cached.read_bytes()
            os.utime(cached)  # (recently used)
        except OSError:
            data = _subset(path, number, characters)
            made += 1
            try:
                write_atomic(cached, data)
            except OSError:
                pass  # made again next build
        (target / face.file).write_bytes(data)
        rules.append(font_face(face))
        written.append(face.file)
    with open(folder / "assets" / STYLESHEET, "a", encoding="utf-8") as css:  # (copied)
        css.write("".join(rules))
    if made:
        _prune(store)
    seconds = time.perf_counter() - t0
    return Staged(tuple(written), made, len(characters), seconds, tuple(missing))


def _prune(store: Path) -> None:
    """Keep the KEEP_CACHED most recently used subsets."""
    try:
        entries = sorted(store.glob("*.woff2"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in entries[KEEP_CACHED:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
