"""The PowerPoint file itself, with python-pptx: one 16:9 slide per deck slide, its title and
text as editable text (real bullet lists, bold, italic, code in the deck's code font), tables
as tables, figures and display formulas as pictures with their alt text, speaker notes in the
notes pane and a slide-number field on every slide."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deck.publish.pptx.layout import (
    BODY_TOP,
    CODE_PT,
    HEIGHT_PT,
    INDENT,
    MARGIN,
    PT,
    TABLE_PT,
    TITLE_HEIGHT,
    TITLE_TOP,
    WIDTH_PT,
    Placed,
    fit,
    fit_picture,
    para_size,
    place,
    quiz_paras,
    table_columns,
    table_rows,
)
from deck.publish.pptx.parse import (
    Block,
    CodeBlock,
    Para,
    Picture,
    QuizBlock,
    Run,
    Table,
    Text,
)

MAIN_FONT = "Noto Sans CJK SC"  # the deck's text font (deck/static/deck.css), CJK and Latin
CODE_FONT = "DejaVu Sans Mono"  # the deck's code font
INK, CODE_INK, MUTED, CODE_FILL, ACCENT = "1C2733", "24292F", "5B6770", "F3F5F7", "2A76DD"
BULLETS = {"•": None}


def _rgb(hex_: str) -> Any:
    from pptx.dml.color import RGBColor

    return RGBColor.from_string(hex_)


def _emu(points: float) -> int:
    return int(round(points * PT))


def _qn(tag: str) -> str:
    from pptx.oxml.ns import qn

    return qn(tag)


def style_run(run: Any, source: Run, size: float, lang: str, color: str = INK) -> None:
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
    fill = rpr.makeelement(_qn("a:solidFill"), {})
    fill.append(fill.makeelement(_qn("a:srgbClr"), {"val": CODE_INK if source.code else color}))
    rpr.append(fill)
    face = CODE_FONT if source.code else MAIN_FONT
    for tag, typeface in (("a:latin", face), ("a:ea", MAIN_FONT), ("a:cs", MAIN_FONT)):
        rpr.append(rpr.makeelement(_qn(tag), {"typeface": typeface}))
    if source.link and source.link.startswith(("http://", "https://", "mailto:")):
        run.hyperlink.address = source.link


def fill_paragraph(paragraph: Any, para: Para, size: float, lang: str, color: str = INK) -> None:
    for source in para.runs or [Run("")]:
        text = source.text.replace("\v", "\n").replace("\u2063", "")
        pieces = text.split("\n")
        for k, piece in enumerate(pieces):
            if k:
                paragraph.add_line_break()
            if piece:
                run = paragraph.add_run()
                run.text = piece
                style_run(run, source, size, lang, color)
    paragraph.space_after = _emu(size * 0.35)
    if para.bullet:
        ppr = paragraph._p.get_or_add_pPr()
        indent = INDENT * para.level
        hang = 18.0 if para.bullet == "•" else 26.0  # room for the bullet or "A."
        ppr.set("marL", str(_emu(indent + hang - 18.0)))
        ppr.set("indent", str(_emu(-hang)))
        font = ppr.makeelement(_qn("a:buFont"), {"typeface": MAIN_FONT})
        ppr.append(font)
        if para.bullet == "•":
            ppr.append(ppr.makeelement(_qn("a:buChar"), {"char": "•"}))
        else:
            kind = "alphaUcPeriod" if para.bullet[0].isalpha() else "arabicPeriod"
            first = ord(para.bullet[0]) - 64 if para.bullet[0].isalpha() else int(para.bullet[:-1])
            attrs = {"type": kind}
            if first != 1:
                attrs["startAt"] = str(first)
            ppr.append(ppr.makeelement(_qn("a:buAutoNum"), attrs))


def text_box(slide: Any, x: float, y: float, w: float, h: float, fit_text: bool = True) -> Any:
    from pptx.enum.text import MSO_AUTO_SIZE

    box = slide.shapes.add_textbox(_emu(x), _emu(y), _emu(w), _emu(h))
    frame = box.text_frame
    frame.word_wrap = True
    for side in ("left", "right"):
        setattr(frame, f"margin_{side}", _emu(4))
    frame.margin_top = frame.margin_bottom = _emu(2)
    frame.auto_size = MSO_AUTO_SIZE.TEXT_TO_FIT_SHAPE if fit_text else MSO_AUTO_SIZE.NONE
    return box


def add_paras(slide: Any, box: Placed, paras: list[Para], lang: str, align: Any = None) -> Any:
    shape = text_box(slide, box.x, box.y, box.width, box.height)
    frame = shape.text_frame
    for k, para in enumerate(paras):
        paragraph = frame.paragraphs[0] if k == 0 else frame.add_paragraph()
        color = MUTED if para.style in ("caption", "small") else INK
        fill_paragraph(paragraph, para, para_size(para, box.scale), lang, color)
        if align is not None:
            paragraph.alignment = align
    return shape


def add_table(slide: Any, box: Placed, table: Table, lang: str) -> None:
    rows, columns = len(table.rows), max((len(r) for r in table.rows), default=0)
    if not rows or not columns:
        return
    widths = table_columns(table, box.width, box.scale)
    heights = table_rows(table, box.width, box.scale)
    x, y, w, h = (_emu(v) for v in (box.x, box.y, sum(widths), sum(heights)))
    shape = slide.shapes.add_table(rows, columns, x, y, w, h).table
    shape.first_row = any(h for _, h in table.rows[0])
    shape.horz_banding = True
    size = TABLE_PT * box.scale
    for c, width in enumerate(widths):
        shape.columns[c].width = _emu(width)
    for r, row in enumerate(table.rows):
        shape.rows[r].height = _emu(heights[r])
        for c, (text, header) in enumerate(row):
            cell = shape.cell(r, c)
            cell.margin_left = cell.margin_right = _emu(4)
            cell.margin_top = cell.margin_bottom = _emu(2)
            paragraph = cell.text_frame.paragraphs[0]
            light = r == 0 and shape.first_row
            color = "FFFFFF" if light else INK
            fill_paragraph(paragraph, Para([Run(text, bold=header)]), size, lang, color)


def add_picture(
    slide: Any,
    box: Placed,
    picture: Picture,
    png: Path,
    natural: Callable[[Picture], tuple[float, float]],
) -> None:
    w, h = fit_picture(picture, box.width, natural, box.picture)
    shape = slide.shapes.add_picture(
        str(png), _emu(box.x + (box.width - w) / 2), _emu(box.y), _emu(w), _emu(h)
    )
    props = shape._element.nvPicPr.cNvPr
    props.set("descr", picture.alt or picture.source)
    props.set(
        "name", ("Formula " if picture.kind == "formula" else "Figure ") + str(props.get("id"))
    )


def add_code(slide: Any, box: Placed, code: CodeBlock, lang: str) -> None:
    shape = text_box(slide, box.x, box.y, box.width, box.height)
    shape.fill.solid()
    shape.fill.fore_color.rgb = _rgb(CODE_FILL)
    frame = shape.text_frame
    frame.margin_left = frame.margin_right = _emu(6)
    frame.margin_top = frame.margin_bottom = _emu(5)
    for k, line in enumerate(code.text.split("\n")):
        paragraph = frame.paragraphs[0] if k == 0 else frame.add_paragraph()
        run = paragraph.add_run()
        run.text = line.replace("\t", "    ")
        style_run(run, Run(line, code=True), CODE_PT * box.scale, lang)


def slide_number(slide: Any, number: int) -> None:
    """A slide-number field (PowerPoint and LibreOffice fill it in), bottom right."""
    from pptx.enum.text import PP_ALIGN

    shape = text_box(slide, WIDTH_PT - MARGIN - 80, HEIGHT_PT - 30, 80, 22, fit_text=False)
    shape.name = "Slide Number"
    paragraph = shape.text_frame.paragraphs[0]
    paragraph.alignment = PP_ALIGN.RIGHT
    field = paragraph._p.makeelement(
        _qn("a:fld"),
        {
            "id": "{" + str(uuid.uuid5(uuid.NAMESPACE_OID, str(number))).upper() + "}",
            "type": "slidenum",
        },
    )
    rpr = field.makeelement(_qn("a:rPr"), {"lang": "en-US", "sz": "1100"})
    fill = rpr.makeelement(_qn("a:solidFill"), {})
    fill.append(fill.makeelement(_qn("a:srgbClr"), {"val": MUTED}))
    rpr.append(fill)
    field.append(rpr)
    text = field.makeelement(_qn("a:t"), {})
    text.text = str(number)
    field.append(text)
    end = paragraph._p.find(_qn("a:endParaRPr"))
    if end is not None:
        end.addprevious(field)
    else:
        paragraph._p.append(field)


def add_slide(
    prs: Any,
    title: list[Run],
    level: int,
    blocks: list[Block],
    notes: str,
    number: int,
    lang: str,
    pictures: dict[int, Path],
    natural: Callable[[Picture], tuple[float, float]],
) -> None:
    from pptx.enum.text import MSO_ANCHOR, PP_ALIGN

    slide = prs.slides.add_slide(prs.slide_layouts[6])  # blank: every shape is placed here
    top = BODY_TOP
    if title:
        title_para = Para(title)
        size = 36.0 if level == 1 else 28.0
        from deck.publish.pptx.layout import text_lines

        while size > 18 and text_lines(title_para.text, size, WIDTH_PT - 2 * MARGIN) > (
            2 if level == 1 else 1
        ):
            size -= 2
        y, h = (150.0, 110.0) if level == 1 else (TITLE_TOP, TITLE_HEIGHT)
        shape = text_box(slide, MARGIN, y, WIDTH_PT - 2 * MARGIN, h)
        shape.name = "Title"
        frame = shape.text_frame
        frame.vertical_anchor = MSO_ANCHOR.BOTTOM if level == 1 else MSO_ANCHOR.MIDDLE
        bold = [Run(r.text, True, r.italic, r.code, r.script, r.link) for r in title]
        fill_paragraph(frame.paragraphs[0], Para(bold), size, lang)
        if level == 1:
            frame.paragraphs[0].alignment = PP_ALIGN.CENTER
            top = y + h + 20
    scale, factor = fit(blocks, top, natural)
    for box in place(blocks, MARGIN, top, WIDTH_PT - 2 * MARGIN, scale, factor, natural):
        block = box.block
        if isinstance(block, Text):
            add_paras(slide, box, block.paras, lang, PP_ALIGN.CENTER if level == 1 else None)
        elif isinstance(block, QuizBlock):
            add_paras(slide, box, quiz_paras(block), lang)
        elif isinstance(block, Table):
            add_table(slide, box, block, lang)
        elif isinstance(block, CodeBlock):
            add_code(slide, box, block, lang)
        elif isinstance(block, Picture) and id(block) in pictures:
            add_picture(slide, box, block, pictures[id(block)], natural)
    if notes:
        slide.notes_slide.notes_text_frame.text = notes
    slide_number(slide, number)


def new_presentation(title: str, lang: str) -> Any:
    from pptx import Presentation

    prs = Presentation()
    prs.slide_width, prs.slide_height = _emu(WIDTH_PT), _emu(HEIGHT_PT)
    prs.core_properties.title = title
    prs.core_properties.language = lang
    prs.core_properties.author = ""
    prs.core_properties.last_modified_by = ""
    prs.core_properties.revision = 1
    return prs
