"""The three PDFs against one plain print: how long the build's printer takes for slides.pdf,
handout.pdf and notes.pdf (all three, as after a prose edit), side by side with one plain
Playwright `page.pdf` of slides.pdf from the same deck.

    .venv/bin/python bench/pdfs.py [--lesson transformer] [--repeats 5]

The deck is `dist/<lesson>/` as the last build left it (build it first, `--no-pdf` is enough);
it is copied into a temporary folder, so nothing in dist/ changes. Each measurement is a fresh
Python process (Chromium started, the deck loaded and printed, Chromium closed), the two kinds
alternating; wall time and CPU time (the process and every process below it: Playwright's
driver, Chromium's browser, renderer and GPU processes, read from /proc every 50 ms, so each
process's last 50 ms may be missed) are reported as medians with the load average before and
after. Under load the wall times say little; the CPU times hold. Times are a benchmark, never
asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# One plain print: what anyone would write to get slides.pdf from the deck with Playwright.
PLAIN = """
import sys
from playwright.sync_api import sync_playwright
sys.path.insert(0, {root!r})
from deck.publish.pdf import CHROMIUM_ARGS, SETTLED, READY, chromium_path
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
    page = browser.new_page(viewport={{"width": 1280, "height": 720}})
    page.goto({url!r}, wait_until="load")
    page.wait_for_function(READY, timeout=120_000)
    page.evaluate(SETTLED)
    page.pdf(path={out!r}, width="1280px", height="720px", print_background=True, tagged=True,
             outline=True, margin={{"top": "0", "right": "0", "bottom": "0", "left": "0"}})
    browser.close()
"""

# The build's printer, as the PDF exporter calls it when all three PDFs are to be made.
DECK = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
from deck.publish.pdf import PrintJob, print_pdfs
from deck.theme import PDFS
folder = Path({folder!r})
jobs = [PrintJob(folder / name, layout) for name, layout in PDFS.items()]
print_pdfs(folder / "index.html", jobs, {slides}, slides=folder / "slides.pdf",
           handout={{"perPage": 2}})
"""

WAIT = """
import json, os, sys, time

def tree(root):
    kids, cpu = {}, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            continue
        rest = stat[stat.rindex(")") + 2:].split()
        kids.setdefault(int(rest[1]), []).append(int(pid))
        cpu[int(pid)] = (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")
    found, todo = {}, [root]
    while todo:
        pid = todo.pop()
        found[pid] = cpu.get(pid, 0.0)
        todo += kids.get(pid, [])
    return found

start = time.perf_counter()
pid = os.posix_spawn(sys.executable, [sys.executable, "-c", sys.argv[2]], os.environ)
seen = {}
while True:
    for p, c in tree(pid).items():  # every process below it, its CPU time as last seen
        seen[p] = max(seen.get(p, 0.0), c)
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    time.sleep(0.05)
json.dump([time.perf_counter() - start, sum(seen.values()), os.waitstatus_to_exitcode(status)],
          open(sys.argv[1], "w"))
"""


def measure(code: str, tmp: Path) -> tuple[float, float]:
    """Wall and CPU seconds of `python -c code` and everything below it."""
    report = tmp / "report.json"
    subprocess.run([sys.executable, "-c", WAIT, str(report), code], check=True)
    seconds, cpu, status = json.loads(report.read_text())
    if status != 0:
        raise SystemExit(f"a measured run failed (exit {status})")
    return seconds, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lesson", default="transformer")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    built = ROOT / "dist" / args.lesson
    if not (built / "index.html").is_file():
        raise SystemExit(f"{built}/index.html is missing: build the lesson first (--no-pdf)")
    slides = json.loads((built / "values.json").read_text("utf-8"))["slides"]
    with tempfile.TemporaryDirectory(prefix="deck-bench-pdfs-") as name:
        tmp = Path(name)
        folder = tmp / args.lesson
        shutil.copytree(built, folder, ignore=shutil.ignore_patterns("*.pdf"))
        plain = PLAIN.format(
            root=str(ROOT),
            url=(folder / "index.html").as_uri() + "?print-pdf",
            out=str(tmp / "plain.pdf"),
        )
        deck = DECK.format(root=str(ROOT), folder=str(folder), slides=slides)
        found: dict[str, list[tuple[float, float]]] = {"plain": [], "deck": []}
        load_before = _load(os.getloadavg())
        measure(plain, tmp)  # warm the file cache once, not counted
        for k in range(args.repeats):
            for kind, code in (("plain", plain), ("deck", deck)):
                found[kind].append(measure(code, tmp))
                wall, cpu = found[kind][-1]
                print(f"  {k + 1}/{args.repeats} {kind:5} {wall:6.2f} s wall {cpu:6.2f} s CPU",
                      file=sys.stderr, flush=True)  # fmt: skip
        load_after = _load(os.getloadavg())
        pages = {n: _pages(folder / n) for n in ("slides.pdf", "handout.pdf", "notes.pdf")}
    print(f"lesson {args.lesson}: {slides} slides; pages {pages}; {args.repeats} repeats")
    print(f"load average before {load_before}, after {load_after}")
    print(f"{'':34} {'wall (median)':>14} {'CPU (median)':>14}")
    medians = {}
    for kind, label in (
        ("plain", "one plain page.pdf of slides.pdf"),
        ("deck", "the build's three PDFs"),
    ):
        wall = statistics.median(w for w, _ in found[kind])
        cpu = statistics.median(c for _, c in found[kind])
        medians[kind] = (wall, cpu)
        print(f"{label:34} {wall:12.2f} s {cpu:12.2f} s")
    ratio_wall = medians["deck"][0] / medians["plain"][0]
    ratio_cpu = medians["deck"][1] / medians["plain"][1]
    print(f"{'ratio (target at most 1.3)':34} {ratio_wall:13.2f}× {ratio_cpu:13.2f}×")


def _pages(path: Path) -> int | None:
    try:
        from pypdf import PdfReader

        return len(PdfReader(path).pages)
    except Exception:  # noqa: BLE001 - a count for the report only
        return None


def _load(avg: tuple[float, float, float]) -> str:
    return " ".join(f"{x:.2f}" for x in avg) + f" (at {time.strftime('%H:%M:%S')})"


if __name__ == "__main__":
    main()
