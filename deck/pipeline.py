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
from pathlib import Path

from deck.assets import copy_assets
from deck.cache import DAMAGED, Store, cache_key, environment_fingerprint
from deck.errors import DeckError, Diagnostic
from deck.execute import Job, OnProgress, run_sections
from deck.load import load_lesson
from deck.model import Lesson, SectionResult
from deck.options import PDFS, Options, Report
from deck.progress import ProgressDisplay
from deck.publish import Target, new_build_id, publish
from deck.render import RenderedDeck, render_lesson

Log = Callable[[str], None]
PDF_RECORD = ".build-stamp"  # in dist/<lesson>: the deck hash the PDFs were printed from


def build(names: list[str], options: Options, log: Log, progress: object = None) -> Report:
    from deck.runner import build as run

    return run(names, options, log, progress)


def build_lesson(
    folder: Path, options: Options, log: Log, report: Report, progress: object = None
) -> None:
    t0 = time.perf_counter()
    lesson = load_lesson(folder)
    for warning in lesson.warnings:
        log(str(warning))
        report.warnings.append(str(warning))
    check_labels(lesson)
    on_progress = progress if isinstance(progress, ProgressDisplay) else None
    results = execute(lesson, options, log, report, on_progress)
    t1 = time.perf_counter()
    deck = render_lesson(lesson, results, options.cache)
    for warning in deck.warnings:  # found while rendering (a .qmd's figure without alt text)
        log(str(warning))
        report.warnings.append(str(warning))
    report.seconds["render"] = time.perf_counter() - t1
    write(lesson, deck, options, log, report, progress)
    report.lessons.append(lesson.name)
    log(f"{lesson.name}: {len(deck.slides)} slides built in {time.perf_counter() - t0:.1f} s")


def check_labels(lesson: Lesson) -> None:
    """Labels name figure files, so two may not be equal, not even in case (as on macOS).
    Names that collide only once cells ran (`render.figure_collisions`) are checked there."""
    seen: dict[str, str] = {}
    problems = []
    for section in lesson.sections:
        for cell in section.cells():
            if not cell.label:
                continue
            name = cell.label.lower()
            if name in seen:
                msg = f"label `{cell.label}` already used at {seen[name]}"
                problems.append(Diagnostic(cell.loc, "option", msg))
            else:
                seen[name] = str(cell.loc)
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
            report.reused.append(f"{lesson.name}/{section.name}")
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


def write(
    lesson: Lesson,
    deck: RenderedDeck,
    options: Options,
    log: Log,
    report: Report,
    progress: object = None,
) -> None:
    """Stage dist/<lesson> and figures/<lesson> completely, then publish both at once."""
    t0 = time.perf_counter()
    build_id = new_build_id()
    out = Target(options.out / lesson.name, build_id)
    figures = Target(options.figures / lesson.name, build_id)
    targets = [out, figures]
    if options.single_file:  # dist/<lesson>.html, every asset inlined
        targets.append(Target(options.out / f"{lesson.name}.html", build_id))
    try:
        for target in (out, figures):
            target.staging.mkdir(parents=True)
        staging = out.staging
        copy_assets(staging / "assets")
        (staging / "figures").mkdir()
        for figure in deck.figures:
            shutil.copyfile(figure, staging / "figures" / figure.name)
            shutil.copyfile(figure, figures.staging / figure.name)
        for published, source in deck.media:  # images and stylesheets the slides name
            (staging / published).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, staging / published)
        (staging / "index.html").write_text(deck.html, "utf-8")
        stamp = tree_hash(staging)
        values = json.dumps(deck.values, ensure_ascii=False, indent=1)
        (staging / "values.json").write_text(values + "\n", "utf-8")
        report.seconds["write"] = time.perf_counter() - t0
        warnings, pdfs = write_pdfs(
            out.path, staging, stamp, len(deck.slides), options, log, report
        )
        record = {"hash": stamp, "pdfs": pdfs, "warnings": warnings}
        (staging / PDF_RECORD).write_text(json.dumps(record, ensure_ascii=False), "utf-8")
        if options.single_file:
            from deck.singlefile import inline_deck

            targets[2].staging.write_text(inline_deck(staging / "index.html"), "utf-8")
        publish(targets)
        report.published = True
    finally:
        for target in targets:
            if target.staging.is_dir():
                shutil.rmtree(target.staging, ignore_errors=True)
            else:
                target.staging.unlink(missing_ok=True)
    single = f", {targets[2].path}" if options.single_file else ""
    log(f"  wrote   {out.path}/index.html, values.json" + "".join(f", {p}" for p in pdfs) + single)


def previous_build(out: Path) -> dict:
    try:
        record = json.loads((out / PDF_RECORD).read_text("utf-8"))
        return record if isinstance(record, dict) else {}
    except (OSError, ValueError):
        return {}


def write_pdfs(
    out: Path,
    staging: Path,
    stamp: str,
    slides: int,
    options: Options,
    log: Log,
    report: Report,
    progress: object = None,
) -> tuple[list[str], list[str]]:
    """Print the PDFs, or keep the previous ones when the deck is byte-for-byte the same.

    Returns the layout warnings (slides that overflow), kept with the build so that an
    unchanged rebuild repeats them without opening a browser, and the PDFs now in `staging`.
    Without PDFs (`--no-pdf`), PDFs printed from another deck are dropped, never kept as if
    they showed this one.
    """
    previous = previous_build(out)
    names = list(PDFS)
    same_deck = previous.get("hash") == stamp
    kept = [n for n in previous.get("pdfs", []) if n in PDFS and (out / n).is_file()]
    if same_deck and (kept == names or (not options.pdf and kept)):
        for n in kept:
            shutil.copyfile(out / n, staging / n)
        warnings = [w for w in previous.get("warnings", []) if isinstance(w, str)]
        for warning in warnings:
            log(warning)
        report.warnings.extend(warnings)
        log(f"  kept    {', '.join(kept)} (deck unchanged)")
        return warnings, kept
    if not options.pdf:
        stale = [n for n in names if (out / n).exists()]
        if stale:
            log(
                f"  removed {', '.join(stale)}: printed from an earlier deck "
                "(build without --no-pdf to print them again)"
            )
        return [], []
    from deck.pdf import PrintJob, print_pdfs

    t0 = time.perf_counter()
    jobs = [PrintJob(staging / name, kind) for name, kind in PDFS.items()]
    if isinstance(progress, ProgressDisplay):
        progress.start("pdf", f"printing {', '.join(names)}")
    try:
        overflows = print_pdfs(staging / "index.html", jobs, slides)
    finally:
        if isinstance(progress, ProgressDisplay):
            progress.stop("pdf")
    warnings = [str(overflow) for overflow in overflows]
    for warning in warnings:
        log(warning)
    report.warnings.extend(warnings)
    report.printed.extend(names)
    report.seconds["pdf"] = time.perf_counter() - t0
    log(f"  printed {', '.join(names)} ({time.perf_counter() - t0:.1f} s)")
    return warnings, names
