"""Benchmark the outputs of issue 20 on the main lesson: the notebook and PPTX exporters, the
course page, a no-change build, and which outputs a prose edit remakes.

    .venv/bin/python bench/outputs.py [--repeats 5] [--lesson transformer]

Works on a temporary copy of the lesson with this worktree's cache, figures and dist (so its
sections are cached: nothing runs but the publish stage). Prints medians with the spread
(min–max) and the load average beside them: on a shared machine the numbers are indicative.
  notebook      made_from + export of every notebook file (the notebook made, code/ copied)
  pptx          made_from + export of slides.pptx: with its pictures (formulas, figures) in the
                cache as a rebuild finds them, and cold (cache emptied: Chromium draws them all)
  course page   read course.yml, the lessons' entries, the page written
  no-change     a `python build.py --no-pdf` process that finds nothing to do (wall time), and
                the heavy modules it imported (none may be)
  prose edit    a paragraph added to the last section: which outputs were made again
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
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import edits  # noqa: E402
from measure import run, summary  # noqa: E402

from deck.store.files import RACY_SECONDS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
HEAVY = ("nbformat", "jsonschema", "torch", "matplotlib", "numpy", "playwright", "jinja2", "yaml")
CHILD = f"""
import atexit, json, os, runpy, sys
def report():
    with open(os.environ["DECK_BENCH_MODULES"], "w") as f:
        json.dump([m for m in {HEAVY!r} if m in sys.modules], f)
atexit.register(report)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def copy_project(lesson: str, root: Path) -> list[str]:
    shutil.copytree(ROOT / "content" / lesson, root / "content" / lesson)
    for folder in (".cache", "figures", "dist"):
        if (ROOT / folder).is_dir():
            shutil.copytree(ROOT / folder, root / folder)
    return [
        *("--content", str(root / "content"), "--out", str(root / "dist")),
        *("--figures", str(root / "figures"), "--cache", str(root / ".cache")),
    ]


def built_lesson(lesson: str, root: Path):
    """The lesson loaded, executed (from the cache) and rendered, as the write stage gets it."""
    from deck.execute.plan import execute
    from deck.options import Options
    from deck.progress import LogOnly
    from deck.render.deck import render_lesson
    from deck.source.registry import sources_for

    options = Options(
        content=root / "content",
        out=root / "dist",
        figures=root / "figures",
        cache=root / ".cache",
        pdf=False,
    )
    source = sources_for([lesson], options.content)[0]
    loaded = source.load()
    executed = execute(loaded, options, LogOnly(lambda _: None))
    if executed.executed:
        raise SystemExit(f"sections ran ({executed.executed}): build the lesson first")
    deck = render_lesson(loaded, executed.results, options.cache)
    return loaded, deck, options, executed.results


def time_notebook(lesson: str, root: Path, repeats: int) -> list[float]:
    from deck.progress import LogOnly
    from deck.publish.exporter import DECK, Built
    from deck.publish.notebook import Notebooks

    loaded, deck, options, results = built_lesson(lesson, root)
    samples = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="deck-bench-nb-") as tmp:
            built = Built(loaded, deck, options, {DECK: Path(tmp)}, results)
            exporter = Notebooks()
            t0 = time.perf_counter()
            made = exporter.made_from(built)
            exporter.export(built, list(made or ()), LogOnly(lambda _: None))
            samples.append(time.perf_counter() - t0)
    return samples


def time_pptx(lesson: str, root: Path, repeats: int, cold: bool) -> tuple[list, list]:
    """Wall seconds, and this process's CPU seconds (less sensitive to a busy machine; the
    browser drawing cold pictures is another process, not counted)."""
    from deck.progress import LogOnly
    from deck.publish.exporter import DECK, Built
    from deck.publish.pptx import Pptx

    loaded, deck, options, results = built_lesson(lesson, root)
    samples, cpu = [], []
    for _ in range(repeats):
        if cold:
            shutil.rmtree(options.cache / lesson / "pptx", ignore_errors=True)
        with tempfile.TemporaryDirectory(prefix="deck-bench-pptx-") as tmp:
            built = Built(loaded, deck, options, {DECK: Path(tmp)}, results)
            exporter = Pptx()
            t0, c0 = time.perf_counter(), time.process_time()
            made = exporter.made_from(built)
            exporter.export(built, list(made or ()), LogOnly(lambda _: None))
            samples.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    return samples, cpu


def time_course(root: Path, repeats: int) -> list[float]:
    from deck.options import Options
    from deck.publish.course import lesson_folders, write_course_page
    from deck.publish.coursefile import read_course

    options = Options(content=root / "content", out=root / "dist", cache=root / ".cache")
    samples = []
    for _ in range(repeats):
        (root / "dist" / "index.html").unlink(missing_ok=True)
        t0 = time.perf_counter()
        known = lesson_folders(options.content)
        write_course_page(options, read_course(options.content, set(known)), known)
        samples.append(time.perf_counter() - t0)
    return samples


def no_change(common: list[str], lesson: str, root: Path, repeats: int) -> tuple[list, list]:
    modules = root / "modules.json"
    env = {**os.environ, "DECK_BENCH_MODULES": str(modules)}
    args = [str(PYTHON), "-c", CHILD, str(ROOT / "build.py"), lesson, "--no-pdf", *common]
    first = run(args, ROOT, env)  # (records the notebook and course page of this copy)
    if first.code != 0:
        raise SystemExit(first.reason())
    # The files the copy and that build just wrote are too recent to trust by their stats: the
    # next check hashes them and keeps their stats. Measure the steady state after it, as a
    # lecturer's second no-change build sees it.
    time.sleep(RACY_SECONDS + 0.5)
    run(args, ROOT, env)
    samples, heavy = [], set()
    for _ in range(repeats):
        result = run(args, ROOT, env)
        if "up to date" not in result.stderr:
            raise SystemExit("the no-change build was not up to date:\n" + result.stderr)
        samples.append(result.seconds)
        heavy |= set(json.loads(modules.read_text()))
    return samples, sorted(heavy)


def prose_edit(common: list[str], lesson: str, root: Path) -> tuple[str, str]:
    edits.prose_edit(root / "content" / lesson, 1)
    result = run([str(PYTHON), str(ROOT / "build.py"), lesson, "--no-pdf", *common], ROOT)
    kept = re.search(r"kept +(.*)\(made from the same deck\)", result.stderr)
    made = re.search(r"wrote +\S+/(.*)", result.stderr)
    return (kept.group(1) if kept else "nothing"), (made.group(1) if made else "?")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--lesson", default="transformer")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="deck-bench-outputs-") as tmp:
        root = Path(tmp)
        common = copy_project(args.lesson, root)
        nochange, heavy = no_change(common, args.lesson, root, args.repeats)
        print(f"no-change build   {summary(nochange)} s   heavy modules: {heavy or 'none'}")
        print(f"                  ({load()})")
        notebook = time_notebook(args.lesson, root, args.repeats)
        print(f"notebook          {summary(notebook)} s   ({load()})")
        for cold in (False, True):
            wall, cpu = time_pptx(args.lesson, root, args.repeats, cold=cold)
            name = "pptx (cold)  " if cold else "pptx (cached)"
            print(f"{name}     {summary(wall)} s, CPU {summary(cpu)} s   ({load()})")
        course = time_course(root, max(args.repeats, 20))
        print(f"course page       {summary(course)} s   ({load()})")
        kept, made = prose_edit(common, args.lesson, root)
        print(f"prose edit        kept: {kept}")
        print(f"                  wrote: {made}")
        print(f"median over {args.repeats} runs (course page: {max(args.repeats, 20)})")
        _ = statistics  # (medians come from measure.summary)


if __name__ == "__main__":
    main()
