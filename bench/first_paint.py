"""Time to the first usable slide of a built deck, in real Chromium from file://.

    .venv/bin/python bench/first_paint.py [dist/transformer/index.html ...] [--runs 7]

For each page (default: the main lesson's `index.html`, and its single file when built) a fresh
browser context opens it `--runs` times and reports the median and spread of:

- `fcp`: Chromium's first contentful paint (`performance` paint entries);
- `shown`: reveal.js is ready and shows the first slide (`.reveal.ready`), seen by a
  MutationObserver installed before the page's own scripts, so a deck built before this
  script existed is measured the same way;
- `usable`: two animation frames after `shown`: the first slide painted, the keys live;
- `ready`: `html[data-deck-ready]`, what tests and the printer wait for (deck.js sets it in
  reveal's `ready` event, or once the speaker notes are in when they load after the slide);
- `notes`: when the speaker notes are in the slides (`aside.notes` present).

The pages are opened in turn, run after run, so a change of the machine's load hits all.

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
    const reveal = document.querySelector(".reveal");
    if (!t.shown && reveal && reveal.classList.contains("ready")) {
      t.shown = performance.now();
      requestAnimationFrame(() => requestAnimationFrame(() => { t.usable = performance.now(); }));
    }
    if (!t.ready && document.documentElement.dataset.deckReady === "true") {
      t.ready = performance.now();
    }
  }).observe(document, {subtree: true, attributes: true,
    attributeFilter: ["class", "data-deck-ready"]});
  const poll = () => {  // once a frame: cheap, and never during the parse it measures
    if (document.querySelector(".reveal .slides aside.notes")) t.notes = performance.now();
    else requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
})();
"""
KEYS = ("fcp", "shown", "usable", "ready", "notes")


def measure(pages: list[Path], runs: int) -> dict[Path, dict[str, list[float]]]:
    """Each page opened `runs` times, the pages in turn (so a change of load hits all)."""
    out: dict[Path, dict[str, list[float]]] = {p: {k: [] for k in KEYS} for p in pages}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        try:
            for _ in range(runs):
                for page_path in pages:
                    context = browser.new_context(viewport={"width": 1280, "height": 720})
                    context.add_init_script(WATCH)
                    page = context.new_page()
                    page.goto(page_path.as_uri())
                    page.wait_for_function(
                        "window.__deckPaint.usable && window.__deckPaint.ready", timeout=60_000
                    )
                    try:
                        page.wait_for_function("window.__deckPaint.notes", timeout=5_000)
                    except Exception:  # a deck without notes
                        pass
                    t = page.evaluate("""() => {
                      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
                      return {...window.__deckPaint, fcp: fcp ? fcp.startTime : null};
                    }""")
                    for key in KEYS:
                        if t.get(key) is not None:
                            out[page_path][key].append(float(t[key]))
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
    results = measure([p.resolve() for p in pages], args.runs)
    for page_path, found in results.items():
        size = page_path.stat().st_size / 1024
        print(f"{page_path} ({size:.0f} KB), {args.runs} runs, ms from navigation start:")
        for key, values in found.items():
            if values:
                print(
                    f"  {key:7s} median {statistics.median(values):7.0f}"
                    f"   min {min(values):7.0f}   max {max(values):7.0f}"
                )
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
