"""Live preview: serves only the last good build, to 127.0.0.1 only, and stays up whatever a
save does; an open page takes a prose edit in place, without reloading."""

from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from catalogue import options_in
from deck.errors import DeckError, Diagnostic
from deck.model import Loc
from deck.pipeline import build
from deck.preview.serve import STATUS, Preview, measure_reload_latency, running
from deck.source.registry import LessonFolder
from fixture_build import ROOT, copy_fixture

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

READY = "window.deckLive && deckLive.ready && window.Reveal && Reveal.isReady()"


def request(
    preview: Preview, path: str, host: str | None = None
) -> tuple[int, dict[str, str], bytes]:
    """A real HTTP GET to the preview with the given Host header (default: the right one)."""
    port = preview.server.server_port
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_host=True)
        if host is not False:
            connection.putheader("Host", host or f"127.0.0.1:{port}")
        connection.endheaders()
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def status(preview: Preview) -> dict:
    return json.loads(request(preview, STATUS)[2])


def wait_for(predicate: Callable[[], object], seconds: float = 60.0) -> object:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def fake_deck(out: Path) -> None:
    """A built-looking output folder: what the server serves, without a real build."""
    (out / "mini" / "figures").mkdir(parents=True, exist_ok=True)
    (out / "mini" / "index.html").write_text("<html><body><p>deck</p></body></html>")
    (out / "mini" / "figures" / "a.svg").write_text("<svg/>")


@pytest.fixture
def static_preview(tmp_path: Path) -> Iterator[Preview]:
    lesson = tmp_path / "content" / "mini"
    lesson.mkdir(parents=True)
    out = tmp_path / "dist"
    fake_deck(out)
    with running(lambda: None, [LessonFolder(lesson.name, lesson)], out) as preview:
        wait_for(lambda: preview.status.builds)
        yield preview


def test_serves_files_under_out_and_injects_the_live_client(static_preview: Preview):
    code, headers, body = request(static_preview, "/mini/")
    assert code == 200 and b"<p>deck</p>" in body and b'id="deck-live"' in body
    assert headers["X-Deck-Page"]
    assert request(static_preview, "/mini/figures/a.svg")[2] == b"<svg/>"
    code, headers, _ = request(static_preview, "/mini")
    assert (code, headers["Location"]) == (301, "/mini/")


def test_symlinks_leading_out_of_the_output_folder_are_not_served(
    static_preview: Preview, tmp_path: Path
):
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key.txt").write_text("secret")
    deck = static_preview.server.out / "mini"
    (deck / "link.txt").symlink_to(secret)
    (deck / "linked").symlink_to(tmp_path / "secrets")
    (deck / "passwd").symlink_to("/etc/passwd")
    (deck / "inside.svg").symlink_to(deck / "figures" / "a.svg")
    for path in ("/mini/link.txt", "/mini/linked/key.txt", "/mini/passwd", "/mini/linked/"):
        code, _, body = request(static_preview, path)
        assert code == 404 and b"secret" not in body and b"root:" not in body, path
    for path in ("/mini/../secret.txt", "/mini/%2e%2e/secret.txt", "/%2e%2e/secret.txt"):
        assert request(static_preview, path)[0] == 404, path
    assert request(static_preview, "/mini/inside.svg")[:3:2] == (200, b"<svg/>")


def test_only_hosts_naming_this_machine_are_answered(static_preview: Preview):
    port = static_preview.server.server_port
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example", "10.0.0.1"):
        assert request(static_preview, "/mini/", host)[0] == 403, host
    assert request(static_preview, "/mini/", f"localhost:{port + 1}")[0] == 403
    assert request(static_preview, "/mini/", False)[0] == 403  # no Host header at all
    assert request(static_preview, STATUS, "evil.example")[0] == 403
    for host in (f"localhost:{port}", "LOCALHOST", "127.0.0.1", f"127.0.0.1:{port}"):
        assert request(static_preview, "/mini/", host)[0] == 200, host


def test_a_very_long_url_gets_414(static_preview: Preview):
    assert request(static_preview, "/mini/" + "a" * 5000)[0] == 414
    assert request(static_preview, "/" + "%41" * 30000)[0] == 414
    assert request(static_preview, "/mini/")[0] == 200  # and the server is still there


def cli(root: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(ROOT / "build.py"), *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal: a test run started in the background (`bash test.sh &`) passes
        # SIGINT on ignored, and the CLI would then rightly not stop on Ctrl-C.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


@pytest.mark.parametrize("taken", [True, False])
def test_a_port_in_use_or_out_of_range_exits_2_with_one_line(tmp_path: Path, taken: bool):
    copy_fixture("mini", tmp_path)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1] if taken else 70000
        proc = cli(tmp_path, "mini", "--serve", "--port", str(port))
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert stderr.splitlines() == [
        f"build.py: error: port {port} is in use (choose another with --port)"
        if taken
        else f"build.py: error: --port {port} is out of range (1-65535, or 0 for any free port)"
    ]
    assert not (tmp_path / "dist").exists()  # refused before building anything


def test_a_port_that_is_not_a_number_exits_2(tmp_path: Path):
    copy_fixture("mini", tmp_path)
    proc = cli(tmp_path, "mini", "--serve", "--port", "http")
    _, stderr = proc.communicate(timeout=60)
    assert (proc.returncode, stderr) == (2, "build.py: error: --port 'http' is not a number\n")


@pytest.mark.slow
def test_ctrl_c_stops_the_cli_with_one_line(tmp_path: Path):
    copy_fixture("mini", tmp_path)
    proc = cli(tmp_path, "mini", "--serve", "--port", "0", "--cache", str(tmp_path / "c"))
    lines = []
    try:
        for line in proc.stderr:  # bounded: the build ends, or the timeout below kills it
            lines.append(line)
            if "slides built" in line or "error" in line:
                break
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert any("slides built" in line for line in lines), lines
    assert proc.returncode == 0
    assert rest.splitlines() == ["stopped"]


# ---- with the real build ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def live(tmp_path: Path, shared_cache: Path) -> Iterator[tuple[Preview, Path]]:
    """The `mini` fixture lesson served and rebuilt in-process, as `build.py --serve` does."""
    folder = copy_fixture("mini", tmp_path)
    options = options_in(tmp_path, cache=shared_cache)
    with running(
        lambda: build(["mini"], options), [LessonFolder(folder.name, folder)], options.out
    ) as p:
        wait_for(lambda: p.status.builds)
        assert p.status.errors == []
        yield p, folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")


def unwrap(page: str) -> str:
    """HTML with computed values as plain text, out of their provenance spans."""
    return re.sub(r'<span class="value"[^>]*>([^<]*)</span>', r"\1", page)


def test_failed_builds_keep_the_server_up_and_the_last_good_deck(live):
    preview, folder = live
    section = folder / "01-basics.md"
    good = section.read_bytes()
    page = request(preview, "/mini/")[2].decode()
    assert "平方的结果是 144" in unwrap(page)

    section.write_bytes(good.replace("计算结果".encode(), b"\xff\xfe"))  # not UTF-8
    errors = wait_for(lambda: status(preview)["errors"])
    assert any("UnicodeDecodeError" in e or "UTF-8" in e for e in errors), errors
    assert request(preview, "/mini/")[2].decode() == page

    section.write_bytes(good)
    wait_for(lambda: not status(preview)["errors"])
    lesson_yml = folder / "lesson.yml"
    lesson_yml.write_text("title: [unclosed\n", "utf-8")
    errors = wait_for(lambda: status(preview)["errors"])
    assert any("lesson.yml" in e for e in errors), errors
    assert request(preview, "/mini/")[2].decode() == page

    builds = status(preview)["builds"]
    for n in range(30):  # files created and deleted at once: nothing to build for
        (folder / f"tmp{n}.md").write_text("## x\n")
        (folder / f"tmp{n}.md").unlink()
    lesson_yml.write_text("title: 迷你课程\nexec:\n  seed: 7\ntitle-slide: false\n", "utf-8")
    edit(section, "square(12)", "square(11)")
    wait_for(
        lambda: (
            "平方的结果是 121" in unwrap(request(preview, "/mini/")[2].decode())
            and status(preview)["errors"] == []
        )
    )
    assert status(preview)["builds"] - builds in (1, 2)  # the two saves, seen together or not


def test_any_exception_from_the_build_is_shown_and_the_server_stays_up(tmp_path: Path):
    lesson = tmp_path / "content" / "mini"
    lesson.mkdir(parents=True)
    out = tmp_path / "dist"
    fake_deck(out)
    calls = []

    def flaky() -> None:
        calls.append(1)
        if len(calls) == 2:
            raise KeyError("boom")
        if len(calls) == 3:
            raise SystemExit(3)

    with running(flaky, [LessonFolder(lesson.name, lesson)], out) as preview:
        wait_for(lambda: preview.status.builds == 1)
        for n in (2, 3, 4):
            (lesson / "01-a.md").write_text(f"## {n}\n")
            wait_for(lambda n=n: status(preview)["builds"] == n)
            errors = status(preview)["errors"]
            if n == 2:
                assert errors[0].startswith("error: KeyError: 'boom' (at test_serve.py:")
            elif n == 3:
                assert errors[0].startswith("error: SystemExit: 3 (at test_serve.py:")
            assert request(preview, "/mini/")[0] == 200
        assert errors == []


def lesson_writing_a_file(root: Path) -> Path:
    folder = root / "content" / "writer"
    folder.mkdir(parents=True)
    (folder / "lesson.yml").write_text("title: writer\ntitle-slide: false\n")
    (folder / "data.txt").write_text("1\n")
    (folder / "01-a.md").write_text(
        "## 写文件\n\n```{python}\nimport time\n"
        "data = open('data.txt').read().strip()\n"
        "with open('written.txt', 'w') as f:\n    f.write(str(time.time_ns()))\n"
        "with open('data-copy.txt', 'w') as f:\n    f.write(data)\n```\n\n"
        "数据是 `{python} data`。\n"
    )
    return folder


@pytest.mark.slow
def test_files_a_cell_writes_into_the_lesson_do_not_trigger_rebuilds(tmp_path: Path):
    folder = lesson_writing_a_file(tmp_path)
    # force: every build runs the cell, so every build writes the files again
    options = options_in(tmp_path, force=True)
    with running(
        lambda: build(["writer"], options), [LessonFolder(folder.name, folder)], options.out
    ) as p:
        wait_for(lambda: p.status.builds == 1)
        assert p.status.errors == [] and (folder / "written.txt").is_file()
        edit(folder / "01-a.md", "数据是", "数据为")  # a save: one more build, which writes again
        wait_for(lambda: p.status.builds == 2)
        settle = time.monotonic() + 3  # a loop would have built again by now, several times
        while time.monotonic() < settle:
            assert p.status.builds == 2
            time.sleep(0.1)
        (folder / "data.txt").write_text("2\n")  # a data file saved between builds: a rebuild
        wait_for(lambda: p.status.builds == 3)
        assert p.status.errors == [] and "数据为 2" in unwrap(request(p, "/writer/")[2].decode())


# ---- in Chromium -----------------------------------------------------------------------------


@pytest.fixture
def page(browser: Browser, live) -> Iterator[Page]:
    preview, _ = live
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{preview.url}mini/#/1")
    page.wait_for_function(READY)
    page.evaluate("window.marker = 'same page'")
    yield page
    context.close()
    assert errors == []


def shown(page: Page, text: str) -> None:
    page.wait_for_function(
        "text => Reveal.getCurrentSlide().textContent.includes(text)", arg=text, timeout=60_000
    )


def test_a_page_opened_before_the_first_build_shows_its_errors_then_the_deck(
    tmp_path: Path, browser: Browser
):
    lesson = tmp_path / "content" / "mini"
    lesson.mkdir(parents=True)
    out = tmp_path / "dist"
    go = threading.Event()

    def first_fails_then_builds() -> None:
        if not go.is_set():
            go.wait(60)
            raise DeckError([Diagnostic(Loc("lesson.yml", 3), "lesson", "bad YAML")])
        fake_deck(out)

    with running(first_fails_then_builds, [LessonFolder(lesson.name, lesson)], out) as preview:
        context = browser.new_context()
        try:
            page = context.new_page()
            assert page.goto(f"{preview.url}mini/").status == 404
            go.set()
            banner = page.locator("#deck-live-errors")
            banner.wait_for(state="visible", timeout=60_000)
            assert banner.inner_text() == "lesson.yml:3: error [lesson] bad YAML"
            (lesson / "lesson.yml").write_text("title: fixed\ntitle-slide: false\n")
            page.wait_for_function("document.body.textContent.startsWith('deck')")
        finally:
            go.set()
            context.close()


@pytest.mark.slow
def test_a_prose_edit_shows_in_the_open_page_without_reloading(page: Page, live):
    _, folder = live
    assert page.evaluate("Reveal.getIndices().h") == 1
    edit(folder / "01-basics.md", "平方的结果是", "平方之结果为")
    shown(page, "平方之结果为 144")
    assert page.evaluate("window.marker") == "same page"  # patched in place, not reloaded
    assert page.evaluate("[Reveal.getIndices().h, deckLive.patches]") == [1, 1]
    assert page.locator("section.present").count() == 1
    page.keyboard.press("ArrowRight")  # reveal.js still moves through the new slide
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("Reveal.getIndices().h") == 1
    assert "平方之结果为 144" in page.locator("section.present").inner_text()


@pytest.mark.slow
def test_the_shown_fragment_stays_shown_after_a_patch(page: Page, live):
    _, folder = live
    page.evaluate("Reveal.slide(2)")
    page.evaluate("Reveal.next()")  # the pause: the fragment appears
    before = page.evaluate("Reveal.getIndices()")
    assert before["h"] == 2 and before["f"] == 0
    edit(folder / "01-basics.md", "第二步出现。", "第二步出现了。")
    shown(page, "第二步出现了")
    assert page.evaluate("window.marker") == "same page"
    assert page.evaluate("Reveal.getIndices()") == before
    assert "visible" in page.locator("section.present .fragment").get_attribute("class")


@pytest.mark.slow
def test_a_new_slide_reloads_the_page_and_keeps_the_slide(page: Page, live):
    _, folder = live
    section = folder / "01-basics.md"
    section.write_text(section.read_text("utf-8") + "\n## 新的一页\n\n新内容。\n", "utf-8")
    page.wait_for_function(
        f"!window.marker && {READY} && Reveal.getTotalSlides() === 7", timeout=60_000
    )
    assert page.evaluate("Reveal.getIndices().h") == 1


def test_a_failed_rebuild_shows_a_banner_and_the_fix_updates_the_page(page: Page, live):
    _, folder = live
    section = folder / "01-basics.md"
    good = section.read_text("utf-8")
    section.write_bytes(good.encode().replace("平方".encode(), b"\xff", 1))  # a bad save
    banner = page.locator("#deck-live-errors")
    banner.wait_for(state="visible", timeout=60_000)
    assert "UnicodeDecodeError" in banner.inner_text() or "UTF-8" in banner.inner_text()
    assert "平方的结果是 144" in page.evaluate("Reveal.getCurrentSlide().textContent")
    (folder / "lesson.yml").write_text("title: [unclosed\n", "utf-8")  # another error
    section.write_text(good, "utf-8")
    page.wait_for_function(
        "document.getElementById('deck-live-errors').textContent.includes('lesson.yml')",
        timeout=60_000,
    )
    (folder / "lesson.yml").write_text(
        "title: 迷你课程\nexec:\n  seed: 7\ntitle-slide: false\n", "utf-8"
    )
    section.write_text(good.replace("平方的结果是", "平方等于"), "utf-8")
    shown(page, "平方等于 144")
    banner.wait_for(state="hidden")
    assert page.evaluate("[window.marker, Reveal.getIndices().h]") == ["same page", 1]


def test_a_changed_figure_is_fetched_again(page: Page, live):
    preview, folder = live
    page.evaluate("Reveal.slide(4)")
    old = page.evaluate("document.querySelector('section.present img').src")
    edit(folder / "02-figure.md", "xs = list(range(-5, 6))", "xs = list(range(-4, 6))")
    page.wait_for_function(
        "old => document.querySelector('section.present img').src !== old", arg=old, timeout=60_000
    )
    assert page.evaluate("window.marker") == "same page"
    src = page.evaluate("document.querySelector('section.present img').src")
    assert src.startswith(old + "?v=")
    code, _, svg = request(preview, src.removeprefix(preview.url.rstrip("/")))
    assert code == 200 and svg == (preview.server.out / "mini/figures/parabola.svg").read_bytes()


def test_measure_reload_latency_times_a_prose_edit(live, browser: Browser):
    preview, folder = live

    def prose_edit(lesson: Path) -> str:
        edit(lesson / "01-basics.md", "平方的结果是", "平方的值是")
        return "平方的值是 144"

    seconds = measure_reload_latency(
        folder, f"{preview.url}mini/", prose_edit, slide=1, browser=browser
    )
    assert 0 < seconds < 30
    assert "平方的值是 144" in unwrap(request(preview, "/mini/")[2].decode())
