"""A PowerPoint shape's text: runs styled as the deck styles them (its text and code fonts,
bold, italic, scripts raised or lowered, letters with combining marks in a font that places
them), paragraphs with real bullets and numbers, and text boxes."""

from __future__ import annotations

import re
from typing import Any

from deck.publish.pptx.layout import INDENT, PT
from deck.publish.pptx.shapes import Para, Run

MAIN_FONT = "Noto Sans CJK SC"  # the deck's text font (deck/static/deck.css), CJK and Latin
CODE_FONT = "DejaVu Sans Mono"  # the deck's code font
# for a letter with combining marks (math accents: θ̂ x̄): Noto Sans CJK has few of the
# marks and no anchors placing them on a letter; DejaVu Sans has both
MARKS_FONT = "DejaVu Sans"
MARKED = re.compile(r"(?:\S[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+)+")
INK, CODE_INK, MUTED, CODE_FILL, ACCENT = "1C2733", "24292F", "5B6770", "F3F5F7", "2A76DD"
DECK_ACCENT = "1A5FB4"  # the deck's `--deck-accent`: its titles and their rule
FOOTER_PT = 13.5  # the deck's 18 px footer


def rgb(hex_: str) -> Any:
    from pptx.dml.color import RGBColor

    return RGBColor.from_string(hex_)


def emu(points: float) -> int:
    return int(round(points * PT))


def qn(tag: str) -> str:
    """`a:rPr` → its Clark name."""
    from pptx.oxml.ns import qn as clark

    return clark(tag)


def style_run(
    run: Any, source: Run, size: float, lang: str, color: str = INK, face: str | None = None
) -> None:
    """The run's properties written straight into its `a:rPr`, children in the schema's order
    (fill, latin, ea, cs): python-pptx's property setters cost most of the file's time."""
    rpr = run._r.get_or_add_rPr()
    rpr.set("lang", lang)
    rpr.set("sz", str(int(round(size * 100))))
    if source.bold:
        rpr.set("b", "1")
    if source.italic:
        rpr.set("i", "1")
    if source.script:
        rpr.set("baseline", "30000" if source.script > 0 else "-25000")
    fill = rpr.makeelement(qn("a:solidFill"), {})
    ink = CODE_INK if source.code and color == INK else color  # (code in its own ink)
    fill.append(fill.makeelement(qn("a:srgbClr"), {"val": ink}))
    rpr.append(fill)
    face = face or (CODE_FONT if source.code else MAIN_FONT)
    for tag, typeface in (("a:latin", face), ("a:ea", MAIN_FONT), ("a:cs", MAIN_FONT)):
        rpr.append(rpr.makeelement(qn(tag), {"typeface": typeface}))
    if source.link and source.link.startswith(("http://", "https://", "mailto:")):
        run.hyperlink.address = source.link


def fill_paragraph(paragraph: Any, para: Para, size: float, lang: str, color: str = INK) -> None:
    for source in para.runs or [Run("")]:
        text = source.text.replace("\v", "\n").replace("\u2063", "")
        pieces = text.split("\n")
        for k, piece in enumerate(pieces):
            if k:
                paragraph.add_line_break()
            at = 0
            for found in [*MARKED.finditer(piece), None]:
                start, end = found.span() if found else (len(piece), len(piece))
                for part, face in ((piece[at:start], None), (piece[start:end], MARKS_FONT)):
                    if part:
                        run = paragraph.add_run()
                        run.text = part
                        style_run(run, source, size, lang, color, face)
                at = end
    paragraph.space_after = emu(size * 0.35)
    if para.bullet:
        ppr = paragraph._p.get_or_add_pPr()
        indent = INDENT * para.level
        hang = 18.0 if para.bullet == "•" else 26.0  # room for the bullet or "A."
        ppr.set("marL", str(emu(indent + hang - 18.0)))
        ppr.set("indent", str(emu(-hang)))
        font = ppr.makeelement(qn("a:buFont"), {"typeface": MAIN_FONT})
        ppr.append(font)
        if para.bullet == "•":
            ppr.append(ppr.makeelement(qn("a:buChar"), {"char": "•"}))
        else:
            kind = "alphaUcPeriod" if para.bullet[0].isalpha() else "arabicPeriod"
            first = ord(para.bullet[0]) - 64 if para.bullet[0].isalpha() else int(para.bullet[:-1])
            attrs = {"type": kind}
            if first != 1:
                attrs["startAt"] = str(first)
            ppr.append(ppr.makeelement(qn("a:buAutoNum"), attrs))


def unstyled(shape: Any) -> Any:
    """The shape without its theme style (python-pptx gives drawn shapes one whose effect is
    a shadow, which LibreOffice draws whatever the shape's own empty effect list says): its
    fill and line are its own."""
    style = shape._element.find(qn("p:style"))
    if style is not None:
        shape._element.remove(style)
    return shape


def text_box(slide: Any, x: float, y: float, w: float, h: float, fit_text: bool = True) -> Any:
    from pptx.enum.text import MSO_AUTO_SIZE

    box = slide.shapes.add_textbox(emu(x), emu(y), emu(w), emu(h))
    frame = box.text_frame
    frame.word_wrap = True
    for side in ("left", "right"):
        setattr(frame, f"margin_{side}", emu(4))
    frame.margin_top = frame.margin_bottom = emu(2)
    frame.auto_size = MSO_AUTO_SIZE.TEXT_TO_FIT_SHAPE if fit_text else MSO_AUTO_SIZE.NONE
    return box
