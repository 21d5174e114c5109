"""The PowerPoint file itself, with python-pptx: one 16:9 slide per deck slide, its title and
text as editable text (real bullet lists, bold, italic, code in the deck's code font), tables
as tables, figures and display formulas as pictures with their alt text, flows as boxes and
arrows, speaker notes in the notes pane, the deck's footer and a slide-number field on every
slide."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from deck.publish.pptx.diagram import add_flow
from deck.publish.pptx.layout import (
    BODY_TOP,
    CODE_PT,
    HEIGHT_PT,
    LINE,
    MARGIN,
    TABLE_PT,
    TITLE_HEIGHT,
    TITLE_TOP,
    WIDTH_PT,
    WRAP,
    Placed,
    fit,
    fit_picture,
    para_size,
    place,
    quiz_paras,
    table_columns,
    table_rows,
    text_lines,
)
from deck.publish.pptx.parse import (
    Block,
    CodeBlock,
    Flow,
    Para,
    Picture,
    QuizBlock,
    Run,
    Table,
    Text,
)
from deck.publish.pptx.textrun import (
    CODE_FILL,
    FOOTER_PT,
    INK,
    MUTED,
    emu,
    fill_paragraph,
    qn,
    rgb,
    style_run,
    text_box,
)


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
    x, y, w, h = (emu(v) for v in (box.x, box.y, sum(widths), sum(heights)))
    shape = slide.shapes.add_table(rows, columns, x, y, w, h).table
    shape.first_row = table.header  # (a header's style only where the deck has a header)
    shape.horz_banding = True
    size = TABLE_PT * box.scale
    for c, width in enumerate(widths):
        shape.columns[c].width = emu(width)
    for r, row in enumerate(table.rows):
        shape.rows[r].height = emu(heights[r])
        for c, source in enumerate(row):
            cell = shape.cell(r, c)
            cell.margin_left = cell.margin_right = emu(4)
            cell.margin_top = cell.margin_bottom = emu(2)
            paragraph = cell.text_frame.paragraphs[0]
            color = "FFFFFF" if r == 0 and table.header else INK
            runs = [replace(run, bold=run.bold or source.header) for run in source.runs]
            fill_paragraph(paragraph, Para(runs), size, lang, color)


def add_picture(
    slide: Any,
    box: Placed,
    picture: Picture,
    png: Path,
    natural: Callable[[Picture], tuple[float, float]],
) -> None:
    w, h = fit_picture(picture, box.width, natural, box.picture)
    shape = slide.shapes.add_picture(
        str(png), emu(box.x + (box.width - w) / 2), emu(box.y), emu(w), emu(h)
    )
    props = shape._element.nvPicPr.cNvPr
    props.set("descr", picture.alt or picture.source)
    props.set(
        "name", ("Formula " if picture.kind == "formula" else "Figure ") + str(props.get("id"))
    )


def add_code(slide: Any, box: Placed, code: CodeBlock, lang: str) -> None:
    shape = text_box(slide, box.x, box.y, box.width, box.height)
    shape.fill.solid()
    shape.fill.fore_color.rgb = rgb(CODE_FILL)
    frame = shape.text_frame
    frame.margin_left = frame.margin_right = emu(6)
    frame.margin_top = frame.margin_bottom = emu(5)
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
        qn("a:fld"),
        {
            "id": "{" + str(uuid.uuid5(uuid.NAMESPACE_OID, str(number))).upper() + "}",
            "type": "slidenum",
        },
    )
    rpr = field.makeelement(qn("a:rPr"), {"lang": "en-US", "sz": "1100"})
    fill = rpr.makeelement(qn("a:solidFill"), {})
    fill.append(fill.makeelement(qn("a:srgbClr"), {"val": MUTED}))
    rpr.append(fill)
    field.append(rpr)
    text = field.makeelement(qn("a:t"), {})
    text.text = str(number)
    field.append(text)
    end = paragraph._p.find(qn("a:endParaRPr"))
    if end is not None:
        end.addprevious(field)
    else:
        paragraph._p.append(field)


def add_footer(slide: Any, paras: list[Para], lang: str) -> None:
    """The deck's footer as it shows it: centred at the slide's foot in muted 18 px text
    (deck/static/quarto.css `.footer`), clear of the slide number; smaller where it would
    take more than its line there."""
    from pptx.enum.text import PP_ALIGN

    inset = MARGIN + 84.0  # (the slide number's box, 80 pt, stands at the right margin)
    width, height = WIDTH_PT - 2 * inset, 24.0
    size = FOOTER_PT

    def lines(size: float) -> int:
        return sum(text_lines(p.text, size, WRAP * width) for p in paras)

    while size > 7 and lines(size) * size * LINE > height + 2:
        size -= 0.5
    shape = text_box(slide, inset, HEIGHT_PT - 31, width, height)
    shape.name = "Footer"
    frame = shape.text_frame
    for k, para in enumerate(paras):
        paragraph = frame.paragraphs[0] if k == 0 else frame.add_paragraph()
        fill_paragraph(paragraph, Para(para.runs), size, lang, MUTED)
        paragraph.space_after = 0
        paragraph.alignment = PP_ALIGN.CENTER


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
    footer: list[Para] | None = None,
) -> None:
    from pptx.enum.text import MSO_ANCHOR, PP_ALIGN

    slide = prs.slides.add_slide(prs.slide_layouts[6])  # blank: every shape is placed here
    top = BODY_TOP
    if title:
        title_para = Para(title)
        size = 36.0 if level == 1 else 28.0
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
        elif isinstance(block, Flow):
            add_flow(slide, box, block, lang)
        elif isinstance(block, Picture) and id(block) in pictures:
            add_picture(slide, box, block, pictures[id(block)], natural)
    if notes:
        slide.notes_slide.notes_text_frame.text = notes
    if footer:
        add_footer(slide, footer, lang)
    slide_number(slide, number)


def new_presentation(title: str, lang: str) -> Any:
    from pptx import Presentation
    from pptx.util import Emu

    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(emu(WIDTH_PT)), Emu(emu(HEIGHT_PT))
    prs.core_properties.title = title
    prs.core_properties.language = lang
    prs.core_properties.author = ""
    prs.core_properties.last_modified_by = ""
    prs.core_properties.revision = 1
    return prs
