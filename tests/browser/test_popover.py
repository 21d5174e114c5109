"""The provenance popover read by a room, in real Chromium: the highlighted source line is
scrolled into view inside its code box, the popover never covers the value that opened it
(wherever the value sits), and a "larger" toggle enlarges the code for the rest of the
session."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from catalogue import write_lesson
from fixture_build import Built, run_cli

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = pytest.mark.browser


def long_cell(name: str, lines: int, bound_at: int) -> str:
    """A cell of `lines` lines binding `name` only at line `bound_at` (1-based)."""
    body = [f"pad_{name}_{k} = {k}" for k in range(1, lines + 1)]
    body[bound_at - 1] = f"{name} = {bound_at} * 1000"
    return "```{python}\n" + "\n".join(body) + "\n```\n"


CELL_LINES, MARK = 60, 30  # the value's name is bound in the middle of a long cell
SLIDES = f"""
# 开场

## 中间

{long_cell("alpha", CELL_LINES, MARK)}

值是 `{{python}} alpha`。

## 很多单元格

{long_cell("a1", 40, 20)}
{long_cell("a2", 40, 20)}
{long_cell("a3", 40, 20)}

第一段。

第二段。

三个一起：`{{python}} a1 + a2 + a3`。

## 底部

第一段。

第二段。

第三段。

第四段。

第五段。

第六段。

第七段。

底部的值 `{{python}} alpha + 1`。
"""
MIDDLE, MANY, BOTTOM = 1, 2, 3  # slide indices


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("popover")
    write_lesson(root, {"lesson.yml": "title: 出处\nlang: zh-CN\n", "01-a.md": SLIDES}, "popover")
    proc = run_cli(root, "popover", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "popover", proc)


@pytest.fixture
def deck(context: BrowserContext, built: Built) -> Iterator[Page]:
    errors: list[str] = []
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((built.out / "index.html").as_uri())
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    page.evaluate("Reveal.configure({transition: 'none'})")
    yield page
    assert errors == []


def open_value(deck: Page, slide: int) -> dict:
    deck.evaluate(f"Reveal.slide({slide})")
    deck.wait_for_function(f"Reveal.getIndices().h === {slide}")
    value = deck.locator("section.present .value[data-expr]")
    value.click()
    deck.locator(".value-popover").wait_for(state="visible")
    return value.bounding_box()


def rect(deck: Page, selector: str) -> dict:
    return deck.locator(selector).first.bounding_box()


def marked_line_inside_its_box(deck: Page) -> bool:
    """The first highlighted line lies wholly inside its code box and the popover's view."""
    return deck.evaluate(
        """() => { const pop = document.querySelector('.value-popover');
        const pre = pop.querySelector('.value-code');
        const line = pre.querySelector('.value-mark').getBoundingClientRect();
        const box = pre.getBoundingClientRect(), view = pop.getBoundingClientRect();
        return line.top >= box.top - 0.5 && line.bottom <= box.bottom + 0.5 &&
          line.top >= view.top - 0.5 && line.bottom <= view.bottom + 0.5 &&
          line.bottom <= innerHeight && line.top >= 0; }"""
    )


def overlap(a: dict, b: dict) -> float:
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(w, 0) * max(h, 0)


def test_overlap_reference():
    a = {"x": 0, "y": 0, "width": 10, "height": 10}
    assert overlap(a, {"x": 5, "y": 5, "width": 10, "height": 10}) == 25
    assert overlap(a, {"x": 10, "y": 0, "width": 10, "height": 10}) == 0


def test_the_highlighted_line_is_scrolled_into_view(deck):
    open_value(deck, MIDDLE)
    mark = deck.locator(".value-popover .value-mark")
    assert mark.count() == 1
    assert mark.get_attribute("data-line") == str(
        int(deck.locator(".value-popover .value-line").first.get_attribute("data-line")) + MARK - 1
    )
    assert "alpha = 30 * 1000" in mark.inner_text()
    assert marked_line_inside_its_box(deck)


@pytest.mark.parametrize("slide", [MIDDLE, MANY, BOTTOM])
def test_the_popover_never_covers_its_opener(deck, slide):
    value = open_value(deck, slide)
    popover = rect(deck, ".value-popover")
    assert overlap(value, popover) == 0, (value, popover)
    viewport = deck.viewport_size
    assert popover["x"] >= 0 and popover["y"] >= 0
    assert popover["x"] + popover["width"] <= viewport["width"] + 0.5
    assert popover["y"] + popover["height"] <= viewport["height"] + 0.5
    assert marked_line_inside_its_box(deck)


def code_px(deck: Page) -> float:
    return deck.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('.value-popover .value-code'))"
        ".fontSize)"
    )


@pytest.mark.slow
def test_larger_toggle_enlarges_the_code_for_the_session(deck):
    open_value(deck, MIDDLE)
    small = code_px(deck)
    toggle = deck.locator(".value-popover .value-popover-larger")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    assert code_px(deck) >= 20 > small * 1.4  # from 13 px to 22 px: read from the back row
    assert marked_line_inside_its_box(deck)
    value = deck.locator("section.present .value[data-expr]").bounding_box()
    assert overlap(value, rect(deck, ".value-popover")) == 0
    deck.keyboard.press("Escape")
    open_value(deck, BOTTOM)  # another popover: still large
    assert code_px(deck) >= 20
    deck.reload()  # the same session (tab): still large
    deck.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    open_value(deck, MANY)
    assert code_px(deck) >= 20
    value = deck.locator("section.present .value[data-expr]").bounding_box()
    assert overlap(value, rect(deck, ".value-popover")) == 0
    deck.locator(".value-popover .value-popover-larger").click()  # and back
    assert code_px(deck) == pytest.approx(small, abs=0.5)


COMMON = """import numpy as np

rng = np.random.default_rng(7)
scale = 2.0
points = rng.normal(size=50) * scale
_private = 5
other = 3
unused = 4
"""
SETUP_SECTION = """## Mean

```{python}
x = 1
y = 2
z = 3
mean = float(points.mean())
```

Mean plus count: `{python} mean + len(points)`.
"""


def test_a_name_from_the_setup_module_shows_the_modules_line(context: BrowserContext, tmp_path):
    """`setup: common.py` binds names for every section: the popover shows the module's code
    with its binding line marked, beside the section's cell with its own, each line marked in
    its own file only (common.py's line 7 is not the section's line 7)."""
    files = {
        "lesson.yml": "title: S\nlang: en\ntitle-slide: false\nsetup: common.py\n",
        "common.py": COMMON,
        "01-a.md": SETUP_SECTION,
    }
    write_lesson(tmp_path, files, "setup")
    proc = run_cli(tmp_path, "setup", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    page = context.new_page()
    page.goto((tmp_path / "dist/setup/index.html").as_uri())
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    page.locator("section.present .value[data-expr]").click()
    boxes = page.locator(".value-popover .value-code")
    heads = page.locator(".value-popover .value-cell code").all_inner_texts()
    assert [h.rsplit("/", 1)[-1] for h in heads] == ["common.py:1", "01-a.md:3"], heads
    marked = [boxes.nth(k).locator(".value-mark").all_inner_texts() for k in range(2)]
    assert [[m.strip() for m in box] for box in marked] == [  # each with its line number
        ["5points = rng.normal(size=50) * scale"],
        ["7mean = float(points.mean())"],
    ], marked
