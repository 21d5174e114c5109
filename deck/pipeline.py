"""The build, top to bottom: load → plan → execute → render → write.

Everything is read and computed before anything is written; the write stage fills a staging
folder and swaps it in only when the whole lesson built, so a failed build leaves the
previous `dist/` and `figures/` as they were.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from deck.assets import copy_assets
from deck.cache import DAMAGED, Store, cache_key, environment_fingerprint
from deck.errors import DeckError, Diagnostic
from deck.execute import Job, OnProgress, run_sections
from deck.load import load_lesson
from deck.mathtex import KaTeX
from deck.model import Lesson, SectionResult
from deck.render import RenderedDeck, collect_formulas, render_lesson

STAMP = ".build-stamp"


@dataclass(frozen=True)
class Options:
    content: Path = Path("content")
    out: Path = Path("dist")
    figures: Path = Path("figures")
    cache: Path = Path(".cache")
    pdf: bool = True
    force: bool = False
    jobs: int = 2
    verbose: bool = False


@dataclass
class Report:
    lessons: list[str] = field(default_factory=list)
    ran: int = 0
    cached: int = 0
    executed: list[str] = field(default_factory=list)  # "<lesson>/<section>" of each run
    reasons: dict[str, str] = field(default_factory=dict)  # why each of those ran
    printed: bool = False


Log = Callable[[str], None]


def build(names: list[str], options: Options, log: Log) -> Report:
    report = Report()
    for name in names:
        build_lesson(options.content / name, options, log, report)
    return report


def build_lesson(folder: Path, options: Options, log: Log, report: Report) -> None:
    t0 = time.perf_counter()
    lesson = load_lesson(folder)
    for warning in lesson.warnings:
        log(str(warning))
    check_labels(lesson)
    results = execute(lesson, options, log, report)
    katex = KaTeX(options.cache / "katex.json")
    katex.prepare(collect_formulas(lesson, results))
    deck = render_lesson(lesson, results, katex)
    write(lesson, deck, options, log, report)
    report.lessons.append(lesson.name)
    log(f"{lesson.name}: {len(deck.slides)} slides built in {time.perf_counter() - t0:.1f} s")


def check_labels(lesson: Lesson) -> None:
    seen: dict[str, str] = {}
    problems = []
    for section in lesson.sections:
        for cell in section.cells():
            if cell.label in seen:
                msg = f"label `{cell.label}` already used at {seen[cell.label]}"
                problems.append(Diagnostic(cell.loc, "option", msg))
            elif cell.label:
                seen[cell.label] = str(cell.loc)
    if problems:
        raise DeckError(problems)


def execute(
    lesson: Lesson,
    options: Options,
    log: Log,
    report: Report,
    on_progress: OnProgress | None = None,
) -> dict[str, SectionResult]:
    """Results for every section: from the cache where it is still valid, else by running.

    Sections that ran successfully are saved to the cache even when another section failed,
    so after the fix only the broken one runs again.
    """
    fingerprint = environment_fingerprint(lesson)
    store = Store(options.cache, lesson.name, lesson.path, fingerprint)
    results: dict[str, SectionResult] = {}
    jobs = []
    why: dict[str, str] = {}
    for section in lesson.sections:
        key = cache_key(section, fingerprint)
        cached, reason = store.lookup(section, key)  # also learns how long it took last time
        if options.force:
            cached, reason = None, "--force"
        if cached is not None:
            results[section.name] = cached
            report.cached += 1
            log(f"  cached  {section.rel}  (ran in {cached.seconds:.1f} s when computed)")
            continue
        if reason.startswith(DAMAGED):
            detail = reason.removeprefix(DAMAGED).lstrip(": ")
            log(f"  note    cache entry for {section.name} damaged ({detail}): recomputing")
        why[section.name] = reason
        jobs.append(Job(section, key, store.figure_dir(key), store.last_seconds(section)))

    def progress(job: Job, outcome: SectionResult | Diagnostic, seconds: float) -> None:
        status = "failed" if isinstance(outcome, Diagnostic) else "ran"
        cells = len(job.section.cells())
        reason = why[job.section.name]
        log(f"  {status:6}  {job.section.rel}  ({cells} cells, {seconds:.1f} s; {reason})")

    outcomes = run_sections(lesson, jobs, options.jobs, progress, options.verbose, on_progress)
    for job in jobs:
        result = outcomes[job.section.name]
        report.executed.append(f"{lesson.name}/{job.section.name}")
        report.reasons[f"{lesson.name}/{job.section.name}"] = why[job.section.name]
        if isinstance(result, SectionResult):
            store.save(job.section, result)
            results[job.section.name] = result
            report.ran += 1
    problems = [o for o in outcomes.values() if isinstance(o, Diagnostic)]
    if problems:
        raise DeckError(problems)
    store.prune({r.key for r in results.values()})
    return results


def tree_hash(folder: Path) -> str:
    """A hash of every file's path and bytes (and of the printer): equal hashes print equal PDFs."""
    h = hashlib.sha256((Path(__file__).parent / "pdf.py").read_bytes())
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def write(lesson: Lesson, deck: RenderedDeck, options: Options, log: Log, report: Report) -> None:
    out = options.out / lesson.name
    figures_out = options.figures / lesson.name
    staging = options.out / f".staging-{lesson.name}"
    figures_staging = options.figures / f".staging-{lesson.name}"
    for folder in (staging, figures_staging):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    try:
        copy_assets(staging / "assets")
        (staging / "figures").mkdir()
        for figure in deck.figures:
            shutil.copyfile(figure, staging / "figures" / figure.name)
            shutil.copyfile(figure, figures_staging / figure.name)
        (staging / "index.html").write_text(deck.html, "utf-8")
        stamp = tree_hash(staging)
        values = json.dumps(deck.values, ensure_ascii=False, indent=1)
        (staging / "values.json").write_text(values + "\n", "utf-8")
        warnings = (
            write_pdfs(out, staging, stamp, len(deck.slides), log, report) if options.pdf else []
        )
        record = {"hash": stamp, "pdf": options.pdf, "warnings": warnings}
        (staging / STAMP).write_text(json.dumps(record, ensure_ascii=False), "utf-8")
        swap(staging, out)
        swap(figures_staging, figures_out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(figures_staging, ignore_errors=True)
    log(
        f"  wrote   {out}/index.html, values.json"
        + (", slides.pdf, handout.pdf" if options.pdf else "")
    )


def previous_build(out: Path) -> dict:
    try:
        return json.loads((out / STAMP).read_text("utf-8"))
    except (OSError, ValueError):
        return {}


def write_pdfs(
    out: Path, staging: Path, stamp: str, slides: int, log: Log, report: Report
) -> list[str]:
    """Print both PDFs, or keep the previous ones when the deck is byte-for-byte the same.

    Returns the layout warnings (slides that overflow), which are kept with the build so an
    unchanged rebuild repeats them without opening a browser.
    """
    previous = previous_build(out)
    names = ("slides.pdf", "handout.pdf")
    if previous.get("hash") == stamp and previous.get("pdf"):
        if all((out / n).is_file() for n in names):
            for n in names:
                shutil.copyfile(out / n, staging / n)
            warnings = list(previous.get("warnings", []))
            for warning in warnings:
                log(warning)
            log("  kept    slides.pdf, handout.pdf (deck unchanged)")
            return warnings
    from deck.pdf import print_pdfs

    t0 = time.perf_counter()
    overflows = print_pdfs(staging / "index.html", staging / names[0], staging / names[1], slides)
    warnings = [str(overflow) for overflow in overflows]
    for warning in warnings:
        log(warning)
    report.printed = True
    log(f"  printed slides.pdf, handout.pdf ({time.perf_counter() - t0:.1f} s)")
    return warnings


def swap(staging: Path, target: Path) -> None:
    """Replace `target` by `staging` with renames, so readers never see a half-written folder."""
    old = target.with_name(f".old-{target.name}")
    shutil.rmtree(old, ignore_errors=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)
