"""The PDFs a build prints in Chromium: slides, the student's handout, the lecturer's notes,
and overflowing slides named at their source line."""

from __future__ import annotations

import json
import subprocess
import unicodedata

import pytest
from pypdf import PdfReader

from fixture_build import Built

pytestmark = pytest.mark.browser


def pdftotext(path) -> str:
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True).stdout


def test_slides_pdf_has_one_page_per_slide_with_text(mini: Built):
    slides = json.loads((mini.out / "values.json").read_text())["slides"]
    reader = PdfReader(mini.out / "slides.pdf")
    assert len(reader.pages) == slides
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (960, 540)
    text = pdftotext(mini.out / "slides.pdf")
    assert "平方的结果是 144" in text  # a computed value and Chinese, selectable
    assert "顶点在 0" in text


def test_figures_are_vectors_in_the_pdf(mini: Built):
    listing = subprocess.run(
        ["pdfimages", "-list", str(mini.out / "slides.pdf")], capture_output=True, text=True
    ).stdout.splitlines()
    assert len(listing) == 2, listing  # the header only: no raster image anywhere


def test_student_handout_has_the_slides_and_no_answers(mini: Built):
    reader = PdfReader(mini.out / "handout.pdf")
    # two section titles as bands over their first slides; the formula's slide shares a
    # portrait page (a formula counts at its own size, its scripts smaller in proportion), and
    # so does the figure's (its 15 pt text is 8 pt there): two portrait pages, no landscape one
    # (tests/publish/test_handout_layout.py has the slides that need one)
    sizes = [
        (round(float(p.mediabox.width)), round(float(p.mediabox.height))) for p in reader.pages
    ]
    assert sizes == [(595, 842), (595, 842)]
    text = pdftotext(mini.out / "handout.pdf")
    assert "这里讲平方" not in text and "答案" not in text  # no notes, no answer key
    assert "平方的结果是 144" in text


def test_lecturer_notes_are_a4_with_notes_page_numbers_and_bookmarks(mini: Built):
    reader = PdfReader(mini.out / "notes.pdf")
    # slides never split across pages; the six slides and their notes packed on two pages,
    # then the answer key
    assert len(reader.pages) == 3
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (595, 842)
    text = pdftotext(mini.out / "notes.pdf")
    assert "这里讲平方：144。" in text  # speaker notes under the slide
    assert "2 / 3" in text  # page numbers
    # pypdf reports some CJK glyphs as their Kangxi-radical twins: compare in NFKC
    pages = [unicodedata.normalize("NFKC", page.extract_text()) for page in reader.pages]
    assert "第二节:图" in pages[1] and "第一节:基础" in pages[0]  # NFKC: "：" → ":"
    assert sum("这里讲平方:144。" in page for page in pages) == 1
    assert "答案：B. 9" in text  # quiz answers in the (lecturer's) handout
    titles = [item.title for item in reader.outline if not isinstance(item, list)]
    assert titles == ["第一节：基础", "第二节：图", "测验答案"]
    info = subprocess.run(["pdfinfo", str(mini.out / "notes.pdf")], capture_output=True)
    assert b"Tagged:          yes" in info.stdout


@pytest.mark.slow
def test_overflowing_slide_is_named_with_its_source_line(tmp_path, browser):
    from fixture_build import run_build

    folder = tmp_path / "content" / "long"
    folder.mkdir(parents=True)
    (folder / "lesson.yml").write_text("title: long\ntitle-slide: false\n")
    lines = "\n".join(f"- 第 {n} 行" for n in range(40))
    wide = " + ".join(f"x_{{{n}}}^2" for n in range(60))
    (folder / "01-a.md").write_text(
        f"## 合适\n\n短。\n\n## 太长\n\n{lines}\n\n## 太宽\n\n$${wide}$$\n"
    )
    proc = run_build(tmp_path, "long")
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "[overflow]" in line]
    assert len(warnings) == 2
    assert warnings[0].startswith("content/long/01-a.md:5: warning [overflow] slide 2 overflows")
    assert warnings[0].endswith("down")
    assert warnings[1].startswith("content/long/01-a.md:48: warning [overflow] slide 3 overflows")
    assert warnings[1].endswith("right")
    again = run_build(tmp_path, "long")  # nothing changed: up to date, the warning repeated
    assert "up to date" in again.stderr and warnings[0] in again.stderr.splitlines()
    from deck.publish.pdf import measure_overflow

    found, _ = measure_overflow(browser, tmp_path / "dist/long/index.html", 3)
    assert (found.slide, found.source) == (2, "content/long/01-a.md:5") and found.dy > 300


@pytest.mark.slow
def test_content_under_the_arrows_is_named_with_its_source_line(tmp_path, browser):
    from fixture_build import run_build

    folder = tmp_path / "content" / "arrows"
    folder.mkdir(parents=True)
    (folder / "lesson.yml").write_text("title: arrows\ntitle-slide: false\n")
    code = "\n".join(f"x_{n} = {n} * {n}  # 第 {n} 行，一直写到右边" for n in range(3))
    (folder / "01-a.md").write_text(
        "## 合适\n\n短。\n\n"
        f"## 箭头下\n\n::: {{.absolute top=590 left=56 width=1168}}\n```python\n{code}\n```\n:::\n"
    )
    proc = run_build(tmp_path, "arrows", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    from deck.publish.pdf import measure_overflow

    found = measure_overflow(browser, tmp_path / "dist/arrows/index.html", 2)
    assert [(o.slide, o.source, o.dx, o.dy) for o in found] == [
        (2, "content/arrows/01-a.md:5", found[0].dx, found[0].dy)
    ]
    assert found[0].dx <= 0 and found[0].dy <= 0  # on the page: only the arrows are in the way
    under = dict(found[0].under)
    assert under["the controls"] > 5
    assert str(found[0]).startswith(
        "content/arrows/01-a.md:5: warning [overflow] slide 2 runs "
    ) and "px under the controls" in str(found[0])
