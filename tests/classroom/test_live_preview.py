"""Live cells in the preview (`build.py room --serve`, no `--classroom`, in its own process): the
presenter's address printed in the terminal hands its browser the secret; only a request
carrying it, naming this preview as its Host and Origin, with a JSON body, runs a cell (a
request without it, or from another origin, is refused and runs nothing); in real Chromium the
presenter edits a cell on the slide, runs it (the projector window, another window and the
speaker view's preview show the new output and values), an error shows as text at its line,
and Save writes the lesson's file. A build without `--serve` imports nothing of the classroom.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from fixture_build import ROOT, copy_fixture
from room_support import Running, http, preview_process, wait_for

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Frame, Page

CELL = "content/room/01-room.md:11"  # the fixture's cell (its `{python}` fence)
CODE = "n = 6\ntotal = sum(range(n))\nprint(total)"


@pytest.fixture(scope="module")
def preview(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    root = tmp_path_factory.mktemp("preview")
    copy_fixture("room", root)
    with preview_process(root) as running:
        yield running


def run(preview: Running, marker: Path, headers: dict[str, str | None]) -> int:
    """A run of the cell that, if it ran, would leave `marker` (its code longer than a vote's
    4 KB: a cell's code may be long)."""
    code = f"open({str(marker)!r}, 'w').close()  # {'·' * 3000}\n{CODE}"
    body = {"lesson": "room", "cell": CELL, "code": code}
    return http(preview, "POST", "/__deck/room/run", body, headers, timeout=120)[0]


def test_the_terminal_says_which_address_to_open(preview: Running):
    assert preview.audience_url == f"{preview.origin}/room/"
    assert preview.lead_url.startswith(f"{preview.origin}/__deck/lead?key=")
    assert preview.lead_url.endswith("&lesson=room") and len(preview.key) >= 24
    assert any(x.startswith("presenter, to edit and run cells") for x in preview.lines)
    code, headers, _ = http(preview, "GET", preview.lead_url.removeprefix(preview.origin))
    assert code == 303 and headers["Location"] == "/room/"
    cookie = headers["Set-Cookie"]
    assert cookie.startswith(f"{preview.lead_cookie};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert http(preview, "GET", "/__deck/lead?key=guess&lesson=room")[0] == 403
    # (said on the server's terminal, read by this process's thread a moment after the answer)
    wait_for(lambda: any("a wrong presenter key" in x for x in preview.lines), 10)


def test_only_the_presenters_page_has_the_controls(preview: Running):
    _, _, body = http(preview, "GET", "/room/")
    page = body.decode()
    assert 'id="DECK_CELLS"' in page and '"lead": false' in page  # it shows what runs change
    assert "deck-cell-editor" not in page and preview.key not in page
    _, _, body = http(preview, "GET", "/room/", headers={"Cookie": preview.lead_cookie})
    page = body.decode()
    assert '"lead": true' in page and "deck-cell-editor" in page and preview.key not in page
    assert "The lecturer's notes" in page and 'id="deck-live"' in page  # the preview's own
    asked = f"/__deck/room/cell?lesson=room&cell={CELL}"
    assert http(preview, "GET", asked)[0] == 404
    code, _, body = http(preview, "GET", asked, headers={"Cookie": preview.lead_cookie})
    assert code == 200 and json.loads(body) == {"code": CODE}


def test_a_request_without_the_secret_or_from_another_origin_runs_nothing(
    preview: Running, tmp_path: Path
):
    secret = preview.lead_cookie
    refused: list[tuple[dict[str, str | None], int]] = [
        ({}, 403),  # no secret: another local process, or a page of another site
        ({"Cookie": f"deck_lead_{preview.port}=guess"}, 403),
        ({"Cookie": f"deck_lead_1={preview.key}"}, 403),  # another server's cookie name
        # the secret, sent by the browser from a page of another origin (CSRF)
        ({"Cookie": secret, "Origin": "http://evil.example"}, 403),
        ({"Cookie": secret, "Origin": "http://127.0.0.1:1"}, 403),  # another local server
        ({"Cookie": secret, "Origin": "null"}, 403),
        ({"Cookie": secret, "Host": f"evil.example:{preview.port}"}, 403),  # DNS rebinding
        ({"Cookie": secret, "Content-Type": "text/plain"}, 415),  # what a form can send
    ]
    for k, (headers, status) in enumerate(refused):
        assert run(preview, tmp_path / f"ran-{k}", headers) == status, headers
    saved = {"lesson": "room", "cell": CELL}
    assert http(preview, "POST", "/__deck/room/save", saved)[0] == 403
    others = {"Cookie": secret, "Origin": "http://127.0.0.1:1"}
    assert http(preview, "POST", "/__deck/room/save", saved, others)[0] == 403
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing ran
    # the presenter's own request, from the preview's page, runs it (and it would be seen)
    assert run(preview, tmp_path / "ran", {"Cookie": secret}) == 200
    assert (tmp_path / "ran").exists()


def test_a_build_without_serve_imports_nothing_of_the_classroom(tmp_path: Path):
    copy_fixture("mini", tmp_path)
    script = (
        "import json, sys\nfrom deck.cli import main\n"
        "codes = [main(['mini', '--no-pdf']), main(['mini', '--no-pdf'])]\n"
        "import importlib\nfrom deck.buildd import WARM\n"
        "for name in WARM: importlib.import_module(name)\n"
        "print(json.dumps([codes, sorted(m for m in sys.modules if 'classroom' in m)]))"
    )
    env = dict(os.environ, DECK_BUILDD="0", DECK_LAYOUT_CHECK="0", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    codes, imported = json.loads(proc.stdout.splitlines()[-1])
    assert codes == [0, 0] and "up to date" in proc.stderr  # a build, then a no-change one
    assert imported == []


# ---- in Chromium -----------------------------------------------------------------------


def shows(page: Page | Frame, text: str) -> None:
    page.wait_for_function(
        "t => { const s = document.querySelector('section.present');"
        " return s && s.textContent.includes(t); }",
        arg=text,
    )


@pytest.mark.browser
@pytest.mark.slow
def test_the_presenter_edits_runs_and_saves_a_cell_in_the_preview(browser: Browser, tmp_path):
    copy_fixture("room", tmp_path)
    source = tmp_path / "content" / "room" / "01-room.md"
    before = source.read_text("utf-8")
    built = tmp_path / "dist" / "room" / "index.html"
    errors: list[str] = []
    ready = "window.deckCells && deckCells.messages > 0 && Reveal.isReady()"
    with preview_process(tmp_path) as preview:
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        presenter = context.new_page()
        other = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        for page, url in ((presenter, preview.lead_url), (other, preview.audience_url)):
            page.set_default_timeout(30_000)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(url)
            page.wait_for_function(ready)
            page.evaluate("Reveal.slide(1)")
        assert presenter.url.startswith(preview.audience_url)  # (the secret left the address)
        with context.expect_page() as opened:
            presenter.keyboard.press("s")
        speaker = opened.value
        speaker.set_default_timeout(30_000)
        frame = speaker.wait_for_selector("#current-slide iframe").content_frame()
        assert frame is not None
        frame.wait_for_function("window.Reveal && Reveal.isReady() && Reveal.getIndices().h === 1")
        assert other.locator(".deck-cell-edit").count() == 0  # the presenter's alone
        assert frame.locator(".deck-cell-edit").count() == 0
        presenter.locator("section.present .deck-cell-edit").click()
        box = presenter.locator("section.present .deck-cell-editor textarea")
        assert box.input_value() == CODE
        # an error: said as text, at its line; the slides stay as they were
        box.fill("n = 6\nraise ValueError('<b>no</b> ' + str(n))\nprint(total)")
        presenter.locator("section.present .deck-cell-run").click()
        status = presenter.locator("section.present .deck-cell-status")
        presenter.wait_for_function(
            "document.querySelector('section.present .deck-cell-status').textContent"
            ".includes('ValueError')"
        )
        said = status.inner_text()
        assert "content/room/01-room.md:14" in said and "<b>no</b> 6" in said
        assert status.locator("*").count() == 0  # text, not markup
        presenter.screenshot(path=str(tmp_path / "preview-error.png"))
        assert "The sum is 15." in other.locator("section.present").inner_text()
        # the edit runs: every window shows what it computes
        box.fill("n = 10\ntotal = sum(range(n))\nprint('<b>bold</b>', total)")
        presenter.locator("section.present .deck-cell-run").click()
        for page in (presenter, other, frame):
            shows(page, "The sum is 45.")
            assert "<b>bold</b> 45" in page.locator("section.present pre.stdout").inner_text()
        assert "n = 10" in other.locator("section.present .highlight").inner_text()
        assert source.read_text("utf-8") == before  # the lesson is as it was
        assert ">45</span>" not in built.read_text("utf-8")
        presenter.wait_for_function(
            "!document.querySelector('section.present .deck-cell-save').disabled"
        )
        presenter.screenshot(path=str(tmp_path / "preview-presenter.png"))
        other.screenshot(path=str(tmp_path / "preview-other.png"))
        speaker.screenshot(path=str(tmp_path / "preview-speaker.png"))
        presenter.locator("section.present .deck-cell-save").click()  # now it is the lesson's
        wait_for(lambda: "n = 10\n" in source.read_text("utf-8"), 10)
        assert source.read_text("utf-8") == before.replace("n = 6\n", "n = 10\n").replace(
            "print(total)", "print('<b>bold</b>', total)"
        )
        wait_for(lambda: ">45</span>" in built.read_text("utf-8"), 90)  # rebuilt
        for page in (presenter, other):
            page.wait_for_function(ready)
            shows(page, "The sum is 45.")
    assert errors == []
