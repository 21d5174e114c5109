"""Live cells in a real lecture (`build.py room --serve --classroom` in its own process, real
Chromium): the presenter edits a cell shown with its code and runs it again; its section runs
in the worker, the projector and a student's device show the new output and values, the
lesson's file is unchanged until the presenter saves, and an error is shown as text with its
line, the slides left as they were."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from room_support import classroom_process, wait_for

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser
CELL = 1
NEW = "n = 10\ntotal = sum(range(n))\nprint(total)"


def open_page(browser: Browser, url: str, errors: list[str], **kw: object):
    page = browser.new_context(**kw).new_page()  # type: ignore[arg-type]
    page.set_default_timeout(30_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.wait_for_function("window.deckRoom && deckRoom.messages > 0 && Reveal.isReady()")
    return page


@pytest.mark.slow
def test_the_presenter_edits_a_cell_runs_it_on_every_screen_and_saves_it(
    browser: Browser, tmp_path: Path
):
    from fixture_build import copy_fixture

    copy_fixture("room", tmp_path)
    source = tmp_path / "content" / "room" / "01-room.md"
    before = source.read_text("utf-8")
    errors: list[str] = []
    with classroom_process(tmp_path) as lecture:
        presenter = open_page(
            browser, lecture.lead_url, errors, viewport={"width": 1280, "height": 720}
        )
        student = open_page(
            browser, lecture.audience_url, errors, viewport={"width": 390, "height": 844}
        )
        presenter.evaluate(f"Reveal.slide({CELL})")
        student.wait_for_function(f"Reveal.getIndices().h === {CELL}")
        assert student.locator(".deck-cell-edit").count() == 0  # the presenter's alone
        presenter.locator("section.present .deck-cell-edit").click()
        box = presenter.locator("section.present .deck-cell-editor textarea")
        assert box.input_value() == "n = 6\ntotal = sum(range(n))\nprint(total)"
        # an error: said as text, at its line; nothing changes on the slides
        box.fill("n = 6\ntotal = sum(range(n)) / 0\nprint(total)")
        presenter.locator("section.present .deck-cell-run").click()
        status = presenter.locator("section.present .deck-cell-status")
        presenter.wait_for_function(
            "document.querySelector('section.present .deck-cell-status').textContent"
            ".includes('ZeroDivisionError')"
        )
        assert "content/room/01-room.md:14" in status.inner_text()
        assert "The sum is 15." in student.locator("section.present").inner_text()
        # the edit runs: every screen shows what it computes
        presenter.locator("section.present .deck-cell-editor textarea").fill(NEW)
        presenter.locator("section.present .deck-cell-run").click()
        for page in (presenter, student):
            page.wait_for_function(
                "document.querySelector('section.present').textContent.includes('The sum is 45.')"
            )
        assert "45" in presenter.locator("section.present pre.stdout").inner_text()
        assert "n = 10" in student.locator("section.present .highlight").inner_text()
        assert source.read_text("utf-8") == before  # the lesson is as it was
        built = tmp_path / "dist" / "room" / "index.html"
        assert 'data-expr="total"' in built.read_text() and ">45</span>" not in built.read_text()
        presenter.wait_for_function(
            "!document.querySelector('section.present .deck-cell-save').disabled"
        )
        presenter.screenshot(path=str(tmp_path / "live-projector.png"))
        student.screenshot(path=str(tmp_path / "live-phone.png"))
        presenter.locator("section.present .deck-cell-save").click()  # now it is the lesson's
        wait_for(lambda: "n = 10\n" in source.read_text("utf-8"), 10)
        assert source.read_text("utf-8") == before.replace("n = 6\n", "n = 10\n")
        wait_for(lambda: ">45</span>" in built.read_text("utf-8"), 60)  # rebuilt
        student.wait_for_function(
            "window.deckRoom && document.querySelector('section.present') &&"
            " document.querySelector('section.present').textContent.includes('The sum is 45.')"
        )
    assert errors == []
