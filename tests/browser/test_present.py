"""Presenting and handing out, in real Chromium: the speaker view (formulas once, pacing, state
kept in sync with the projector), the lecturer's quiz reveal, the student and lecturer
handouts, the navigation plugins offline, plain-text formulas in bookmarks and the menu, the
single-file deck with the network blocked, and an axe-core audit."""

from __future__ import annotations

import re
import subprocess
import textwrap
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pypdf import PdfReader

from fixture_build import Built, run_cli

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Frame, Page

pytestmark = pytest.mark.browser

LESSON = {
    # judged at once; no title slide (the tests count slides from the first section)
    "lesson.yml": "title: 讲台\nlang: zh-CN\nquiz:\n  mode: check\ntitle-slide: false\n",
    "toy.py": '''
        from deck.show import HTML


        def toy():
            """Two buttons and a slider writing what was chosen into one line."""
            return HTML(
                '<div class="toy">'
                '<button type="button" data-v="1">一号</button>'
                '<button type="button" data-v="2">二号</button>'
                '<label>强度 <input type="range" min="0" max="10" value="3"></label>'
                '<p class="toy-out">未选</p></div>'
                "<script>(function () {"
                "var root = document.currentScript.previousElementSibling;"
                'var out = root.querySelector(".toy-out");'
                'root.querySelectorAll("button").forEach(function (b) {'
                '  b.addEventListener("click", function () {'
                '    out.textContent = "选了 " + b.dataset.v; });'
                "});"
                'root.querySelector("input").addEventListener("input", function (e) {'
                '  out.textContent = "强度 " + e.target.value; });'
                "})();</script>"
            )
        ''',
    "01-a.md": r"""
        # 第一节 {#start}

        开场。

        ::: notes
        1 分钟。开场白。
        :::

        ## 为什么要除以 $\sqrt{d_k}$？

        分数 $QK^\top$ 的方差随 $d_k$ 增长。

        ::: handout
        讲义提示：记住缩放的作用。
        :::

        ::: notes
        2 分钟。讲 $W^Q$ 与 $QK^\top$ 的形状。
        :::

        ## 小测

        ```{python}
        answer = 3 ** 2
        ```

        ::: quiz
        $3^2$ 等于多少？

        - [ ] `{python} 3 * 2`
        - [x] `{python} answer`
        - [ ] `{python} 3 + 2`

        ::: explain
        解析记号：平方是自乘。
        :::
        :::

        ::: notes
        3 分钟。先让学生猜。
        :::

        ## 开关

        ```{python}
        from toy import toy
        toy()
        ```

        ::: notes
        1.5 分钟。演示开关。
        :::

        ## 一张图

        ```{python}
        #| label: line
        #| fig-alt: 一条直线
        import matplotlib.pyplot as plt

        plt.figure(figsize=(4, 3))
        _ = plt.plot([0, 1], [0, 1])
        ```

        ## 结束 {timing="45"}

        谢谢。
        """,
}
TIMINGS = [60, 120, 180, 90, 0, 45]  # seconds: each note's "N 分钟", or the slide's own
QUIZ, WIDGET = 2, 3  # slide indices
EXPLANATION = "解析记号"
A4_MARGIN = {"top": "14mm", "right": "15mm", "bottom": "16mm", "left": "15mm"}


def source(name: str) -> str:
    return textwrap.dedent(LESSON[name]).lstrip("\n")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("present")
    folder = root / "content" / "present"
    folder.mkdir(parents=True)
    for name in LESSON:
        (folder / name).write_text(source(name), "utf-8")
    proc = run_cli(root, "present", "--no-pdf", "--single-file")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "present", proc)


def open_deck(context: BrowserContext, url: str, errors: list[str] | None = None) -> Page:
    page = context.new_page()
    page.on("pageerror", lambda exc: (errors if errors is not None else []).append(str(exc)))
    page.goto(url)
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    return page


def offline_deck(context: BrowserContext, built: Built) -> Iterator[Page]:
    """The built deck open in `context`; when resumed, checks that the page raised no error
    and asked for nothing beyond this machine."""
    errors: list[str] = []
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    page = open_deck(context, (built.out / "index.html").as_uri(), errors)
    yield page
    assert errors == []
    assert [u for u in requests if not u.startswith(("file://", "data:", "about:"))] == []


@pytest.fixture
def deck(context: BrowserContext, built: Built) -> Iterator[Page]:
    yield from offline_deck(context, built)


def go(page: Page, index: int) -> None:
    page.evaluate(f"Reveal.slide({index})")
    page.wait_for_function(f"Reveal.getIndices().h === {index}")


def open_speaker_view(context: BrowserContext, page: Page) -> tuple[Page, Frame]:
    """The speaker window (`S`) and its current-slide preview, both loaded."""
    page.evaluate("document.activeElement.blur()")  # keys typed into a slider stay there
    with context.expect_page() as info:
        page.keyboard.press("s")
    speaker = info.value
    speaker.wait_for_function(
        "() => (document.querySelector('.speaker-controls-notes .value') || {}).textContent"
    )
    frame = speaker.wait_for_selector("#current-slide iframe").content_frame()
    assert frame is not None
    frame.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    h = page.evaluate("Reveal.getIndices().h")
    frame.wait_for_function(f"Reveal.getIndices().h === {h}")
    return speaker, frame


def visible(text: str) -> str:
    """Text as read on screen: no whitespace, no zero-width spaces (KaTeX's struts)."""
    return re.sub(r"[\s\u200b]+", "", text)


# ---- speaker view ----------------------------------------------------------------------


def test_notes_window_shows_each_formula_once(context, deck):
    go(deck, 1)
    speaker, _ = open_speaker_view(context, deck)
    notes = speaker.locator(".speaker-controls-notes .value")
    # "W^Q" once, as superscript (not "W^QWQ" nor "WQWQ"); QKᵀ likewise
    assert visible(notes.inner_text()) == "2分钟。讲WQ与QK⊤的形状。"
    # ... drawn by KaTeX's fonts (its stylesheet is in the speaker window) ...
    family = speaker.evaluate(
        "getComputedStyle(document.querySelector('.speaker-controls-notes .katex')).fontFamily"
    )
    assert "KaTeX_Main" in family
    # ... and named in plain text for screen readers
    labels = notes.locator(".katex").evaluate_all("ks => ks.map(k => k.getAttribute('aria-label'))")
    assert labels == ["W^Q", "QKᵀ"]


def test_speaker_view_paces_by_the_minutes_in_the_notes(context, deck):
    timings = deck.evaluate(
        "[...document.querySelectorAll('.reveal .slides section')].map(s => s.dataset.timing)"
    )
    assert [int(t) for t in timings] == TIMINGS
    speaker, _ = open_speaker_view(context, deck)
    # reveal's speaker view shows the pacing clock only when it has per-slide timings
    speaker.wait_for_function(
        "getComputedStyle(document.querySelector('.pacing')).display !== 'none'"
    )
    reported = deck.evaluate("Reveal.getSlidesAttributes().map(a => Number(a['data-timing']))")
    assert reported == TIMINGS


@pytest.mark.slow
def test_quiz_choices_and_widgets_stay_in_sync_between_the_two_windows(context, deck):
    go(deck, QUIZ)
    speaker, frame = open_speaker_view(context, deck)
    choices = "section.present .quiz-choice"
    # a choice clicked in the speaker view's preview shows on the projector
    frame.locator(choices).nth(0).click()
    deck.wait_for_function(f"document.querySelectorAll('{choices}')[0].ariaPressed === 'true'")
    assert deck.locator("section.present .quiz-feedback").inner_text() == "✗ 再想想"
    # and the other way round
    deck.locator(choices).nth(1).click()
    frame.wait_for_function(f"document.querySelectorAll('{choices}')[1].ariaPressed === 'true'")
    assert frame.locator("section.present .quiz-feedback").inner_text() == "✓ 回答正确"

    go(deck, WIDGET)
    frame.wait_for_function(f"Reveal.getIndices().h === {WIDGET}")
    out = "section.present .toy-out"
    frame.locator("section.present .toy button").nth(1).click()
    deck.wait_for_function(f"document.querySelector('{out}').textContent === '选了 2'")
    deck.locator("section.present .toy button").nth(0).click()
    frame.wait_for_function(f"document.querySelector('{out}').textContent === '选了 1'")
    deck.locator("section.present .toy input").fill("7")
    frame.wait_for_function(f"document.querySelector('{out}').textContent === '强度 7'")
    assert frame.locator("section.present .toy input").input_value() == "7"
    frame.locator("section.present .toy input").fill("2")
    deck.wait_for_function(f"document.querySelector('{out}').textContent === '强度 2'")


@pytest.mark.slow
def test_a_preview_opened_later_catches_up(context, deck):
    go(deck, QUIZ)
    deck.keyboard.press("a")  # revealed
    go(deck, WIDGET)
    deck.locator("section.present .toy button").nth(1).click()
    for value in "159":
        deck.locator("section.present .toy input").fill(value)
    _, frame = open_speaker_view(context, deck)
    frame.wait_for_function(
        "document.querySelector('section.present .toy-out').textContent === '强度 9'"
    )
    assert frame.locator("section.present .toy input").input_value() == "9"
    assert frame.evaluate("document.querySelector('.quiz').classList.contains('revealed')")


# ---- quizzes in class --------------------------------------------------------------------


def test_answer_is_not_readable_before_the_lecturer_reveals_it(deck):
    go(deck, QUIZ)
    quiz = deck.locator("section.present .quiz")
    before = deck.evaluate("document.body.innerText") + quiz.aria_snapshot()
    assert EXPLANATION not in before and "正确答案" not in before
    # a student's wrong choice: feedback, still no answer
    quiz.locator(".quiz-choice").nth(0).click()
    assert quiz.locator(".quiz-feedback").inner_text() == "✗ 再想想"
    assert EXPLANATION not in deck.evaluate("document.body.innerText")
    # the lecturer presses A: answer marked, explanation shown, the student's choice kept
    deck.keyboard.press("a")
    right = quiz.locator(".quiz-choice").nth(1)
    assert "正确答案" in right.inner_text()
    assert quiz.locator(".quiz-explain").is_visible()
    assert EXPLANATION in quiz.inner_text()
    assert "chosen-wrong" in quiz.locator(".quiz-choice").nth(0).get_attribute("class")
    assert quiz.locator(".quiz-feedback").inner_text() == ""  # no verdict beside the answer
    deck.keyboard.press("a")  # and hides it again
    assert quiz.locator(".quiz-explain").is_hidden()
    assert "正确答案" not in quiz.inner_text()


def test_speaker_view_button_reveals_on_the_projector(context, deck):
    go(deck, QUIZ)
    speaker, frame = open_speaker_view(context, deck)
    button = speaker.locator(".deck-speaker-button")
    assert button.inner_text() == "显示答案（A）"
    button.click()
    deck.locator("section.present .quiz-explain").wait_for(state="visible")
    frame.locator("section.present .quiz-explain").wait_for(state="visible")
    assert button.get_attribute("aria-pressed") == "true"
    speaker.keyboard.press("a")  # the key in the speaker window works too
    deck.locator("section.present .quiz-explain").wait_for(state="hidden")
    go(deck, 0)
    speaker.wait_for_function("document.querySelector('.deck-speaker-button').disabled")


def test_quiz_works_by_keyboard_alone(deck):
    go(deck, QUIZ)
    for _ in range(30):
        if deck.evaluate("document.activeElement.classList.contains('quiz-choice')"):
            break
        deck.keyboard.press("Tab")
    assert deck.evaluate("document.activeElement.textContent") == "6"
    deck.keyboard.press("Tab")
    deck.keyboard.press("Enter")
    assert deck.locator("section.present .quiz-feedback").inner_text() == "✓ 回答正确"
    deck.keyboard.press("Shift+Tab")
    deck.keyboard.press(" ")  # Space presses the button and does not turn the page
    assert deck.locator("section.present .quiz-feedback").inner_text() == "✗ 再想想"
    assert deck.evaluate("Reveal.getIndices().h") == QUIZ


# ---- handouts ----------------------------------------------------------------------------


def print_handout(browser: Browser, built: Built, kind: str, path: Path) -> int | None:
    """Prints `kind` as pdf.py does (the slides drawn in place rather than composed from
    slides.pdf); returns the number of pages the student's layout planned (the lecturer's
    notes flow: None)."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto((built.out / "index.html").as_uri() + "?print-pdf")
        page.wait_for_function("document.documentElement.dataset.pdfReady === 'true'")
        assert page.evaluate(f"window.deckHandout({kind!r})") == len(TIMINGS)
        page.evaluate("document.fonts.ready")
        page.pdf(
            path=str(path),
            prefer_css_page_size=True,  # handout.js's paper: A4, A4 landscape for dense slides
            print_background=True,
            tagged=True,
            outline=True,
        )
        sheets = page.evaluate("document.documentElement.dataset.handoutSheets")
        return int(sheets) if sheets else None
    finally:
        page.close()


def pdf_text(path: Path) -> str:
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True).stdout
    return unicodedata.normalize("NFKC", text)


def pdf_text_of(page) -> str:  # noqa: ANN001
    return unicodedata.normalize("NFKC", page.extract_text())


def outline(path: Path) -> list[str]:
    titles: list[str] = []

    def walk(items):  # noqa: ANN001
        for item in items:
            walk(item) if isinstance(item, list) else titles.append(item.title)

    walk(PdfReader(path).outline)
    return [unicodedata.normalize("NFKC", t) for t in titles]


def test_student_handout_has_no_answers_no_notes_and_room_to_write(browser, built, tmp_path):
    path = tmp_path / "student.pdf"
    sheets = print_handout(browser, built, "student", path)
    pages = len(PdfReader(path).pages)
    assert pages == sheets <= 6  # six slides, one or two to a page as their text allows
    text = pdf_text(path)
    assert "等于多少" in text  # the question is there...
    assert EXPLANATION not in text and "回答正确" not in text  # ...its answer is not
    assert "先让学生猜" not in text and "分钟" not in text  # no speaker notes
    assert "讲义提示:记住缩放的作用。" in text  # but the slide's `::: handout` block
    assert "为什么要除以 √d_k?" in outline(path)


def test_lecturer_handout_has_notes_minutes_and_an_answer_key(browser, built, tmp_path):
    path = tmp_path / "lecturer.pdf"
    sheets = print_handout(browser, built, "lecturer", path)
    reader = PdfReader(path)
    assert sheets is None  # the notes flow from page to page
    assert len(reader.pages) <= 4  # ...packed, with the answer key on a page of its own
    assert "测验答案" not in pdf_text_of(reader.pages[-2])
    text = pdf_text(path)
    assert "3 分钟。先让学生猜。" in text
    assert "幻灯片 3 · 3 分钟 · 累计 6 / 8.25 分钟" in text
    key = unicodedata.normalize("NFKC", reader.pages[-1].extract_text())
    md = source("01-a.md")
    answer_line = md.count("\n", 0, md.index("answer = 3 ** 2")) + 1  # where it is computed
    assert "答案:B.9" in key.replace(" ", "")
    assert EXPLANATION in key
    assert f"content/present/01-a.md:{answer_line}" in key
    assert outline(path)[-1] == "测验答案"


def test_handout_without_kind_is_the_lecturers(browser, built, tmp_path):
    path = tmp_path / "default.pdf"
    page = browser.new_page()
    page.goto((built.out / "index.html").as_uri() + "?print-pdf")
    page.wait_for_function("document.documentElement.dataset.pdfReady === 'true'")
    page.evaluate("window.deckHandout()")
    page.pdf(path=str(path), format="A4", margin=A4_MARGIN)
    page.close()
    assert EXPLANATION in pdf_text(path)


@pytest.mark.slow
def test_one_page_lays_out_one_handout_after_another_as_fresh_pages_do(browser, built):
    """pdf.py prints the slides and then each handout from one loaded page."""
    state = """() => [document.querySelector('.reveal .slides').innerHTML,
        document.querySelectorAll('.handout-key').length, document.documentElement.className,
        document.documentElement.dataset.handoutSheets || '',
        [...document.querySelectorAll('style')].filter(s => /@page/.test(s.textContent)).length]"""

    def page_with(*kinds: str) -> tuple[list, list]:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto((built.out / "index.html").as_uri() + "?print-pdf")
        page.wait_for_function("document.documentElement.dataset.pdfReady === 'true'")
        first = page.evaluate(state)
        for kind in kinds:
            page.evaluate(f"window.deckHandout({kind!r})")
        last = page.evaluate(state)
        page.close()
        return first, last

    print_layout, student = page_with("student")
    _, lecturer = page_with("lecturer")
    _, student_after_lecturer = page_with("lecturer", "student")
    _, lecturer_after_student = page_with("student", "lecturer")
    assert student_after_lecturer == student and lecturer_after_student == lecturer
    assert student[1] == 0 and lecturer[1] == 1  # the answer key only in the lecturer's
    assert student[0] != lecturer[0] != print_layout[0]


# ---- navigation --------------------------------------------------------------------------


def test_menu_lists_slides_with_plain_text_formulas(deck):
    deck.keyboard.press("m")
    menu = deck.locator(".slide-menu.active")
    menu.wait_for(state="visible")
    titles = menu.locator(".slide-menu-item-title").all_inner_texts()
    assert titles[:3] == ["第一节", "为什么要除以 √d_k？", "小测"]
    menu.locator(".slide-menu-item-title", has_text="开关").click()
    deck.wait_for_function(f"Reveal.getIndices().h === {WIDGET}")
    deck.evaluate("document.fonts.ready")
    assert deck.evaluate("document.fonts.check('900 16px \"Font Awesome 5 Free\"')")


def test_search_finds_a_slide(deck):
    deck.keyboard.press("Control+Shift+F")
    box = deck.locator(".searchbox input")
    box.fill("谢谢")
    box.press("Enter")
    deck.wait_for_function(f"Reveal.getIndices().h === {len(TIMINGS) - 1}")


def test_alt_click_zooms(deck):
    deck.locator("section.present").click(position={"x": 300, "y": 200}, modifiers=["Alt"])
    deck.wait_for_function("document.body.style.transform.includes('scale(2)')")


def test_chalkboard_and_pen_draw(deck):
    ink = """id => { const c = document.querySelector('#' + id + ' canvas');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0; for (let k = 3; k < d.length; k += 4) if (d[k]) n++; return n; }"""
    deck.keyboard.press("c")  # draw on the slide
    deck.mouse.move(300, 300)
    deck.mouse.down()
    deck.mouse.move(600, 400, steps=10)
    deck.mouse.up()
    assert deck.evaluate(ink, "notescanvas") > 100
    deck.keyboard.press("c")
    deck.keyboard.press("b")  # the blackboard
    deck.wait_for_function(
        "getComputedStyle(document.getElementById('chalkboard')).visibility === 'visible'"
    )
    assert deck.evaluate(
        "getComputedStyle(document.getElementById('chalkboard')).backgroundImage"
    ).startswith('url("file://')


def test_help_overlay_header_is_readable(deck):
    deck.keyboard.press("Shift+?")
    th = deck.locator(".r-overlay-help th").first
    th.wait_for()
    colors = th.evaluate("th => [getComputedStyle(th).color, getComputedStyle(th).backgroundColor]")
    fg, bg = (tuple(int(x) for x in re.findall(r"\d+", c)[:3]) for c in colors)
    assert contrast(fg, bg) >= 4.5


def contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """WCAG contrast ratio of two sRGB colours."""

    def lum(c: tuple[int, ...]) -> float:
        ch = [v / 255 for v in c]
        ch = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in ch]
        return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_reference():
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21)
    assert contrast((255, 255, 255), (238, 242, 247)) < 1.2  # the old white-on-light header


def test_headings_carry_formulas_as_plain_text(deck):
    heading = deck.locator("section").nth(1).locator("h2")
    assert heading.locator(".deck-plain").inner_text() == "√d_k"
    assert heading.locator(".katex").get_attribute("aria-hidden") == "true"


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\sqrt{d_k}", "√d_k"),
        (r"QK^\top", "QKᵀ"),
        (r"d_{model}", "d_model"),
        (r"a^2 + b^2 = c^2", "a²+b²=c²"),
        (r"\frac{QK^\top}{\sqrt{d_k}}", "QKᵀ/√d_k"),
        (r"\mathrm{softmax}(x)_i", "softmax(x)_i"),
        (r"e^{x_i}", "e^(x_i)"),
        (r"\frac{a+b}{2}", "(a+b)/2"),
        (r"\hat{y}", "ŷ"),
    ],
)
def test_formula_plain_text(deck, tmp_path, tex, text):
    from deck.render.mathtex import KaTeX

    katex = KaTeX(tmp_path / "katex.json")
    katex.prepare({(tex, False)})
    markup = katex.html(tex, False)
    got = deck.evaluate(
        "m => { const d = document.createElement('div'); d.innerHTML = m;"
        " return deckMath.formulaText(d.querySelector('.katex')); }",
        markup,
    )
    assert unicodedata.normalize("NFC", got) == unicodedata.normalize("NFC", text)


# ---- sharing -----------------------------------------------------------------------------


@pytest.mark.slow
def test_single_file_presents_with_the_network_blocked(context, built):
    single = built.root / "dist" / "present.html"  # written by `build.py --single-file`
    assert not re.search(r'(src|href)="(assets|figures)/', single.read_text("utf-8"))
    uri = single.as_uri()
    blocked: list[str] = []

    def route(r):  # noqa: ANN001
        if r.request.url.split("?")[0].split("#")[0] == uri:
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    errors: list[str] = []
    page = open_deck(context, uri, errors)
    page.evaluate("document.fonts.ready")
    for k, heading in enumerate(["第一节", "为什么要除以", "小测", "开关", "一张图", "结束"]):
        go(page, k)
        assert heading in page.locator("section.present :is(h1, h2)").inner_text()
    broken = "[...document.images].filter(i => !i.complete || !i.naturalWidth).length"
    figure = page.locator("section img").get_attribute("src")
    assert figure.startswith("data:image/svg+xml;base64,") and page.evaluate(broken) == 0
    assert page.evaluate("document.fonts.check('16px KaTeX_Main')")
    page.keyboard.press("b")  # the blackboard's image is inline too
    page.wait_for_function(
        "getComputedStyle(document.getElementById('chalkboard')).visibility === 'visible'"
    )
    page.keyboard.press("b")
    page.keyboard.press("m")  # and the menu with its icons
    page.locator(".slide-menu.active").wait_for(state="visible")
    page.keyboard.press("Escape")
    go(page, 1)
    speaker, _ = open_speaker_view(context, page)
    assert "讲" in speaker.locator(".speaker-controls-notes .value").inner_text()
    assert blocked == [] and errors == []


# ---- accessibility -------------------------------------------------------------------------


@pytest.mark.slow
def test_axe_finds_no_serious_violations(deck, built):
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    found = []
    deck.evaluate("Reveal.configure({transition: 'none'})")  # audit slides at rest
    for k in range(len(TIMINGS)):
        go(deck, k)
        found += [
            (k, v["id"])
            for v in axe.run(deck).response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
    deck.keyboard.press("m")
    deck.locator(".slide-menu.active").wait_for(state="visible")
    found += [
        ("menu", v["id"])
        for v in axe.run(deck).response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert found == []
