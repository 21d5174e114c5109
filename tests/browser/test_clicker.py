"""Presenting with a clicker, in real Chromium: the keys a clicker sends (→ ← PageUp PageDown
space) turn the page while a value's provenance popover is open (closing it) and after a
quiz choice or a widget control was clicked with the mouse; `A` in the speaker window reveals
the quiz's answer on the projector; "." blanks the screen, from either window."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from catalogue import write_lesson
from fixture_build import Built, run_cli

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Frame, Page

pytestmark = pytest.mark.browser

LESSON = {
    "lesson.yml": "title: 遥控\nlang: zh-CN\nquiz:\n  mode: check\n",  # judged at once
    "toy.py": '''
        from deck.show import HTML


        def toy():
            """A button and a slider writing what was done into one line."""
            return HTML(
                '<div class="toy">'
                '<button type="button">按钮</button>'
                '<input type="range" min="0" max="10" value="3" aria-label="强度">'
                '<p class="toy-out">未动</p></div>'
                "<script>(function () {"
                "var root = document.currentScript.previousElementSibling;"
                'var out = root.querySelector(".toy-out"); var n = 0;'
                'root.querySelector("button").addEventListener("click", function () {'
                '  n += 1; out.textContent = "按了 " + n; });'
                'root.querySelector("input").addEventListener("input", function (e) {'
                '  out.textContent = "强度 " + e.target.value; });'
                "})();</script>"
            )
        ''',
    "01-a.md": """
        # 开场

        第一页。

        ## 数值

        ```{python}
        total = sum(range(10))
        ```

        总和是 `{python} total`。

        ::: notes
        1 分钟。点开数值。
        :::

        ## 小测

        ::: quiz
        1 + 1 等于多少？

        - [ ] 1
        - [x] 2
        - [ ] 3

        ::: explain
        解析：一加一。
        :::
        :::

        ## 开关

        ```{python}
        from toy import toy
        toy()
        ```

        ## 结束

        谢谢。
        """,
}
VALUE, QUIZ, WIDGET, LAST = 1, 2, 3, 4  # slide indices


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("clicker")
    write_lesson(root, LESSON, "clicker")
    proc = run_cli(root, "clicker", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "clicker", proc)


@pytest.fixture
def deck(context: BrowserContext, built: Built) -> Iterator[Page]:
    errors: list[str] = []
    page = context.new_page()
    page.set_default_timeout(10_000)  # a local deck: a wait this long is a failure
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((built.out / "index.html").as_uri())
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    page.evaluate("Reveal.configure({transition: 'none'})")
    yield page
    assert errors == []


def go(page: Page | Frame, index: int) -> None:
    page.evaluate(f"Reveal.slide({index})")
    page.wait_for_function(f"Reveal.getIndices().h === {index}")


def at(page: Page | Frame) -> int:
    return page.evaluate("Reveal.getIndices().h")


def open_popover(deck: Page) -> None:
    go(deck, VALUE)
    value = deck.locator("section.present .value[data-expr]")
    assert value.inner_text() == "45"  # sum(range(10))
    value.click()
    deck.locator(".value-popover").wait_for(state="visible")
    assert deck.evaluate("document.activeElement.classList.contains('value-popover')")


# ---- the popover --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "moves"),
    [("PageDown", 1), ("ArrowRight", 1), ("Space", 1), ("PageUp", -1), ("ArrowLeft", -1)],
)
def test_clicker_keys_turn_the_page_and_close_the_popover(deck, key, moves):
    open_popover(deck)
    deck.keyboard.press(key)
    deck.wait_for_function(f"Reveal.getIndices().h === {VALUE + moves}")
    assert deck.locator(".value-popover").count() == 0


def test_a_key_typed_in_the_popover_still_stays_there(deck):
    open_popover(deck)
    deck.keyboard.press("Escape")  # closes it, the slide stays
    assert deck.locator(".value-popover").count() == 0
    assert at(deck) == VALUE


def test_clicker_keys_work_with_focus_inside_the_popover(deck):
    open_popover(deck)
    deck.locator(".value-popover .value-code").first.focus()
    deck.keyboard.press("PageDown")
    deck.wait_for_function(f"Reveal.getIndices().h === {QUIZ}")
    assert deck.locator(".value-popover").count() == 0


# ---- focus left on a control by the mouse ---------------------------------------------------


@pytest.mark.parametrize("key", ["Space", "ArrowRight", "PageDown"])
def test_a_clicked_quiz_choice_does_not_keep_the_clicker(deck, key):
    go(deck, QUIZ)
    choice = deck.locator("section.present .quiz-choice").nth(0)
    choice.click()
    assert deck.locator("section.present .quiz-feedback").inner_text() == "✗ 再想想"
    deck.keyboard.press(key)
    deck.wait_for_function(f"Reveal.getIndices().h === {WIDGET}")
    go(deck, QUIZ)  # the choice was not pressed again nor changed
    assert deck.locator("section.present .quiz-choice[aria-pressed=true]").count() == 1
    assert choice.get_attribute("aria-pressed") == "true"


@pytest.mark.parametrize("key", ["Space", "ArrowRight", "PageDown"])
def test_a_clicked_widget_button_does_not_keep_the_clicker(deck, key):
    go(deck, WIDGET)
    deck.locator("section.present .toy button").click()
    out = deck.locator(".reveal .slides .toy-out")
    assert out.inner_text() == "按了 1"
    deck.keyboard.press(key)
    deck.wait_for_function(f"Reveal.getIndices().h === {LAST}")
    assert out.inner_text() == "按了 1"


@pytest.mark.parametrize(
    ("key", "to"), [("ArrowRight", LAST), ("PageDown", LAST), ("ArrowLeft", QUIZ), ("PageUp", QUIZ)]
)
def test_a_dragged_slider_does_not_keep_the_clicker(deck, key, to):
    go(deck, WIDGET)
    slider = deck.locator(".reveal .slides .toy input")
    box = slider.bounding_box()
    deck.mouse.click(box["x"] + box["width"] * 0.8, box["y"] + box["height"] / 2)
    value = slider.input_value()
    assert value != "3"  # the click moved it
    deck.keyboard.press(key)
    deck.wait_for_function(f"Reveal.getIndices().h === {to}")
    assert slider.input_value() == value


def test_keyboard_users_keep_space_and_arrows_on_their_control(deck):
    go(deck, WIDGET)
    slider = deck.locator(".reveal .slides .toy input")
    for _ in range(30):
        if deck.evaluate("document.activeElement.type === 'range'"):
            break
        deck.keyboard.press("Tab")
    deck.keyboard.press("ArrowRight")  # the keyboard's focus: the slider moves, the page stays
    assert slider.input_value() == "4"
    assert at(deck) == WIDGET
    deck.keyboard.press("PageDown")  # but a clicker's key always turns the page
    deck.wait_for_function(f"Reveal.getIndices().h === {LAST}")


# ---- the speaker window: `A` and a blank screen ----------------------------------------------


def open_speaker_view(context: BrowserContext, deck: Page) -> tuple[Page, Frame]:
    """The speaker window (`S`) and its current-slide preview, both following the deck."""
    deck.evaluate("document.activeElement.blur()")
    with context.expect_page() as info:
        deck.keyboard.press("s")
    speaker = info.value
    speaker.set_default_timeout(10_000)
    frame = speaker.wait_for_selector("#current-slide iframe").content_frame()
    assert frame is not None
    frame.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    frame.wait_for_function(f"Reveal.getIndices().h === {at(deck)}")
    speaker.wait_for_selector(".deck-speaker-button", state="attached")
    return speaker, frame


REVEALED = "document.querySelector('section.present .quiz').classList.contains('revealed')"


def test_a_in_the_speaker_window_reveals_the_answer_on_the_projector(context, deck):
    go(deck, QUIZ)
    speaker, frame = open_speaker_view(context, deck)
    speaker.locator(".speaker-controls-notes, #speaker-controls").first.click()  # its own text
    speaker.keyboard.press("a")
    deck.wait_for_function(REVEALED)
    deck.locator("section.present .quiz-explain").wait_for(state="visible")
    assert "正确答案" in deck.locator("section.present .quiz-choice").nth(1).inner_text()
    speaker.wait_for_function(
        "document.querySelector('.deck-speaker-button').getAttribute('aria-pressed') === 'true'"
    )
    # the lecturer clicked a choice in the preview: the focus is inside it, `A` still works
    frame.locator("section.present .quiz-choice").nth(0).click()
    speaker.keyboard.press("a")
    deck.wait_for_function(f"!({REVEALED})")
    deck.locator("section.present .quiz-explain").wait_for(state="hidden")
    assert deck.locator("section.present .quiz-choice").nth(0).get_attribute("aria-pressed") == (
        "true"
    )


PAUSED = "Reveal.isPaused()"


def test_period_blanks_the_screen_from_either_window(context, deck):
    open_popover(deck)
    deck.keyboard.press(".")  # with the popover open: it closes and the screen goes blank
    deck.wait_for_function(PAUSED)
    assert deck.locator(".value-popover").count() == 0
    deck.locator(".pause-overlay").wait_for(state="visible")  # black, over everything
    deck.keyboard.press(".")
    deck.wait_for_function(f"!{PAUSED}")
    speaker, current = open_speaker_view(context, deck)
    speaker.locator("#speaker-controls").click()
    speaker.keyboard.press(".")
    deck.wait_for_function(PAUSED)
    current.wait_for_function(PAUSED)  # the speaker view knows it too, before the next press
    speaker.keyboard.press(".")
    deck.wait_for_function(f"!{PAUSED}")


def test_a_with_the_focus_in_the_upcoming_preview_reveals_the_current_quiz(context, deck):
    go(deck, VALUE)
    speaker, _ = open_speaker_view(context, deck)
    upcoming = speaker.wait_for_selector("#upcoming-slide iframe").content_frame()
    upcoming.wait_for_function(f"Reveal.getIndices().h === {QUIZ}")
    go(deck, QUIZ)
    upcoming.wait_for_function(f"Reveal.getIndices().h === {WIDGET}")
    upcoming.locator("body").click()  # the lecturer clicked the next slide's preview
    speaker.keyboard.press("a")
    deck.wait_for_function(REVEALED)
    assert at(deck) == QUIZ
    speaker.keyboard.press("PageDown")  # and a clicker's key turns the projector's page
    deck.wait_for_function(f"Reveal.getIndices().h === {WIDGET}")
