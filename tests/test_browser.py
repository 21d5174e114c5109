"""End to end in real Chromium: the deck offline from file://, keys, notes window, PDFs."""

from __future__ import annotations

import json
import subprocess
import unicodedata
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page
from pypdf import PdfReader

from fixture_build import Built

pytestmark = pytest.mark.browser


@pytest.fixture
def deck(browser: Browser, mini: Built) -> Iterator[tuple[Page, list[str]]]:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((mini.out / "index.html").as_uri())
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
    offline = [u for u in requests if not u.startswith(("file://", "data:"))]
    assert offline == []
    assert any(u.endswith("figures/parabola.svg") for u in requests)


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
    assert len(reader.pages) == 3  # six slides, two to a page, nothing after them
    text = pdftotext(mini.out / "handout.pdf")
    assert "这里讲平方" not in text and "答案" not in text  # no notes, no answer key
    assert "平方的结果是 144" in text


def test_lecturer_notes_are_a4_with_notes_page_numbers_and_bookmarks(mini: Built):
    reader = PdfReader(mini.out / "notes.pdf")
    # slides never split across pages, two to a page here, then the answer key: 3 + 1 pages
    assert len(reader.pages) == 4
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (596, 843)
    text = pdftotext(mini.out / "notes.pdf")
    assert "这里讲平方：144。" in text  # speaker notes under the slide
    assert "2 / 4" in text  # page numbers
    # pypdf reports some CJK glyphs as their Kangxi-radical twins: compare in NFKC
    pages = [unicodedata.normalize("NFKC", page.extract_text()) for page in reader.pages]
    assert "第二节:图" in pages[1] and "第一节:基础" in pages[0]  # NFKC: "：" → ":"
    assert sum("这里讲平方:144。" in page for page in pages) == 1
    assert "答案：B. 9" in text  # quiz answers in the (lecturer's) handout
    titles = [item.title for item in reader.outline if not isinstance(item, list)]
    assert titles == ["第一节：基础", "第二节：图", "测验答案"]
    info = subprocess.run(["pdfinfo", str(mini.out / "notes.pdf")], capture_output=True)
    assert b"Tagged:          yes" in info.stdout


def test_overflowing_slide_is_named_with_its_source_line(tmp_path, browser):
    from fixture_build import run_build

    folder = tmp_path / "content" / "long"
    folder.mkdir(parents=True)
    (folder / "lesson.yml").write_text("title: long\n")
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
