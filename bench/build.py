"""Time whole builds of a lesson: cold (empty cache), warm (nothing changed), prose edit.

    .venv/bin/python bench/build.py [LESSON] [--repeats 3] [--no-pdf]

Each build is a fresh `python build.py` process writing into a temporary folder. Prints the
median wall time of each kind of build, and which heavy modules a warm build imported
(it must import neither torch nor matplotlib).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORT_IMPORTS = """
import json, sys
from deck.cli import main
code = main(sys.argv[1:])
heavy = [m for m in ("torch", "matplotlib", "numpy", "playwright") if m in sys.modules]
print(json.dumps({"code": code, "heavy": heavy}))
"""


def timed(args: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"build failed:\n{proc.stderr}")
    return seconds, proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lesson", nargs="?", default="transformer")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-pdf", action="store_true")
    args = parser.parse_args()
    times: dict[str, list[float]] = {"cold": [], "warm": [], "prose edit": []}
    heavy: list[str] = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="deck-bench-") as tmp:
            content = Path(tmp) / "content"
            shutil.copytree(ROOT / "content" / args.lesson, content / args.lesson)
            common = [
                args.lesson,
                "-q",
                "--content", str(content),
                "--out", str(Path(tmp) / "dist"),
                "--figures", str(Path(tmp) / "figures"),
                "--cache", str(Path(tmp) / "cache"),
            ] + (["--no-pdf"] if args.no_pdf else [])  # fmt: skip
            build = [sys.executable, "build.py", *common]
            times["cold"].append(timed(build)[0])
            seconds, out = timed([sys.executable, "-c", REPORT_IMPORTS, *common])
            times["warm"].append(seconds)
            heavy = json.loads(out.strip().splitlines()[-1])["heavy"]
            section = sorted((content / args.lesson).glob("[0-9]*.md"))[-1]
            section.write_text(section.read_text("utf-8") + "\n\n补充的一段讲解文字。\n", "utf-8")
            times["prose edit"].append(timed(build)[0])
    pdf = "without PDFs" if args.no_pdf else "with PDFs"
    print(f"{args.lesson}: median of {args.repeats} builds ({pdf}), seconds")
    for kind, values in times.items():
        runs = ", ".join(f"{v:.2f}" for v in values)
        print(f"  {kind:<11} {statistics.median(values):7.2f}   ({runs})")
    print(f"  heavy modules imported by the warm build: {', '.join(heavy) or 'none'}")


if __name__ == "__main__":
    main()
