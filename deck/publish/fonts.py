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
character makes no subset. Where each face's file is, and what a font file holds, is
`deck.publish.fontfind`'s.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import json
import os
import re
import shutil
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from deck.publish.carry import append_text, replace_text
from deck.publish.fontfind import FACES as FACES
from deck.publish.fontfind import CodePoints, face_cmap, find_all
from deck.publish.fontfind import Face as Face
from deck.publish.fontfind import find as find
from deck.publish.fontfind import locate as locate
from deck.publish.fontfind import located_face as located_face
from deck.publish.subset import VERSION as VERSION
from deck.publish.subset import cache_key, outlines_file
from deck.render.themefonts import WEIGHTS
from deck.store.files import write_atomic

FOLDER = "fonts"  # under assets/, and under the build cache
STYLESHEET = "fonts.css"  # under assets/ (from deck/static/), linked by deck.html.j2
KEEP_CACHED = 64  # subsets kept in the cache, the least recently used dropped first
# The character sets, one subset of each face apiece: the slides' (assets/fonts/, linked from
# assets/fonts.css) and what the handout and the notes add (inlined in the page, see tiers()).
TIERS = ("slides", "student", "lecturer")


RULES = "\n/* The faces of this deck, subset for its slides by deck.publish.fonts. */\n"


DECK_OPTIONS = re.compile(r"window\.deckOptions = (\{.*?\});</script>")


def theme_faces(page: str) -> tuple[Face, ...]:
    """The faces of the theme's web fonts the page names (`deckOptions.fonts`, from
    deck.render.themefonts): each family's regular, bold and italic."""
    found = DECK_OPTIONS.search(page)
    try:
        families = json.loads(found.group(1)).get("fonts", []) if found else []
    except ValueError:
        families = []
    faces = []
    for entry in (str(f) for f in families):
        family, _, stand_in = entry.partition("=")
        faces += [Face(family, w, i, stand_in or None) for w, i in WEIGHTS]
    return tuple(faces)


ASCII = "".join(chr(c) for c in range(0x20, 0x7F))
JS_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})")
CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6}) ?")
ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);?")
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


_READ: dict[bytes, frozenset[str]] = {}  # a file's characters by its bytes' hash and kind
_READ_MAX = 512  # (this process's: the warm build service reads the engine's assets once)


def _characters(path: Path) -> set[str]:
    """The characters a file shows, read once a process for the same bytes (its hash is
    quicker to take than its characters: the deck's scripts and stylesheets are 600 KB)."""
    data = path.read_bytes()
    suffix = path.suffix.lower()
    key = hashlib.sha256(data).digest() + suffix.encode()
    found = _READ.get(key)
    if found is None:
        text = data.decode("utf-8", "replace")
        found = frozenset(page_characters(text) if suffix == ".html" else _shown(suffix, text))
        if len(_READ) >= _READ_MAX:
            _READ.clear()
        _READ[key] = found
    return set(found)


def warm_up() -> None:
    """Reads the characters of the engine's scripts and stylesheets (staged as a deck stages
    them) into this process's memory: a build of the warm service forked after it reads
    their hashes only."""
    import tempfile

    from deck.publish.assets import copy_assets

    with tempfile.TemporaryDirectory(prefix="deck-warm-") as folder:
        copy_assets(Path(folder) / "assets")
        asset_characters(Path(folder))


def _shown(suffix: str, text: str) -> set[str]:
    """The characters of a script's or stylesheet's text, its escapes decoded. (Read from the
    set of distinct characters and the escapes alone: a page is a megabyte.)"""
    css = suffix.lower() == ".css"
    escapes = "".join(m.group(0) for m in (CSS_ESCAPE if css else JS_ESCAPE).finditer(text))
    found = set(text) | set(_unescape_css(escapes) if css else _unescape_js(escapes))
    return {c for c in found if unicodedata.category(c) not in UNSHOWN}


def page_characters(page: str) -> set[str]:
    """The characters of a page (text, attribute values, inline scripts and styles)."""
    entities = html.unescape("".join(ENTITY.findall(page)))
    return _shown(".html", page) | _shown(".html", entities)


def asset_characters(folder: Path) -> set[str]:
    """Printable ASCII and the characters of every script and stylesheet under `folder`."""
    found = set(ASCII)
    for path in sorted(folder.rglob("*")):
        if path.suffix.lower() in SHOWN - {".html"} and path.is_file():
            parts = path.relative_to(folder).parts  # (not a chart library beside the figures)
            if FOLDER not in parts and parts[0] != "figures":
                found |= _characters(path)
    return found


def deck_characters(folder: Path) -> str:
    """Every character the deck in `folder` can show, sorted: from `index.html` (text and
    attribute values, entities decoded) and the scripts and stylesheets it loads (escapes
    decoded), plus printable ASCII. Controls and private-use characters are left out."""
    return "".join(sorted(asset_characters(folder) | _characters(folder / "index.html")))


ASCII_RUNS = re.compile(r"[\x00-\x7f]+")


def _beyond_ascii(page: str) -> set[str]:
    """`page_characters(page)` less ASCII: where the slides' set has every printable ASCII
    character already (and a control is never shown), what a view adds is outside ASCII; a
    page is a megabyte of mostly ASCII, and dropping it first reads the rest 2.5× sooner."""
    entities = html.unescape("".join(ENTITY.findall(page)))
    found = set(ASCII_RUNS.sub("", page)) | set(ASCII_RUNS.sub("", entities))
    return {c for c in found if unicodedata.category(c) not in UNSHOWN}


def tiers(folder: Path, views: dict[str, str], page: str | None = None) -> dict[str, str]:
    """The deck's characters in three disjoint sets, by the view (`RenderedDeck.views`) that
    first shows them: the slides (with the scripts and stylesheets), then what the students'
    handout adds, then what the lecturer's notes add. A notes edit that brings a new
    character changes the lecturer's subsets only, so the slides and handout PDFs (printed
    from the slides' and students' views) are kept."""
    page = (folder / "index.html").read_text("utf-8") if page is None else page
    slides = asset_characters(folder) | _beyond_ascii(views.get("slides", page))  # (all ASCII)
    student = _beyond_ascii(views.get("student", page)) - slides
    lecturer = set().union(*map(_beyond_ascii, {views.get("lecturer", page), page}))  # (one: same)
    lecturer -= slides | student
    sets = (slides, student, lecturer)
    return {tier: "".join(sorted(chars)) for tier, chars in zip(TIERS, sets, strict=True)}


@dataclass(frozen=True)
class Staged:
    """What `stage_fonts` did: faces written, how many were subset now (not cached), the
    characters, the seconds it took, and the faces not found on this machine."""

    faces: tuple[str, ...]
    subset: int
    characters: int
    seconds: float
    missing: tuple[str, ...]


def _subset(path: Path, number: int, characters: str, outlines: Path | None = None) -> bytes:
    from deck.publish.subset import subset_face

    return subset_face(path, number, characters, outlines)


def font_face(face: Face, src: str, characters: str = "") -> str:
    """The `@font-face` rule of a subset of `face` at `src`; with `characters`, for those alone
    (a `unicode-range`, so the page loads it only where one of them is shown)."""
    style = "italic" if face.italic else "normal"
    only = f" unicode-range: {unicode_range(characters)};" if characters else ""
    return (
        f'@font-face {{ font-family: "{face.family}"; font-weight: {face.weight}; '
        f'font-style: {style}; font-display: block; src: url("{src}") format("woff2");{only} }}\n'
    )


def unicode_range(characters: str) -> str:
    """`U+4E2D, U+4E8C-4E8D`: the code points, runs joined."""
    points = sorted({ord(c) for c in characters})
    runs: list[list[int]] = []
    for point in points:
        if runs and point == runs[-1][1] + 1:
            runs[-1][1] = point
        else:
            runs.append([point, point])
    return ", ".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in runs)


class _Subsets:
    """Subsets of one face, from the cache or made (and cached)."""

    def __init__(self, store: Path, face: Face, path: Path, number: int) -> None:
        self.store, self.face, self.path, self.number = store, face, path, number
        self.made = 0
        self._cmap: CodePoints | None = None
        self._files: dict[str, Path] = {}

    def covered(self, characters: str) -> str:
        """Those of `characters` the face has a glyph for."""
        if self._cmap is None:
            self._cmap = face_cmap(self.store, self.path, self.number)
        return "".join(c for c in characters if ord(c) in self._cmap)

    def _file(self, characters: str) -> Path:
        found = self._files.get(characters)
        if found is None:
            key = cache_key(self.path, self.number, self.face.file, characters)
            found = self._files[characters] = self.store / f"{key}.woff2"
        return found

    def cached(self, characters: str) -> bool:
        return self._file(characters).is_file()

    def get(self, characters: str) -> bytes:
        cached = self._file(characters)
        try:
            data = cached.read_bytes()
            os.utime(cached)  # (recently used)
            return data
        except OSError:
            pass
        made = _subset(self.path, self.number, characters, self.outlines())
        return self.put(characters, made)

    def outlines(self) -> Path | None:
        try:
            return outlines_file(self.store, self.path, self.number)
        except OSError:
            return None

    def place(self, characters: str, target: Path) -> None:
        """Copies the subset for `characters` to `target` (made when the cache has not got
        it). A copy, not a link: a tool run over the published deck must not change the
        cache's file."""
        cached = self._file(characters)
        try:
            shutil.copyfile(cached, target)
            os.utime(cached)  # (recently used)
            return
        except OSError:
            pass
        target.write_bytes(self.get(characters))

    def put(self, characters: str, data: bytes) -> bytes:
        """Keeps a subset made for `characters`."""
        self.made += 1
        try:
            write_atomic(self._file(characters), data)
        except OSError:
            pass  # made again next build
        return data


def make_missing(needed: list[tuple[_Subsets, str]]) -> None:
    """Makes the subsets of `needed` (a face's subsets, the characters) that the cache has not,
    on two cores: a forked child makes about half of them, by their characters, while this
    process makes the rest (`deck.publish.ahead`). A first build's subsets, or a new
    character's, come after every section has run, when the cores are free."""
    missing = [(subsets, chars) for subsets, chars in needed if not subsets.cached(chars)]
    if len(missing) < 2:
        return
    from deck.publish.ahead import Ahead

    groups: tuple[list[tuple[_Subsets, str]], ...] = ([], [])
    load = [0, 0]
    for subsets, chars in sorted(missing, key=lambda m: -len(m[1])):
        side = 0 if load[0] <= load[1] else 1
        groups[side].append((subsets, chars))
        load[side] += len(chars) + 20  # (a subset's time: about its glyphs, and a start)
    beside = Ahead(
        lambda: [_subset(s.path, s.number, chars, s.outlines()) for s, chars in groups[1]]
    )
    try:
        for subsets, chars in groups[0]:
            subsets.get(chars)
        for (subsets, chars), data in zip(groups[1], beside.result(), strict=True):
            subsets.put(chars, data)
    finally:
        beside.close()


def subset_store(cache: Path) -> Path:
    """Where the subsets (and what each font file holds) are kept: `$DECK_FONT_CACHE` when
    set, a folder several builds may share (each entry's key is the font file's identity, the
    face and the characters: no build can take another's for its own; the engine's tests share
    one), else `<cache>/fonts`."""
    shared = os.environ.get("DECK_FONT_CACHE")
    return Path(shared) if shared else cache / FOLDER


def stage_fonts(
    folder: Path, cache: Path, views: dict[str, str] | None = None, page: str | None = None
) -> Staged:
    """Write the subsets into the staged deck `folder` (its page, scripts and stylesheets
    already there), taking them from `cache` when it has them: the slides' into
    `assets/fonts/` with their rules appended to `assets/fonts.css`, what the handout and notes
    add as `data:` URLs in a `<style>` at the end of the page's head. (One subset a face and
    tier: PDF viewers read a change of font in a word as a space, so the ideographs are not
    cut into parts, which would make a new character's subset quicker.)"""
    t0 = time.perf_counter()  # (`page`: the staged page's text, when the caller holds it)
    page = (folder / "index.html").read_text("utf-8") if page is None else page
    sets = tiers(folder, views or {}, page)
    store = subset_store(cache)
    target = folder / "assets" / FOLDER
    target.mkdir(parents=True, exist_ok=True)
    rules, inline, written, missing, made = [RULES], [], [], [], 0
    faces = (*FACES, *theme_faces(page))
    located = find_all(faces, store)
    chosen: list[tuple[Face, _Subsets, dict[str, str]]] = []  # (each tier's characters)
    for face in faces:
        found = located[face]
        if found is None:
            missing.append(face.file)
            continue
        subsets = _Subsets(store, face, *found)
        # (keyed by the characters it has: a new character it lacks makes no subset of it)
        covered = {tier: subsets.covered(sets[tier]) if sets[tier] else "" for tier in TIERS}
        chosen.append((face, subsets, covered))
    needed = [(subsets, c[t]) for _, subsets, c in chosen for t in TIERS if t == "slides" or c[t]]
    make_missing(needed)
    for face, subsets, covered in chosen:
        subsets.place(covered["slides"], target / face.file)
        rules.append(font_face(face, f"{FOLDER}/{face.file}"))
        written.append(face.file)
        for tier in TIERS[1:]:
            extra = covered[tier]
            if extra:
                data = base64.b64encode(subsets.get(extra)).decode("ascii")
                inline.append(font_face(face, f"data:font/woff2;base64,{data}", extra))
                written.append(f"{face.file} ({tier})")
        made += subsets.made
    append_text(folder / "assets" / STYLESHEET, "".join(rules))  # (copied: it may be a link)
    if inline:
        _inline(folder / "index.html", "".join(inline))
    if made:
        _prune(store)
    seconds = time.perf_counter() - t0
    count = sum(len(chars) for chars in sets.values())
    return Staged(tuple(written), made, count, seconds, tuple(missing))


def _inline(page: Path, rules: str) -> None:
    """Put `rules` in a `<style>` at the end of the page's head, after the stylesheets (the
    last rule of a family is tried first), marked for the speaker window too."""
    text = page.read_text("utf-8")
    style = f"<style data-speaker-css data-deck-fonts>\n{rules}</style>\n"
    at = text.find("</head>")
    replace_text(page, text[:at] + style + text[at:] if at >= 0 else style + text)


def _prune(store: Path) -> None:
    """Keep the KEEP_CACHED most recently used subsets, and the outlines of 16 faces."""
    for pattern, keep in (("*.woff2", KEEP_CACHED), ("*.outlines", 16)):
        with contextlib.suppress(OSError):
            entries = sorted(store.glob(pattern), key=lambda p: p.stat().st_mtime_ns)
            for old in entries[: max(0, len(entries) - keep)]:
                old.unlink(missing_ok=True)
