"""Benchmark issue 35: a course's sections on Dask workers, and frozen results against a cold build.

    .venv/bin/python bench/cluster.py [--repeats 1] [--skip course,frozen] [--work 2.0]

- course: a course of four small lessons (three sections each, every section a cell of about
  `--work` seconds of CPU) built from an empty cache, whole (`python build.py --no-pdf`, every
  lesson and the course page): on this machine's workers with `--jobs 1` and `--jobs 2`, and
  through a Dask cluster on loopback (a scheduler and 1, then 2 worker processes of one slot
  each) with `--executor dask://…` (every lesson's sections sent at once);
- frozen: the main lesson's cold build (`--no-pdf --freeze`, empty cache: every cell runs) and
  the build of a clone holding only the lesson folder with its `_freeze/` (no cache, no dist):
  no cell runs.

Each build is a fresh `build.py` process (wall time from `bench/measure.py`), with the layout
check off (DECK_LAYOUT_CHECK=0: both sides would pay the same Chromium start). The load average
is printed beside every figure: on a shared machine the numbers are indicative. Last, what the
course measurements say about N machines.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from measure import Run, run, summary  # noqa: E402

from dask_cluster import dask_cluster  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
LESSONS, SECTIONS = 4, 3
RAN = re.compile(r"^\s+ran\s+(\S+)\s+\(\d+ cells?, ([\d.]+) s;", re.M)


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def calibrate(seconds: float) -> int:
    """Loop iterations of the sections' cell that take about `seconds` here, now."""
    n = 200_000
    while True:
        t0 = time.perf_counter()
        sum(i * i % 7 for i in range(n))
        took = time.perf_counter() - t0
        if took > 0.2:
            return int(n * seconds / took)
        n *= 2


def write_course(content: Path, iterations: int) -> None:
    for k in range(1, LESSONS + 1):
        folder = content / f"course{k}"
        folder.mkdir(parents=True)
        (folder / "lesson.yml").write_text(f"title: Lesson {k}\nlang: en\n", "utf-8")
        for s in range(1, SECTIONS + 1):
            text = f"""
                ## Section {s} of lesson {k}

                ```{{python}}
                total = sum(i * i % 7 for i in range({iterations} + {s}))
                ```

                The total is `{{python}} total`.
                """
            (folder / f"{s:02d}-part.md").write_text(textwrap.dedent(text).lstrip(), "utf-8")


def build(root: Path, *args: str) -> Run:
    env = dict(os.environ, DECK_LAYOUT_CHECK="0")
    found = run([str(PYTHON), str(ROOT / "build.py"), *args], cwd=root, env=env)
    if found.code != 0:
        raise SystemExit(f"build {' '.join(args)} failed in {root}: {found.reason()}")
    return found


def sections(found: Run) -> list[float]:
    return [float(s) for _, s in RAN.findall(found.stderr)]


def course(repeats: int, work: float, results: dict[str, object]) -> list[str]:
    iterations = calibrate(work)
    say(f"course: {LESSONS} lessons × {SECTIONS} sections, {iterations:,} iterations a cell")
    rows, measured = [], {}
    publish: list[float] = []
    longest: list[float] = []
    configs: list[tuple[str, tuple[str, ...], int]] = [
        ("this machine, --jobs 1", ("--jobs", "1"), 0),
        ("this machine, --jobs 2", ("--jobs", "2"), 0),
        ("Dask, 1 worker", (), 1),
        ("Dask, 2 workers", (), 2),
    ]
    for name, extra, workers in configs:
        walls, cells, loads = [], [], []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory(prefix="deck-bench-cluster-") as tmp:
                root = Path(tmp)
                write_course(root / "content", iterations)
                if workers:
                    with dask_cluster(root / "cluster", workers=workers) as cluster:
                        say(f"  {name}: cluster up at {cluster.address} ({load()})")
                        found = build(root, "--no-pdf", "--executor", cluster.address)
                else:
                    found = build(root, "--no-pdf", *extra)
                if workers == 2:  # what stays here: load, render, publish (sections cached)
                    shutil.rmtree(root / "dist")
                    publish.append(build(root, "--no-pdf").seconds)
                longest.append(max(sections(found)))
                walls.append(found.seconds)
                cells.append(sum(sections(found)))
                loads.append(os.getloadavg()[0])
                say(f"  {name}: {found.seconds:.1f} s ({load()})")
        measured[name] = {"wall": walls, "sections": cells, "load1": loads}
        rows.append(f"| {name} | {summary(walls)} | {summary(cells)} | {summary(loads, 'load')} |")
    results["course"] = measured
    results["publish_only"] = publish
    table = [
        f"Course of {LESSONS} lessons × {SECTIONS} sections (≈{work:g} s of CPU a cell), "
        "cold, `--no-pdf`:",
        "",
        "| where the sections ran | build wall, s | sections' own seconds, summed | load (1 min) |",
        "|---|---|---|---|",
        *rows,
    ]
    table.append(
        f"| (then dist/ removed, rebuilt with every section cached: what stays here) "
        f"| {summary(publish)} | 0 | |"
    )
    return table + ["", *scaling(measured, statistics.median(publish), max(longest))]


def scaling(measured: dict[str, dict[str, list[float]]], fixed: float, longest: float) -> list[str]:
    """What the course's figures say about N machines of 2 slots each."""
    two = statistics.median(measured["Dask, 2 workers"]["wall"])
    work = statistics.median(measured["Dask, 1 worker"]["sections"])
    lines = [
        f"Scaling: on the cluster the twelve sections took {work:.1f} s of work in all (their "
        f"own seconds, sending and starting included; the longest {longest:.1f} s); what stays "
        f"on the building machine (loading, rendering, publishing four decks and the course "
        f"page) took {fixed:.1f} s. Two workers on this 2-core machine: {two:.1f} s. N machines "
        f"of s slots bound a build by about {fixed:.1f} s + max(longest section, "
        f"{work:.1f} s / (N·s)) (less where publishing overlaps the sections still running):",
        "",
        "| machines × slots | sections' part, s | build, s (bound) |",
        "|---|---|---|",
    ]
    for n in (1, 2, 4, 8, 16):
        part = max(longest, work / (n * 2))
        lines.append(f"| {n} × 2 | {part:.1f} | {fixed + part:.1f} |")
    return lines


def frozen(lesson: str, results: dict[str, object]) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="deck-bench-frozen-") as tmp:
        author, clone = Path(tmp) / "author", Path(tmp) / "clone"
        shutil.copytree(ROOT / "content" / lesson, author / "content" / lesson)
        say(f"frozen: cold build of {lesson} with --freeze ({load()}) …")
        before = load()
        cold = build(author, lesson, "--no-pdf", "--freeze")
        after = load()
        say(f"  cold: {cold.seconds:.1f} s ({after})")
        freeze = author / "content" / lesson / "_freeze"
        files = [p for p in freeze.rglob("*") if p.is_file()]
        size = sum(p.stat().st_size for p in files)
        shutil.copytree(author / "content", clone / "content")
        walls, loads = [], []
        for _ in range(3):
            shutil.rmtree(clone / ".cache", ignore_errors=True)
            shutil.rmtree(clone / "dist", ignore_errors=True)
            shutil.rmtree(clone / "figures", ignore_errors=True)
            found = build(clone, lesson, "--no-pdf")
            assert not sections(found), "a cell ran in the frozen build"
            walls.append(found.seconds)
            loads.append(os.getloadavg()[0])
            say(f"  frozen: {found.seconds:.1f} s ({load()})")
        same = (author / "dist" / lesson / "values.json").read_bytes() == (
            clone / "dist" / lesson / "values.json"
        ).read_bytes()
    results["frozen"] = {
        "cold": cold.seconds,
        "cold_sections": sections(cold),
        "frozen": walls,
        "files": len(files),
        "bytes": size,
        "same_values": same,
    }
    return [
        f"The main lesson (`{lesson}`), `--no-pdf`:",
        "",
        "| build | wall, s | load (1 min) |",
        "|---|---|---|",
        f"| cold, every cell runs (`--freeze`) | {cold.seconds:.1f} "
        f"(sections {sum(sections(cold)):.1f} s summed) | {before} → {after} |",
        f"| clone with `_freeze/` only, no cache: no cell runs | {summary(walls)} | "
        f"{summary(loads, 'load')} |",
        "",
        f"`_freeze/`: {len(files)} files, {size / 1024:.0f} KiB; values.json of the clone "
        f"{'byte-identical to' if same else 'DIFFERENT from'} the cold build's.",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--work", type=float, default=2.0, help="seconds of CPU a section")
    parser.add_argument("--lesson", default="transformer")
    parser.add_argument("--skip", default="", help="course,frozen")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    results: dict[str, object] = {"cores": os.cpu_count()}
    lines: list[str] = []
    if "course" not in skip:
        lines += course(args.repeats, args.work, results) + [""]
    if "frozen" not in skip:
        lines += frozen(args.lesson, results)
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), "utf-8")


if __name__ == "__main__":
    main()
