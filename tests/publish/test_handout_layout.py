"""The handouts as a student and a lecturer open them: two slides to a page in handout.pdf
(a footer does not send each slide to a page of its own), a slide that cannot share its page
named at its file:line with the reason, section titles in both handouts without the deck's
footer printed over them, and no exercise's answer anywhere in the student's handout (its
text, and its pictures)."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image
from pypdf import PdfReader

from catalogue import write_lesson
from fixture_build import ROOT, run_build
from pdfpages import placed_slides

pytestmark = pytest.mark.browser

TITLE = "第一部分：一个很长很长的章节标题，一直写到页面的另一边去"
FOOTER = "页脚文字 FOOTERMARK"


def footer_lesson() -> dict[str, str]:
    """Three sections of four short slides each, under a deck footer."""
    parts = []
    for s, title in enumerate([TITLE, "第二部分", "第三部分"]):
        parts.append(f"# {title}\n\n开场的一句话。\n")
        for k in range(4):
            parts.append(f"## 幻灯片 {s}-{k}\n\n- 一点\n- 两点\n\n::: notes\n讲稿 {s}-{k}。\n:::\n")
    yml = f'title: 页脚\nlang: zh-CN\nslides:\n  footer: "{FOOTER}"\n'
    return {"lesson.yml": yml, "01-a.md": "\n".join(parts)}


@pytest.fixture(scope="module")
def footed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("footer")
    write_lesson(root, footer_lesson(), name="foot")
    proc = run_build(root, "foot")
    assert proc.returncode == 0, proc.stderr
    return root / "dist" / "foot", proc.stderr


def page_sizes(path: Path) -> list[tuple[int, int]]:
    return [
        (round(float(p.mediabox.width)), round(float(p.mediabox.height)))
        for p in PdfReader(path).pages
    ]


def test_a_footer_keeps_two_slides_to_a_page(footed: tuple[Path, str]):
    out, stderr = footed
    placed = placed_slides(out / "handout.pdf")
    # 12 slides (the 3 section titles are bands over their first slide): 6 portrait pages of 2
    assert placed == [[2 + 5 * s + k, 3 + 5 * s + k] for s in range(3) for k in (0, 2)]
    assert set(page_sizes(out / "handout.pdf")) == {(595, 842)}
    assert "[handout]" not in stderr  # every slide got its half page: nothing to say
    # the footer is on every placed slide, and stays 8 pt there (20 px of 1280 at 687 px)
    words = bbox_words(out / "handout.pdf")
    marks = [w for w in words if w.text == "FOOTERMARK"]
    assert len(marks) == 12
    assert all(w.height >= 7.9 for w in marks), [w.height for w in marks]


class Word:
    def __init__(self, page: int, text: str, box: tuple[float, float, float, float]):
        self.page, self.text, self.box = page, text, box

    @property
    def height(self) -> float:  # the word's box height in pt: about its font size
        return self.box[3] - self.box[1]

    def overlaps(self, other: Word) -> bool:
        (a0, b0, a1, b1), (c0, d0, c1, d1) = self.box, other.box
        return (
            self.page == other.page
            and min(a1, c1) - max(a0, c0) > 0.5
            and (min(b1, d1) - max(b0, d0) > 0.5)
        )


def bbox_words(path: Path) -> list[Word]:
    """Every word pdftotext finds, with its page and box (pt, from the top left)."""
    import html
    import re

    out = subprocess.run(
        ["pdftotext", "-bbox", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    words, page = [], -1
    for line in out.splitlines():
        if "<page " in line:
            page += 1
        found = re.search(
            r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*)</word>',
            line,
        )
        if found:
            box = tuple(float(found.group(k)) for k in range(1, 5))
            words.append(Word(page, html.unescape(found.group(5)), box))
    return words


@pytest.mark.parametrize("pdf", ["notes.pdf", "handout.pdf"])
def test_no_footer_over_a_section_title(footed: tuple[Path, str], pdf: str, tmp_path: Path):
    out, _ = footed
    words = bbox_words(out / pdf)
    title = [w for w in words if w.text and w.text in TITLE and len(w.text) > 1]
    footer = [w for w in words if w.text in FOOTER.split()]
    assert title and footer  # both printed (the footer on the slides themselves)
    over = [(f.page, f.text, t.text) for f in footer for t in title if f.overlaps(t)]
    assert over == []
    # the band of a section title is text, without the footer: its page has the footer once
    # per slide drawn on it, not once more in the band
    page = title[0].page
    placed = placed_slides(out / pdf)[page]
    assert sum(w.text == "FOOTERMARK" for w in footer if w.page == page) == len(placed)
    # and its picture: nothing drawn in the band's box but the title and its line
    subprocess.run(
        ["pdftoppm", "-r", "72", "-png", "-f", str(page + 1), "-l", str(page + 1)]
        + [str(out / pdf), str(tmp_path / "p")],
        check=True,
    )
    (png,) = tmp_path.glob("p-*.png")
    image = Image.open(png).convert("L")
    y0 = min(w.box[1] for w in title)
    x1, y1 = max(w.box[2] for w in title), max(w.box[3] for w in title)
    right_of_title = image.crop((int(x1) + 4, int(y0), image.width - 40, int(y1) + 14))
    assert right_of_title.point(lambda v: 255 if v < 200 else 0).getbbox() is None


DENSE = "<small>很小的脚注文字，在半页讲义上会小于 8 磅。</small>"
TALL = "\n\n".join(f"讲义补充第 {n} 段，写给学生的长说明。" * 2 for n in range(14))


@pytest.mark.slow
def test_a_slide_that_cannot_share_its_page_is_named_at_its_line(tmp_path: Path):
    md = (
        "## 普通\n\n一句话。\n\n"
        f"## 密集\n\n{DENSE}\n\n"
        "## 长讲义\n\n一句话。\n\n::: handout\n" + TALL + "\n:::\n\n"
        "## 之后\n\n一句话。\n\n## 最后\n\n一句话。\n"
    )
    write_lesson(tmp_path, {"01-a.md": md}, name="warn")
    proc = run_build(tmp_path, "warn")
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if "[handout]" in line]
    assert len(said) == 2, proc.stderr
    assert said[0].startswith(
        "content/warn/01-a.md:5: warning [handout] handout.pdf: slide 2 has an A4 landscape "
        "page of its own: its smallest text (“很小的脚注文字"
    ), said[0]
    assert "needs a frame" in said[0] and "at most 687 px wide" in said[0]
    assert said[1].startswith(
        "content/warn/01-a.md:9: warning [handout] handout.pdf: slide 3 has a page of its own: "
        "it is "
    ), said[1]
    assert "its text" in said[1] and "more than half a page (503 px)" in said[1]
    placed = placed_slides(tmp_path / "dist/warn/handout.pdf")
    assert placed == [[1], [2], [3], [4, 5]]  # ...and what they say is what was printed
    assert page_sizes(tmp_path / "dist/warn/handout.pdf")[1] == (842, 595)
    again = run_build(tmp_path, "warn")  # kept: said again while the handout is kept
    assert "up to date" in again.stderr and said[0] in again.stderr.splitlines()


EXERCISE = """
## 练习

```{python}
ex = {"Q": [[6, 2], [4, 4]], "K": [[1, 0], [0, 1]], "d_k": 2}
```

算一算 $\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})$ 的第一行。

::: answer
第一行是 `{python} round(WEIGHT, 4)` 与 `{python} round(1 - WEIGHT, 4)`（标记答案）。

```{python}
#| echo: true
ANSWER_CELL = "解答代码"
```
:::

## 组件

::: {.widget .shows-answer kind="attention-2x2" data="ex"}
答案就在组件里。
:::

## 自己写

::: exercise
```{python}
#| echo: true
EXERCISE_SOLUTION = 6 * 7
```
:::

## 独立练习

```{python}
#| echo: true
#| exercise: true
SOLO_EXERCISE = 6 * 8
```

## 之后

没有答案的页。
"""
WEIGHT = math.exp(6 / math.sqrt(2)) / (math.exp(6 / math.sqrt(2)) + math.exp(2 / math.sqrt(2)))
WIDGET_BLUE = (128, 160, 192)  # the widget's shaded cells (32-steps of RGB), at 40 dpi


def shaded(png: Path) -> int:
    """Pixels of the widget's shade on a page image."""
    data = Image.open(png).convert("RGB").tobytes()
    shade = bytes(v // 32 for v in WIDGET_BLUE)
    return sum(bytes(v // 32 for v in data[k : k + 3]) == shade for k in range(0, len(data), 3))


@pytest.mark.slow
def test_no_answer_anywhere_in_the_student_handout(tmp_path: Path):
    setup = f"import math\nWEIGHT = {WEIGHT!r}\n"
    folder = write_lesson(
        tmp_path,
        {
            "lesson.yml": "title: 答案\nlang: zh-CN\nwidgets:\n  - widgets/attention-2x2\n",
            "01-a.md": f"## 准备\n\n```{{python}}\n{setup}```\n\n开始。\n" + EXERCISE,
        },
        name="ans",
    )
    kinds = ROOT / "content/transformer/widgets"
    (folder / "widgets").mkdir()
    for suffix in (".py", ".js"):
        shutil.copyfile(kinds / f"attention-2x2{suffix}", folder / f"widgets/attention-2x2{suffix}")
    proc = run_build(tmp_path, "ans")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "dist/ans"
    answers = [f"{WEIGHT:.4f}", f"{1 - WEIGHT:.4f}", "标记答案", "解答代码", "EXERCISE_SOLUTION"]
    answers.append("SOLO_EXERCISE")  # a `#| exercise: true` cell's code

    def text(name: str) -> str:
        return subprocess.run(
            ["pdftotext", str(out / name), "-"], capture_output=True, text=True
        ).stdout

    assert all(a in text("slides.pdf") for a in answers)  # the slides show them all...
    assert all(a in text("notes.pdf") for a in answers[:4])  # ...the lecturer's notes too
    handout = text("handout.pdf")
    assert [a for a in answers if a in handout] == []  # the students' handout: none
    assert handout.count("（答案课上给出。）") == 4  # the answer, the widget, both exercises
    assert "没有答案的页。" in handout and "算一算" in handout
    # and none drawn: the widget's shaded cells are on its slide, on no handout page
    for name, prefix in (("slides.pdf", "s"), ("handout.pdf", "h")):
        subprocess.run(["pdftoppm", "-r", "40", "-png", str(out / name), str(tmp_path / prefix)])
    slides = sorted(tmp_path.glob("s-*.png"))
    assert shaded(slides[2]) > 300  # slide 3: the widget
    pages = sorted(tmp_path.glob("h-*.png"))
    assert pages and max(shaded(png) for png in pages) < 60, [shaded(png) for png in pages]


@pytest.mark.slow
def test_three_slides_to_a_page_with_the_footer_and_slide_numbers(tmp_path: Path):
    """`handout: {per-page: 3}`: the printed slide number and footer (20 px, sized for half a
    page) made every slide take a page of its own, each a warning. Where three share a page
    they print larger, so each stays 8 pt and the slides share their pages."""
    files = footer_lesson()  # without its section titles (a slide under one needs more room)
    files["01-a.md"] = "\n".join(p for p in files["01-a.md"].split("\n") if not p.startswith("# "))
    files["lesson.yml"] += "handout:\n  per-page: 3\n"
    write_lesson(tmp_path, files, name="foot")
    proc = run_build(tmp_path, "foot")
    assert proc.returncode == 0, proc.stderr
    assert "[handout]" not in proc.stderr, proc.stderr
    out = tmp_path / "dist/foot"
    placed = placed_slides(out / "handout.pdf")
    slides = json.loads((out / "values.json").read_text("utf-8"))["slides"]
    assert sum(len(p) for p in placed) == slides and slides > 9
    assert all(len(p) == 3 for p in placed[:-1])  # three to a page
    assert set(page_sizes(out / "handout.pdf")) == {(595, 842)}
    marks = [w for w in bbox_words(out / "handout.pdf") if w.text == "FOOTERMARK"]
    assert len(marks) == slides and all(w.height >= 7.9 for w in marks), [w.height for w in marks]


@pytest.mark.slow
def test_a_formula_counts_at_its_own_size(tmp_path: Path):
    """A display formula's limits and subscripts (14.7 px for `\\sum_{j=1}`'s j) sent its slide
    to a landscape page of its own; they are smaller in proportion, as in print. Prose at
    18 px still needs a frame wider than a portrait page's."""
    formula = "## S\n\n$$s(x)_i = \\frac{e^{x_i}}{\\sum_{j=1}^{n} e^{x_j}}$$\n"
    small = '## Small\n\n<span style="font-size: 18px">a note in small print</span>\n'
    write_lesson(
        tmp_path,
        {"lesson.yml": "title: F\nlang: en\ntitle-slide: false\n", "01-a.md": formula + small},
        name="f",
    )
    proc = run_build(tmp_path, "f")
    assert proc.returncode == 0, proc.stderr
    warned = [line for line in proc.stderr.splitlines() if "[handout]" in line]
    assert len(warned) == 1 and "slide 2 has an A4 landscape page" in warned[0], warned
    assert "“a note in small print”, 18 px" in warned[0]
    assert page_sizes(tmp_path / "dist/f/handout.pdf") == [(595, 842), (842, 595)]


@pytest.mark.slow
def test_a_figure_counts_at_its_own_smallest_text(tmp_path: Path):
    """A figure in the engine's style (15 pt: 20 px at its own size) shares a portrait page; one
    whose tick labels were drawn at 9 pt (12 px) gets a landscape page, and the warning names
    the figure by the size recorded when it was saved."""

    def plot(size: str) -> str:
        return (
            "```{python}\n#| fig-alt: a line\nimport matplotlib.pyplot as plt\n"
            f"fig, ax = plt.subplots(figsize=(6, 3.5))\n_ = ax.plot([0, 1, 2])\n{size}"
            "```\n"
        )

    files = {
        "lesson.yml": "title: F\nlang: en\ntitle-slide: false\n",
        "01-a.md": "## Default\n\n"
        + plot("")
        + "\n## Small\n\n"
        + plot("ax.tick_params(labelsize=9)\n"),
    }
    write_lesson(tmp_path, files, name="g")
    proc = run_build(tmp_path, "g")
    assert proc.returncode == 0, proc.stderr
    warned = [line for line in proc.stderr.splitlines() if "[handout]" in line]
    assert len(warned) == 1 and "slide 2 has an A4 landscape page" in warned[0], warned
    assert re.search(r"the text of [\w-]+\.svg, 12 px on the slide", warned[0]), warned[0]
    assert page_sizes(tmp_path / "dist/g/handout.pdf") == [(595, 842), (842, 595)]
