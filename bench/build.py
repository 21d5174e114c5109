"""Benchmark whole builds of the main lesson and of the reference deck, against nbconvert.

    bash bench/setup.sh                  # once: bench/.venv with nbconvert, for the comparison
    .venv/bin/python bench/build.py [--repeats 3] [--lesson transformer] [--reference FILE.qmd]
                                    [--skip lesson,reference,nbconvert,serve] [--json FILE]
                                    [--record]

Each repeat starts from a fresh temporary copy of the sources and an empty cache; every build is
a fresh `python build.py` process writing into that folder (--content/--out/--figures/--cache).
Printed for each deck: the median and the spread (min–max) over the repeats of each scenario
in ROWS, and which heavy modules the no-change builds imported (never torch nor matplotlib).
The reference deck (a Quarto file, `../shared/bench/attention.qmd`) is built with
`python build.py FILE.qmd` and, for the comparison, converted to a notebook and run with
`jupyter nbconvert --to slides --execute` (bench/baseline.py), with the ratios deck/nbconvert.
bench/README.md says what each row measures. `--record` adds the medians to bench/history.json
and rewrites the README's table of the last three measured commits (bench/history.py).

It fails (exit 1, after the tables) when a build did not do what its scenario is about: a
no-change build that does not say "up to date" or imports torch or matplotlib, a prose edit
that runs a cell, a cell edit that runs other than one section, or a build that stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import baseline
import edits
from measure import Run, ratio, run, summary

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
REFERENCES = [ROOT.parent / "shared/bench/attention.qmd", Path("/work/shared/bench/attention.qmd")]
ROWS = {
    "cold": "cold build (empty cache, with PDFs)",
    "nochange_html": "no-change build, HTML only",
    "nochange_own": "no-change build, HTML only, in its own process",
    "nochange_pdf": "no-change build, with PDFs",
    "prose_html": "prose edit, HTML only (terminal: layout after)",
    "prose_own": "prose edit, HTML only, in its own process (terminal)",
    "prose_late": "prose edit: its layout warnings said at",
    "prose_wait": "prose edit, HTML only, layout within (CI)",
    "prose_pdf": "prose edit, with PDFs",
    "prose_new": "prose edit bringing 2 new characters, HTML only (terminal)",
    "prose_new_wait": "prose edit bringing 2 new characters, layout within (CI)",
    "cell_html": "cell edit (one constant), HTML only",
    "pdf": "PDF printing (deck: all its PDFs)",
    "serve": "--serve: title edit saved → page shows it",
    "peak_mb": "peak memory, MB (largest process)",
}
HEAVY = ("torch", "matplotlib", "numpy", "playwright", "markdown", "jinja2", "pygments", "rich")
# Runs build.py as `python build.py` would, then records which heavy modules it had imported.
CHILD = f"""
import atexit, json, os, runpy, sys
def report():
    with open(os.environ["DECK_BENCH_MODULES"], "w") as f:
        json.dump([m for m in {HEAVY!r} if m in sys.modules], f)
atexit.register(report)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
PRINTED = re.compile(r"printed .*\((\d+(?:\.\d+)?) s\)")
RAN = re.compile(r"^\s+ran\s", re.MULTILINE)
SUBSET = re.compile(r"fonts .*\((\d+) subsets? now")  # (a build that made font subsets)


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Side:
    """The measurements of one tool on one deck, and what it is worth knowing about them."""

    samples: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # the scenario was not what it says
    heavy: set[str] = field(default_factory=set)
    slides: int = 0
    broken: bool = False

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def fail(self, text: str) -> None:
        self.note(text)
        if text not in self.failures:
            self.failures.append(text)


class BuildFailed(Exception):
    def __init__(self, step: str, result: Run):
        super().__init__(f"{step}: {result.reason()}")
        self.result = result


# ---- deck ----------------------------------------------------------------------------------


def deck_build(
    common: list[str],
    tmp: Path,
    step: str,
    extra: tuple[str, ...] = (),
    late: bool = False,
    own: bool = False,
) -> Run:
    """One build. `late`: as at a terminal, the layout check of changed slides is left until
    after the build (`deck.publish.layoutlate`); else it runs within the build, as in CI.
    `own`: in a process of its own, not in the warm build service (deck/buildd.py), whose
    socket is the repeat's own (its first build starts it, as a user's first build does)."""
    modules = tmp / "modules.json"
    modules.unlink(missing_ok=True)
    env = dict(os.environ, DECK_BENCH_MODULES=str(modules), DECK_LAYOUT_LATE=str(int(late)))
    env |= {"DECK_BUILDD": "0" if own else "1", "DECK_BUILDD_SOCKET": str(tmp / "buildd.sock")}
    python = str(PYTHON if PYTHON.is_file() else sys.executable)
    result = run([python, "-c", CHILD, str(ROOT / "build.py"), *common, *extra], ROOT, env)
    say(f"    {step:<28} {result.seconds:8.2f} s   {result.peak_mb:6.0f} MB")
    if result.code != 0:
        raise BuildFailed(step, result)
    return result


def imported(tmp: Path) -> set[str]:
    try:
        return set(json.loads((tmp / "modules.json").read_text("utf-8")))
    except (OSError, ValueError):
        return {"(unknown: the build did not report its modules)"}


def deck_repeat(source: Path, tmp: Path, side: Side, serve: bool, n: int) -> None:
    """One repeat of every scenario for this project's build, in a fresh folder `tmp`."""
    copy = tmp / "src" / source.name
    if source.is_dir():
        shutil.copytree(source, copy)
        name, target = copy.name, [copy.name, "--content", str(copy.parent)]
    else:
        copy.parent.mkdir(parents=True)
        shutil.copyfile(source, copy)
        name, target = copy.stem, [str(copy)]
    out = tmp / "dist"
    common = [*target, "--out", str(out), "--figures", str(tmp / "figures")]
    common += ["--cache", str(tmp / "cache")]
    edits.add_constant(copy)
    peaks: list[float] = []
    try:
        build_all(copy, name, common, tmp, side, peaks)
    finally:
        if peaks:  # a failed build's peak counts too
            side.samples["peak_mb"].append(max(peaks))
    if serve:
        try:
            seconds = serve_latency(copy, name, tmp, n)
            side.samples["serve"].append(seconds)
            say(f"    {'--serve reload':<28} {seconds:8.2f} s")
        except Exception as exc:  # the preview of a .qmd may not exist yet in this checkout
            side.note(f"--serve not measured: {type(exc).__name__}: {exc}")


def build_all(
    copy: Path, name: str, common: list[str], tmp: Path, side: Side, peaks: list[float]
) -> None:
    """The builds of one repeat, in order; each scenario's time goes into `side`."""

    def build(step: str, *extra: str, late: bool = False, own: bool = False) -> Run:
        try:
            result = deck_build(common, tmp, step, extra, late, own)
        except BuildFailed as exc:
            peaks.append(exc.result.peak_mb)
            raise
        peaks.append(result.peak_mb)
        return result

    side.samples["cold"].append(build("cold, with PDFs").seconds)  # (it starts the service)
    side.slides = edits.slide_count(tmp / "dist" / name / "index.html")
    warm = tmp / "buildd.sock"
    until = time.monotonic() + 30  # (the service the cold build started, listening)
    while not warm.exists() and time.monotonic() < until:
        time.sleep(0.1)
    if not warm.exists():
        side.note("the warm build service did not start: every build ran in its own process")
    for key, step, extra in [
        ("nochange_pdf", "no-change, with PDFs", ()),
        ("prose_pdf", "prose edit, with PDFs", ()),
        (None, "(now HTML only: re-render)", ("--no-pdf",)),
        ("nochange_html", "no-change, HTML only", ("--no-pdf",)),
        ("nochange_own", "  … in its own process", ("--no-pdf",)),
        ("prose_wait", "prose edit, check within", ("--no-pdf",)),
        ("prose_html", "prose edit, HTML only", ("--no-pdf",)),
        ("prose_own", "  … in its own process", ("--no-pdf",)),
        ("prose_new", "prose edit, new characters", ("--no-pdf",)),
        ("prose_new_wait", "  … layout within", ("--no-pdf",)),
        ("cell_html", "cell edit, HTML only", ("--no-pdf",)),
    ]:
        if key and key.startswith("prose_new"):
            edits.new_character_edit(copy)
        elif key and key.startswith("prose"):
            edits.prose_edit(copy, {"prose_pdf": 1, "prose_wait": 2, "prose_own": 4}.get(key, 3))
        if key == "cell_html":
            edits.cell_edit(copy, 1)
        started = time.time()
        late = key in ("prose_html", "prose_own", "prose_new")
        result = build(step, *extra, late=late, own=key in ("nochange_own", "prose_own"))
        if key is None:
            continue
        side.samples[key].append(result.seconds)
        check(key, result, side, tmp)
        if key in ("prose_own", "prose_new"):
            late_check_done(tmp / "cache" / "layout-late" / f"{name}.json", started)
        if key == "prose_html":
            said = late_check_done(tmp / "cache" / "layout-late" / f"{name}.json", started)
            if said is None:
                side.fail(f"{ROWS[key]}: the layout check after the build gave no answer")
            else:
                side.samples["prose_late"].append(said)
                say(f"    {'  its layout warnings said':<28} {said:8.2f} s")


def late_check_done(answers: Path, started: float, wait: float = 30.0) -> float | None:
    """Seconds from a build's start to the answers of the layout check it left until after it
    (their file written: the warnings are said then); None when none come within `wait`."""
    until = time.time() + wait
    while time.time() < until:
        with contextlib.suppress(OSError):
            written = answers.stat().st_mtime
            if written >= started:
                return written - started
        time.sleep(0.01)
    return None


def check(key: str, result: Run, side: Side, tmp: Path) -> None:
    """Notes when a build did not do what its scenario is about."""
    log = result.stderr
    if key.startswith("nochange"):
        if key != "nochange_html":  # (a warm build's modules are the service's fork's)
            side.heavy |= imported(tmp)
        if "up to date" not in log:
            side.fail(f"{ROWS[key]}: the build did not report 'up to date'")
        if bad := {"torch", "matplotlib"} & side.heavy:
            side.fail(f"{ROWS[key]}: imported {', '.join(sorted(bad))}")
    if key.startswith("prose") and RAN.search(log):
        side.fail(f"{ROWS[key]}: cells ran again")
    if key.startswith("prose_new") and not SUBSET.search(log):
        side.fail(f"{ROWS[key]}: no font subset was made")
    if key == "cell_html" and len(RAN.findall(log)) != 1:
        side.fail(f"{ROWS[key]}: {len(RAN.findall(log))} sections ran (expected 1)")
    if key == "prose_pdf":
        match = PRINTED.search(log)
        if match:
            side.samples["pdf"].append(float(match[1]))
        else:
            side.note("PDF printing: no `printed … (X s)` line in the build's log")


def serve_latency(copy: Path, name: str, tmp: Path, n: int) -> float:
    """The preview of `copy`, rebuilding in-process as `build.py --serve` does: seconds from
    saving a slide title edit to Chromium showing it on that slide."""
    sys.path.insert(0, str(ROOT))
    from deck.options import Options
    from deck.pipeline import build
    from deck.preview.serve import measure_reload_latency, running
    from deck.progress import LogOnly
    from deck.source.registry import sources_for

    lesson = copy.is_dir()
    options = Options(
        content=copy.parent,
        out=tmp / "dist",
        figures=tmp / "figures",
        cache=tmp / "cache",
        pdf=False,
    )
    names = [name] if lesson else [str(copy)]  # as `build.py --serve` passes them
    messages: list[str] = []
    sources = sources_for(names, options.content)
    with running(
        lambda: build(names, options, LogOnly(messages.append)), sources, options.out
    ) as p:
        status = p.status.wait_after(0, timeout=600)
        if status is None or status["errors"]:
            raise RuntimeError(f"the preview's first build failed: {status and status['errors']}")
        path, line = edits.title_line(copy)
        slide = edits.slide_index(options.out / name / "index.html", path, line)
        return measure_reload_latency(
            copy,
            f"{p.url}{name}/",
            lambda _: edits.title_edit(path, line, n),
            slide=slide,
            timeout=120,
        )


# ---- nbconvert ----------------------------------------------------------------------------


def nbconvert_repeat(source: Path, tmp: Path, side: Side) -> None:
    """The same scenarios with `jupyter nbconvert --to slides --execute`: it has no cache, so
    every build is a full run; its PDF is one print of its slides (`?print-pdf`)."""
    copy = tmp / source.name
    shutil.copyfile(source, copy)
    edits.add_constant(copy)
    env = baseline.environment(tmp / "jupyter")
    notebook, out = tmp / f"{copy.stem}.ipynb", tmp / "nbconvert"

    def execute(step: str) -> Run:
        converted = run(baseline.to_notebook_command(copy, notebook), tmp, env)
        if converted.code != 0:
            raise BuildFailed("to notebook", converted)
        result = run(baseline.nbconvert_command(notebook, out), tmp, env)
        say(f"    nbconvert {step:<18} {result.seconds:8.2f} s   {result.peak_mb:6.0f} MB")
        if result.code != 0:
            raise BuildFailed(f"nbconvert {step}", result)
        return result

    cold = execute("cold")
    same = execute("no-change")
    edits.prose_edit(copy, 1)
    prose = execute("prose edit")
    edits.cell_edit(copy, 1)
    cell = execute("cell edit")
    pdf, pages, refused = baseline.print_pdf(out / f"{notebook.stem}.slides.html", tmp / "nb.pdf")
    say(f"    nbconvert {'PDF (one)':<18} {pdf:8.2f} s")
    side.slides = pages
    if refused:
        side.note(f"not available offline, left out by the browser: {', '.join(refused)}")
    for key, seconds in [
        ("cold", cold.seconds + pdf),
        ("nochange_html", same.seconds),
        ("nochange_pdf", same.seconds + pdf),
        ("prose_html", prose.seconds),
        ("prose_pdf", prose.seconds + pdf),
        ("cell_html", cell.seconds),
        ("pdf", pdf),
        ("peak_mb", max(r.peak_mb for r in (cold, same, prose, cell))),
    ]:
        side.samples[key].append(seconds)


# ---- report -------------------------------------------------------------------------------


def table(title: str, deck: Side, other: Side | None) -> list[str]:
    lines = [title]
    lines += [f"  note (deck): {note}" for note in deck.notes]
    if other is not None:
        lines += [f"  note (nbconvert): {note}" for note in other.notes]
    if not any(deck.samples.values()) and not (other and any(other.samples.values())):
        return lines
    wide = max(map(len, ROWS.values())) + 2
    head = f"  {'scenario':<{wide}}{'deck':>22}"
    if other is not None:
        head += f"{'nbconvert':>22}{'deck/nbconvert':>16}"
    lines.append(head)
    for key, label in ROWS.items():
        unit = "MB" if key == "peak_mb" else "s"
        row = f"  {label:<{wide}}{summary(deck.samples.get(key, []), unit):>22}"
        if other is not None:
            theirs = other.samples.get(key, [])
            shown = "no preview" if key == "serve" else summary(theirs, unit)
            row += f"{shown:>22}{ratio(deck.samples.get(key, []), theirs):>16}"
        lines.append(row)
    if deck.samples.get("nochange_html") or deck.samples.get("nochange_pdf"):
        heavy = sorted(deck.heavy)
        bad = [m for m in heavy if m in ("torch", "matplotlib")]
        verdict = f"IMPORTED {', '.join(bad)}" if bad else "neither imported"
        names = ", ".join(heavy) or "none of " + ", ".join(HEAVY)
        said = f"  no-change builds in their own process imported: {names}"
        lines.append(f"{said} (torch, matplotlib: {verdict})")
    if other is not None and other.samples:
        lines.append(
            "  nbconvert: every build is a full run (no cache); its rows 'with PDFs' add "
            "the time to print one PDF of its slides"
        )
    return lines


def default_reference() -> Path | None:
    return next((p for p in REFERENCES if p.is_file()), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--lesson", default="transformer", help="a lesson in content/, or a lesson folder's path"
    )
    parser.add_argument(
        "--reference",
        type=Path,
        default=default_reference(),
        help="the reference deck, a .qmd (default: ../shared/bench/attention.qmd)",
    )
    parser.add_argument("--skip", default="", help="comma list of lesson,reference,nbconvert,serve")
    parser.add_argument("--json", type=Path, help="also write every measurement to this file")
    parser.add_argument(
        "--record",
        action="store_true",
        help="add the medians to bench/history.json and the README's history table",
    )
    args = parser.parse_args()
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    if unknown := skip - {"lesson", "reference", "nbconvert", "serve"}:
        parser.error(f"--skip: unknown {', '.join(sorted(unknown))}")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    lesson, ref, nb = Side(), Side(), Side()
    reference = args.reference
    if "reference" not in skip and (reference is None or not reference.is_file()):
        ref.note(f"reference deck not found ({reference or 'no default'}): pass --reference")
        ref.broken = nb.broken = True
    if "nbconvert" not in skip and (why := baseline.missing()):
        nb.note(why)
        nb.broken = True
    load = os.getloadavg()
    serve = "serve" not in skip
    lesson_dir = Path(args.lesson) if "/" in args.lesson else ROOT / "content" / args.lesson
    for n in range(1, args.repeats + 1):
        for kind, side in [("lesson", lesson), ("reference", ref), ("nbconvert", nb)]:
            if kind in skip or side.broken or (kind == "nbconvert" and "reference" in skip):
                continue
            say(f"[{n}/{args.repeats}] {kind}")
            with tempfile.TemporaryDirectory(prefix=f"deck-bench-{kind}-") as name:
                tmp = Path(name)
                try:
                    if kind == "lesson":
                        deck_repeat(lesson_dir, tmp, side, serve, n)
                    elif kind == "reference":
                        deck_repeat(reference, tmp, side, serve, n)
                    else:
                        nbconvert_repeat(reference, tmp, side)
                except BuildFailed as exc:
                    side.broken = True
                    first = not any(side.samples.values())
                    if kind == "reference" and first and exc.result.code == 2:  # usage error
                        side.note(f"reference deck: not buildable by this checkout ({exc})")
                    else:
                        side.fail(f"stopped: {exc}")
                        say(exc.result.stderr[-3000:])
                    say(f"    {side.notes[-1]}")
    load_after = os.getloadavg()
    lines = [
        f"deck benchmark: {args.repeats} repeat(s), median (min–max), seconds unless stated; "
        f"{os.cpu_count()} CPUs, load average {load[0]:.1f} before, {load_after[0]:.1f} after",
    ]
    if "lesson" not in skip:
        title = f"main lesson: {lesson_dir} ({lesson.slides} slides)"
        lines += ["", *table(title, lesson, None)]
    if "reference" not in skip:
        slides = ref.slides or nb.slides
        other = None if "nbconvert" in skip else nb
        lines += ["", *table(f"reference deck: {reference} ({slides} slides)", ref, other)]
    print("\n".join(lines))
    if args.json:
        data = {
            kind: {"samples": side.samples, "notes": side.notes, "heavy": sorted(side.heavy)}
            for kind, side in [("lesson", lesson), ("reference", ref), ("nbconvert", nb)]
        }
        data["load_average"] = {"before": load, "after": load_after}
        args.json.write_text(json.dumps(data, indent=1, ensure_ascii=False), "utf-8")
    failures = [
        f"{kind}: {f}"
        for kind, side in [("lesson", lesson), ("reference", ref)]
        for f in side.failures
    ]
    if args.record and not failures:
        import history

        medians = {
            kind: {k: statistics.median(v) for k, v in side.samples.items() if v}
            for kind, side in [("lesson", lesson), ("reference", ref)]
            if any(side.samples.values())
        }
        history.record(medians, args.repeats, (load[0], load_after[0]))
        say(f"recorded in {history.FILE.relative_to(ROOT)} and bench/README.md")
    if failures:
        say("FAILED: a scenario did not do what it says:")
        for failure in failures:
            say(f"  {failure}")
        sys.exit(1)


if __name__ == "__main__":
    main()
