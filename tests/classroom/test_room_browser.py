"""A lecture in real Chromium: the presenter's deck and several students' devices (a laptop, a
phone) on one classroom server. The devices follow the presenter's slide and fragment, a
student browses back and returns with "Follow", devices vote, the speaker view shows the join
QR code and the live counts, `A` shows the votes and then the answer on every screen; a phone
reads the slide as a page (body text at a readable size, nothing wider than the screen) and a
screen reader meets no `application` role."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from fixture_build import Built
from room_support import Served, serve_room, wait_for

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
CELL, QUIZ, END = 1, 2, 4  # slides (0-based)


class Watch:
    """Pages that must raise no error."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def page(self, context: BrowserContext, url: str) -> Page:
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.on("pageerror", lambda exc: self.errors.append(f"{url}: {exc}"))
        page.goto(url)
        page.wait_for_function("window.deckRoom && deckRoom.messages > 0 && Reveal.isReady()")
        return page


@pytest.fixture
def room(
    browser: Browser, served: Served
) -> Iterator[tuple[Served, Page, list[Page], BrowserContext, Watch]]:
    watch = Watch()
    contexts = [browser.new_context(viewport={"width": 1280, "height": 720})]
    contexts.append(browser.new_context(viewport={"width": 1280, "height": 720}))
    contexts.append(browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True))
    try:
        presenter = watch.page(contexts[0], served.lead_url)
        presenter.evaluate("Reveal.configure({transition: 'none'})")
        students = [watch.page(c, served.audience_url) for c in contexts[1:]]
        yield served, presenter, students, contexts[0], watch
        assert watch.errors == []
    finally:
        for context in contexts:
            context.close()


def at(page: Page) -> list:
    return page.evaluate("[Reveal.getIndices().h, Reveal.getIndices().f ?? null]")


def wait_at(page: Page, h: int, f: int | None = None) -> None:
    page.wait_for_function(
        "([h, f]) => Reveal.getIndices().h === h && (f === null || Reveal.getIndices().f === f)",
        arg=[h, f],
    )


def test_devices_follow_the_presenters_slide_and_fragment(room):
    served, presenter, students, _, _ = room
    presenter.keyboard.press("ArrowRight")  # the cell slide
    for student in students:
        wait_at(student, CELL)
    presenter.keyboard.press("ArrowRight")  # its fragment
    for student in students:
        wait_at(student, CELL, 0)
        assert student.locator("section.present .fragment.visible").count() == 1
    assert all(s.evaluate("deckRoom.following") for s in students)


def test_a_student_browses_back_and_returns_with_follow(room):
    served, presenter, students, _, _ = room
    laptop, phone = students
    presenter.evaluate(f"Reveal.slide({QUIZ})")
    wait_at(laptop, QUIZ)
    wait_at(phone, QUIZ)
    laptop.keyboard.press("ArrowLeft")  # a student looks back
    phone.locator(".deck-room-bar button").first.click()  # (the phone's ◀)
    for student in students:
        wait_at(student, CELL)
        assert not student.evaluate("deckRoom.following")
        follow = student.get_by_role("button", name="Follow")
        assert follow.get_attribute("aria-pressed") == "false"
    presenter.evaluate(f"Reveal.slide({END})")
    for student in students:  # the room hears it, but the student stays where they are
        student.wait_for_function(f"deckRoom.state.position.h === {END}")
        assert at(student)[0] == CELL
    for student in students:
        student.get_by_role("button", name="Follow").click()
        wait_at(student, END)
        assert student.evaluate("deckRoom.following")


@pytest.mark.slow
def test_devices_vote_the_speaker_view_counts_and_A_reveals_votes_then_answer(room):
    served, presenter, students, context, _ = room
    laptop, phone = students
    presenter.evaluate(f"Reveal.slide({QUIZ})")
    for student in students:
        wait_at(student, QUIZ)
    presenter.evaluate("document.activeElement.blur()")
    with context.expect_page() as opened:
        presenter.keyboard.press("s")
    speaker = opened.value
    speaker.set_default_timeout(20_000)
    speaker.wait_for_selector(".deck-speaker-room img", state="attached")
    speaker.wait_for_function("document.querySelector('.deck-speaker-room img').naturalWidth > 0")
    address = speaker.locator(".deck-room-address").inner_text()
    assert address == f"127.0.0.1:{served.port}/room/"
    speaker.wait_for_function(
        "document.querySelector('.deck-room-devices').textContent === '2 devices following'"
    )
    laptop.locator("section.present .quiz-choice").nth(0).click()
    laptop.locator("section.present .quiz-choice").nth(1).click()  # changed: one vote
    phone.locator("section.present .quiz-choice").nth(1).click()
    phone.wait_for_function("document.querySelector('section.present .deck-mine')")
    speaker.wait_for_function(
        "Array.from(document.querySelectorAll('.deck-room-counts li')).map(l => l.textContent)"
        ".join('|') === 'A  0 votes|B  2 votes  ✓ Answer|C  0 votes'"
    )
    # nothing on the projector or the devices yet: no counts, no answer
    for page in (presenter, *students):
        assert page.locator("section.present .quiz-count:not([hidden])").count() == 0
        assert page.locator("section.present .quiz-badge").count() == 0
    assert "Your vote: B." in phone.locator("section.present .quiz-feedback").inner_text()
    presenter.keyboard.press("a")  # the votes, on every screen; voting closes
    for page in (presenter, *students):
        page.wait_for_function(
            "document.querySelectorAll('section.present .quiz-count:not([hidden])').length === 3"
        )
        counts = page.locator("section.present .quiz-count").all_inner_texts()
        assert counts == ["0 votes", "2 votes", "0 votes"]
        assert page.locator("section.present .quiz-badge").count() == 0
    assert laptop.locator("section.present .quiz-choice").nth(2).is_disabled()
    preview = speaker.wait_for_selector("#current-slide iframe").content_frame()
    assert preview is not None  # the speaker view's preview of the slide shows them too
    preview.wait_for_function(
        "document.querySelectorAll('section.present .quiz-count:not([hidden])').length === 3"
    )
    speaker.locator(".deck-room-step").click()  # the answer (A from the speaker view)
    for page in (presenter, *students):
        page.wait_for_function("document.querySelector('section.present .quiz.revealed')")
        assert "Two and two make 4" in page.locator("section.present .quiz-explain").inner_text()
        assert page.locator("section.present .quiz-badge").count() == 1
    badge = phone.locator("section.present .quiz-choice").nth(1).inner_text()
    assert "Answer" in badge
    presenter.screenshot(path=str(served.preview.server.out / "projector.png"))
    phone.screenshot(path=str(served.preview.server.out / "phone.png"))
    speaker.screenshot(path=str(served.preview.server.out / "speaker.png"))


def test_a_phone_reads_the_slide_as_a_page_and_a_screen_reader_browses_it(room):
    served, presenter, students, _, _ = room
    phone = students[1]
    presenter.evaluate(f"Reveal.slide({CELL})")
    wait_at(phone, CELL)
    shown = phone.evaluate(
        """() => { const p = document.querySelector('section.present .slide-body > p');
                   const size = parseFloat(getComputedStyle(p).fontSize) * p.currentCSSZoom;
                   return {size, wide: document.documentElement.scrollWidth,
                           reader: document.documentElement.classList.contains('deck-reader')}; }"""
    )
    assert shown["reader"] and shown["wide"] <= PHONE["width"]
    assert shown["size"] >= 16, shown  # reveal's scroll view showed it at about 8 px
    session = phone.context.new_cdp_session(phone)
    nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    roles = {n.get("role", {}).get("value") for n in nodes if not n.get("ignored")}
    names = " ".join(str(n.get("name", {}).get("value", "")) for n in nodes if not n.get("ignored"))
    assert "application" not in roles
    assert "heading" in roles and "A cell" in names and "The sum is" in names
    # the value's popover opens on the phone too
    phone.locator("section.present .value").first.click()
    popover = phone.locator(".deck-popover, [role=dialog]").first
    popover.wait_for(state="visible")
    assert "total" in popover.inner_text()


HAS_INK = """() => { const data = JSON.parse(RevealChalkboard.getData())[0].data;
  return data.some(d => d.slide.h === %d && d.events.some(e => e.type === 'draw')); }"""


@pytest.mark.slow
def test_ink_reaches_the_devices_is_kept_and_printed_in_the_annotated_slides(
    browser: Browser, built: Built
):
    import pikepdf

    record = built.root / "dist" / "room.classroom"
    watch = Watch()
    with serve_room(built) as served:
        lead = browser.new_context(viewport={"width": 1280, "height": 720})
        device = browser.new_context(viewport={"width": 1280, "height": 720})
        handheld = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        try:
            presenter = watch.page(lead, served.lead_url)
            student = watch.page(device, served.audience_url)
            phone = watch.page(handheld, served.audience_url)
            presenter.evaluate(f"Reveal.slide({CELL})")
            wait_at(student, CELL)
            # the chalkboard plugin redraws a slide's ink 0.8 s after it is shown (its
            # `transition`), ending a stroke begun before: the lecturer draws after that
            presenter.wait_for_timeout(1000)
            presenter.keyboard.press("c")  # the pen
            presenter.mouse.move(400, 330)
            presenter.mouse.down()
            presenter.mouse.move(900, 330, steps=12)
            presenter.mouse.up()
            student.wait_for_function(HAS_INK % CELL)  # drawn on the student's screen too
            # a phone reading the slide as text is told, and shows the slide with its ink
            view = phone.locator(".deck-room-bar button").nth(3)
            phone.wait_for_function(
                "document.querySelectorAll('.deck-room-bar button')[3].textContent.startsWith('✎')"
            )
            assert phone.locator("#notescanvas").is_hidden()
            view.click()
            assert view.get_attribute("aria-pressed") == "true"
            assert phone.locator("#notescanvas").is_visible()
            phone.wait_for_function(HAS_INK % CELL)
            wait_for(lambda: (record / "ink.json").is_file(), 10)  # saved as it was drawn
            presenter.reload()  # ... and drawn again after a reload
            presenter.wait_for_function("window.deckRoom && Reveal.isReady()")
            presenter.wait_for_function(HAS_INK % CELL)
            student.screenshot(path=str(record / "student-ink.png"))
            assert watch.errors == []
        finally:
            lead.close()
            device.close()
            handheld.close()
    # the class is over: the slides with the ink, as vectors on the slide it was drawn on
    with pikepdf.open(record / "slides-annotated.pdf") as pdf:
        for page in pdf.pages:
            page.contents_coalesce()
        contents = [p.obj.Contents.read_bytes() for p in pdf.pages]
    inked = [k for k, c in enumerate(contents) if b"/DeckInk BMC" in c]
    assert inked == [CELL]
    assert (record / "handout-annotated.pdf").is_file()


@pytest.mark.slow
def test_the_presenters_layout_check_and_slide_previews_never_move_the_room(room):
    served, presenter, students, context, _ = room
    presenter.evaluate(f"Reveal.slide({END})")
    students[0].wait_for_function(f"Reveal.getIndices().h === {END}")
    # the preview's layout check lays the presenter's page out for print (in a hidden frame)
    printed = context.new_page()
    printed.goto(f"{served.origin}/room/?print-pdf")
    printed.wait_for_function("document.documentElement.dataset.pdfReady === 'true'")
    printed.close()
    presenter.evaluate("document.activeElement.blur()")
    with context.expect_page() as opened:  # the speaker view's previews load the deck too
        presenter.keyboard.press("s")
    speaker = opened.value
    speaker.wait_for_selector("#current-slide iframe")
    speaker.wait_for_function("document.querySelector('.deck-speaker-room img')")
    presenter.wait_for_timeout(1500)  # (what a stray copy would have said by now)
    assert served.classroom.rooms["room"].position["h"] == END
    assert students[0].evaluate("Reveal.getIndices().h") == END
