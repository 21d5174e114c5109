"""The handouts as a student and a lecturer read them: handout.pdf never shows text under 8 pt,
gives a dense slide a page of its own and section titles a line, follows `handout:` in
lesson.yml; notes.pdf is centred and its notes flow from page to page. Both are composed from
slides.pdf's own pages (the deck is printed once): vector, selectable, with a bookmark per
slide."""

from __future__ import annotations

import math
import subprocess
import unicodedata
from pathlib import Path

import pikepdf
import pytest
from PIL import Image
from pypdf import PdfReader

from catalogue import options_in, write_lesson
from deck.pipeline import build
from fixture_build import run_build, run_cli
from pdfpages import placed_slides

pytestmark = pytest.mark.browser

LONG_NOTES = "\n\n".join(
    f"第 {n} 段讲稿：这一段比较长，讲解这一页背后的推导和例子。" * 3 for n in range(30)
)
SECTIONS = {
    "01-a.md": """
        # 第一部分

        开场的一句话。

        ## 稀疏

        一句大字。

        ::: notes
        短讲稿一。
        :::

        ## 密集 {.small}

        | 列一 | 列二 | 列三 | 列四 |
        |---|---|---|---|
        | 0.125 | 0.250 | 0.375 | 0.500 |
        | 0.625 | 0.750 | 0.875 | 1.000 |

        <small>很小的脚注文字，在半页讲义上会小于 8 磅。</small>

        ::: notes
        短讲稿二。
        :::

        ## 长讲稿

        这一页的讲稿很长。

        ::: notes
        LONG
        :::

        ## 之后

        紧接着长讲稿的一页。

        ::: notes
        短讲稿四。
        :::

        # 第二部分

        第二部分的开场。

        ## 最后

        最后一页。

        ::: notes
        短讲稿五。
        :::
        """.replace("LONG", LONG_NOTES.replace("\n\n", "\n\n        "))
}
TITLES = ["第一部分", "稀疏", "密集", "长讲稿", "之后", "第二部分", "最后"]


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def text_sizes(path: Path) -> list[tuple[int, float, str]]:
    """(page, size in pt, text) of every visible text in `path`, the slides placed as form
    XObjects included. pypdf reads a form's text with the form's own matrix only, so the scale
    of the matrix at each `Do` is kept on a stack and applied."""
    found: list[tuple[int, float, str]] = []
    for number, page in enumerate(PdfReader(path).pages):
        sizes = _Sizes(number, found)
        page.extract_text(
            visitor_operand_before=sizes.before,
            visitor_operand_after=sizes.after,
            visitor_text=sizes.text,
        )
    return found


class _Sizes:
    def __init__(self, number: int, found: list[tuple[int, float, str]]):
        self.number, self.found, self.stack = number, found, [1.0]

    def before(self, op, args, cm, tm):  # noqa: ANN001, ANN201
        if op == b"Do":
            self.stack.append(self.stack[-1] * math.hypot(cm[2], cm[3]))

    def after(self, op, args, cm, tm):  # noqa: ANN001, ANN201
        if op == b"Do" and len(self.stack) > 1:
            self.stack.pop()

    def text(self, t, cm, tm, font, size):  # noqa: ANN001, ANN201
        if t.strip().strip("\u200b"):
            scale = math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3]) * self.stack[-1]
            self.found.append((self.number, size * scale, t.strip()))


def page_texts(path: Path) -> list[str]:
    out = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True).stdout
    return [nfkc(page) for page in out.split("\f")][: len(PdfReader(path).pages)]


def bookmarks(path: Path) -> list[tuple[str, int]]:
    reader = PdfReader(path)
    found: list[tuple[str, int]] = []

    def walk(items):  # noqa: ANN001, ANN202
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                found.append((nfkc(item.title), reader.get_destination_page_number(item)))

    walk(reader.outline)
    return found


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("handouts")
    write_lesson(root, SECTIONS, name="hand")
    proc = run_build(root, "hand")
    assert proc.returncode == 0, proc.stderr
    return root / "dist" / "hand"


def test_no_text_in_the_handout_is_under_8_pt(deck: Path):
    sizes = text_sizes(deck / "handout.pdf")
    # the slides' own text is measured (inside their placed pages), not only the light page's
    assert any("一句大字" in text for _, _, text in sizes), sizes
    small = [(page, round(size, 2), text) for page, size, text in sizes if size < 7.99]
    assert small == []
    # Not vacuous: at half a page (the old two-to-a-page frame, 620 px of 1280) the dense
    # slide's footnote would be under 8 pt.
    slides = text_sizes(deck / "slides.pdf")
    footnote = min(size for page, size, text in slides if page == 2)
    assert footnote * 620 / 1280 < 8


def test_a_dense_slide_gets_a_landscape_page_of_its_own(deck: Path):
    reader = PdfReader(deck / "handout.pdf")
    placed = placed_slides(deck / "handout.pdf")
    dense = next(k for k, slides in enumerate(placed) if 3 in slides)
    box = reader.pages[dense].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (842, 595)
    assert placed[dense] == [3]
    # the sparse slide keeps a portrait page, shared with the section title's band
    sparse = next(k for k, slides in enumerate(placed) if 2 in slides)
    box = reader.pages[sparse].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (595, 842)


def test_every_slide_is_placed_once_but_section_titles_are_a_line(deck: Path):
    placed = placed_slides(deck / "handout.pdf")
    assert sorted(n for slides in placed for n in slides) == [2, 3, 4, 5, 7]
    texts = page_texts(deck / "handout.pdf")
    # a section title is text on the page of its first slide, not half a page of its own
    first = next(k for k, slides in enumerate(placed) if 2 in slides)
    assert "第一部分" in texts[first] and "开场的一句话。" in texts[first]
    second = next(k for k, slides in enumerate(placed) if 7 in slides)
    assert "第二部分" in texts[second]
    # the slides' text is selectable where they are placed, and nothing is a raster image
    assert "一句大字。" in texts[first]
    listing = subprocess.run(
        ["pdfimages", "-list", str(deck / "handout.pdf")], capture_output=True, text=True
    ).stdout.splitlines()
    assert len(listing) == 2, listing


def test_handout_bookmarks_point_at_each_slide(deck: Path):
    placed = placed_slides(deck / "handout.pdf")
    marks = bookmarks(deck / "handout.pdf")
    assert [title for title, _ in marks] == TITLES
    for title, page in marks:
        n = TITLES.index(title) + 1
        if n in (1, 6):  # section titles: the band sits over the next slide
            assert n + 1 in placed[page], title
        else:
            assert n in placed[page], title
    assert [t for t, _ in bookmarks(deck / "notes.pdf")] == TITLES  # (no quiz: no key)


def margins(png: Path) -> tuple[int, int]:
    """Left and right margins (px) of what is drawn on a page image."""
    image = Image.open(png).convert("L")
    box = image.point(lambda v: 255 if v < 235 else 0).getbbox()
    assert box is not None
    return box[0], image.width - box[2]


def test_notes_pages_are_centred(deck: Path, tmp_path: Path):
    subprocess.run(
        ["pdftoppm", "-r", "50", "-png", str(deck / "notes.pdf"), str(tmp_path / "p")], check=True
    )
    pages = sorted(tmp_path.glob("p-*.png"))
    assert pages
    for png in pages:
        left, right = margins(png)
        assert abs(left - right) <= 2, (png.name, left, right)  # 2 px at 50 dpi: 1 mm


def test_notes_flow_from_page_to_page(deck: Path):
    texts = page_texts(deck / "notes.pdf")
    first, last = "第 0 段讲稿", "第 29 段讲稿"
    begins = next(k for k, t in enumerate(texts) if first in t)
    ends = next(k for k, t in enumerate(texts) if last in t)
    assert ends > begins  # long notes continue on the next page...
    assert "紧接着长讲稿的一页。" in texts[ends]  # ...and the next slide follows them there
    # short notes share pages: the three slides before the long notes fit on one page
    assert all(f"短讲稿{n}" in texts[0] for n in "一二")
    assert len(texts) <= ends + 2


@pytest.mark.slow
def test_handout_options_from_lesson_yml(tmp_path: Path):
    yml = "title: 讲义\nhandout:\n  per-page: 1\n  lines: 12\n"
    write_lesson(tmp_path, {**SECTIONS, "lesson.yml": yml}, name="hand")
    opts = options_in(tmp_path, pdf=True)
    first = build(["hand"], opts)
    assert first.printed == ["slides.pdf", "handout.pdf", "notes.pdf"]
    out = tmp_path / "dist/hand"
    placed = placed_slides(out / "handout.pdf")
    assert all(len(slides) == 1 for slides in placed)  # one slide to a page
    assert len(placed) == 5
    # twelve lines at least under each slide on a portrait page (the ruled lines are drawn
    # as 1 px rectangles); a landscape page gives what its slide leaves
    reader = PdfReader(out / "handout.pdf")
    for number, page in enumerate(reader.pages):
        portrait = float(page.mediabox.height) > float(page.mediabox.width)
        assert ruled_lines(out / "handout.pdf", number) >= (12 if portrait else 3), number
    before = {n: (out / n).read_bytes() for n in ("slides.pdf", "notes.pdf")}
    (tmp_path / "content/hand/lesson.yml").write_text(
        "title: 讲义\nhandout:\n  per-page: 2\n  lines: 2\ntitle-slide: false\n"
    )
    again = build(["hand"], opts)
    assert again.printed == ["handout.pdf"]  # only the student's handout follows `handout:`
    assert {n: (out / n).read_bytes() for n in before} == before
    assert len(placed_slides(out / "handout.pdf")) < 5


def ruled_lines(path: Path, number: int) -> int:
    """Filled rectangles at least 300 pt wide and under 1.5 pt high drawn on page `number`
    by the light page itself (not inside the slides' forms)."""
    with pikepdf.open(path) as pdf:
        page = pdf.pages[number]
        ctm, stack, count = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0], [], 0
        for operands, op in pikepdf.parse_content_stream(page, "q Q cm re"):
            op = str(op)
            if op == "q":
                stack.append(ctm)
            elif op == "Q":
                ctm = stack.pop() if stack else ctm
            elif op == "cm":
                a, b, c, d, e, f = (float(v) for v in operands)
                m = ctm
                ctm = [
                    a * m[0] + b * m[2],
                    a * m[1] + b * m[3],
                    c * m[0] + d * m[2],
                    c * m[1] + d * m[3],
                    e * m[0] + f * m[2] + m[4],
                    e * m[1] + f * m[3] + m[5],
                ]
            else:
                w, h = abs(float(operands[2])), abs(float(operands[3]))
                sx, sy = math.hypot(ctm[0], ctm[1]), math.hypot(ctm[2], ctm[3])
                if w * sx >= 300 and 0 < h * sy < 1.5:
                    count += 1
        return count


@pytest.mark.parametrize(
    ("setting", "line"),
    [("handout:\n  per-page: 4\n", 3), ("handout:\n  lines: many\n", 3), ("handout: 2\n", 2)],
)
@pytest.mark.slow
def test_bad_handout_settings_are_errors_at_their_line(tmp_path: Path, setting: str, line: int):
    write_lesson(tmp_path, {"01-a.md": "## 一页\n\n内容。\n"}, name="hand")
    good = run_cli(tmp_path, "hand", "--no-pdf")
    assert good.returncode == 0, good.stderr
    index = (tmp_path / "dist/hand/index.html").read_bytes()
    (tmp_path / "content/hand/lesson.yml").write_text("title: 讲义\n" + setting)
    bad = run_cli(tmp_path, "hand", "--no-pdf")
    assert bad.returncode != 0
    assert f"content/hand/lesson.yml:{line}: error" in bad.stderr, bad.stderr
    assert (tmp_path / "dist/hand/index.html").read_bytes() == index


@pytest.mark.slow
def test_a_landscape_last_page_is_the_last_page(tmp_path: Path):
    dense = SECTIONS["01-a.md"].split("## 长讲稿")[0].split("## 密集")[1]
    write_lesson(tmp_path, {"01-a.md": f"## 一页\n\n大字。\n\n## 密集{dense}"}, name="hand")
    proc = run_build(tmp_path, "hand")
    assert proc.returncode == 0, proc.stderr
    placed = placed_slides(tmp_path / "dist/hand/handout.pdf")
    assert placed[-1] == [2] and all(placed)  # no blank page after the landscape one
