"""Quiz polls, in real Chromium: by default a click adds a hand to its choice (counted on the
choice, in every window, nothing judged), `A` in either window reveals the answer and the
explanation with no verdict left beside it, the speaker view lists the current quiz's votes
and clears them (button or `R`); `quiz: {mode: check}` or `?quiz=check` judges each click
(self-study); counts never print; a bad `quiz.mode` is an error at its line."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from catalogue import write_lesson
from fixture_build import Built, run_cli

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Frame, Page

pytestmark = pytest.mark.browser

QUIZ_MD = """
    # 开场

    第一页。

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

    ## 结束

    谢谢。
    """
QUIZ = 1


def build(tmp_path_factory: pytest.TempPathFactory, name: str, yml: str) -> Built:
    root = tmp_path_factory.mktemp(name)
    write_lesson(root, {"lesson.yml": yml, "01-a.md": QUIZ_MD}, name)
    proc = run_cli(root, name, "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    return Built(root, name, proc)


@pytest.fixture(scope="module")
def poll(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build(tmp_path_factory, "poll", "title: 投票\nlang: zh-CN\n")


@pytest.fixture(scope="module")
def check(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build(tmp_path_factory, "check", "title: 自测\nlang: zh-CN\nquiz:\n  mode: check\n")


def open_deck(context: BrowserContext, built: Built, query: str = "") -> Page:
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto((built.out / "index.html").as_uri() + query + f"#/{QUIZ}")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    page.evaluate("Reveal.configure({transition: 'none'})")
    page.wait_for_function(f"Reveal.getIndices().h === {QUIZ}")
    return page


@pytest.fixture
def deck(context: BrowserContext, poll: Built) -> Iterator[Page]:
    errors: list[str] = []
    page = open_deck(context, poll)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    assert errors == []


def counts(page: Page | Frame) -> list[str]:
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('section.present .quiz-choice'))
              .map(c => { const n = c.querySelector('.quiz-count');
                          return n && !n.hidden ? n.textContent : ''; })"""
    )


def verdicts(page: Page | Frame) -> dict:
    return page.evaluate(
        """() => { const q = document.querySelector('section.present .quiz');
             return {feedback: q.querySelector('.quiz-feedback').textContent,
                     judged: q.querySelectorAll('.chosen-right, .chosen-wrong').length,
                     badge: q.querySelectorAll('.quiz-badge').length,
                     explain: !q.querySelector('.quiz-explain').hidden}; }"""
    )


def open_speaker_view(context: BrowserContext, deck: Page) -> tuple[Page, Frame]:
    deck.evaluate("document.activeElement.blur()")
    with context.expect_page() as info:
        deck.keyboard.press("s")
    speaker = info.value
    speaker.set_default_timeout(10_000)
    frame = speaker.wait_for_selector("#current-slide iframe").content_frame()
    assert frame is not None
    frame.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    frame.wait_for_function(f"Reveal.getIndices().h === {QUIZ}")
    speaker.wait_for_selector(".deck-speaker-poll", state="attached")
    return speaker, frame


def speaker_counts(speaker: Page) -> list[str]:
    return speaker.locator(".deck-speaker-poll li").evaluate_all("l => l.map(e => e.textContent)")


# ---- poll (the default) ---------------------------------------------------------------------


def test_clicks_are_counted_per_choice_and_nothing_is_judged(deck):
    choices = deck.locator("section.present .quiz-choice")
    choices.nth(0).click()
    choices.nth(0).click()
    choices.nth(2).click()  # three hands: two for A, one for C
    assert counts(deck) == ["2 票", "", "1 票"]
    assert verdicts(deck) == {"feedback": "已投 3 票", "judged": 0, "badge": 0, "explain": False}
    assert "再想想" not in deck.locator("section.present .quiz").inner_text()
    deck.keyboard.press("a")  # the lecturer reveals: the answer, its explanation, no verdict
    deck.wait_for_function("document.querySelector('section.present .quiz.revealed')")
    state = verdicts(deck)
    assert state["badge"] == 1 and state["explain"] and state["judged"] == 0
    assert "正确答案" in choices.nth(1).inner_text()
    assert counts(deck) == ["2 票", "", "1 票"]  # the counts stay beside the answer


@pytest.mark.slow
def test_the_speaker_view_shows_the_votes_and_resets_them(context, deck):
    choices = deck.locator("section.present .quiz-choice")
    speaker, frame = open_speaker_view(context, deck)
    assert speaker.locator(".deck-speaker-poll").is_visible()
    choices.nth(2).click()
    choices.nth(2).click()  # from the projector
    frame.locator("section.present .quiz-choice").nth(1).click()  # and from the preview
    deck.wait_for_function(
        "document.querySelectorAll('section.present .quiz-choice')[1].dataset.votes === '1'"
    )
    assert counts(deck) == ["", "1 票", "2 票"]
    frame.wait_for_function(
        "document.querySelectorAll('section.present .quiz-choice')[2].dataset.votes === '2'"
    )
    assert counts(frame) == ["", "1 票", "2 票"]
    speaker.wait_for_function(
        "document.querySelectorAll('.deck-speaker-poll li')[2].textContent.startsWith('C  2 票')"
    )
    assert speaker_counts(speaker) == [
        "A  0 票",
        "B  1 票  ✓ 正确答案",
        "C  2 票",
    ]
    speaker.locator(".deck-poll-reset").click()  # the button clears every window
    deck.wait_for_function("!document.querySelector('section.present .quiz-count:not([hidden])')")
    frame.wait_for_function("!document.querySelector('section.present .quiz-count:not([hidden])')")
    assert deck.locator("section.present .quiz-feedback").inner_text() == ""
    speaker.wait_for_function(
        "document.querySelectorAll('.deck-speaker-poll li')[2].textContent.startsWith('C  0 票')"
    )
    choices.nth(0).click()
    speaker.locator("#speaker-controls").click()
    speaker.keyboard.press("r")  # and so does `R` in the speaker window
    deck.wait_for_function("!document.querySelector('section.present .quiz-count:not([hidden])')")
    speaker.keyboard.press("a")  # `A` there reveals on the projector
    deck.wait_for_function("document.querySelector('section.present .quiz.revealed')")


def test_the_speaker_view_counts_a_click_in_the_projector_at_once(context, deck):
    speaker, _ = open_speaker_view(context, deck)
    deck.locator("section.present .quiz-choice").nth(0).click()  # one click, nothing after it
    speaker.wait_for_function(
        "document.querySelectorAll('.deck-speaker-poll li')[0].textContent.startsWith('A  1 票')",
        timeout=3000,
    )  # (it was one click behind: the list was drawn before the click was counted)


def test_the_speaker_view_hides_the_votes_on_a_slide_without_a_quiz(context, deck):
    speaker, _ = open_speaker_view(context, deck)
    deck.evaluate("Reveal.slide(0)")
    speaker.wait_for_function("document.querySelector('.deck-speaker-poll').hidden")


def test_counts_never_print(deck):
    deck.locator("section.present .quiz-choice").nth(0).click()
    assert deck.locator("section.present .quiz-count").is_visible()
    deck.emulate_media(media="print")
    assert not deck.locator("section.present .quiz-count").is_visible()


# ---- check mode: judged at once (self-study) ---------------------------------------------------


def assert_checks(page: Page) -> None:
    choices = page.locator("section.present .quiz-choice")
    choices.nth(0).click()
    assert verdicts(page)["feedback"] == "✗ 再想想"
    assert counts(page) == ["", "", ""]
    page.keyboard.press("a")
    page.wait_for_function("document.querySelector('section.present .quiz.revealed')")
    state = verdicts(page)  # the verdict does not stay beside the revealed answer
    assert state["feedback"] == "" and state["badge"] == 1 and state["explain"]
    choices.nth(2).click()
    assert verdicts(page)["feedback"] == ""


def test_check_mode_from_lesson_yml_judges_each_click(context, check):
    assert_checks(open_deck(context, check))


def test_check_mode_from_the_url_judges_each_click(context, poll):
    assert_checks(open_deck(context, poll, "?quiz=check"))


def test_poll_mode_from_the_url_overrides_the_lesson(context, check):
    page = open_deck(context, check, "?quiz=poll")
    page.locator("section.present .quiz-choice").nth(0).click()
    assert counts(page) == ["1 票", "", ""]
    assert verdicts(page)["feedback"] == "已投 1 票"


def test_a_bad_quiz_mode_is_an_error_at_its_line(tmp_path):
    yml = "title: 坏\nquiz:\n  shuffle: true\n  mode: vote\n"
    write_lesson(tmp_path, {"lesson.yml": yml, "01-a.md": QUIZ_MD}, "bad")
    proc = run_cli(tmp_path, "bad", "--no-pdf")
    assert proc.returncode == 1
    assert "content/bad/lesson.yml:4: error [config] `quiz.mode: vote` must be `poll`" in (
        proc.stderr
    )
    assert not (tmp_path / "dist" / "bad").exists()
