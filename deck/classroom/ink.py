"""The presenter's ink as vector strokes: the chalkboard plugin's drawings (`ink.json`, its
storage) replayed into polylines per slide (the pen) and per blackboard, and drawn over PDF
pages as paths (pikepdf), so `slides-annotated.pdf` keeps its text selectable and its ink
sharp at any zoom.

The pen's coordinates are the window's, in the slide's units and centred as the slide is:
reveal.js leaves a margin around the slide (`margin`, 0.04), so a point maps to the slide by
scaling its distance from the centre by 1 + margin. The sponge erases the strokes it touches
(the plugin clears pixels; a vector copy drops the strokes under it), `clear` empties the
slide and `resetSlide` its drawings.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# deck/static/deck.js's pens (the boardmarkers) and chalks, in its order (a test compares them)
MARKERS = ((100, 100, 100), (30, 144, 255), (220, 20, 60), (50, 205, 50), (255, 140, 0),
           (150, 0, 150), (255, 220, 0))  # fmt: skip
CHALKS = ((255, 255, 255), (96, 154, 244), (237, 20, 28), (20, 237, 28), (220, 133, 41),
          (220, 0, 220), (255, 220, 0))  # fmt: skip
PEN_WIDTH, CHALK_WIDTH = 3.0, 7.0  # the plugin's, in the slide's px
SPONGE = 20.0  # the eraser's radius
BOARD = (0.17, 0.2, 0.19)  # a blackboard page's colour


@dataclass
class Stroke:
    color: tuple[int, int, int]
    width: float
    points: list[tuple[float, float]] = field(default_factory=list)


@dataclass
class Drawing:
    """The ink of one slide (the pen's) or of one blackboard of a slide."""

    slide: int  # the slide's page, 0-based
    board: int | None  # None: drawn on the slide itself
    strokes: list[Stroke]


def numbers(event: dict, *keys: str) -> tuple[float, ...] | None:
    values = [event.get(k) for k in keys]
    if all(isinstance(v, int | float) and math.isfinite(v) for v in values):
        return tuple(float(v) for v in values)  # type: ignore[arg-type]
    return None


def replay(events: Iterable[Any], chalk: bool) -> dict[int, list[Stroke]]:
    """The strokes left by a slide's events, by board (the pen draws on board 0)."""
    boards: dict[int, list[tuple[int, tuple[float, float, float, float]]]] = {}
    for event in events:
        if not isinstance(event, dict):
            continue
        board = event.get("board", 0) if isinstance(event.get("board", 0), int) else 0
        kind = event.get("type")
        segments = boards.setdefault(board, [])
        if kind == "draw":
            at = numbers(event, "x1", "y1", "x2", "y2")
            color = event.get("color", 0)
            if at is not None and isinstance(color, int):
                x1, y1, x2, y2 = at
                segments.append((color, (x1, y1, x2, y2)))
        elif kind == "erase":
            point = numbers(event, "x", "y")
            if point is not None:
                x, y = point
                boards[board] = [
                    s
                    for s in segments
                    if math.dist((s[1][0], s[1][1]), (x, y)) > SPONGE
                    and math.dist((s[1][2], s[1][3]), (x, y)) > SPONGE
                ]
        elif kind in ("clear", "resetSlide"):
            boards[board] = []
    palette, width = (CHALKS, CHALK_WIDTH) if chalk else (MARKERS, PEN_WIDTH)
    strokes: dict[int, list[Stroke]] = {}
    for board, segments in boards.items():
        joined: list[Stroke] = []
        for color, (x1, y1, x2, y2) in segments:
            rgb = palette[color % len(palette)]
            last = joined[-1] if joined else None
            if last and last.color == rgb and last.points[-1] == (x1, y1):
                last.points.append((x2, y2))
            else:
                joined.append(Stroke(rgb, width, [(x1, y1), (x2, y2)]))
        if joined:
            strokes[board] = joined
    return strokes


def drawings(storage: Any) -> list[Drawing]:
    """Every slide's and blackboard's ink in a chalkboard storage (`[pen, boards]`), in slide
    order, the pen's first; fragments' drawings of a slide together."""
    found: dict[tuple[int, int | None], list[Stroke]] = {}
    canvases = storage if isinstance(storage, list) else []
    for mode, canvas in enumerate(canvases[:2]):
        data = canvas.get("data", []) if isinstance(canvas, dict) else []
        for entry in data if isinstance(data, list) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get("slide"), dict):
                continue
            h = entry["slide"].get("h")
            if not isinstance(h, int) or h < 0:
                continue
            for board, strokes in replay(entry.get("events") or [], chalk=mode == 1).items():
                found.setdefault((h, None if mode == 0 else board), []).extend(strokes)
    order = sorted(found, key=lambda k: (k[0], -1 if k[1] is None else k[1]))
    return [Drawing(slide, board, found[slide, board]) for slide, board in order]


def path_ops(strokes: list[Stroke], to_page: SlideMap) -> str:
    """PDF path operators drawing `strokes`, each point mapped by `to_page`."""
    ops = ["/DeckInk BMC", "q", "1 J", "1 j"]  # (marked: the lecture's ink, not the slide's)
    for stroke in strokes:
        r, g, b = (c / 255 for c in stroke.color)
        points = [to_page(x, y) for x, y in stroke.points]
        width = to_page.scale * stroke.width
        ops.append(f"{r:.3f} {g:.3f} {b:.3f} RG {width:.2f} w")
        ops.append(f"{points[0][0]:.2f} {points[0][1]:.2f} m")
        ops += [f"{x:.2f} {y:.2f} l" for x, y in points[1:]]
        ops.append("S")
    ops += ["Q", "EMC"]
    return "\n".join(ops)


class SlideMap:
    """A point of the chalkboard's storage (`width`×`height`, the window's centred copy of the
    slide) → a point of a PDF page `page_w`×`page_h` points (y up)."""

    def __init__(
        self, width: float, height: float, page_w: float, page_h: float, margin: float = 0.0
    ):
        self.width, self.height, self.margin = width, height, margin
        self.page_w, self.page_h = page_w, page_h
        self.scale = page_w / width

    def __call__(self, x: float, y: float) -> tuple[float, float]:
        grow = 1 + self.margin
        sx = self.width / 2 + (x - self.width / 2) * grow
        sy = self.height / 2 + (y - self.height / 2) * grow
        return sx * self.scale, self.page_h - sy * self.scale


def annotate(slides: Path, storage: Any, out: Path, margin: float, boards: bool) -> int:
    """Write `out`: `slides` (one page per slide) with the pen's ink over each slide and, with
    `boards`, each blackboard drawn as a page of its own after its slide. Returns the number
    of pages that got ink."""
    import pikepdf

    canvases = storage if isinstance(storage, list) and storage else [{}]
    size = canvases[0] if isinstance(canvases[0], dict) else {}
    width = float(size.get("width") or 1280)
    height = float(size.get("height") or 720)
    inked = 0
    with pikepdf.open(slides) as pdf:
        count = len(pdf.pages)
        after: dict[int, list[Drawing]] = {}
        for drawing in drawings(storage):
            if not 0 <= drawing.slide < count:
                continue
            if drawing.board is not None:
                after.setdefault(drawing.slide, []).append(drawing)
                continue
            page = pdf.pages[drawing.slide]
            _, _, w, h = (float(v) for v in page.mediabox)
            ops = path_ops(drawing.strokes, SlideMap(width, height, w, h, margin))
            page.contents_add(pikepdf.Stream(pdf, b"q\n"), prepend=True)
            page.contents_add(pikepdf.Stream(pdf, f"\nQ\n{ops}\n".encode()))
            inked += 1
        if boards:
            for slide in sorted(after, reverse=True):  # (from the end: the places stay)
                w, h = (float(v) for v in pdf.pages[slide].mediabox[2:])
                for k, drawing in enumerate(after[slide]):
                    ops = path_ops(drawing.strokes, SlideMap(width, height, w, h))
                    pdf.pages.insert(slide + 1 + k, board_page(pdf, w, h, ops))
                    inked += 1
        pdf.save(out, static_id=True)
    return inked


def board_page(pdf: Any, w: float, h: float, ops: str) -> Any:
    """A blackboard's page: the board's colour, then its chalk."""
    import pikepdf

    back = f"{BOARD[0]} {BOARD[1]} {BOARD[2]} rg 0 0 {w} {h} re f\n"
    content = pdf.make_indirect(pikepdf.Stream(pdf, (back + ops).encode()))
    page = pikepdf.Dictionary(
        Type=pikepdf.Name.Page,
        MediaBox=[0, 0, w, h],
        Contents=content,
        Resources=pikepdf.Dictionary(),
    )
    return pikepdf.Page(page)


OPTIONS = re.compile(r"window\.deckOptions = (\{.*?\});</script>")


def deck_margin(page: str) -> float:
    """The margin reveal.js leaves around the slide on screen (a `.qmd`'s own, else 0.04)."""
    import json

    found = OPTIONS.search(page)
    try:
        margin = json.loads(found.group(1)).get("reveal", {}).get("margin") if found else None
    except ValueError:
        margin = None
    return float(margin) if isinstance(margin, int | float) and 0 <= margin < 1 else 0.04
