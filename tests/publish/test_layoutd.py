"""The layout check's warm browser (deck/publish/layoutd.py): the build after an edit measures
in the running service (no browser started in the build) and says what a fresh check says; a
service of another key is never believed, and one of an old key ends for a fresh one; the
service ends when idle or its cache is gone; a dead socket file, concurrent builds, a service
that cannot start and a Chromium that does not are handled."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import stat
import threading
import time
from pathlib import Path

import pytest
from test_layout_check import SLIDES, lesson, no_browser, overflows

from deck.publish import layoutd
from deck.publish.layoutd import Client, ask, service_key, socket_path
from fixture_build import run_build, run_cli

pytestmark = pytest.mark.browser

EXPECTED = ["content/long/01-a.md:5", "content/long/01-a.md:48"]  # (SLIDES' two overflows)
# an edit of the slide that runs down, in characters the deck already has: one line more
MORE = SLIDES.replace("- 第 0 行", "- 第 0 行\n- 第 1 行")


@pytest.fixture(autouse=True)
def layout_check_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DECK_LAYOUT_CHECK", "1")
    monkeypatch.setenv("DECK_LAYOUTD", "1")


def cache(root: Path) -> Path:
    return (root / ".cache").resolve()


def ping(root: Path) -> dict | None:
    try:
        return ask(socket_path(cache(root)), {"op": "ping"}, 10)
    except OSError:
        return None


def alive(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)  # (a service this process started: reaped once it ends)
    except ChildProcessError:
        pass
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def ended(pid: int, within: float = 30.0) -> bool:
    until = time.monotonic() + within
    while alive(pid) and time.monotonic() < until:
        time.sleep(0.1)
    return not alive(pid)


@pytest.fixture
def stop_services():
    """Stops the services a test started in its roots (else they end 5 s later, when idle)."""
    roots: list[Path] = []
    yield roots
    for root in roots:
        try:
            ask(socket_path(cache(root)), {"op": "stop"}, 10)
        except OSError:
            pass


def at(warnings: list[str]) -> list[str]:
    return [w.split(": warning")[0] for w in warnings]


@pytest.mark.slow
def test_the_build_after_an_edit_asks_the_running_service(tmp_path, monkeypatch, stop_services):
    root = tmp_path / "warm"
    folder = lesson(root)
    stop_services.append(root)
    first = run_build(root, "long", "--no-pdf")
    assert first.returncode == 0 and at(overflows(first.stderr)) == EXPECTED, first.stderr
    running = ping(root)
    assert running and running["key"] == service_key(cache(root))
    assert stat.S_IMODE(socket_path(cache(root)).stat().st_mode) == 0o600
    (folder / "01-a.md").write_text(MORE, "utf-8")
    with monkeypatch.context() as patched:
        started = no_browser(patched)
        proc = run_cli(root, "long", "--no-pdf")
    assert proc.returncode == 0 and started == [], proc.stderr
    assert "checked the layout of 1 of 3 slides" in proc.stderr
    assert (ping(root) or {}).get("pid") == running["pid"]  # the same service answered
    # the same warnings as a fresh check in the build's own browser
    monkeypatch.setenv("DECK_LAYOUTD", "0")
    fresh = tmp_path / "fresh"
    lesson(fresh, MORE)
    whole = run_build(fresh, "long", "--no-pdf")
    assert "checked the layout of 3 slides" in whole.stderr and ping(fresh) is None
    assert overflows(proc.stderr) == overflows(whole.stderr)
    assert at(overflows(proc.stderr)) == ["content/long/01-a.md:5", "content/long/01-a.md:49"]
    assert overflows(proc.stderr) != overflows(first.stderr)  # (slide 2 runs further down)


def fake_service(path: Path, asked: list[dict], stop: threading.Event) -> threading.Thread:
    """A service of another key that says slide 1 overflows, whatever it is asked."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(4)
    listener.settimeout(0.1)

    def run() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                request = json.loads(conn.makefile().readline())
                asked.append(request)
                wrong = {"slide": 1, "source": "x:1", "dx": 999, "dy": 0}
                said = {"ok": True, "key": "another", "index": request.get("index")}
                conn.sendall(json.dumps({**said, "overflows": [wrong]}).encode() + b"\n")
        listener.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.slow
def test_a_service_of_another_key_is_not_believed_and_an_old_one_makes_way(
    tmp_path, monkeypatch, stop_services
):
    root = tmp_path / "keys"
    folder = lesson(root)
    stop_services.append(root)
    cache(root).mkdir(parents=True)
    asked: list[dict] = []
    stop = threading.Event()
    thread = fake_service(socket_path(cache(root)), asked, stop)
    try:
        proc = run_cli(root, "long", "--no-pdf")
    finally:
        stop.set()
        thread.join()
    assert asked and asked[0]["key"] == service_key(cache(root))  # it was asked, with the key
    assert proc.returncode == 0 and at(overflows(proc.stderr)) == EXPECTED, proc.stderr
    assert "999 px" not in proc.stderr  # … and its answer was not taken

    # a real service of an old key (another Chromium's version) ends; a fresh one answers
    socket_path(cache(root)).unlink()
    other = tmp_path / "bin" / "chromium"
    other.parent.mkdir()
    real = shutil.which("chromium")
    other.write_text(
        f'#!/bin/sh\n[ "$1" = --version ] && echo "Chromium 999" && exit\nexec {real} "$@"\n'
    )
    other.chmod(0o755)
    with monkeypatch.context() as chromium_999:
        chromium_999.setenv("DECK_CHROMIUM", str(other))
        (folder / "01-a.md").write_text(MORE, "utf-8")
        assert run_build(root, "long", "--no-pdf").returncode == 0
        old = ping(root)
        assert old and old["key"] == service_key(cache(root))
    assert service_key(cache(root)) != old["key"]
    (folder / "01-a.md").write_text(SLIDES, "utf-8")
    with monkeypatch.context() as patched:
        started = no_browser(patched)
        proc = run_cli(root, "long", "--no-pdf")
    assert proc.returncode == 0 and started == [], proc.stderr
    assert "checked the layout of 3 slides" in proc.stderr  # (another Chromium: all again)
    assert at(overflows(proc.stderr)) == EXPECTED
    assert ended(old["pid"])
    new = ping(root)
    assert new and new["pid"] != old["pid"] and new["key"] == service_key(cache(root))


@pytest.mark.slow
def test_the_service_ends_when_idle(tmp_path, monkeypatch):
    monkeypatch.setenv("DECK_LAYOUTD_IDLE", "1")
    root = tmp_path / "idle"
    lesson(root)
    assert run_build(root, "long", "--no-pdf").returncode == 0
    log = cache(root) / "layoutd.log"
    pid = int(re.findall(r"\[(\d+)\] listening on ", log.read_text())[-1])
    assert ended(pid, within=20)
    assert not socket_path(cache(root)).exists()
    assert f"[{pid}] idle: ending" in log.read_text()


@pytest.mark.slow
def test_the_service_ends_with_its_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DECK_LAYOUTD_IDLE", "60")
    root = tmp_path / "gone"
    lesson(root)
    assert run_build(root, "long", "--no-pdf").returncode == 0
    running = ping(root)
    assert running
    shutil.rmtree(cache(root))
    assert ended(running["pid"], within=15)


@pytest.mark.slow
def test_a_dead_socket_file_is_handled(tmp_path, monkeypatch, stop_services):
    root = tmp_path / "dead"
    lesson(root)
    stop_services.append(root)
    cache(root).mkdir(parents=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(socket_path(cache(root))))  # a service that was killed leaves its file
    dead.close()
    assert ping(root) is None
    with monkeypatch.context() as patched:
        started = no_browser(patched)
        proc = run_cli(root, "long", "--no-pdf")
    assert proc.returncode == 0 and started == [], proc.stderr
    assert at(overflows(proc.stderr)) == EXPECTED
    assert ping(root)


@pytest.mark.slow
def test_concurrent_builds_each_get_their_own_answer(tmp_path, stop_services):
    root = tmp_path / "two"
    lesson(root)
    stop_services.append(root)
    wide = root / "content" / "wide"
    wide.mkdir()
    (wide / "lesson.yml").write_text("title: wide\ntitle-slide: false\n")
    (wide / "01-a.md").write_text(
        SLIDES.split("## 太长")[0] + "## 太宽" + SLIDES.split("## 太宽")[1]
    )
    for name in ("long", "wide"):
        assert run_build(root, name, "--no-pdf").returncode == 0
    index = {name: root / "dist" / name / "index.html" for name in ("long", "wide")}
    count = {"long": 3, "wide": 2}
    answers: dict[str, list | None] = {}

    def ask_for(name: str, n: int) -> None:  # each thread a build's own client
        found = Client(cache(root)).measure(index[name], count[name], (1280, 720), ())
        answers[f"{name} {n}"] = None if found is None else [(o.slide, o.dx, o.dy) for o in found]

    # none running: each client finds none and starts one, of which one listens
    stop = ask(socket_path(cache(root)), {"op": "stop"}, 10)
    assert ended(stop["pid"])
    log = cache(root) / "layoutd.log"
    before = len(log.read_text())
    threads = [threading.Thread(target=ask_for, args=(k, n)) for n in range(3) for k in count]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 6
    until = time.monotonic() + 20
    while time.monotonic() < until:  # (the five that lost wait a moment for the lock)
        started = log.read_text()[before:]
        if started.count("listening on") + started.count("another service holds") >= 6:
            break
        time.sleep(0.2)
    assert started.count("listening on") == 1 and started.count("another service holds") == 5
    long, wide = answers["long 0"], answers["wide 0"]
    assert long and [(n, dx > 0, dy > 0) for n, dx, dy in long] == [
        (2, False, True),
        (3, True, False),
    ]
    assert wide and [(n, dx > 0, dy > 0) for n, dx, dy in wide] == [(2, True, False)]
    assert all(
        found == (long if key.startswith("long") else wide) for key, found in answers.items()
    )


@pytest.mark.slow
def test_a_chromium_that_does_not_start_gives_todays_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("DECK_CHROMIUM", str(tmp_path / "no-chromium"))
    said = {}
    for service in ("1", "0"):
        monkeypatch.setenv("DECK_LAYOUTD", service)
        root = tmp_path / f"service-{service}"
        lesson(root)
        proc = run_cli(root, "long", "--no-pdf")
        assert proc.returncode == 0, proc.stderr
        said[service] = overflows(proc.stderr)
        assert ping(root) is None
    assert said["1"] == said["0"] and len(said["1"]) == 1
    assert "the slides' layout was not checked: Chromium did not start" in said["1"][0]
    assert "ended" in (cache(tmp_path / "service-1") / "layoutd.log").read_text()


@pytest.mark.slow
def test_a_service_that_cannot_be_started_leaves_the_check_to_the_build(tmp_path, monkeypatch):
    monkeypatch.setattr(layoutd, "spawn", lambda cache: None)
    root = tmp_path / "alone"
    lesson(root)
    proc = run_cli(root, "long", "--no-pdf")
    assert proc.returncode == 0 and at(overflows(proc.stderr)) == EXPECTED, proc.stderr
    assert ping(root) is None


def test_a_long_cache_path_has_its_socket_in_a_private_folder(tmp_path):
    deep = tmp_path.joinpath(*["a-rather-long-folder-name"] * 6, ".cache")
    path = socket_path(deep)
    assert path.parent != deep and len(os.fsencode(path)) <= layoutd.MAX_PATH
    assert stat.S_IMODE(path.parent.stat().st_mode) & 0o077 == 0
    assert path.parent.stat().st_uid == os.getuid()
    assert socket_path(deep) == path and socket_path(deep / "x") != path
    assert socket_path(tmp_path / ".cache") == tmp_path / ".cache" / "layoutd.sock"
