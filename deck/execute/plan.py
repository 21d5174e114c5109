"""Which sections run: each section's results come from the cache while its key and recorded
dependencies hold, else from running it; returns an `Execution` saying which and why.

A section may read a file another section writes in the same build: after the sections ran,
every result's inputs are checked again, and a section whose inputs changed runs again (after
the writers), so it sees the new content."""

from __future__ import annotations

from deck.errors import DeckError, Diagnostic
from deck.execute.thaw import FrozenSections
from deck.model import Lesson, SectionResult
from deck.options import Execution, Options
from deck.progress import Progress, counted
from deck.store.sections import DAMAGED, Store, cache_key, environment_fingerprint

WRITE_ROUNDS = 2  # times a section runs again because another wrote what it read


def execute(lesson: Lesson, options: Options, progress: Progress) -> Execution:
    """Results for every section: from the cache where it is still valid, else by running.

    Sections that ran successfully are saved to the cache even when another section failed,
    so after the fix only the broken one runs again.
    """
    log = progress.log
    fingerprint = environment_fingerprint(lesson)
    store = Store(options.cache, lesson.name, lesson.path, fingerprint)
    results: dict[str, SectionResult] = {}
    reused: list[str] = []
    jobs = []
    why: dict[str, str] = {}
    frozen = FrozenSections(lesson, options, store, log)
    for section in lesson.sections:
        key = cache_key(section, fingerprint)
        cached, reason = store.lookup(section, key)  # also learns how long it took last time
        if options.force:
            cached, reason = None, "--force"
        if cached is None or options.frozen_only:
            cached, reason = frozen.take(section, key, reason)
        if cached is not None:
            results[section.name] = cached
            reused.append(section.name)
            if section.name not in frozen.taken:
                log(f"  cached  {section.rel}  (ran in {cached.seconds:.1f} s when computed)")
            continue
        if reason.startswith(DAMAGED):
            detail = reason.removeprefix(DAMAGED).lstrip(": ")
            log(f"  note    cache entry for {section.name} damaged ({detail}): recomputing")
        why[section.name] = reason
        from deck.execute.run import Job  # (not imported when every section is cached)

        jobs.append(Job(section, key, store.figure_dir(key), store.last_seconds(section)))

    def finished(job: Job, outcome: SectionResult | Diagnostic, seconds: float) -> None:
        status = "failed" if isinstance(outcome, Diagnostic) else "ran"
        cells = sum(not c.replay for c in job.section.cells())  # its own, as written there
        reason = why[job.section.name]
        shown = f"{counted(cells, 'cell')}, {seconds:.1f} s; {reason}"
        log(f"  {status:6}  {job.section.rel}  ({shown})")

    executed: list[str] = []
    problems: list[Diagnostic] = list(frozen.problems)  # --frozen-only: none may run
    warnings: list[str] = list(frozen.warnings)
    if problems:
        raise DeckError(problems)
    for note in frozen.notes():
        log(note)
    for round_number in range(1 + WRITE_ROUNDS):
        outcomes = {}
        if jobs:
            from deck.execute.run import run_sections

            outcomes = run_sections(
                lesson, jobs, options.jobs, finished, options.verbose, progress.step
            )
        for job in jobs:
            result = outcomes[job.section.name]
            executed.append(job.section.name)
            if isinstance(result, SectionResult):
                store.save(job.section, result)
                results[job.section.name] = result
                if job.section.name in reused:
                    reused.remove(job.section.name)
            elif result not in problems:  # (a `.qmd` part replaying a failing cell fails there
                problems.append(result)  # too, with the same error: it is reported once)
        if problems:
            break
        # a section may have read what another wrote in this build: run it again, after them
        jobs = []
        for section in lesson.sections:
            stale = store.still_holds(results[section.name]) if section.name in results else ""
            if stale:
                if round_number == WRITE_ROUNDS:
                    warnings.append(f"{section.rel}: warning: {stale} even after running again")
                    continue
                why[section.name] = f"{stale} in this build"
                key = results[section.name].key
                jobs.append(Job(section, key, store.figure_dir(key), results[section.name].seconds))
        if not jobs:
            break
    if problems:
        raise DeckError(problems)
    store.prune({r.key for r in results.values()})
    ran = tuple(dict.fromkeys(executed))
    for name in ran:
        warnings.extend(results[name].warnings)
        for dep in results[name].deps:
            if dep.kind == "unknown":
                warnings.append(
                    f"{dep.name}: warning: inputs not fully known ({dep.path}): this section runs "
                    "on every build (list what it reads with `#| inputs:`)"
                )
    for warning in warnings:
        log(warning)
    return Execution(results, ran, why, tuple(reused), tuple(warnings), tuple(frozen.taken))
