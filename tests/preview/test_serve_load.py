"""`--serve` under load and against cells that misbehave: 200 event-stream clients at once, a
save that arrives while a build runs, a cell that writes source files into its lesson."""

from __future__ import annotations

import dataclasses
import json
import selectors
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_serve import fake_deck, request, unwrap, wait_for

from catalogue import options_in
from deck.pipeline import Options, build
from deck.preview.serve import Preview, running
from deck.source.registry import LessonFolder

CLIENTS = 200


def open_streams(port: int, count: int) -> list[socket.socket]:
    """`count` connections to the event stream, all started at once (non-blocking connects:
    the server's listen backlog is what they meet)."""
    streams = []
    for _ in range(count):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        streams.append(s)
    request = f"GET /__deck/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    selector = selectors.DefaultSelector()
    for s in streams:
        selector.register(s, selectors.EVENT_WRITE)
    waiting = set(streams)
    deadline = time.monotonic() + 30
    while waiting and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.05):
            s = key.fileobj
            selector.unregister(s)
            s.sendall(request)  # type: ignore[union-attr]
            waiting.discard(s)  # type: ignore[arg-type]
    selector.close()
    return streams


def versions_seen(streams: list[socket.socket], wanted: int, seconds: float) -> dict[int, float]:
    """For each stream (by index), when it received a status whose version is `wanted` or
    later (time.monotonic()); streams that did not within `seconds` are missing."""
    selector = selectors.DefaultSelector()
    buffers = {}
    for n, s in enumerate(streams):
        s.setblocking(False)
        selector.register(s, selectors.EVENT_READ, n)
        buffers[n] = b""
    seen: dict[int, float] = {}
    deadline = time.monotonic() + seconds
    while len(seen) < len(streams) and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.05):
            n = key.data
            try:
                chunk = key.fileobj.recv(65536)  # type: ignore[union-attr]
            except BlockingIOError:
                continue
            buffers[n] += chunk
            for line in buffers[n].split(b"\n"):
                if line.startswith(b"data: ") and n not in seen:
                    try:
                        version = json.loads(line[6:])["version"]
                    except ValueError:
                        continue  # half a line: the rest comes later
                    if version >= wanted:
                        seen[n] = time.monotonic()
    selector.close()
    return seen


@pytest.fixture
def lesson_preview(tmp_path: Path) -> Iterator[tuple[Preview, Path]]:
    lesson = tmp_path / "content" / "mini"
    lesson.mkdir(parents=True)
    out = tmp_path / "dist"
    fake_deck(out)
    with running(lambda: None, [LessonFolder(lesson.name, lesson)], out) as preview:
        wait_for(lambda: preview.status.builds)
        yield preview, lesson


def test_200_event_stream_clients_all_get_the_update_within_2_s(lesson_preview):
    preview, lesson = lesson_preview
    first = preview.status.version
    opened = time.monotonic()
    streams = open_streams(preview.server.server_port, CLIENTS)
    try:
        answered = versions_seen(streams, first, 20)
        assert len(answered) == CLIENTS, f"{CLIENTS - len(answered)} clients got no status"
        slowest = max(answered.values()) - opened
        assert slowest < 2.0, f"the slowest client got its first status after {slowest:.2f} s"
        (lesson / "01-a.md").write_text("## 新\n")  # a save: one more build
        wait_for(lambda: preview.status.version > first, 30)
        built = time.monotonic()
        seen = versions_seen(streams, first + 1, 10)
        late = sorted(max(0.0, t - built) for t in seen.values())
        assert len(seen) == CLIENTS, f"{CLIENTS - len(seen)} clients got no update"
        assert late[-1] < 2.0, f"the slowest client got the update {late[-1]:.2f} s late"
    finally:
        for s in streams:
            s.close()


def small_lesson(root: Path, files: dict[str, str]) -> tuple[Path, Options]:
    folder = root / "content" / "cat"
    folder.mkdir(parents=True)
    (folder / "lesson.yml").write_text(
        "title: 取消\nexec:\n  seed: 0\n  timeout: 120\ntitle-slide: false\n"
    )
    for name, text in files.items():
        (folder / name).write_text(text, "utf-8")
    return folder, options_in(root)


def section(code: str) -> str:
    return f"## 一\n\n```{{python}}\n{code}\n```\n\n值是 `{{python}} x`。\n"


@pytest.mark.slow
def test_a_newer_save_cancels_the_running_build(tmp_path: Path):
    folder, options = small_lesson(tmp_path, {"01-a.md": section("x = 1")})
    lines: list[str] = []
    with running(
        lambda: build(["cat"], options), [LessonFolder("cat", folder)], options.out, lines.append
    ) as p:
        wait_for(lambda: p.status.builds == 1)
        (folder / "01-a.md").write_text(section("while True:\n    pass\nx = 2"), "utf-8")
        time.sleep(1.5)  # the build with the endless cell is running now (timeout: 120 s)
        saved = time.monotonic()
        (folder / "01-a.md").write_text(section("x = 3"), "utf-8")
        wait_for(lambda: "值是 3" in unwrap(request(p, "/cat/")[2].decode()), 30)
        seconds = time.monotonic() - saved
        assert p.status.errors == []
    assert seconds < 10, f"the fix showed {seconds:.1f} s after it was saved"
    assert any("running build cancelled, rebuilding" in line for line in lines), lines


@pytest.mark.slow
def test_source_files_a_cell_writes_into_the_lesson_do_not_trigger_rebuilds(tmp_path: Path):
    code = (
        "import time\n"
        "with open('generated.py', 'w') as f:\n    f.write(f'STAMP = {time.time_ns()}\\n')\n"
        "with open('notes.qmd', 'w') as f:\n    f.write(str(time.time_ns()))\n"
        "x = 1"
    )
    folder, options = small_lesson(tmp_path, {"01-a.md": section(code)})
    options = dataclasses.replace(options, force=True)  # every build writes them again
    with running(lambda: build(["cat"], options), [LessonFolder("cat", folder)], options.out) as p:
        wait_for(lambda: p.status.builds == 1)
        assert p.status.errors == [] and (folder / "generated.py").is_file()
        (folder / "01-a.md").write_text(section(code.replace("x = 1", "x = 2")), "utf-8")
        wait_for(lambda: p.status.builds == 2)
        settle = time.monotonic() + 4  # a loop would have built again by now, several times
        while time.monotonic() < settle:
            assert p.status.builds == 2
            time.sleep(0.1)
        assert "值是 2" in unwrap(request(p, "/cat/")[2].decode())
