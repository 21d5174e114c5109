"""The overflow check in `--serve` (static/live.js, deck/preview/server.py), in real Chromium:
the page shown lays the deck out for print in a hidden frame once it is idle, and the banner
names the overflowing slides as the PDF build does; a fix clears them."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogue import options_in
from deck.options import Options
from deck.pipeline import build
from deck.preview.serve import running
from deck.source.registry import LessonFolder

pytestmark = pytest.mark.browser

READY = "window.deckLive && deckLive.ready && window.Reveal && Reveal.isReady()"
LONG = "\n".join(f"- line {n}" for n in range(40))
SLIDES = f"## Fits\n\nShort.\n\n## Too long\n\n{LONG}\n"
FIXED = "## Fits\n\nShort.\n\n## Not long\n\n- one line\n"
SHOWN = "() => deckLive.warnings && deckLive.warnings.length > 0"
BANNER = "document.getElementById('deck-live-errors').textContent"


def wait_for(check, timeout: float = 120) -> None:  # noqa: ANN001
    import time

    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def long_lesson(root: Path, slides: str) -> tuple[Path, Options, list[LessonFolder]]:
    """The lesson `long` (one section of `slides`) in `root`: its folder, the options
    `build.py --serve` builds with (no PDFs, no headless check), what the preview watches."""
    folder = root / "content" / "long"
    folder.mkdir(parents=True)
    (folder / "lesson.yml").write_text("title: long\nlang: en\ntitle-slide: false\n")
    (folder / "01-a.md").write_text(slides)
    return folder, options_in(root), [LessonFolder("long", folder)]


@pytest.mark.slow
def test_the_serve_banner_names_an_overflowing_slide_until_it_is_fixed(tmp_path: Path, browser):
    from deck.publish.pdf import measure_overflow

    folder, options, watched = long_lesson(tmp_path, SLIDES)
    assert not options.lint
    with running(lambda: build(["long"], options), watched, options.out) as p:
        wait_for(lambda: p.status.builds == 1)
        assert p.status.errors == []
        assert not (options.out / "long" / ".layout-check.json").exists()  # (the build's own)
        # the reference: the check slides.pdf's printing runs, on the built page
        expected = [str(o) for o in measure_overflow(browser, options.out / "long/index.html", 2)]
        assert len(expected) == 1
        assert "long/01-a.md:5: warning [overflow] slide 2 overflows" in expected[0]

        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{p.url}long/")
        page.wait_for_function(READY)
        page.wait_for_function(SHOWN, timeout=60_000)
        assert page.evaluate("deckLive.warnings") == expected
        assert page.evaluate(BANNER) == expected[0]
        assert page.locator("#deck-live-banner").is_visible()
        assert p.status.as_dict()["layout"]["long"]["warnings"] == expected
        # the audience's page is as it was: its slide, its focus, no frame left behind
        page.wait_for_function("document.querySelectorAll('iframe[data-deck-lint]').length === 0")
        assert page.evaluate("Reveal.getIndices().h") == 0
        assert page.evaluate("document.activeElement === document.body")

        (folder / "01-a.md").write_text(FIXED)  # the fix: the banner clears
        wait_for(lambda: p.status.builds == 2)
        page.wait_for_function("deckLive.warnings.length === 0", timeout=60_000)
        page.wait_for_function("document.getElementById('deck-live-banner').hidden")
        assert p.status.as_dict()["layout"]["long"]["warnings"] == []
        assert errors == []
        context.close()


def test_the_server_hears_only_json_about_the_page_it_serves(tmp_path: Path):
    import http.client
    import json

    _, options, watched = long_lesson(tmp_path, FIXED)
    with running(lambda: build(["long"], options), watched, options.out) as p:
        wait_for(lambda: p.status.builds == 1)
        page = p.status.as_dict()["lessons"]["long"]["page"]
        found = {"slide": 2, "source": "content/long/01-a.md:5", "dx": 0, "dy": 9}

        def post(body: object, kind: str = "application/json") -> int:
            conn = http.client.HTTPConnection("127.0.0.1", p.server.server_port, timeout=10)
            conn.request("POST", "/__deck/layout", json.dumps(body), {"Content-Type": kind})
            status = conn.getresponse().status
            conn.close()
            return status

        mine = {"lesson": "long", "page": page, "overflows": [found]}
        assert post(mine, "text/plain") == 403  # what another site could send unasked
        assert post({"lesson": "long", "page": page, "overflows": [{"bad": 1}]}) == 400
        assert post({**mine, "page": "an older page"}) == 204
        assert "long" not in p.status.as_dict()["layout"]  # not heard
        assert post(mine) == 204
        said = p.status.as_dict()["layout"]["long"]["warnings"]
        assert said == ["content/long/01-a.md:5: warning [overflow] slide 2 overflows 9 px down"]


@pytest.mark.slow
def test_a_newer_build_ends_the_running_check_at_once_and_its_page_is_checked(
    tmp_path: Path, browser
):
    """The check's hidden frame shares the page's main thread: a build that lands while it
    runs ends it (the update must not wait), and the newer page is checked instead. The frame's
    load is held until the edit has landed, so the older check cannot finish first."""
    folder, options, watched = long_lesson(tmp_path, SLIDES)
    with running(lambda: build(["long"], options), watched, options.out) as p:
        wait_for(lambda: p.status.builds == 1)
        first = p.status.as_dict()["lessons"]["long"]["page"]
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        held: list = []
        context.route("**/long/?print-pdf", lambda route: held.append(route))
        page = context.new_page()
        page.goto(f"{p.url}long/")
        page.wait_for_function(READY)
        page.wait_for_function("document.querySelector('iframe[data-deck-lint]') !== null")
        (folder / "01-a.md").write_text(SLIDES.replace("## Too long", "## Still too long"))
        wait_for(lambda: p.status.builds == 2)
        second = p.status.as_dict()["lessons"]["long"]["page"]
        assert second != first
        page.wait_for_function("deckLive.layoutAborted === 1", timeout=20_000)
        assert page.evaluate("document.querySelectorAll('iframe[data-deck-lint]').length") <= 1
        context.unroute("**/long/?print-pdf")
        for route in held:  # (the aborted frame's request: gone with its frame)
            try:
                route.continue_()
            except Exception:  # noqa: BLE001, S110
                pass
        page.wait_for_function(
            "document.querySelectorAll('.slides > section')[1].textContent.includes('Still')"
        )
        wait_for(lambda: "long" in p.status.as_dict()["layout"])
        said = p.status.as_dict()["layout"]["long"]
        assert said["page"] == second
        assert len(said["warnings"]) == 1 and "slide 2 overflows" in said["warnings"][0]
        assert page.evaluate("deckLive.layoutChecks") == 2
        context.close()


@pytest.mark.slow
def test_the_check_waits_for_a_second_without_a_newer_build(tmp_path: Path, browser):
    """The check's frame shares the page's main thread: it starts once a second has passed
    since the page showed its last build, so an author who saves again at once (or right after
    opening the preview) finds no check in the way of the update."""
    import time

    folder, options, watched = long_lesson(tmp_path, SLIDES)
    with running(lambda: build(["long"], options), watched, options.out) as p:
        wait_for(lambda: p.status.builds == 1)
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()
        page.goto(f"{p.url}long/")
        page.wait_for_function(READY)
        # the first page's own check, done before the edit (on a slow machine the build after
        # the edit may take over a second: the first page's check is then due before it comes)
        page.wait_for_function("deckLive.layoutChecks === 1", timeout=20_000)
        wait_for(lambda: "long" in p.status.as_dict()["layout"])
        first = p.status.as_dict()["layout"]["long"]["page"]
        (folder / "01-a.md").write_text(SLIDES.replace("## Too long", "## Still too long"))
        page.wait_for_function(
            "document.querySelectorAll('.slides > section')[1].textContent.includes('Still')"
        )
        patched = time.monotonic()
        page.wait_for_timeout(400)  # (started a moment after the page showed the build, it
        assert page.evaluate("deckLive.layoutChecks") == 1  # would have begun by now)
        assert not page.evaluate("deckLive.layoutAborted")
        page.wait_for_function("deckLive.layoutChecks === 2", timeout=20_000)
        assert time.monotonic() - patched >= 0.9
        wait_for(lambda: p.status.as_dict()["layout"]["long"]["page"] != first)
        said = p.status.as_dict()["layout"]["long"]
        assert said["page"] == p.status.as_dict()["lessons"]["long"]["page"]
        assert len(said["warnings"]) == 1 and "slide 2 overflows" in said["warnings"][0]
        context.close()
