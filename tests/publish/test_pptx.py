"""Issue 20, item 3: `dist/<lesson>/slides.pptx` for institutions that require PowerPoint:
16:9, one slide per deck slide, editable text with computed values as text, tables as tables,
formulas as pictures with their TeX as alt text, notes, quiz answers in the notes; made only
when asked for, kept while its inputs are unchanged, and opened by LibreOffice without error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pptx import Presentation
from pptx.util import Emu

from catalogue import edit, tree, write_lesson
from fixture_build import ROOT, run_cli

LESSON = {
    "lesson.yml": """
        title: 幻灯片导出
        lang: zh-CN
        exec:
          seed: 3
    """,
    "01-intro.md": """
        # 注意力导出测试

        副标题：PowerPoint 版

        ## 列表与数值

        ```{python}
        #| include: false
        import numpy as np
        ratio = 22 / 7
        count = 1234567
        ```

        - **加粗** 与 *斜体* 与 `code_span`
        - 计算出的比值是 `{python} f"{ratio:.4f}"`
            - 嵌套一层：`{python} f"{count:,}"` 个参数

        ::: notes
        两分钟。先问学生比值是多少。
        :::

        ## 一张表

        | 模型 | 参数 |
        |------|------|
        | 小 | `{python} f"{count:,}"` |
        | 大 | 7,000,000 |

        ## 公式

        $$\\operatorname{softmax}(x)_i = \\frac{e^{x_i}}{\\sum_j e^{x_j}}$$

        行内 $d_k$ 也在。

        ## 两栏

        :::: columns
        ::: column
        左边的文字
        :::
        ::: column
        右边的文字
        :::
        ::::

        ## 小测

        ::: quiz
        22/7 约等于多少？

        - [ ] 2.72
        - [x] `{python} f"{ratio:.2f}"`
        - [ ] 1.41

        ::: explain
        圆周率的近似值。
        :::
        :::

        ## 一张图

        ```{python}
        #| fig-alt: 一条正弦曲线
        import matplotlib.pyplot as plt
        plt.figure(figsize=(5, 3))
        plt.plot(np.sin(np.linspace(0, 6.3, 200)))
        ```

        ## 一张照片

        ![一个红方块](square.png)
    """,
}


def square_png() -> bytes:
    """An author's own raster picture: 40×30 px of red."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


LESSON["square.png"] = square_png()
FORMULA = "\\operatorname{softmax}(x)_i = \\frac{e^{x_i}}{\\sum_j e^{x_j}}"


def build(root: Path, *args: str) -> None:
    ran = run_cli(root, "deck", "--no-pdf", *args)
    assert ran.returncode == 0, ran.stderr + ran.stdout
    return None


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pptx")
    write_lesson(root, LESSON, "deck")
    build(root, "--to", "html,pptx,course")
    return root


def shapes_text(slide) -> str:  # noqa: ANN001
    parts = []
    for shape in slide.shapes:
        if shape.has_text_frame:
            parts.append(shape.text_frame.text)
        if shape.has_table:
            parts += [c.text for row in shape.table.rows for c in row.cells]
    return "\n".join(parts)


def by_title(prs) -> dict[str, object]:  # noqa: ANN001
    found = {}
    for slide in prs.slides:
        titles = [s for s in slide.shapes if s.name == "Title"]
        if titles:
            found[titles[0].text_frame.text] = slide
    return found


def test_one_16_9_slide_per_deck_slide_with_titles_notes_and_numbers(built: Path):
    prs = Presentation(built / "dist/deck/slides.pptx")
    values = json.loads((built / "dist/deck/values.json").read_text("utf-8"))
    assert len(prs.slides) == values["slides"] == 8
    assert abs(prs.slide_width / prs.slide_height - 16 / 9) < 1e-3
    assert Emu(prs.slide_width).inches == pytest.approx(13.333, abs=0.01)
    titles = ["注意力导出测试", "列表与数值", "一张表", "公式", "两栏", "小测"]
    titles += ["一张图", "一张照片"]
    assert list(by_title(prs)) == titles
    notes = by_title(prs)["列表与数值"].notes_slide.notes_text_frame.text
    assert notes == "两分钟。先问学生比值是多少。"
    for number, slide in enumerate(prs.slides, start=1):  # a slide-number field on each
        fields = slide.shapes._spTree.xpath(".//a:fld[@type='slidenum']")
        assert len(fields) == 1 and fields[0].xpath("string(a:t)") == str(number)


def test_text_is_editable_with_lists_styles_and_computed_values(built: Path):
    slide = by_title(Presentation(built / "dist/deck/slides.pptx"))["列表与数值"]
    values = json.loads((built / "dist/deck/values.json").read_text("utf-8"))
    shown = {v["expr"]: v["text"] for v in values["values"]}
    ratio = shown['f"{ratio:.4f}"']
    assert float(ratio) == pytest.approx(22 / 7, abs=1e-4)  # (values.json: the reference)
    text = shapes_text(slide)
    assert f"计算出的比值是 {ratio}" in text and "1,234,567" in text
    runs = [
        r for s in slide.shapes if s.has_text_frame for p in s.text_frame.paragraphs for r in p.runs
    ]
    styles = {r.text.strip(): r for r in runs}
    assert styles["加粗"].font.bold and styles["斜体"].font.italic
    assert styles["code_span"].font.name == "DejaVu Sans Mono"
    assert styles["加粗"].font.name == "Noto Sans CJK SC"
    ea = styles["加粗"]._r.xpath("a:rPr/a:ea/@typeface")
    assert ea == ["Noto Sans CJK SC"]
    paragraphs = [p for s in slide.shapes if s.has_text_frame for p in s.text_frame.paragraphs]
    bullets = [p for p in paragraphs if p._p.xpath("a:pPr/a:buChar")]
    assert len(bullets) == 3  # a real list: two items and a nested one, deeper indented
    margins = [int(p._p.pPr.get("marL")) for p in bullets]
    assert margins[0] == margins[1] < margins[2]


def test_the_course_page_links_it(built: Path):
    from html.parser import HTMLParser

    class Links(HTMLParser):
        found: list[tuple[str, str]] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "a":
                self.found.append((dict(attrs).get("href") or "", self.getpos()[0]))

    page = Links()
    page.feed((built / "dist/index.html").read_text("utf-8"))
    assert "deck/slides.pptx" in [href for href, _ in page.found]


def test_a_table_is_a_table(built: Path):
    slide = by_title(Presentation(built / "dist/deck/slides.pptx"))["一张表"]
    tables = [s.table for s in slide.shapes if s.has_table]
    assert len(tables) == 1
    cells = [[c.text for c in row.cells] for row in tables[0].rows]
    assert cells == [["模型", "参数"], ["小", "1,234,567"], ["大", "7,000,000"]]


def test_a_formula_is_a_2x_picture_with_its_tex_as_alt_text(built: Path):
    slide = by_title(Presentation(built / "dist/deck/slides.pptx"))["公式"]
    pictures = [s for s in slide.shapes if s.shape_type == 13]  # MSO_SHAPE_TYPE.PICTURE
    assert len(pictures) == 1
    picture = pictures[0]
    assert picture._element.nvPicPr.cNvPr.get("descr") == FORMULA
    px_width, _ = picture.image.size
    shown_px = picture.width / 12700 / 0.75  # points on the slide → CSS px of a 1280 px deck
    assert px_width >= 1.9 * shown_px  # drawn at 2×: sharp when projected
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(picture.image.blob)).convert("RGBA")
    pixels = np.asarray(image).astype(int)
    inked = int(((pixels[..., 3] > 0) & (pixels[..., :3].sum(-1) < 200)).sum())
    assert inked > 200  # KaTeX drew glyphs (not an empty or failed box)
    assert "d" in shapes_text(slide)  # inline math stays text


def pictures_of(slide) -> list:  # noqa: ANN001
    return [s for s in slide.shapes if s.shape_type == 13]  # MSO_SHAPE_TYPE.PICTURE


def test_a_computed_figure_is_matplotlibs_own_png_at_2x(built: Path):
    """The figure's PNG saved when its cell ran (no browser drawing it again): 5×3 in at
    twice 96 px an inch, placed at its own size at most, with its alt text."""
    import io

    from PIL import Image

    (picture,) = pictures_of(by_title(Presentation(built / "dist/deck/slides.pptx"))["一张图"])
    assert picture._element.nvPicPr.cNvPr.get("descr") == "一条正弦曲线"
    assert picture.image.size == (5 * 96 * 2, 3 * 96 * 2)
    assert picture.width <= Emu(5 * 914400 * 0.75 * 96 / 72 + 1)  # not blown up past 5 in
    assert abs(picture.width / picture.height - 5 / 3) < 0.01  # its shape kept
    with Image.open(io.BytesIO(picture.image.blob)) as image:
        dark = (np.asarray(image.convert("L")) < 128).sum()
    assert dark > 500  # the curve and axes were drawn


def test_an_authors_raster_picture_is_placed_as_it_is(built: Path):
    (picture,) = pictures_of(by_title(Presentation(built / "dist/deck/slides.pptx"))["一张照片"])
    assert picture._element.nvPicPr.cNvPr.get("descr") == "一个红方块"
    assert picture.image.blob == LESSON["square.png"]


def test_columns_side_by_side_and_a_quiz_with_its_answer_in_the_notes(built: Path):
    slides = by_title(Presentation(built / "dist/deck/slides.pptx"))
    boxes = {s.text_frame.text: s for s in slides["两栏"].shapes if s.has_text_frame}
    left, right = boxes["左边的文字"], boxes["右边的文字"]
    assert left.top == right.top and left.left + left.width <= right.left
    quiz = slides["小测"]
    assert "22/7 约等于多少？" in shapes_text(quiz)
    choices = [
        p
        for s in quiz.shapes
        if s.has_text_frame
        for p in s.text_frame.paragraphs
        if p._p.xpath("a:pPr/a:buAutoNum[@type='alphaUcPeriod']")
    ]
    assert [p.text for p in choices] == ["2.72", "3.14", "1.41"]
    notes = quiz.notes_slide.notes_text_frame.text
    assert "答案: B. 3.14" in notes and "圆周率的近似值。" in notes


def soffice_pdf(pptx: Path, folder: Path) -> Path:
    """`slides.pptx` converted by LibreOffice headless (its own profile, with a timeout)."""
    soffice = shutil.which("soffice")
    if soffice is None:
        pytest.fail("LibreOffice is missing: run setup.sh (libreoffice-impress)")
    profile = folder / "profile"
    env = {**os.environ, "HOME": str(folder)}
    proc = subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(folder),
            str(pptx),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "error" not in proc.stderr.lower(), proc.stderr
    pdf = folder / (pptx.stem + ".pdf")
    assert pdf.is_file(), proc.stdout + proc.stderr
    return pdf


def pdf_pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    (line,) = [x for x in info.stdout.splitlines() if x.startswith("Pages:")]
    return int(line.split()[1])


@pytest.mark.slow
def test_libreoffice_converts_it_to_a_pdf_of_one_page_a_slide(built: Path, tmp_path: Path):
    pdf = soffice_pdf(built / "dist/deck/slides.pptx", tmp_path)
    assert pdf_pages(pdf) == 8
    text = subprocess.run(
        ["pdftotext", "-f", "2", "-l", "2", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "列表与数值" in text and "1,234,567" in text  # Chinese as text, not boxes


@pytest.mark.slow
def test_made_only_when_asked_kept_while_unchanged_remade_on_an_edit(tmp_path: Path):
    write_lesson(tmp_path, LESSON, "deck")
    build(tmp_path)
    assert not (tmp_path / "dist/deck/slides.pptx").exists()  # not a default output
    edit(tmp_path / "content/deck/lesson.yml", "lang: zh-CN", "lang: zh-CN\noutputs: [html, pptx]")
    build(tmp_path)
    pptx = tmp_path / "dist/deck/slides.pptx"
    first = pptx.read_bytes()
    ran = run_cli(tmp_path, "deck", "--no-pdf", "--force")
    assert ran.returncode == 0, ran.stderr
    assert "kept    slides.pptx" in ran.stderr  # same deck: not made again
    wrote = next(line for line in ran.stderr.splitlines() if line.startswith("  wrote   "))
    assert "index.html" in wrote and "slides.pptx" not in wrote  # kept is not also "wrote"
    assert pptx.read_bytes() == first
    edit(tmp_path / "content/deck/01-intro.md", "两分钟。", "三分钟。")  # a notes edit
    build(tmp_path)
    notes = [s.notes_slide.notes_text_frame.text for s in Presentation(pptx).slides]
    assert "三分钟。先问学生比值是多少。" in notes
    before = tree(tmp_path / "dist/deck")
    edit(tmp_path / "content/deck/01-intro.md", "## 两栏", "## 两栏\n\n`{python} nope`")
    ran = run_cli(tmp_path, "deck", "--no-pdf")
    assert ran.returncode == 1
    assert "01-intro.md:" in ran.stderr and "error" in ran.stderr
    assert tree(tmp_path / "dist/deck") == before  # the last good PPTX untouched


@pytest.mark.skipif(not (ROOT / ".cache/transformer").is_dir(), reason="needs the project cache")
@pytest.mark.slow
def test_the_main_lesson(tmp_path: Path):
    """content/transformer as PPTX (cells from the project's cache): one slide per slide,
    a table, formulas with TeX, figures, and LibreOffice opens it."""
    args = ["--out", str(tmp_path / "dist"), "--figures", str(tmp_path / "figures")]
    proc = subprocess.run(
        [sys.executable, "build.py", "transformer", *args, "--no-pdf", "--to", "html,pptx"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "dist/transformer"
    values = json.loads((out / "values.json").read_text("utf-8"))
    prs = Presentation(out / "slides.pptx")
    assert len(prs.slides) == values["slides"]
    pictures = [s for slide in prs.slides for s in slide.shapes if s.shape_type == 13]
    alts = [p._element.nvPicPr.cNvPr.get("descr") for p in pictures]
    for value in values["values"]:  # as text on its slide, in its notes, or in a formula's TeX
        slide = prs.slides[value["slide"] - 1]
        shown = [shapes_text(slide), slide.notes_slide.notes_text_frame.text]
        shown += [p._element.nvPicPr.cNvPr.get("descr") for p in slide.shapes if p.shape_type == 13]
        text = " ".join(value["text"].split())
        assert any(text in " ".join(t.split()) for t in shown if t), value
    assert any("\\frac" in a for a in alts) and len(pictures) >= 20
    for figure in values["figures"]:  # every figure, on its slide (the deck loads most lazily)
        slide = prs.slides[figure["slide"] - 1]
        drawn = [p._element.nvPicPr.cNvPr.get("descr") for p in slide.shapes if p.shape_type == 13]
        assert figure["alt"] in drawn, (figure["file"], drawn)
    assert sum(1 for slide in prs.slides for s in slide.shapes if s.has_table) >= 15
    # its three flows (01-background, 04-multihead; 05-encoder's `.vertical`, in a column) as
    # boxes joined by arrows, not lists (tests/publish/test_pptx_fidelity.py: how they look)
    flows = [
        [s for s in slide.shapes if s.name.startswith("Flow box")]
        for slide in prs.slides
        if any(s.name.startswith("Flow box") for s in slide.shapes)
    ]
    assert [len(boxes) for boxes in flows] == [4, 4, 6]
    heads = [b.text_frame.text.split("\v")[0] for b in flows[0]]
    assert heads == ["RNN / LSTM", "Seq2Seq", "+ Attention", "Transformer"]
    assert len({b.left for b in flows[2]}) == 1 and len({b.top for b in flows[0]}) == 1
    assert flows[2][0].text_frame.text.startswith("输入嵌入")
    for box in (b for boxes in flows for b in boxes):  # on the slide
        assert 0 <= box.left and box.left + box.width <= prs.slide_width
        assert box.top + box.height <= prs.slide_height
    pdf = soffice_pdf(out / "slides.pptx", tmp_path)
    assert pdf_pages(pdf) == values["slides"]
    outside = [w for w in words(pdf) if w[1] > 540 + 0.5 or w[2] > 960 + 0.5]
    assert not outside, outside[:5]  # no text runs off a slide as LibreOffice lays it out


def words(pdf: Path, least: int = 1000) -> list[tuple[str, float, float, int]]:
    """Each word LibreOffice's PDF draws: (text, bottom, right, page), from `pdftotext -bbox`
    (at least `least` of them)."""
    from html.parser import HTMLParser

    out = subprocess.run(
        ["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    found: list[tuple[str, float, float, int]] = []

    class Boxes(HTMLParser):
        page = 0
        box: dict[str, str | None] | None = None

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "page":
                self.page += 1
            elif tag == "word":
                self.box = dict(attrs)

        def handle_data(self, data: str) -> None:
            if self.box is not None:
                box = self.box
                found.append((data, float(box["ymax"] or 0), float(box["xmax"] or 0), self.page))
                self.box = None

    Boxes().feed(out)
    assert len(found) > least  # (the parse found the lesson's words)
    return found
