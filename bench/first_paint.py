"""Time to the first usable slide of a built deck, in real Chromium from file://.

    .venv/bin/python bench/first_paint.py [dist/transformer/index.html ...] [--runs 7]

For each page (default: the main lesson's `index.html`, and its single file when built) a fresh
browser context opens it `--runs` times and reports the median and spread of:

- `fcp`: Chromium's first contentful paint (`performance` paint entries);
- `ready`: the moment reveal.js says it is ready (`html[data-deck-ready]`, set by deck.js in
  reveal's `ready` event), seen by a MutationObserver installed before the page's own scripts,
  so a deck built before this script existed is measured the same way;
- `usable`: the first animation frame after `ready`, i.e. the first slide painted and the keys
  live;
- `notes`: when the speaker notes are in the slides (`aside.notes` present), for the lazy notes.

Times are milliseconds from navigation start. Report them with `uptime`'s load average: on a
shared machine they are indicative only. Never asserted in tests.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WATCH = """
(() => {
  const t = window.__deckPaint = {};
  new MutationObserver(() => {
    if (!t.ready && document.documentElement.dataset.deckReady === "true") {
      t.ready = performance.now();
      requestAnimationFrame(() => requestAnimationFrame(() => { t.usable = performance.now(); }));
    }
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-deck-ready"]});
  const poll = () => {  // once a frame: cheap, and never during the parse it measures
    if (document.querySelector(".reveal .slides aside.notes")) t.notes = performance.now();
    else requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
})();
"""


def measure(page_path: Path, runs: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"fcp": [], "ready": [], "usable": [], "notes": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        try:
            for _ in range(runs):
                context = browser.new_context(viewport={"width": 1280, "height": 720})
                context.add_init_script(WATCH)
                page = context.new_page()
                page.goto(page_path.as_uri())
                page.wait_for_function(
                    "window.__deckPaint && window.__deckPaint.usable", timeout=60_000
                )
                try:
                    page.wait_for_function("window.__deckPaint.notes", timeout=10_000)
                except Exception:  # a deck without notes
                    pass
                t = page.evaluate("""() => {
                  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
                  return {...window.__deckPaint, fcp: fcp ? fcp.startTime : null};
                }""")
                for key in out:
                    if t.get(key) is not None:
                        out[key].append(float(t[key]))
                context.close()
        finally:
            browser.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    pages = args.pages or [
        p
        for p in (ROOT / "dist/transformer/index.html", ROOT / "dist/transformer.html")
        if p.is_file()
    ]
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", file=sys.stderr)
    for page_path in pages:
        size = page_path.stat().st_size / 1024
        print(f"{page_path} ({size:.0f} KB), {args.runs} runs, ms from navigation start:")
        for key, values in measure(page_path.resolve(), args.runs).items():
            if values:
                print(
                    f"  {key:7s} median {statistics.median(values):7.0f}"
                    f"   min {min(values):7.0f}   max {max(values):7.0f}"
                )
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
