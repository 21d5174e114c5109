"""Slides marked `{.optional}`: the speaker view and notes.pdf mark them, and the planned
minutes count the other slides only (saying how many minutes the optional ones add)."""

from __future__ import annotations

import re
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
## 必讲一

内容一。

::: notes
2 分钟。先讲这个。
:::

## 选讲 {.optional}

内容二。

::: notes
3 分钟。时间不够就跳过。
:::

## 必讲二

内容三。

::: notes
1.5 分钟。收尾。
:::
"""


def pdftotext(path: Path) -> str:
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("optional")
    write_lesson(root, {"01-a.md": SECTION}, name="opt")
    proc = run_build(root, "opt")
    assert proc.returncode == 0, proc.stderr
    return root / "dist" / "opt"


def test_the_plan_leaves_optional_slides_out(context: BrowserContext, deck: Path):
    page = context.new_page()
    page.goto((deck / "index.html").as_uri() + "#/0")
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    timings = page.evaluate("Reveal.getSlidesAttributes().map(a => Number(a['data-timing']))")
    assert timings == [120, 0, 90]  # reveal's pacing timer plans 3.5 minutes
    root = page.evaluate("Object.assign({}, document.documentElement.dataset)")
    assert float(root["deckMinutes"]) == pytest.approx(3.5)
    assert float(root["deckOptionalMinutes"]) == pytest.approx(3.0)


@pytest.mark.slow
def test_the_speaker_view_marks_the_slide_and_shows_the_plan(context: BrowserContext, deck: Path):
    page = context.new_page()
    page.goto((deck / "index.html").as_uri() + "#/1")
    page.wait_for_function("window.Reveal && Reveal.isReady() && Reveal.getIndices().h === 1")
    with context.expect_page() as info:
        page.keyboard.press("s")
    speaker = info.value
    speaker.wait_for_function(
        "() => (document.querySelector('.speaker-controls-notes .value') || {}).textContent"
    )
    speaker.wait_for_selector(".deck-speaker-plan")
    notes = speaker.locator(".speaker-controls-notes .value").inner_text()
    assert notes.split("\n")[0].strip() == "可跳过（选讲）"
    assert "3 分钟。时间不够就跳过。" in notes
    plan = speaker.locator(".deck-speaker-plan").inner_text()
    assert plan == "计划 3.5 分钟（可跳过的页另加 3 分钟）"
    page.evaluate("Reveal.slide(0)")
    speaker.wait_for_function(
        "!document.querySelector('.speaker-controls-notes .value').textContent.includes('可跳过')"
    )


def test_the_notes_pdf_marks_the_slide_and_plans_without_it(deck: Path):
    text = re.sub(r"[ \t]+", " ", pdftotext(deck / "notes.pdf"))
    assert "计划：3.5 分钟 · 可跳过的页另加 3 分钟" in text
    assert "幻灯片 1 · 2 分钟 · 累计 2 / 3.5 分钟" in text
    assert "幻灯片 2 · 可跳过，不计入计划 · 3 分钟" in text
    assert "幻灯片 3 · 1.5 分钟 · 累计 3.5 / 3.5 分钟" in text
    assert text.count("可跳过（选讲）") == 1  # the mark, with that slide's notes
