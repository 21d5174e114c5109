"""End to end in real Chromium: the deck offline from file://, keys, notes window."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from fixture_build import Built

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser


@pytest.fixture
def deck(browser: Browser, mini: Built) -> Iterator[tuple[Page, list[str]]]:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((mini.out / "index.html").as_uri() + "?quiz=check")  # judged at once
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    yield page, requests
    assert errors == []
    context.close()


def current(page: Page, hash: str | None = None) -> dict:
    """The slide index and URL hash, once the hash (written by reveal.js) says `hash`."""
    if hash is not None:
        page.wait_for_function(f"location.hash === {hash!r}", timeout=5000)
    return page.evaluate("({h: Reveal.getIndices().h, hash: location.hash})")


def test_only_local_files_are_requested(deck):
    page, requests = deck
    page.evaluate("document.fonts.ready")
    assert requests, "the page made no requests at all?"
    # the figure's slide is far from the first: its picture is asked for when it comes near
    page.evaluate("Reveal.slide(Reveal.getTotalSlides() - 1)")
    page.wait_for_function("[...document.images].every(i => !i.getAttribute('src') || i.complete)")
    offline = [u for u in requests if not u.startswith(("file://", "data:"))]
    assert offline == []
    assert any(u.endswith("figures/parabola.svg") for u in requests)


@pytest.mark.slow
def test_arrow_keys_move_and_the_hash_follows(deck):
    page, _ = deck
    assert current(page) == {"h": 0, "hash": "#/intro"}
    page.keyboard.press("ArrowRight")
    assert current(page, "#/1") == {"h": 1, "hash": "#/1"}
    page.keyboard.press("ArrowRight")
    assert current(page)["h"] == 2
    fragment = page.locator("section.present .fragment")
    assert "visible" not in (fragment.get_attribute("class") or "")
    page.keyboard.press("ArrowRight")  # the pause: same slide, fragment appears
    assert current(page)["h"] == 2
    assert "visible" in fragment.get_attribute("class")
    page.keyboard.press("ArrowRight")
    assert current(page, "#/3") == {"h": 3, "hash": "#/3"}
    page.keyboard.press("ArrowLeft")
    assert current(page)["h"] == 2


def test_quiz_answers_when_clicked(deck):
    page, _ = deck
    page.evaluate("Reveal.slide(5)")
    quiz = page.locator("section.present .quiz")
    quiz.locator(".quiz-choice").nth(0).click()
    assert "再想想" in quiz.locator(".quiz-feedback").inner_text()
    assert quiz.locator(".quiz-explain").is_hidden()
    quiz.locator(".quiz-choice").nth(1).click()
    assert "正确" in quiz.locator(".quiz-feedback").inner_text()
    assert quiz.locator(".quiz-explain").is_visible()


def test_s_opens_the_speaker_notes_window(deck):
    page, requests = deck
    page.keyboard.press("ArrowRight")
    with page.expect_popup() as popup_info:
        page.keyboard.press("s")
    notes = popup_info.value
    notes.wait_for_load_state()
    notes.wait_for_function(
        "() => (document.querySelector('.speaker-controls-notes') || {}).textContent"
        "?.includes('这里讲平方')"
    )
    assert [u for u in requests if not u.startswith(("file://", "data:", "about:"))] == []
