"""`::: answer` blocks: on the next click in the deck, left out of the students' handout (a
line says the answer is given in class), printed with the slide's notes in notes.pdf."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from catalogue import write_lesson
from fixture_build import run_build

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

pytestmark = pytest.mark.browser

SECTION = """
## 练习

```{python}
s = 3 * 7
```

算一算 3 × 7。

::: answer
答案是 `{python} s`，因为三个七。

| 乘数 | 积 |
|---|---|
| 七乘三 | 二十一 |
:::

::: notes
1 分钟。先让学生自己算。
:::

## 下一页

没有答案的页。

## 组件

```{python}
ex = {"Q": [[6, 2], [4, 4]], "K": [[1, 0], [0, 1]], "d_k": 2}
```

::: {.widget .shows-answer kind="attention-2x2" data="ex"}
组件的说明文字。
:::

## 普通组件

::: {.widget kind="attention-2x2" data="ex"}
:::
"""
LESSON_YML = "title: 答案\nlang: zh-CN\nexec:\n  seed: 0\nwidgets:\n  - widgets/attention-2x2\n"
KINDS = Path(__file__).resolve().parents[2] / "content" / "transformer" / "widgets"


def pdftotext(path: Path) -> str:
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("answers")
    folder = write_lesson(root, {"lesson.yml": LESSON_YML, "01-a.md": SECTION}, name="ans")
    (folder / "widgets").mkdir()
    for suffix in (".py", ".js"):
        shutil.copyfile(KINDS / f"attention-2x2{suffix}", folder / f"widgets/attention-2x2{suffix}")
    proc = run_build(root, "ans")
    assert proc.returncode == 0, proc.stderr
    return root / "dist" / "ans"


def test_the_deck_shows_the_answer_on_the_next_click(context: BrowserContext, deck: Path):
    page = context.new_page()
    page.goto((deck / "index.html").as_uri() + "#/0")
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    answer = page.locator(".deck-answer")
    assert answer.evaluate("e => e.classList.contains('fragment')")
    assert answer.evaluate("e => getComputedStyle(e).opacity") == "0"
    page.evaluate("Reveal.next()")
    page.wait_for_function("getComputedStyle(document.querySelector('.deck-answer')).opacity == 1")
    assert answer.inner_text().strip().startswith("答案是 21，因为三个七。")
    assert page.evaluate("Reveal.getIndices().h") == 0  # still the same slide


def test_the_students_handout_leaves_the_answer_out(deck: Path):
    text = pdftotext(deck / "handout.pdf")
    assert "算一算 3 × 7" in text
    assert "答案是 21" not in text and "三个七" not in text
    assert "（答案课上给出。）" in text


def test_the_lecturers_notes_print_the_answer_with_the_notes(deck: Path):
    text = pdftotext(deck / "notes.pdf")
    notes, answer = text.index("先让学生自己算"), text.index("答案是 21，因为三个七。")
    assert notes < answer < text.index("没有答案的页")
    assert "课上揭示的答案" in text
    assert "答案课上给出" not in text
    assert text.count("答案是 21") == 1  # moved from the slide's picture, not shown twice


def word_heights(path: Path, *words: str) -> dict[str, float]:
    """Each word's height on the page (pdftotext's boxes), in points."""
    xml = subprocess.run(
        ["pdftotext", "-bbox", str(path), "-"], capture_output=True, text=True
    ).stdout
    found = {}
    for m in re.finditer(
        r'<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]+)<', xml
    ):
        if m.group(3) in words:
            found.setdefault(m.group(3), float(m.group(2)) - float(m.group(1)))
    return found


def test_an_answers_table_beside_the_slide_is_at_the_notes_size(deck: Path):
    # (it kept the slide's 24 px, twice the notes' text, and was pushed to the next page)
    heights = word_heights(deck / "notes.pdf", "七乘三", "答案是")  # (the answer's own text)
    assert set(heights) == {"七乘三", "答案是"}, heights
    assert heights["七乘三"] <= 1.15 * heights["答案是"], heights


def widget_weights() -> list[str]:
    """The attention-2x2 widget's printed weights (its first row: softmax([6, 2]/√2))."""
    first = math.exp(6 / math.sqrt(2)) / (math.exp(6 / math.sqrt(2)) + math.exp(2 / math.sqrt(2)))
    return [f"{first:.4f}", f"{1 - first:.4f}"]


def test_a_widget_that_shows_an_answer_is_left_out_of_the_students_handout(deck: Path):
    slides, handout = pdftotext(deck / "slides.pdf"), pdftotext(deck / "handout.pdf")
    weights = widget_weights()
    assert all(slides.count(w) == 2 for w in weights)  # both widgets draw the answer on screen
    # the student handout: the marked widget is replaced by the line, the plain one stays
    assert all(handout.count(w) == 1 for w in weights)
    assert handout.count("（答案课上给出。）") == 2  # the answer block and the marked widget
    notes = pdftotext(deck / "notes.pdf")
    assert all(notes.count(w) == 2 for w in weights)  # the lecturer's notes keep both


def test_the_slides_pdf_shows_the_answer_as_revealed(deck: Path):
    assert "答案是 21，因为三个七。" in pdftotext(deck / "slides.pdf")
