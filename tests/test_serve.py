"""Live preview: serves the last good build on 127.0.0.1 and rebuilds on change."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path

from deck.pipeline import Options, build
from deck.serve import STATUS, serve
from fixture_build import copy_fixture


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:  # loopback only
        return response.read()


def wait_for(predicate, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("timed out")


def test_serves_rebuilds_on_change_and_keeps_last_good_build(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    options = Options(
        content=tmp_path / "content",
        out=tmp_path / "dist",
        figures=tmp_path / "figures",
        cache=tmp_path / "cache",
        pdf=False,
    )
    lines: list[str] = []
    stop = threading.Event()
    port_holder: list[int] = []

    def log(message: str) -> None:
        lines.append(message)
        if "serving" in message:
            port_holder.append(int(message.rsplit(":", 1)[1].split("/")[0]))

    thread = threading.Thread(
        target=serve,
        args=(lambda: build(["mini"], options, lambda m: None), [folder], options.out, 0, log),
        kwargs={"stop": stop, "interval": 0.2},
        daemon=True,
    )
    thread.start()
    try:
        port = wait_for(lambda: port_holder and port_holder[0])
        base = f"http://127.0.0.1:{port}"
        page = get(f"{base}/mini/").decode()
        assert "平方的结果是 144" in page and STATUS in page  # the reload client is injected
        assert get(f"{base}/mini/figures/parabola.svg").startswith(b"<?xml")
        epoch = json.loads(get(base + STATUS))["epoch"]

        section = folder / "01-basics.md"
        section.write_text(section.read_text().replace("square(12)", "square(11)"))
        wait_for(lambda: json.loads(get(base + STATUS))["epoch"] > epoch)
        assert "平方的结果是 121" in get(f"{base}/mini/").decode()

        section.write_text(section.read_text().replace("square(11)", "square(1 / 0)"))
        status = wait_for(lambda: json.loads(get(base + STATUS))["errors"] or None)
        assert any("01-basics.md" in e and "ZeroDivisionError" in e for e in status)
        assert "平方的结果是 121" in get(f"{base}/mini/").decode()  # last good build stays
    finally:
        stop.set()
        thread.join(timeout=10)
