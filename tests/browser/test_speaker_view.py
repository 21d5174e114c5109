"""The speaker view, in real Chromium: the current slide's computed values with their source
`file:line` and the code lines behind them (as text, updated on every slide change); its
"Upcoming" label above the next slide's title, never over it; the slide number beside the
navigation arrows, never under them; the pause screen in the deck's language; and "." from
the speaker window blanking and restoring the projector however quickly it is pressed twice."""

from __future__ import annotations

import functools
import http.server
import textwrap
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from catalogue import write_lesson
from fixture_build import Built, run_cli

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Frame, Page

pytestmark = pytest.mark.browser

LESSON = {
    "lesson.yml": "title: 讲者视图\nlang: zh-CN\n",
    "01-a.md": """
        # 开场

        第一页。

        ## 两个数

        ```{python}
        import math
        total = sum(range(10))
        label = "<b>粗</b>"
        ```

        总和 `{python} total`，一半 `{python} total / 2`，标签 `{python} label`。

        ::: notes
        1 分钟。
        :::

        ## 另一个数

        ```{python}
        root = math.sqrt(2)
        ```

        根号二约为 `{python} f"{root:.4f}"`。

        ## 没有数

        谢谢。
        """,
}
TWO, ONE, NONE = 1, 2, 3  # slide indices


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("speaker")
    write_lesson(root, LESSON, "speaker")
    proc = run_cli(root, "speaker", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "speaker", proc)


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


def go(page: Page | Frame, index: int) -> None:
    page.evaluate(f"Reveal.slide({index})")
    page.wait_for_function(f"Reveal.getIndices().h === {index}")


def open_speaker_view(context: BrowserContext, deck: Page) -> tuple[Page, Frame, Frame]:
    deck.evaluate("document.activeElement.blur()")
    with context.expect_page() as info:
        deck.keyboard.press("s")
    speaker = info.value
    speaker.set_default_timeout(10_000)
    h = deck.evaluate("Reveal.getIndices().h")
    current = speaker.wait_for_selector("#current-slide iframe").content_frame()
    upcoming = speaker.wait_for_selector("#upcoming-slide iframe").content_frame()
    assert current is not None and upcoming is not None
    for frame, at in ((current, h), (upcoming, h + 1)):
        frame.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
        frame.wait_for_function(f"Reveal.getIndices().h === {at}")
    speaker.wait_for_selector(".deck-speaker-values", state="attached")
    return speaker, current, upcoming


VALUES = """() => Array.from(document.querySelectorAll('.deck-speaker-values li')).map(li => ({
  text: li.querySelector('.deck-value-text').textContent,
  expr: li.querySelector('code').textContent,
  loc: li.querySelector('.deck-value-loc').textContent,
  code: Array.from(li.querySelectorAll('pre')).map(p => p.textContent)}))"""


# ---- values ----------------------------------------------------------------------------------


def test_the_speaker_view_lists_the_slides_values_with_their_sources(context, deck):
    go(deck, TWO)
    speaker, _, _ = open_speaker_view(context, deck)
    assert speaker.locator(".deck-speaker-values").is_visible()
    assert speaker.evaluate(VALUES) == [
        {
            "text": "45",
            "expr": "total",
            "loc": "content/speaker/01-a.md:13",
            "code": ["来自 content/speaker/01-a.md:9\ntotal = sum(range(10))"],
        },
        {
            "text": "22.5",
            "expr": "total / 2",
            "loc": "content/speaker/01-a.md:13",
            "code": ["来自 content/speaker/01-a.md:9\ntotal = sum(range(10))"],
        },
        {
            "text": "<b>粗</b>",  # computed text stays text
            "expr": "label",
            "loc": "content/speaker/01-a.md:13",
            "code": ['来自 content/speaker/01-a.md:10\nlabel = "<b>粗</b>"'],
        },
    ]
    assert speaker.locator(".deck-speaker-values b").count() == 0
    go(deck, ONE)  # follows the projector
    speaker.wait_for_function(
        "document.querySelector('.deck-speaker-values .deck-value-text').textContent === '1.4142'"
    )
    assert speaker.evaluate(VALUES) == [
        {
            "text": "1.4142",
            "expr": 'f"{root:.4f}"',
            "loc": "content/speaker/01-a.md:25",
            "code": ["来自 content/speaker/01-a.md:22\nroot = math.sqrt(2)"],
        }
    ]
    go(deck, NONE)
    speaker.wait_for_function("document.querySelector('.deck-speaker-values').hidden")


@pytest.fixture
def served(built: Built) -> Iterator[tuple[str, threading.Event]]:
    """The built deck over HTTP; once the event is set, `assets/deck.js` is sent 1.5 s late:
    longer than the speaker window's heartbeat (1 s), which thus reaches a reloaded page
    between its scripts."""
    slow = threading.Event()

    class Slow(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            if slow.is_set() and self.path.startswith("/assets/deck.js"):
                time.sleep(1.5)
            super().do_GET()

        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Slow, directory=str(built.out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html", slow
    server.shutdown()
    server.server_close()


def speaker_values_emptied(context: BrowserContext, deck: Page, address: str) -> Page:
    """The deck at `address` on slide TWO, its speaker view open with the values box filled,
    then emptied and hidden (a reloaded deck must fill it again)."""
    deck.goto(address)
    deck.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    go(deck, TWO)
    speaker, _, _ = open_speaker_view(context, deck)
    speaker.wait_for_function("!document.querySelector('.deck-speaker-values').hidden")
    speaker.evaluate(
        "() => { const box = document.querySelector('.deck-speaker-values'); "
        "box.querySelector('ul').textContent = ''; box.hidden = true; }"
    )
    return speaker


def test_a_reloaded_projector_fills_the_open_speaker_view_once_reveal_is_ready(context, served):
    errors: list[str] = []
    deck = context.new_page()
    deck.set_default_timeout(10_000)
    deck.on("pageerror", lambda exc: errors.append(str(exc)))
    address, slow = served
    speaker = speaker_values_emptied(context, deck, address)
    slow.set()
    deck.reload()  # the live preview does this when more than a slide changed
    deck.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    # the heartbeat came while deck.js was loading: its parts were not asked for the slide
    # then, but once reveal was ready
    speaker.wait_for_function(
        "document.querySelector('.deck-speaker-values .deck-value-text')?.textContent === '45'"
    )
    assert errors == []


# ---- labels and numbers do not cover what they label -------------------------------------------


def boxes_overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def box_in(page: Page, frame_selector: str, frame: Frame, selector: str) -> dict:
    """A box inside a preview, in the speaker window's coordinates."""
    outer = page.locator(frame_selector).bounding_box()
    inner = frame.evaluate(
        f"""() => {{ const r = document.querySelector({selector!r}).getBoundingClientRect();
              return {{x: r.x, y: r.y, width: r.width, height: r.height}}; }}"""
    )
    assert outer is not None
    return {**inner, "x": inner["x"] + outer["x"], "y": inner["y"] + outer["y"]}


@pytest.mark.parametrize("size", [(1100, 700), (1280, 720), (1600, 900)])
def test_upcoming_label_and_slide_number_cover_nothing(context, deck, size, tmp_path):
    go(deck, TWO)
    speaker, current, upcoming = open_speaker_view(context, deck)
    speaker.set_viewport_size({"width": size[0], "height": size[1]})
    upcoming.wait_for_function("document.querySelector('section.present h2').offsetHeight > 0")
    label = speaker.locator("#upcoming-slide .label").bounding_box()
    title = box_in(speaker, "#upcoming-slide iframe", upcoming, "section.present h2")
    assert label is not None and title["height"] > 0
    assert not boxes_overlap(label, title), (label, title)
    number = box_in(speaker, "#current-slide iframe", current, ".reveal .slide-number")
    for arrow in (".navigate-right", ".navigate-left"):
        box = box_in(speaker, "#current-slide iframe", current, f".reveal .controls {arrow}")
        assert box["width"] > 0 and not boxes_overlap(number, box), (arrow, number, box)
    speaker.screenshot(path=tmp_path / "speaker.png")  # to look at while debugging
    projector_number = deck.locator(".reveal .slide-number").bounding_box()
    arrow = deck.locator(".reveal .controls .navigate-right").bounding_box()
    assert not boxes_overlap(projector_number, arrow)


# ---- the pause screen ----------------------------------------------------------------------------


LABELS = """() => {
  const q = s => document.querySelector(s);
  return {upcoming: q('#upcoming-slide > .label').textContent,
          time: q('.speaker-controls-time > h4.label').firstChild.textContent.trim(),
          reset: q('.speaker-controls-time .reset-button').textContent,
          pacing: q('.speaker-controls-time .pacing-title').textContent,
          notes: q('.speaker-controls-notes > .label').textContent,
          layout: q('.speaker-layout-label').textContent,
          english: [...document.querySelectorAll('.label, .reset-button')].map(e => e.textContent)
            .join(' | ').match(/Upcoming|Time|Click to Reset|Pacing|Notes|Layout|Default/g) || []};
}"""


def test_reveals_own_speaker_view_labels_speak_the_decks_language(context, deck):
    speaker, _, _ = open_speaker_view(context, deck)
    labels = speaker.evaluate(LABELS)
    assert labels.pop("english") == []  # no label of reveal's left in English
    assert labels == {
        "upcoming": "下一张",
        "time": "时间",
        "reset": "点击重置",
        "pacing": "节奏：本页还剩的时间",
        "notes": "讲稿",
        "layout": "布局：默认",
    }
    # reveal writes the layout label again when the lecturer picks another layout
    speaker.select_option(".speaker-layout-dropdown", "wide")
    assert speaker.evaluate("document.body.dataset.speakerLayout") == "wide"
    assert speaker.locator(".speaker-layout-label").text_content() == "布局：宽屏"
    speaker.select_option(".speaker-layout-dropdown", "default")
    speaker.close()


def test_the_pause_screen_speaks_the_decks_language(deck):
    deck.keyboard.press(".")
    deck.wait_for_function("Reveal.isPaused()")
    button = deck.locator(".pause-overlay .resume-button")
    assert button.inner_text() == "继续演示"
    button.click()
    deck.wait_for_function("!Reveal.isPaused()")


def test_two_quick_periods_in_the_speaker_window_blank_and_restore(context, deck):
    speaker, current, _ = open_speaker_view(context, deck)
    deck.evaluate(
        """() => { window.__pauses = [];
             Reveal.on('paused', () => __pauses.push('paused'));
             Reveal.on('resumed', () => __pauses.push('resumed')); }"""
    )
    speaker.locator("#speaker-controls").click()
    speaker.keyboard.press(".")
    deck.wait_for_function("Reveal.isPaused()")  # at once on the projector
    speaker.keyboard.press(".")
    deck.wait_for_function("!Reveal.isPaused()")
    speaker.keyboard.press(".")
    speaker.keyboard.press(".")  # twice at once: before any state went back and forth
    deck.wait_for_function(
        "__pauses.join() === 'paused,resumed,paused,resumed'"
    )  # all reach the projector
    # the preview follows the projector, and nothing pauses the projector again
    current.wait_for_function("!Reveal.isPaused()")
    speaker.keyboard.press("ArrowRight")  # a later key: by then any stray sync has arrived
    deck.wait_for_function("Reveal.getIndices().h === 1")
    current.wait_for_function("Reveal.getIndices().h === 1")
    assert deck.evaluate("__pauses.join()") == "paused,resumed,paused,resumed"
    assert not deck.evaluate("Reveal.isPaused()")


@pytest.mark.slow
def test_an_english_deck_pauses_and_polls_in_english(context, tmp_path):
    files = {"lesson.yml": "title: Poll\nlang: en\n", "01-a.md": textwrap.dedent(LESSON["01-a.md"])}
    files["01-a.md"] += "\n## Quiz\n\n::: quiz\nOne plus one?\n\n- [ ] 1\n- [x] 2\n:::\n"
    write_lesson(tmp_path, files, "english")
    proc = run_cli(tmp_path, "english", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    page = context.new_page()
    page.goto((tmp_path / "dist" / "english" / "index.html").as_uri() + "#/4")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    choice = page.locator("section.present .quiz-choice").nth(0)
    choice.click()
    assert choice.locator(".quiz-count").inner_text() == "1 vote"
    page.keyboard.press(".")
    page.wait_for_function("Reveal.isPaused()")
    resume = page.locator(".pause-overlay .resume-button")
    resume.wait_for(state="visible")  # (the overlay fades in)
    page.wait_for_function(
        "document.querySelector('.pause-overlay .resume-button').innerText.trim() !== ''"
    )
    assert resume.inner_text() == "Resume presentation"


def test_a_reloaded_projector_fills_the_open_speaker_view_when_the_heartbeat_comes_after_ready(
    context, served
):
    """The other order: the speaker window says nothing until the reloaded deck is ready (its
    scripts paused), so its first heartbeat reaches a page whose "ready" has passed."""
    deck = context.new_page()
    deck.set_default_timeout(10_000)
    speaker = speaker_values_emptied(context, deck, served[0])
    cdp = context.new_cdp_session(speaker)
    cdp.send("Emulation.setScriptExecutionDisabled", {"value": True})
    deck.reload()
    deck.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    cdp.send("Emulation.setScriptExecutionDisabled", {"value": False})
    speaker.wait_for_function(
        "document.querySelector('.deck-speaker-values .deck-value-text')?.textContent === '45'"
    )
