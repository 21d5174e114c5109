"""Handouts composed from slides.pdf: the light page Chromium printed (text, ruled lines, an
empty frame per slide) gets each slide's vector page placed in its frame.

handout.js marks every frame with a link to `https://deck.invalid/slide/N`; Chromium prints
each link as an annotation whose rectangle is exactly where the frame landed, whatever the
pagination. Here each such rectangle gets page N of slides.pdf as a form XObject (text stays
text, selectable), the marks are removed, and the outline is rebuilt: every slide's bookmarks
from slides.pdf, moved to where the slide now is, with the light page's own (the answer key).
A slide drawn in place (`/picture/N`: its picture differs from slides.pdf) or shown as a line
of text (`/band/N`, a section title) keeps its bookmarks there too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

MARK = re.compile(r"https://deck\.invalid/(slide|picture|band|key)(?:/(\d+))?$")


@dataclass(frozen=True)
class Mark:
    kind: str  # slide (placed here), picture (drawn by Chromium), band (a title), key
    slide: int  # 0-based page of slides.pdf (-1 for the key)
    page: int  # page of the composed PDF
    rect: tuple[float, float, float, float]  # x1, y1, x2, y2 in points


@dataclass(frozen=True)
class Entry:
    level: int
    title: str
    page: int
    top: float


def _flatten(pdf, items, level: int, found: list[Entry]) -> None:  # noqa: ANN001
    index = {page.objgen: k for k, page in enumerate(pdf.pages)}
    for item in items:
        dest = item.destination
        if dest is not None and len(dest) >= 4 and hasattr(dest[0], "objgen"):
            top = float(dest[3]) if dest[3] is not None else 0.0
            found.append(Entry(level, str(item.title), index.get(dest[0].objgen, 0), top))
        _flatten(pdf, item.children, level + 1, found)


def outline_of(pdf) -> list[Entry]:  # noqa: ANN001
    """Every bookmark of `pdf` in order, with its level (1 at the top), page and top."""
    found: list[Entry] = []
    with pdf.open_outline() as outline:
        _flatten(pdf, outline.root, 1, found)
    return found


def take_marks(pdf) -> list[Mark]:  # noqa: ANN001
    """The deck.invalid links of every page, removed from the pages."""
    import pikepdf

    marks = []
    for number, page in enumerate(pdf.pages):
        annots = page.obj.get("/Annots")
        if annots is None:
            continue
        keep = []
        for annot in annots:
            action = annot.get("/A")
            uri = action.get("/URI") if isinstance(action, pikepdf.Dictionary) else None
            found = MARK.match(str(uri)) if uri is not None else None
            if found is None:
                keep.append(annot)
                continue
            x1, y1, x2, y2 = (float(v) for v in annot.Rect)
            slide = int(found.group(2)) - 1 if found.group(2) else -1
            marks.append(Mark(found.group(1), slide, number, (x1, y1, x2, y2)))
        if keep:
            page.obj.Annots = pikepdf.Array(keep)
        else:
            del page.obj["/Annots"]
    return marks


def _nest(pdf, entries: list[Entry]) -> None:  # noqa: ANN001
    from pikepdf import OutlineItem

    with pdf.open_outline() as outline:
        outline.root.clear()
        stack: list[tuple[int, list]] = [(0, outline.root)]
        for entry in entries:
            while stack[-1][0] >= entry.level:
                stack.pop()
            item = OutlineItem(entry.title, entry.page, "XYZ", top=round(entry.top, 2))
            stack[-1][1].append(item)
            stack.append((entry.level, item.children))


def compose(light: Path, slides: Path, out: Path) -> int:
    """Write `out`: `light` with the slides of `slides` placed in its marked frames and the
    outline rebuilt. Returns the number of slides placed."""
    import pikepdf

    with pikepdf.open(slides) as source, pikepdf.open(light) as pdf:
        marks = take_marks(pdf)
        width = float(source.pages[0].mediabox[2]) if len(source.pages) else 960.0
        placed: dict[int, list[Mark]] = {}
        for mark in marks:
            if mark.kind == "slide" and 0 <= mark.slide < len(source.pages):
                placed.setdefault(mark.page, []).append(mark)
        for number, found in placed.items():
            place(pdf, pdf.pages[number], source, found)
        # The slides' bookmarks, moved to their frames (or bands); the light page's own, but
        # for those of slides drawn in place (their bookmarks come from slides.pdf too).
        by_slide: dict[int, list[Entry]] = {}
        for entry in outline_of(source):
            by_slide.setdefault(entry.page, []).append(entry)
        entries: list[Entry] = []
        for mark in marks:
            x1, y1, x2, y2 = mark.rect
            if mark.kind == "band":
                bookmarks = by_slide.get(mark.slide, [])
                entries += [Entry(e.level, e.title, mark.page, y2) for e in bookmarks]
            elif mark.kind in ("slide", "picture"):
                scale = (x2 - x1) / width
                entries += [
                    Entry(e.level, e.title, mark.page, y1 + e.top * scale)
                    for e in by_slide.get(mark.slide, [])
                ]
        drawn = [m for m in marks if m.kind == "picture"]
        for entry in outline_of(pdf):
            inside = any(
                m.page == entry.page and m.rect[1] - 1 <= entry.top <= m.rect[3] + 1 for m in drawn
            )
            if not inside:
                entries.append(entry)
        entries.sort(key=lambda e: (e.page, -e.top))
        _nest(pdf, entries)
        pdf.save(
            out,
            object_stream_mode=pikepdf.ObjectStreamMode.disable,  # dates stay findable
            static_id=True,  # no /ID made of the dates: equal decks, equal bytes
        )
    return sum(len(found) for found in placed.values())


def place(pdf, page, source, marks: list[Mark]) -> None:  # noqa: ANN001
    """Draw each mark's slide (a page of `source`) over `page`, fitted to its rectangle and
    centred, as a form XObject named after the slide (names decided by the deck alone, so
    equal decks compose to equal bytes)."""
    import pikepdf

    resources = page.obj.get("/Resources")
    if resources is None:
        page.obj.Resources = resources = pikepdf.Dictionary()
    xobjects = resources.get("/XObject")
    if xobjects is None:
        resources.XObject = xobjects = pikepdf.Dictionary()
    drawn = []
    for mark in marks:
        slide = source.pages[mark.slide]
        form = pdf.copy_foreign(slide.as_form_xobject())
        name = pikepdf.Name(f"/DeckSlide{mark.slide + 1}")
        xobjects[name] = form
        x0, y0, x1, y1 = (float(v) for v in slide.mediabox)
        w, h = x1 - x0, y1 - y0
        rx1, ry1, rx2, ry2 = mark.rect
        scale = min((rx2 - rx1) / w, (ry2 - ry1) / h)
        tx = rx1 + ((rx2 - rx1) - w * scale) / 2 - x0 * scale
        ty = ry1 + ((ry2 - ry1) - h * scale) / 2 - y0 * scale
        drawn.append(f"q {scale:.6f} 0 0 {scale:.6f} {tx:.4f} {ty:.4f} cm {name} Do Q")
    # Chromium's own drawing leaves its transformation in place: wrap it in q … Q first.
    page.contents_add(pikepdf.Stream(pdf, b"q\n"), prepend=True)
    page.contents_add(pikepdf.Stream(pdf, ("\nQ\n" + "\n".join(drawn) + "\n").encode()))
