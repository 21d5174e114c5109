"""Live preview: serve the built decks on 127.0.0.1 and rebuild when a lesson file changes.

The server only ever shows the last good build: a failed rebuild leaves `dist/` as it was
(the pipeline guarantees that) and the page shows the errors in a banner instead of
reloading. Pages learn about new builds by polling `/__deck/status` (no extra dependency).
"""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from deck.errors import DeckError

STATUS = "/__deck/status"
CLIENT = """<script>
(function () {
  var epoch = null, banner = null;
  function show(errors) {
    if (!banner) {
      banner = document.createElement("pre");
      banner.style.cssText = "position:fixed;left:0;right:0;bottom:0;z-index:99;margin:0;" +
        "padding:12px 16px;background:#fbe7e7;color:#7a1010;font-size:14px;white-space:pre-wrap";
      document.body.appendChild(banner);
    }
    banner.textContent = errors.join("\\n");
    banner.hidden = errors.length === 0;
  }
  function poll() {
    fetch("__STATUS__").then(function (r) { return r.json(); }).then(function (s) {
      if (epoch !== null && s.epoch !== epoch) location.reload();
      epoch = s.epoch;
      show(s.errors);
    }).catch(function () {}).finally(function () { setTimeout(poll, 700); });
  }
  poll();
})();
</script>""".replace("__STATUS__", STATUS)


class Status:
    """The last build's outcome, shared between the watcher and the request handlers."""

    def __init__(self) -> None:
        self.epoch = 0
        self.errors: list[str] = []
        self.lock = threading.Lock()

    def as_json(self) -> bytes:
        with self.lock:
            return json.dumps({"epoch": self.epoch, "errors": self.errors}).encode()

    def record(self, errors: list[str]) -> None:
        with self.lock:
            if not errors:
                self.epoch += 1
            self.errors = errors


class Handler(SimpleHTTPRequestHandler):
    status: Status

    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        if self.path.split("?")[0] == STATUS:
            self.reply(self.status.as_json(), "application/json")
            return
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.name == "index.html" and path.is_file():
            page = path.read_text("utf-8").replace("</body>", CLIENT + "\n</body>", 1)
            self.reply(page.encode("utf-8"), "text/html; charset=utf-8")
            return
        super().do_GET()

    def reply(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # the build log is what matters here


def snapshot(folders: list[Path]) -> dict[Path, float]:
    return {
        p: p.stat().st_mtime
        for folder in folders
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def build_once(build: Callable[[], object], status: Status, log: Callable[[str], None]) -> None:
    try:
        build()
    except DeckError as exc:
        errors = [str(d) for d in exc.diagnostics]
        for line in errors:
            log(line)
        status.record(errors)
    else:
        status.record([])


def serve(
    build: Callable[[], object],
    watched: list[Path],
    out: Path,
    port: int,
    log: Callable[[str], None],
    stop: threading.Event | None = None,
    interval: float = 0.4,
) -> None:
    """Build, serve `out` on 127.0.0.1:`port`, rebuild on changes until `stop` is set."""
    status = Status()
    build_once(build, status, log)
    out.mkdir(parents=True, exist_ok=True)
    handler = type("BoundHandler", (Handler,), {"status": status})
    server = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(handler, directory=out))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    log(f"serving {out} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
    stop = stop or threading.Event()
    seen = snapshot(watched)
    try:
        while not stop.wait(interval):
            now = snapshot(watched)
            if now != seen:
                time.sleep(0.15)  # let an editor finish writing
                seen = snapshot(watched)
                log("change seen: rebuilding")
                build_once(build, status, log)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
