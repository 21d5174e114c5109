"""slides.pptx as the deck shows it: formula accents typeset on their letter (θ̂, x̄), a table
cell's subscripts lowered as in body text, the deck's footer at every slide's foot, a header
style only on a table the deck gives a header, and `::: flow` as boxes joined by arrows
(side by side, or stacked for `.vertical`). Read with python-pptx and, as a user opens it,
through LibreOffice's PDF."""

from __future__ import annotations

import subprocess
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from pptx import Presentation
from test_pptx import by_title, pdf_pages, soffice_pdf, words

from catalogue import write_lesson
from fixture_build import run_cli

LESSON = {
    "lesson.yml": """
        title: Fidelity
        lang: en
        slides:
          footer: 'Stats 101 · mean $\\bar x$'
    """,
    "01-intro.md": """
        # Fidelity

        ## Accents

        Estimate $\\hat\\theta$ and $\\bar x$, then $\\tilde x$, $\\vec v$, $\\dot x$ and
        $\\overline{xy}$; in text $q_{0.025}$, $\\hat{y_i}$ and $\\bar{z}_j$.

        ## Quantiles

        | name | value |
        |------|-------|
        | lower | $q_{0.025}$ |
        | upper | $q_{0.975}^2$ |

        ## No header

        |     |     |
        |-----|-----|
        | a   | b   |
        | c   | d   |

        ## Spans

        +---------+-------+----------+
        | Head    | Two   | Three    |
        +=========+=======+==========+
        | tall    | b     | c        |
        +         +-------+----------+
        |         | wide cell        |
        +---------+-------+----------+

        ## Row headers

        <table><tr><th>The</th><td>0.1</td></tr><tr><th>cat</th><td>0.2</td></tr></table>

        ## Flow

        ::: flow
        - **RNN** step by step
        - **Seq2Seq** encode-decode
        - **Transformer** attention
        :::

        Below the flow.

        ## Vertical

        ::: {.flow .vertical}
        - input
        - attention
        - output
        :::

        ## Own footer

        Some text.

        ::: footer
        This slide's own footer
        :::

        ## Long footer

        More text.

        ::: footer
        A footer much longer than the others, naming the course, the term, the lecturer

        and, on a line of its own, the licence it is shared under: CC BY 4.0
        :::
    """,
}
PT = 12700  # EMU per point
MUTED, INK, ACCENT, BOX_FILL = "5B6770", "1C2733", "2A76DD", "EEF4FB"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pptx-fidelity")
    write_lesson(root, LESSON, "fid")
    ran = run_cli(root, "fid", "--no-pdf", "--to", "html,pptx")
    assert ran.returncode == 0, ran.stderr + ran.stdout
    return root / "dist/fid/slides.pptx"


@pytest.fixture(scope="module")
def pdf(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return soffice_pdf(built, tmp_path_factory.mktemp("pptx-fidelity-pdf"))


def runs_of(shape) -> list:  # noqa: ANN001
    return [r for p in shape.text_frame.paragraphs for r in p.runs]


def body_shape(slide, needle: str):  # noqa: ANN001, ANN201
    (shape,) = [s for s in slide.shapes if s.has_text_frame and needle in s.text_frame.text]
    return shape


def composed(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def test_accents_are_combining_marks_on_their_letter(built: Path):
    slide = by_title(Presentation(built))["Accents"]
    shape = body_shape(slide, "Estimate")
    text = composed(shape.text_frame.text)
    for typeset in ("θ\u0302", "x\u0304", "x\u0303", "v\u20d7", "x\u0307", "x\u0305y\u0305"):
        assert composed(typeset) in text, (typeset, text)
    assert not set("^ˉ~˙‾") & set(text), text  # no spacing accent standing after its letter
    # the marked letters in a face that has the marks (and places them), still italic
    (theta,) = [r for r in runs_of(body_shape(slide, "Estimate")) if "θ" in r.text]
    assert theta.text == "θ\u0302" and theta.font.italic
    assert theta.font.name == "DejaVu Sans"
    runs = [(r.text, r._r.get_or_add_rPr().get("baseline")) for r in runs_of(shape)]
    for letter, script in (("y", "i"), ("z", "j")):  # over the letter, not its subscript
        at = runs.index((letter + ("\u0302" if letter == "y" else "\u0304"), None))
        assert runs[at + 1] == (script, "-25000")


def test_a_table_cells_subscripts_are_lowered_as_in_body_text(built: Path):
    slide = by_title(Presentation(built))["Quantiles"]
    (table,) = [s.table for s in slide.shapes if s.has_table]

    def runs(r: int, c: int) -> list[tuple[str, str | None]]:
        cell = table.cell(r, c).text_frame.paragraphs[0]
        return [(run.text, run._r.get_or_add_rPr().get("baseline")) for run in cell.runs]

    assert runs(1, 0) == [("lower", None)]
    assert runs(1, 1) == [("q", None), ("0.025", "-25000")]
    assert runs(2, 1) == [("q", None), ("0.975", "-25000"), ("2", "30000")]
    body = by_title(Presentation(built))["Accents"]  # (the same rule as in a paragraph)
    inline = [
        (r.text, r._r.get_or_add_rPr().get("baseline")) for r in runs_of(body_shape(body, "q"))
    ]
    assert ("0.025", "-25000") in inline


def test_the_decks_footer_is_at_every_slides_foot(built: Path, pdf: Path):
    prs = Presentation(built)
    slides = by_title(prs)
    width, height = prs.slide_width, prs.slide_height
    for slide in prs.slides:
        (footer,) = [s for s in slide.shapes if s.name == "Footer"]
        if slide is slides["Long footer"]:
            assert footer.text_frame.text.endswith("CC BY 4.0")
            assert len(footer.text_frame.paragraphs) == 2
            sizes = {r.font.size.pt for r in runs_of(footer)}
            assert len(sizes) == 1 and 7 <= sizes.pop() < 13.5  # smaller, to stay in its band
            continue
        own = slide is slides["Own footer"]
        expected = "This slide's own footer" if own else composed("Stats 101 · mean x\u0304")
        assert composed(footer.text_frame.text) == expected
        assert abs(footer.left + footer.width / 2 - width / 2) < PT  # centred
        assert height - 40 * PT < footer.top and footer.top + footer.height <= height
        run = runs_of(footer)[0]
        assert str(run.font.color.rgb) == MUTED and run.font.size.pt == pytest.approx(13.5)
        number = next(s for s in slide.shapes if s.name == "Slide Number")
        assert footer.left + footer.width <= number.left  # clear of the slide number
    found = words(pdf, least=5)  # as LibreOffice lays it out: on each page, at its foot
    pages = pdf_pages(pdf)
    feet = {page for text, bottom, _, page in found if text == "Stats" and bottom > 510}
    assert feet == set(range(1, pages - 1))  # (the last two slides have their own)
    own = [bottom for text, bottom, _, page in found if text == "own" and page == pages - 1]
    assert own and own[0] > 510
    long = {text: bottom for text, bottom, _, page in found if page == pages and bottom > 490}
    assert long["lecturer"] < long["4.0"] <= 540  # both its lines, at the foot, on the page
    assert len(long) >= 25 and "More" not in long


def tables(slide) -> list:  # noqa: ANN001
    return [s.table for s in slide.shapes if s.has_table]


def test_a_header_style_only_where_the_deck_has_a_header(built: Path):
    slides = by_title(Presentation(built))
    (with_header,) = tables(slides["Quantiles"])
    assert with_header.first_row
    head = with_header.cell(0, 0).text_frame.paragraphs[0].runs[0]
    assert head.font.bold and str(head.font.color.rgb) == "FFFFFF"
    for title, cells in (("No header", [["a", "b"], ["c", "d"]]), ("Row headers", None)):
        (table,) = tables(slides[title])
        assert not table.first_row, title
        assert table._tbl.tblPr.get("firstRow") in (None, "0")
        if cells:  # (the Markdown table's empty header row is not drawn as an empty band)
            assert [[c.text for c in row.cells] for row in table.rows] == cells
        first = table.cell(0, 1 if title == "Row headers" else 0).text_frame.paragraphs[0]
        assert str(first.runs[0].font.color.rgb) == INK and not first.runs[0].font.bold
    (rows,) = tables(slides["Row headers"])  # a row's own `<th>` stays bold
    assert [[c.text for c in row.cells] for row in rows.rows] == [["The", "0.1"], ["cat", "0.2"]]
    assert rows.cell(0, 0).text_frame.paragraphs[0].runs[0].font.bold


def test_cells_spanning_rows_and_columns_are_merged(built: Path):
    """A grid table's `rowspan`/`colspan` cells are one merged cell each, as the deck draws
    them, not text shifted into the wrong columns."""
    (table,) = tables(by_title(Presentation(built))["Spans"])
    assert [[c.text for c in row.cells] for row in table.rows] == [
        ["Head", "Two", "Three"],
        ["tall", "b", "c"],
        ["", "wide cell", ""],
    ]
    tall, wide = table.cell(1, 0), table.cell(2, 1)
    assert tall.is_merge_origin and (tall.span_height, tall.span_width) == (2, 1)
    assert wide.is_merge_origin and (wide.span_height, wide.span_width) == (1, 2)
    assert table.cell(2, 0).is_spanned and table.cell(2, 2).is_spanned
    assert not table.cell(1, 1).is_merge_origin and not table.cell(1, 1).is_spanned


def flow_of(slide) -> tuple[list, list]:  # noqa: ANN001
    boxes = [s for s in slide.shapes if s.name.startswith("Flow box")]
    arrows = [s for s in slide.shapes if s.name.startswith("Flow arrow")]
    return boxes, arrows


def connection(arrow, end: str) -> tuple[int, int]:  # noqa: ANN001
    (cxn,) = arrow._element.xpath(f"p:nvCxnSpPr/p:cNvCxnSpPr/a:{end}Cxn")
    return int(cxn.get("id")), int(cxn.get("idx"))


def check_boxes(boxes: list, texts: list[str]) -> None:
    from pptx.enum.shapes import MSO_SHAPE

    assert [b.text_frame.text for b in boxes] == texts
    for box in boxes:
        assert box.auto_shape_type == MSO_SHAPE.ROUNDED_RECTANGLE
        assert str(box.fill.fore_color.rgb) == BOX_FILL and str(box.line.color.rgb) == ACCENT
        assert not box.text_frame.paragraphs[0]._p.xpath("a:pPr/a:buChar")  # not a bullet


def check_arrows(arrows: list, boxes: list, sides: tuple[int, int]) -> None:
    assert len(arrows) == len(boxes) - 1
    for k, arrow in enumerate(arrows):
        assert connection(arrow, "st") == (boxes[k].shape_id, sides[0])
        assert connection(arrow, "end") == (boxes[k + 1].shape_id, sides[1])
        assert arrow._element.xpath("p:spPr/a:ln/a:tailEnd/@type") == ["triangle"]
        assert str(arrow.line.color.rgb) == ACCENT


def test_a_flow_is_boxes_joined_by_arrows_left_to_right(built: Path):
    slide = by_title(Presentation(built))["Flow"]
    boxes, arrows = flow_of(slide)
    check_boxes(boxes, ["RNN\vstep by step", "Seq2Seq\vencode-decode", "Transformer\vattention"])
    assert runs_of(boxes[0])[0].text == "RNN" and runs_of(boxes[0])[0].font.bold
    assert len({b.top for b in boxes}) == 1 and len({b.height for b in boxes}) == 1
    for left, right in zip(boxes, boxes[1:], strict=False):
        assert left.left + left.width < right.left  # a gap for the arrow
    check_arrows(arrows, boxes, (3, 1))  # right side → left side
    for k, arrow in enumerate(arrows):  # drawn where they are glued
        assert arrow.begin_x == boxes[k].left + boxes[k].width
        assert arrow.end_x == boxes[k + 1].left
        assert arrow.begin_y == arrow.end_y == boxes[k].top + boxes[k].height // 2
    below = body_shape(slide, "Below the flow.")
    assert below.top >= boxes[0].top + boxes[0].height


def test_a_vertical_flow_is_stacked_boxes_joined_by_arrows_downwards(built: Path):
    prs = Presentation(built)
    boxes, arrows = flow_of(by_title(prs)["Vertical"])
    check_boxes(boxes, ["input", "attention", "output"])
    assert len({b.left for b in boxes}) == 1
    assert abs(boxes[0].left + boxes[0].width / 2 - prs.slide_width / 2) < PT  # centred
    assert boxes[0].width == pytest.approx(0.7 * (prs.slide_width - 72 * PT), rel=0.01)
    for upper, lower in zip(boxes, boxes[1:], strict=False):
        assert upper.top + upper.height < lower.top
    check_arrows(arrows, boxes, (2, 0))  # bottom → top
    for k, arrow in enumerate(arrows):
        assert arrow.begin_y == boxes[k].top + boxes[k].height
        assert arrow.end_y == boxes[k + 1].top
        assert arrow.begin_x == arrow.end_x == boxes[k].left + boxes[k].width // 2


def test_libreoffice_draws_the_flows_boxes_and_the_accents(built: Path, pdf: Path):
    """The PDF LibreOffice makes: the boxes' words in their order (a row; a column), the
    boxes' light fill painted, the marked letters as text."""
    titles = list(by_title(Presentation(built)))
    found = words(pdf, least=5)
    flow_page, vertical_page = titles.index("Flow") + 1, titles.index("Vertical") + 1
    row = {t: (bottom, right) for t, bottom, right, page in found if page == flow_page}
    assert row["RNN"][1] < row["Seq2Seq"][1] < row["Transformer"][1]
    assert row["RNN"][0] == pytest.approx(row["Transformer"][0], abs=1)
    column = {t: (bottom, right) for t, bottom, right, page in found if page == vertical_page}
    assert column["input"][0] < column["attention"][0] < column["output"][0]
    out = pdf.parent / "page"
    subprocess.run(
        ["pdftoppm", "-png", "-r", "40", "-f", str(flow_page), "-l", str(flow_page)]
        + [str(pdf), str(out)],
        check=True,
    )
    from PIL import Image

    (png,) = pdf.parent.glob("page*.png")
    pixels = np.asarray(Image.open(png).convert("RGB")).astype(int)
    fill = (np.abs(pixels - np.array([0xEE, 0xF4, 0xFB])).sum(-1) < 8).mean()
    assert fill > 0.05  # three boxes' worth of the deck's light blue (a list would be white)
    page = str(titles.index("Accents") + 1)
    accents = subprocess.run(
        ["pdftotext", "-f", page, "-l", page, str(pdf), "-"], capture_output=True, text=True
    ).stdout
    assert composed("θ\u0302") in composed(accents), accents
