"""Issue 29, item 6: the preview server's POST endpoint (`/__deck/layout`, the only one) under
hostile requests: a Content-Length that is not a number of bytes gets 400 (not silence), and a
POST whose `Origin` is not the preview's own (`http://127.0.0.1:PORT`, `http://localhost:PORT`)
is refused with 403; a page of the preview sends its own origin, or none."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_serve import fake_deck, wait_for

from deck.preview.serve import Preview, running
from deck.preview.server import LAYOUT
from deck.source.registry import LessonFolder


@pytest.fixture
def preview(tmp_path: Path) -> Iterator[Preview]:
    lesson = tmp_path / "content" / "mini"
    lesson.mkdir(parents=True)
    fake_deck(tmp_path / "dist")
    with running(lambda: None, [LessonFolder("mini", lesson)], tmp_path / "dist") as p:
        wait_for(lambda: p.status.builds)
        yield p


def raw(preview: Preview, head: list[str], body: bytes = b"") -> int | None:
    """Send a request as written (head lines, then the body); the status answered within 5 s,
    None when the server answered nothing."""
    port = preview.server.server_port
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        s.shutdown(socket.SHUT_WR)
        try:
            answer = s.recv(4096)
        except TimeoutError:
            return None
    return int(answer.split()[1]) if answer.startswith(b"HTTP/") else None


def post(preview: Preview, body: bytes, length: str | None = None, origin: str | None = None):
    port = preview.server.server_port
    head = [f"POST {LAYOUT} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Content-Type: application/json"]
    head.append(f"Content-Length: {len(body) if length is None else length}")
    if origin is not None:
        head.append(f"Origin: {origin}")
    return raw(preview, head, body)


def measured(preview: Preview) -> bytes:
    page = preview.status.as_dict()["lessons"]["mini"]["page"]
    found = {"slide": 1, "source": "content/mini/01-a.md:1", "dx": 0, "dy": 9}
    return json.dumps({"lesson": "mini", "page": page, "overflows": [found]}).encode()


@pytest.mark.parametrize("length", ["abc", "-5", "1e3", "0x10", "+5", " ", "5, 5", "١٢"])
def test_a_content_length_that_is_not_a_number_of_bytes_gets_400(preview: Preview, length: str):
    assert post(preview, b"{}", length) == 400
    assert preview.status.as_dict()["layout"] == {}  # nothing heard
    assert post(preview, measured(preview)) == 204  # and the server still answers


def test_a_post_without_a_length_gets_411_and_one_too_long_413(preview: Preview):
    port = preview.server.server_port
    head = [f"POST {LAYOUT} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Content-Type: application/json"]
    assert raw(preview, head) == 411
    assert post(preview, b"{}", str(1 << 30)) == 413


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "http://127.0.0.1.evil.example:{port}",
        "http://127.0.0.1:{other}",
        "https://127.0.0.1:{port}",
        "http://localhost:{port}/x",
        "null",
        "file://",
        "",
    ],
)
def test_a_post_from_another_origin_is_refused(preview: Preview, origin: str):
    port = preview.server.server_port
    shown = origin.format(port=port, other=port + 1)
    assert post(preview, measured(preview), origin=shown) == 403, shown
    assert preview.status.as_dict()["layout"] == {}  # not heard


def test_a_post_from_the_previews_own_origin_or_none_is_heard(preview: Preview):
    port = preview.server.server_port
    for origin in (
        f"http://127.0.0.1:{port}",
        f"http://localhost:{port}",
        f"HTTP://LocalHost:{port}",
        None,
    ):
        preview.status.layout = {}
        assert post(preview, measured(preview), origin=origin) == 204, origin
        assert preview.status.as_dict()["layout"]["mini"]["warnings"], origin
