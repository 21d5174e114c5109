"""Font subsetting: one face of a font file (a face of a .ttc collection picked by its family
and style names), cut down to given characters by HarfBuzz's subsetter (it reads only what the
characters need: a 19 MB CJK face in milliseconds, where fontTools parses all of it in 0.6 s),
its outlines made TrueType (`glyf`) when they are CFF and saved as WOFF2 by fontTools, with
the same bytes for the same input."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import marshal
from collections.abc import Iterator
from pathlib import Path

from deck.store.files import identity, write_atomic

# The OpenType features kept: what Chromium applies to horizontal text. `locl` is left out on
# purpose: in Noto Sans CJK it pulls in the Japanese, Korean and traditional forms of every
# character (70 % more glyphs) while the deck shows the simplified face it names.
LAYOUT_FEATURES = (
    "ccmp",
    "calt",
    "clig",
    "liga",
    "rlig",
    "rclt",
    "kern",
    "mark",
    "mkmk",
    "curs",
    "halt",
    "chws",
)
MAX_ERROR = 1.0  # font units a quadratic curve may stray from its cubic (1/1000 em here)
VERSION = "5"  # of what a subset holds: a change makes every cached subset anew
# brotli's quality for the WOFF2: fontTools' own 11 takes 2.5× as long on a CJK face (1.1 s
# against 0.45 s for a thousand characters) for 3 % fewer bytes, and a prose edit that brings
# a new character waits for it
QUALITY = 9


def version() -> str:
    """The subsetting libraries' versions (a subset's bytes may change with either)."""
    import fontTools
    import uharfbuzz

    return f"fontTools {fontTools.version}, uharfbuzz {uharfbuzz.__version__}"


def cache_key(path: Path, number: int, file: str, characters: str) -> str:
    """A subset's cache key: the font file's identity, the face (its number, the file it is
    shipped as), the characters, what makes it."""
    what = [VERSION, version(), str(path), *identity(path.stat()), number, file, characters]
    return hashlib.sha256(json.dumps(what).encode()).hexdigest()


def outlines_file(store: Path, path: Path, number: int) -> Path:
    """Where a face's glyphs made TrueType are kept (`converted_outlines`), under the font
    file's identity, the face and what converts them."""
    what = [VERSION, version(), MAX_ERROR, str(path), *identity(path.stat()), number]
    return store / f"{hashlib.sha256(json.dumps(what).encode()).hexdigest()}.outlines"


def face_names(font) -> tuple[str, str]:  # noqa: ANN001
    """(family, style) of a face: the typographic names when it has them (IDs 16, 17)."""
    name = font["name"]
    family = name.getDebugName(16) or name.getDebugName(1) or ""
    style = name.getDebugName(17) or name.getDebugName(2) or ""
    return family, style


def face_number(path: Path, family: str, hint: int = 0) -> int | None:
    """The number of the face of `path` named `family` (fontconfig's `hint` first), or None."""
    from fontTools.ttLib import TTCollection, TTFont

    with open(path, "rb") as f:
        collection = f.read(4) == b"ttcf"
    if not collection:
        font = TTFont(path, lazy=True)
        return 0 if face_names(font)[0] == family else None
    fonts = TTCollection(path, lazy=True).fonts
    order = [hint, *(i for i in range(len(fonts)) if i != hint)] if hint < len(fonts) else []
    for number in order or range(len(fonts)):
        if face_names(fonts[number])[0] == family:
            return number
    return None


def cff_to_glyf(font, converted: dict[str, bytes] | None = None) -> None:  # noqa: ANN001
    """Replace a CFF font's outlines by TrueType quadratic ones (as fontTools' otf2ttf
    snippet does): each cubic curve approximated within MAX_ERROR font units. `converted`:
    glyphs converted before (compiled `glyf` glyphs by name: a CID font's names are its
    CIDs), taken from it and added to it."""
    from fontTools.pens.cu2quPen import Cu2QuPen
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib import newTable
    from fontTools.ttLib.tables._g_l_y_f import Glyph

    order = font.getGlyphOrder()
    glyphs = font.getGlyphSet()
    glyf = newTable("glyf")
    glyf.glyphOrder = order
    glyf.glyphs = {}
    for name in order:
        data = converted.get(name) if converted is not None else None
        if data is None:
            pen = TTGlyphPen(glyphs)
            # CFF contours run counter-clockwise, TrueType's clockwise
            glyphs[name].draw(Cu2QuPen(pen, MAX_ERROR, reverse_direction=True))
            data = pen.glyph().compile(glyf)
            if converted is not None:
                converted[name] = data
        glyf[name] = Glyph(data)  # (compiled either way: the same bytes, cached or not)
    font["glyf"] = glyf
    font["loca"] = newTable("loca")
    for tag in ("CFF ", "CFF2", "VORG"):  # (VORG exists for CFF only)
        if tag in font:
            del font[tag]
    maxp = newTable("maxp")  # version 1.0: its counts are worked out when saving
    maxp.tableVersion = 0x00010000
    for field in (
        "maxZones",
        "maxTwilightPoints",
        "maxStorage",
        "maxFunctionDefs",
        "maxInstructionDefs",
        "maxStackElements",
        "maxSizeOfInstructions",
        "maxComponentElements",
    ):
        setattr(maxp, field, 0)
    maxp.maxZones = 1
    font["maxp"] = maxp
    post = font["post"]
    post.formatType = 3.0  # no glyph names (a CID font's are cid00001…)
    for attr in ("extraNames", "mapping"):
        if hasattr(post, attr):
            delattr(post, attr)
    font["head"].glyphDataFormat = 0
    font.sfntVersion = "\x00\x01\x00\x00"


def _sfnt(path: Path):  # noqa: ANN202 - uharfbuzz's Blob
    """The font file as HarfBuzz reads it: a WOFF or WOFF2 file (a theme's web font, from its
    npm package) unpacked by fontTools first."""
    import uharfbuzz as hb

    with open(path, "rb") as f:
        packed = f.read(4) in (b"wOFF", b"wOF2")
    if not packed:
        return hb.Blob.from_file_path(str(path))
    from fontTools.ttLib import TTFont

    font = TTFont(path, recalcTimestamp=False)
    font.flavor = None
    out = io.BytesIO()
    font.save(out, reorderTables=False)
    return hb.Blob(out.getvalue())


def subset_face(path: Path, number: int, characters: str, outlines: Path | None = None) -> bytes:
    """Face `number` of `path` holding only the glyphs of `characters` (and what the kept
    features reach from them), with TrueType outlines, as WOFF2 bytes. The same input gives
    the same bytes: the font's own timestamps are kept. `outlines`: a file keeping the face's
    glyphs made TrueType (`converted_outlines`), for its next subsets."""
    import uharfbuzz as hb
    from fontTools.ttLib import TTFont

    wanted = hb.SubsetInput()
    for point in sorted({ord(c) for c in characters}):
        wanted.unicode_set.add(point)
    features = wanted.sets(hb.SubsetInputSets.LAYOUT_FEATURE_TAG)
    features.clear()
    for tag in LAYOUT_FEATURES:
        features.add(int.from_bytes(tag.encode("ascii"), "big"))
    dropped = wanted.sets(hb.SubsetInputSets.DROP_TABLE_TAG)
    dropped.add(int.from_bytes(b"FFTM", "big"))  # (FontForge's timestamps: no use to a browser)
    # (no hinting: half of DejaVu's bytes, and the CJK outlines lose theirs anyway)
    wanted.flags = hb.SubsetFlags.NO_HINTING | hb.SubsetFlags.NOTDEF_OUTLINE
    face = hb.Face(_sfnt(path), number)
    made = hb.subset(face, wanted)
    if made is None:
        raise ValueError(f"{path}: HarfBuzz could not subset face {number}")
    font = TTFont(io.BytesIO(made.blob.data), recalcTimestamp=False)
    if "glyf" not in font:
        # (kept glyphs only by CID: a CID-keyed font's glyph names are its own identities,
        # where another CFF font's may be numbers of the subset's own)
        cid_keyed = "CFF " in font and hasattr(font["CFF "].cff.topDictIndex[0], "ROS")
        with converted_outlines(outlines if cid_keyed else None) as converted:
            cff_to_glyf(font, converted)
    if "post" in font:
        font["post"].formatType = 3.0  # no glyph names
        for attr in ("extraNames", "mapping"):
            if hasattr(font["post"], attr):
                delattr(font["post"], attr)
    font.flavor = "woff2"
    out = io.BytesIO()
    with _brotli_quality(QUALITY):
        font.save(out, reorderTables=False)
    return out.getvalue()


@contextlib.contextmanager
def converted_outlines(path: Path | None) -> Iterator[dict[str, bytes] | None]:
    """The glyphs of a face made TrueType by earlier subsets, kept in `path` (a marshalled
    dict, written again when glyphs were added): a new character's subset converts its own
    glyphs, not the thousand others (a third of a second of a CJK face's subset)."""
    if path is None:
        yield None
        return
    try:
        found = marshal.loads(path.read_bytes())
        converted = found if isinstance(found, dict) else {}
    except (OSError, ValueError, EOFError, TypeError):
        converted = {}
    known = len(converted)
    yield converted
    if len(converted) > known:
        with contextlib.suppress(OSError):
            write_atomic(path, marshal.dumps(converted))


@contextlib.contextmanager
def _brotli_quality(quality: int) -> Iterator[None]:
    """fontTools' WOFF2 writer compressing at `quality` (it calls `brotli.compress` with the
    default, 11, and takes no option)."""
    from fontTools.ttLib import woff2

    real = woff2.brotli

    class Brotli:
        MODE_FONT = real.MODE_FONT
        decompress = staticmethod(real.decompress)

        @staticmethod
        def compress(data: bytes, mode: int = real.MODE_GENERIC) -> bytes:
            return real.compress(data, mode=mode, quality=quality)

    woff2.brotli = Brotli
    try:
        yield
    finally:
        woff2.brotli = real
