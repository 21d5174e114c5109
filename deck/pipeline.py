"""The build, top to bottom: paths → lock → unchanged? → load → execute → render → publish →
record. Each stage returns a value; the report is assembled from those values.

Everything is read and computed before anything is written; the publish stage fills staging
folders and swaps them in only when the whole lesson built, so a failed build leaves the
previous `dist/` and `figures/` as they were. Only light modules are imported at the top: the
parser, executor and renderer are imported when a lesson actually needs building.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from deck.errors import DeckError, Diagnostic
from deck.options import KNOWN_OUTPUTS, BuildReport, LessonReport, Options, UsageError
from deck.progress import LogOnly, Progress, counted
from deck.publish.journal import clean_leftovers, output_lock
from deck.publish.manifest import Hasher, Manifest, inputs_digest, outputs_digest
from deck.source.registry import Source, sources_for

if TYPE_CHECKING:
    from deck.execute.executor import Executor
    from deck.model import Lesson
    from deck.publish.coursefile import CourseConfig

__all__ = ["BuildReport", "Options", "UsageError", "build", "check_paths"]


def build(names: list[str], options: Options, progress: Progress | None = None) -> BuildReport:
    """Build each lesson or `.qmd` of `names`; raises DeckError (the author's problems),
    UsageError, LockTimeout, or whatever broke outside the lesson. With `options.compare`
    (one lesson only), the earlier values.json is read and checked before anything is built,
    and the lesson's report holds the comparison of the build's values with it."""
    progress = progress or LogOnly()
    sources = sources_for(names, options.content)
    check_paths(sources, options)
    if options.compare is None:
        return _build_all(sources, options, progress)
    from deck.publish.compare import compare, load_values

    if len(sources) != 1:
        raise UsageError("--compare compares the build of one lesson: name one LESSON")
    earlier = load_values(options.compare)  # before the build: it may replace that very file
    report = _build_all(sources, options, progress)
    (lesson,) = report.reports
    now = load_values(options.out / sources[0].name / "values.json")
    found = compare(earlier, now, options.compare_rtol, options.compare_atol)
    lines = tuple(found.lines(str(options.compare)))
    return BuildReport((replace(lesson, compared=lines),))


def _build_all(sources: list[Source], options: Options, progress: Progress) -> BuildReport:
    """Build each source on one executor (`--executor`); with a cluster, the sections of all
    the lessons that must run are sent before the first lesson is built."""
    from deck.execute.executor import open_executor  # (light: Dask only on first use)

    places = tuple(str(p) for p in (options.out, options.figures, options.cache))
    executor = open_executor(options.executor, options.jobs, places)
    try:
        if executor.fans_out and len(sources) > 1 and not options.frozen_only:
            _fan_out(sources, options, progress, executor)
        return _build_lessons(sources, options, progress, executor)
    finally:
        executor.close()


def _fan_out(
    sources: list[Source], options: Options, progress: Progress, executor: Executor
) -> None:
    """Send the sections every lesson that is not up to date would run, all at once."""
    from deck.execute.plan import pending

    sent = 0
    with output_lock([options.out, options.figures, options.cache], progress.log):
        for source in sources:
            if _up_to_date(source, options)[0]:
                continue
            try:
                lesson = source.load()
                check_labels(lesson)
            except DeckError:
                continue  # (its own build reports it)
            jobs = pending(lesson, options)
            executor.submit(lesson, jobs)
            sent += len(jobs)
    if sent:
        progress.log(f"  sent    {counted(sent, 'section')} to {options.executor}")


def _build_lessons(
    sources: list[Source], options: Options, progress: Progress, executor: Executor
) -> BuildReport:
    if not options.wants("course"):
        return BuildReport(tuple(build_lesson(s, options, progress, executor) for s in sources))
    from deck.publish.course import lesson_folders
    from deck.publish.coursefile import read_course

    known = lesson_folders(options.content)
    course = read_course(options.content, set(known))  # a wrong value stops the build first
    for warning in course.warnings:
        progress.log(str(warning))
    reports = []
    for source in sources:
        try:
            reports.append(build_lesson(source, options, progress, executor))
        except DeckError as exc:  # its last good entry stays, marked with the failure in
            # .cache/course/ only: a failed build writes no course page (dist/ stays as it
            # was), the next build that succeeds writes the page with the mark
            failures = {**{r.name: None for r in reports}, source.name: _failure(exc)}
            _course_update(options, failures, course, known, progress, publish=False)
            raise
    _course_update(options, {s.name: None for s in sources}, course, known, progress)
    return BuildReport(tuple(reports))


def _failure(exc: DeckError) -> str:
    errors = [d for d in exc.diagnostics if d.severity == "error"]  # (warnings come after)
    first = errors[0] if errors else None
    what = f"{first.loc}: {first.message}" if first else "errors"
    more = len(errors) - 1
    return what[:300] + (f" (+{more})" if more > 0 else "")


def _course_update(
    options: Options,
    failures: dict[str, str | None],
    course: CourseConfig,
    known: list[str],
    progress: Progress,
    publish: bool = True,
) -> None:
    """Mark each lesson's entry as built (None) or failed, and (unless `publish` is False: the
    build failed) remove what lessons gone from the content folder left and write the course
    page when it lists one of them (a lesson that never built has no entry: its failure
    changes nothing)."""
    from deck.publish.course import gone_lessons, mark_entry, write_course_page

    with output_lock([options.out, options.figures, options.cache], progress.log):
        marked = [mark_entry(name, options, failure) for name, failure in failures.items()]
        if not publish:
            return
        gone = [_remove_gone(name, options, progress.log) for name in gone_lessons(options)]
        if any(marked) or any(gone):
            if write_course_page(options, course, known):
                progress.log(f"  wrote   {options.out / 'index.html'} (the course page)")


def _remove_gone(name: str, options: Options, log: Callable[[str], None]) -> bool:
    """Remove what builds wrote for a lesson gone from the content folder (its deck folder,
    figures and single file, by the journal: all or none) with its course entry, only while
    they are as its last good build left them (else they stay, said once); whether its entry
    went."""
    from deck.publish.course import entries_folder
    from deck.publish.journal import Target, new_build_id, publish

    targets = output_paths(name, options)
    clean_leftovers(targets)  # (a removal a killed build left halfway is finished first)
    there = [t for t in targets if t.exists()]
    shown = ", ".join(f"{t}/" if t.is_dir() else str(t) for t in there)
    why = f"lesson {name} is no longer in {options.content}/"
    manifest = Manifest.load(options.cache / f"{name}.manifest.json")
    if there and manifest.data.get("outputs") != outputs_digest(manifest.hasher(), targets):
        log(f"  kept    {shown}: {why}, but not as its last build left them (yours to remove)")
    elif there:
        build_id = new_build_id()
        try:
            publish([Target(t, build_id, drop=True) for t in targets])
        except OSError as exc:
            log(f"note: could not remove {shown} ({exc}); the next build tries again")
            return False
        log(f"  removed {shown}: {why}")
    (entries_folder(options) / f"{name}.json").unlink(missing_ok=True)
    return True


def _up_to_date(source: Source, options: Options) -> tuple[bool, Manifest, Hasher, list[str]]:
    """Whether the inputs and outputs hash as the last good build left them, and what says so
    (`--force` and `--freeze` build whatever)."""
    manifest = Manifest.load(options.cache / f"{source.name}.manifest.json")
    hasher = manifest.hasher()
    inputs = [
        inputs_digest(hasher, source, _fingerprint(options)),
        hasher.tree_digest(options.cache / source.name),
        _theme_digest(hasher, options, source),
    ]
    targets = output_paths(source.name, options)
    fresh = options.force or options.freeze  # (--freeze writes what the build computes)
    same = not fresh and _unchanged(manifest, hasher, inputs, targets, source, options)
    return same, manifest, hasher, inputs


def build_lesson(
    source: Source, options: Options, progress: Progress, executor: Executor | None = None
) -> LessonReport:
    t0 = time.perf_counter()
    log = progress.log
    targets = output_paths(source.name, options)
    with output_lock([options.out, options.figures, options.cache], log):
        clean_leftovers(targets)
        # unchanged? — the inputs and outputs hash as the last good build left them
        same, manifest, hasher, inputs = _up_to_date(source, options)
        if same:
            manifest.refresh(hasher)
            warnings = tuple(manifest.data.get("report", {}).get("warnings", []))
            from deck.publish.layoutrecord import late_warnings  # (light)

            warnings += tuple(late_warnings(options.out / source.name))  # (said after it)
            for warning in warnings:
                log(warning)
            seconds = {"check": time.perf_counter() - t0}
            log(f"{source.name}: up to date ({seconds['check']:.2f} s)")
            return LessonReport(source.name, up_to_date=True, warnings=warnings, seconds=seconds)

        # load → execute → render → publish
        from deck.execute.plan import execute
        from deck.publish.write import write
        from deck.render.deck import render_lesson

        lesson = source.load()
        for warning in lesson.warnings:
            log(str(warning))
        options = chosen_outputs(options, lesson)
        check_labels(lesson)
        executed = execute(lesson, options, progress, executor)
        t1 = time.perf_counter()
        deck = render_lesson(lesson, executed.results, options.cache)
        for warning in deck.warnings:  # found while rendering (a figure without alt text)
            log(str(warning))
        rendered = time.perf_counter() - t1
        published = write(lesson, deck, options, progress, executed.results)
        if options.freeze:  # (the deck is published: its results are good to commit)
            from deck.store.frozen import freeze_lesson

            places = (options.out, options.figures, options.cache)
            log(f"  froze   {freeze_lesson(lesson, executed.results, Path.cwd(), places)}")
        from deck.publish.course import record_entry

        record_entry(lesson, deck, options)  # what the course page lists of it
        warnings = (
            *(str(w) for w in lesson.warnings),
            *executed.warnings,
            *(str(w) for w in deck.warnings),
            *published.warnings,
        )
        report = LessonReport(
            lesson.name,
            executed=executed.executed,
            reasons=executed.reasons,
            reused=executed.reused,
            frozen=executed.frozen,
            printed=published.printed,
            warnings=warnings,
            published=True,
            slides=len(deck.slides),
            seconds={"render": rendered, **published.seconds},
        )
        count = counted(len(deck.slides), "slide")
        log(f"{lesson.name}: {count} built in {time.perf_counter() - t0:.1f} s")

        # record — what went in and came out, for the next build's no-change check
        try:
            cache = hasher.tree_digest(options.cache / source.name)  # as this build left it
            outputs = outputs_digest(hasher, targets)
            theme = _theme_digest(hasher, options, source)  # what this build's theme loaded
            manifest.save([inputs[0], cache, theme], outputs, hasher, {"warnings": list(warnings)})
        except OSError as exc:  # the build is published; the next one just won't be skipped
            log(f"note: could not record the build manifest ({exc})")
        return report


def _theme_digest(hasher: Hasher, options: Options, source: Source) -> str:
    """The files the lesson's theme compile loaded or looked for (deck.render.sass), hashed."""
    from deck.render.sass import theme_inputs  # (light: no Node)

    files = {str(p): hasher.file(p) for p in theme_inputs(options.cache, source.folder)}
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()


def chosen_outputs(options: Options, lesson: Lesson) -> Options:
    """The options with the outputs this lesson makes: `--to`, else its `outputs:`, else the
    defaults (`--no-pdf` drops the PDFs whichever)."""
    chosen = tuple(o for o in KNOWN_OUTPUTS if options.wants(o, lesson.config.outputs))
    return replace(options, pdf="pdf" in chosen, outputs=chosen)


def output_paths(name: str, options: Options) -> list[Path]:
    """What a build of `name` replaces: each exporter's places (light: no exporter runs)."""
    from deck.publish.places import output_places

    return list(output_places(name, options).values())


def _fingerprint(options: Options) -> dict[str, object]:
    from deck.host import kernel_selectors  # (light)
    from deck.publish.printer import printer_key  # (light: no Playwright)

    return {
        "kernels": kernel_selectors(),  # another CPU or ATEN_CPU_CAPABILITY: the cells run again
        "pdf": options.pdf,
        "single_file": options.single_file,
        "lint": options.lint,
        "outputs": list(options.outputs) if options.outputs is not None else None,
        "out": str(options.out.resolve()),
        "figures": str(options.figures.resolve()),
        # a Chromium or font upgrade reprints the PDFs, or checks the layout again without them
        # (their own keys have it too)
        "printer": printer_key(options.cache) if options.pdf or options.lint else None,
    }


def _unchanged(
    manifest: Manifest,
    hasher: Hasher,
    inputs: list[str],
    targets: list[Path],
    source: Source,
    options: Options,
) -> bool:
    if manifest.data.get("inputs") != inputs:
        return False
    if manifest.data.get("outputs") != outputs_digest(hasher, targets):
        return False
    from deck.publish.layoutrecord import unchecked  # (light: not the check itself)

    if not options.pdf and unchecked(options.out / source.name):
        return False  # the last build could not check the layout: try again
    # what the cached sections read outside the lesson folder (data, installed packages,
    # engine files) is still as it was
    from deck.store.sections import Store

    return Store(options.cache, source.name, source.folder).dependencies_hold() == ""


def check_paths(sources: list[Source], options: Options) -> None:
    """No two of content (and each lesson folder), out, figures and cache may overlap: a
    build replaces out/<lesson> and figures/<lesson> whole, and must never touch sources."""
    places = {
        "--content": options.content,
        "--out": options.out,
        "--figures": options.figures,
        "--cache": options.cache,
    }
    for source in sources:
        if source.owns_folder:
            places[f"lesson {source.name}"] = source.folder
    resolved = {flag: path.resolve() for flag, path in places.items()}
    for source in sources:
        if source.owns_folder:
            continue
        # Outputs may lie in the source's folder (as Quarto's _site/ does), not around it.
        folder = source.folder.resolve()
        for flag in ("--out", "--figures", "--cache"):
            if resolved[flag] == folder or resolved[flag] in folder.parents:
                raise UsageError(
                    f"{flag} {places[flag]} holds {source.path}: a build replaces its output "
                    "folders whole, so they must not contain the sources (a folder inside the "
                    ".qmd's folder, such as dist/, is fine)"
                )
    flags = list(places)
    for i, a in enumerate(flags):
        for b in flags[i + 1 :]:
            if {a, b} <= {"--content", *(f for f in flags if f.startswith("lesson "))}:
                continue  # a lesson folder lives inside the content folder
            pa, pb = resolved[a], resolved[b]
            if pa == pb or pa in pb.parents or pb in pa.parents:
                raise UsageError(
                    f"{a} {places[a]} and {b} {places[b]} overlap ({pa} / {pb}): a build "
                    "replaces its output folders whole, so they must be apart from the "
                    "sources and from each other"
                )


def check_labels(lesson: Lesson) -> None:
    """Labels name figure files, so two may not be equal, not even in case (as on macOS).
    Names that collide only once cells ran (`render.deck.figure_collisions`) are checked
    there."""
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
