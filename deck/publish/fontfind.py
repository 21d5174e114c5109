"""Where the deck's faces are on this machine: fontconfig's match for each (asked in this
process, `deck.render.themefonts.matches`), else a pinned npm font package's file; and what a
font file holds (which of a collection's faces is the family, the code points it has a glyph
for), kept in the build cache under the file's identity (path, size, mtime, ctime, inode), as
reading them loads fontTools.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from deck.render.themefonts import matches, packaged
from deck.store.files import identity, write_atomic

if TYPE_CHECKING:
    from deck.render.fontconfig import Match

VERSION = "1"  # of what the cached answers hold: a change reads every font file again


@dataclass(frozen=True)
class Face:
    family: str  # as the stylesheets name it, and as the font names itself
    weight: int
    italic: bool = False
    stand_in: str | None = None  # a theme's font nobody has: the family whose glyphs it gets

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


def find(face: Face) -> tuple[Path, int] | None:
    """A face's file: installed (fontconfig), else from its npm font package (a substituted
    family: its stand-in's)."""
    return find_all((face,))[face]


def find_all(
    faces: tuple[Face, ...], store: Path | None = None
) -> dict[Face, tuple[Path, int] | None]:
    """`find` for each face, fontconfig asked about them all at once (in this process:
    `deck.render.themefonts.matches`); with `store`, each file's face numbers are kept there."""
    own = {f: Face(f.stand_in, f.weight, f.italic) if f.stand_in else f for f in faces}
    wanted = list(dict.fromkeys(own.values()))
    answers = matches([face.pattern for face in wanted])
    located = {face: located_face(face, m, store) for face, m in zip(wanted, answers, strict=True)}
    found: dict[Face, tuple[Path, int] | None] = {}
    for face in faces:
        base = own[face]
        at = located[base]
        if at is None and (file := packaged(base.family, base.weight, base.italic)) is not None:
            at = (file, 0)
        found[face] = at
    return found


def locate(face: Face) -> tuple[Path, int] | None:
    """The file and face number of `face` as fontconfig finds it, or None."""
    return located_face(face, matches([face.pattern])[0])


def located_face(
    face: Face, found: Match | None, store: Path | None = None
) -> tuple[Path, int] | None:
    """The file and face number of `face` in fontconfig's match `found` (the face checked by
    name: fontconfig answers a stand-in when the family is not installed), or None. With
    `store`, the answer is kept there under the font file's identity (reading the names of a
    collection's faces loads fontTools: a third of a second)."""
    if found is None:
        return None
    path = Path(found.file)
    try:
        number = face_number_of(path, face.family, found.index, store)
    except Exception:  # noqa: BLE001 (a font file fontTools cannot read: no subset of it)
        return None
    return None if number is None else (path, number)


def face_number_of(path: Path, family: str, hint: int, store: Path | None) -> int | None:
    from deck.publish.subset import face_number

    if store is None:
        return face_number(path, family, hint)
    what = [VERSION, str(path), *identity(path.stat()), family, hint]
    cached = store / f"face-{hashlib.sha256(json.dumps(what).encode()).hexdigest()}.json"
    try:
        stored = json.loads(cached.read_text("utf-8"))
        if stored is None or isinstance(stored, int):
            return stored
    except (OSError, ValueError):
        pass
    number = face_number(path, family, hint)
    try:
        write_atomic(cached, json.dumps(number).encode())
    except OSError:
        pass  # read again next build
    return number


class CodePoints:
    """A font's code points as runs `[first, last]`, sorted: `point in points` looks the run
    up (a CJK face has 30,000 points; a deck asks for a thousand of them)."""

    def __init__(self, runs: list[list[int]]) -> None:
        self.firsts = [int(a) for a, _ in runs]
        self.lasts = [int(b) for _, b in runs]

    def __contains__(self, point: object) -> bool:
        if not isinstance(point, int):
            return False
        at = bisect.bisect_right(self.firsts, point) - 1
        return at >= 0 and point <= self.lasts[at]


def runs_of(points: set[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for point in sorted(points):
        if runs and point == runs[-1][1] + 1:
            runs[-1][1] = point
        else:
            runs.append([point, point])
    return runs


def face_cmap(store: Path, path: Path, number: int) -> CodePoints:
    """The code points face `number` of `path` has a glyph for, kept in the cache under the
    font file's identity (reading a CJK font's cmap takes a tenth of a second)."""
    import fontTools

    what = [VERSION, fontTools.version, str(path), *identity(path.stat()), number]
    cached = store / f"cmap-{hashlib.sha256(json.dumps(what).encode()).hexdigest()}.json"
    try:
        stored = json.loads(cached.read_text("utf-8"))
        if all(isinstance(r, list) and len(r) == 2 for r in stored):
            return CodePoints(stored)
    except (OSError, ValueError, TypeError):
        pass
    from fontTools.ttLib import TTFont

    font = TTFont(path, fontNumber=number, lazy=True)
    runs = runs_of(set(font["cmap"].getBestCmap()))
    try:
        write_atomic(cached, json.dumps(runs).encode())
    except OSError:
        pass  # read again next build
    return CodePoints(runs)
