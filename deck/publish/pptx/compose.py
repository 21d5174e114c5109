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

from deck.publish.pptx.codeblock import add_code
from deck.publish.pptx.diagram import add_flow
from deck.publish.pptx.layout import (
    BODY_TOP,
    HEIGHT_PT,
    LINE,
    MARGIN,
    RULE_TOP,
    TABLE_PT,
    TITLE_HEIGHT,
    TITLE_TOP,
    WIDTH_PT,
    WRAP,
    Placed,
    fit,
    fit_picture,
    panel_head,
    para_size,
    place,
    table_columns,
    table_rows,
    text_lines,
)
from deck.publish.pptx.shapes import (
    Block,
    CodeBlock,
    Flow,
    Panel,
    Para,
    Paras,
    Picture,
    Run,
    Table,
)
from deck.publish.pptx.textrun import (
    DECK_ACCENT,
    FOOTER_PT,
    INK,
    MUTED,
    emu,
    fill_paragraph,
    qn,
    rgb,
    text_box,
    unstyled,
)


def add_paras(
    slide: Any, box: Placed, paras: list[Para], lang: str, align: Any = None, ink: str = INK
) -> Any:
    from pptx.enum.text import PP_ALIGN

    shape = text_box(slide, box.x, box.y, box.width, box.height)
    frame = shape.text_frame
    for k, para in enumerate(paras):
        paragraph = frame.paragraphs[0] if k == 0 else frame.add_paragraph()
        color = MUTED if para.style in ("caption", "small") else ink
        fill_paragraph(paragraph, para, para_size(para, box.scale), lang, color)
        if para.style == "caption":  # (under its figure, centred as the figure is)
            paragraph.alignment = PP_ALIGN.CENTER
        elif align is not None:
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
    for r, row in enumerate(table.rows):  # spanning cells merged over the places they cover
        for c, source in enumerate(row):
            if source.span > 1 or source.down > 1:
                last = (min(r + source.down, rows) - 1, min(c + source.span, columns) - 1)
                shape.cell(r, c).merge(shape.cell(*last))


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


# a callout's edge and title band, as deck/static/quarto.css draws them; a block quote's
# edge and ground (deck/static/deck.css)
PANEL_COLORS = {
    "note": ("0D6EFD", "E7F0FF"),
    "tip": ("198754", "E8F5EE"),
    "warning": ("E0A800", "FFF8E1"),
    "caution": ("FD7E14", "FFF1E6"),
    "important": ("DC3545", "FDECEE"),
    "quote": (DECK_ACCENT, "EEF4FB"),
}


def add_panel(slide: Any, box: Placed, panel: Panel, lang: str) -> None:
    """A callout as deck/static/quarto.css draws it: a white box with a thin grey border and
    a coloured left edge, its title in bold on a tinted band; a block quote on a tinted ground
    with an accent edge (what either holds is placed on it, inset)."""
    from pptx.enum.shapes import MSO_SHAPE

    def rectangle(x: float, y: float, w: float, h: float, fill: str, line: str | None) -> Any:
        shape = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, emu(x), emu(y), emu(w), emu(h))
        shape.fill.solid()
        shape.fill.fore_color.rgb = rgb(fill)
        if line is None:
            shape.line.fill.background()
        else:
            shape.line.color.rgb = rgb(line)
            shape.line.width = emu(0.75)
        return unstyled(shape)

    color, tint = PANEL_COLORS.get(panel.kind, PANEL_COLORS["note"])
    if panel.title is None:
        rectangle(box.x, box.y, box.width, box.height, tint, None).name = "Quote"
        rectangle(box.x, box.y, 3.75, box.height, color, None).name = "Quote edge"
        return
    band = panel_head(panel, box.width, box.scale)
    rectangle(box.x, box.y, box.width, box.height, "FFFFFF", "DEE2E6").name = "Callout"
    rectangle(box.x, box.y, box.width, band, tint, None).name = "Callout title"
    rectangle(box.x, box.y, 4.5, box.height, color, None).name = "Callout edge"
    title = Placed(Paras([panel.title]), box.x + 6, box.y, box.width - 6, band, box.scale, 1.0)
    add_paras(slide, title, [panel.title], lang)


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


def add_title(
    slide: Any,
    title: list[Run],
    lang: str,
    title_slide: bool,
    size: float = 0.0,
    lines: int = 2,
) -> float:
    """The slide's title, bold, on at most `lines` lines (smaller where it would take more); a
    section's (`size` 0) as deck/static/deck.css sets it: 54 px in the accent, at 200 px
    from the top, the lesson's title slide's 60 px at 150 px. Where its slide's body starts."""
    from pptx.enum.text import MSO_ANCHOR

    text = Para(title).text
    width = WIDTH_PT - 2 * MARGIN
    section = not size
    size = size or (45.0 if title_slide else 40.5)
    while size > 18 and text_lines(text, size, width) > lines:
        size -= 2
    if section:
        y = 112.0 if title_slide else 150.0
        h = text_lines(text, size, width) * size * 1.3 + 8
    else:
        y, h = TITLE_TOP, TITLE_HEIGHT
    shape = text_box(slide, MARGIN, y, width, h)
    shape.name = "Title"
    frame = shape.text_frame
    frame.vertical_anchor = MSO_ANCHOR.TOP if section else MSO_ANCHOR.MIDDLE
    bold = [Run(r.text, True, r.italic, r.code, r.script, r.link) for r in title]
    fill_paragraph(frame.paragraphs[0], Para(bold), size, lang, DECK_ACCENT if section else INK)
    return y + h + 14


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
    title_slide: bool = False,
) -> None:
    slide = prs.slides.add_slide(prs.slide_layouts[6])  # blank: every shape is placed here
    top = BODY_TOP
    if title and level == 1:  # a section's title (or the lesson's): large, in the accent
        top = add_title(slide, title, lang, title_slide)
    elif title:
        add_title(slide, title, lang, False, 28.0, 1)
        from pptx.enum.shapes import MSO_SHAPE

        width = WIDTH_PT - 2 * MARGIN
        rule = slide.shapes.add_shape(
            MSO_SHAPE.RECTANGLE, emu(MARGIN), emu(RULE_TOP), emu(width), emu(2.25)
        )
        rule.fill.solid()
        rule.fill.fore_color.rgb = rgb(DECK_ACCENT)
        rule.line.fill.background()
        unstyled(rule).name = "Title rule"
    scale, factor = fit(blocks, top, natural)
    for box in place(blocks, MARGIN, top, WIDTH_PT - 2 * MARGIN, scale, factor, natural):
        block = box.block
        if isinstance(block, Paras):  # (a section's title slide: its text muted)
            add_paras(slide, box, block.paras, lang, None, MUTED if level == 1 else INK)
        elif isinstance(block, Panel):
            add_panel(slide, box, block, lang)
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
