"""The served page in real Chromium: it asks for nothing the server lacks (no 404, no console
error), and the error banner sits at the top, clear of the navigation, and can be dismissed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from catalogue import options_in
from deck.pipeline import build
from deck.preview.serve import Preview, running
from deck.source.registry import LessonFolder
from fixture_build import copy_fixture

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser

READY = "window.deckLive && deckLive.ready && window.Reveal && Reveal.isReady()"
BANNER = "#deck-live-banner"
ERRORS = "#deck-live-errors"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Preview, Path]]:
    """The `mini` fixture lesson served and rebuilt in-process, as `build.py --serve` does."""
    folder = copy_fixture("mini", tmp_path)
    options = options_in(tmp_path)
    with running(
        lambda: build(["mini"], options), [LessonFolder(folder.name, folder)], options.out
    ) as p:
        import time

        deadline = time.monotonic() + 120
        while not p.status.builds and time.monotonic() < deadline:
            time.sleep(0.05)
        assert p.status.builds and p.status.errors == []
        yield p, folder


def open_page(browser: Browser, preview: Preview, failed: list[str], console: list[str]) -> Page:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.on("response", lambda r: r.status >= 400 and failed.append(f"{r.status} {r.url}"))
    page.on("requestfailed", lambda r: failed.append(f"failed {r.url}"))
    page.on("console", lambda m: m.type == "error" and console.append(f"{m.text} {m.location}"))
    page.on("pageerror", lambda exc: console.append(str(exc)))
    page.goto(f"{preview.url}mini/")
    page.wait_for_function(READY)
    return page


@pytest.mark.slow
def test_a_served_page_loads_without_a_failed_request_or_console_error(browser, live):
    preview, _ = live
    failed: list[str] = []
    console: list[str] = []
    page = open_page(browser, preview, failed, console)
    page.wait_for_load_state("networkidle")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("Reveal.getIndices().h === 1")
    page.wait_for_timeout(300)
    assert failed == []
    assert console == []
    page.context.close()


def boxes_overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


@pytest.mark.slow
def test_the_error_banner_clears_the_navigation_and_can_be_dismissed(browser, live):
    preview, folder = live
    page = open_page(browser, preview, [], [])
    lesson_yml = folder / "lesson.yml"
    good = lesson_yml.read_text("utf-8")
    lesson_yml.write_text("title: [unclosed\n" + "\n".join(f"# {n}" for n in range(40)), "utf-8")
    banner = page.locator(BANNER)
    banner.wait_for(state="visible", timeout=60_000)
    assert "lesson.yml" in page.locator(ERRORS).inner_text()
    box = banner.bounding_box()
    assert box is not None and box["y"] < 40  # at the top
    for control in (".slide-menu-button", ".reveal .controls", ".reveal .slide-number"):
        other = page.locator(control).bounding_box()
        assert other is not None, control
        assert not boxes_overlap(box, other), (control, box, other)

    # the close button hides it
    page.locator(f"{BANNER} button").click()
    banner.wait_for(state="hidden")
    # a new error shows it again; Esc hides it (and does not open reveal's overview)
    first = page.locator(ERRORS).inner_text()
    lesson_yml.write_text("title: x\n\n\nexec: [unclosed\n", "utf-8")
    page.wait_for_function(
        "first => document.querySelector('#deck-live-errors').textContent !== first",
        arg=first,
        timeout=60_000,
    )
    banner.wait_for(state="visible")
    page.keyboard.press("Escape")
    banner.wait_for(state="hidden")
    assert page.evaluate("Reveal.isOverview()") is False
    # with no banner, Esc is reveal's again
    page.keyboard.press("Escape")
    assert page.evaluate("Reveal.isOverview()") is True
    lesson_yml.write_text(good, "utf-8")
    page.context.close()
