"""Which sections run: each section's results come from the cache while its key and recorded
dependencies hold, else from running it; returns an `Execution` saying which and why.

A section may read a file another section writes in the same build: after the sections ran,
every result's inputs are checked again, and a section whose inputs changed runs again (after
the writers), so it sees the new content."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from deck.errors import DeckError, Diagnostic
from deck.execute.executor import Executor, LocalPool
from deck.execute.thaw import FrozenSections
from deck.model import Lesson, SectionResult
from deck.options import Execution, Options
from deck.progress import Progress, counted
from deck.store.sections import DAMAGED, Store, cache_key, environment_fingerprint

if TYPE_CHECKING:
    from deck.execute.run import Job

WRITE_ROUNDS = 2  # times a section runs again because another wrote what it read


@dataclass
class Plan:
    """What the cache and the frozen results hold of a lesson's sections, and the jobs to run
    for the rest (each with why it runs)."""

    store: Store
    frozen: FrozenSections
    results: dict[str, SectionResult] = field(default_factory=dict)
    reused: list[str] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    why: dict[str, str] = field(default_factory=dict)


def plan(lesson: Lesson, options: Options, log: Callable[[str], Any], dry: bool = False) -> Plan:
    """Look every section up (the cache, then its frozen result); `dry`: only to know the jobs
    (no frozen result is taken into the cache, nothing is said)."""
    fingerprint = environment_fingerprint(lesson, (options.out, options.figures, options.cache))
    store = Store(options.cache, lesson.name, lesson.path, fingerprint)
    found = Plan(store, FrozenSections(lesson, options, store, log, dry))
    for section in lesson.sections:
        key = cache_key(section, fingerprint)
        cached, reason = store.lookup(section, key)  # also learns how long it took last time
        if options.force:
            cached, reason = None, "--force"
        if cached is None or options.frozen_only:
            cached, reason = found.frozen.take(section, key, reason)
        if cached is not None:
            found.results[section.name] = cached
            found.reused.append(section.name)
            if section.name not in found.frozen.taken and not dry:
                log(f"  cached  {section.rel}  (ran in {cached.seconds:.1f} s when computed)")
            continue
        if reason.startswith(DAMAGED) and not dry:
            detail = reason.removeprefix(DAMAGED).lstrip(": ")
            log(f"  note    cache entry for {section.name} damaged ({detail}): recomputing")
        found.why[section.name] = reason
        from deck.execute.run import Job  # (not imported when every section is cached)

        job = Job(section, key, store.figure_dir(key), store.last_seconds(section))
        found.jobs.append(job)
    return found


def pending(lesson: Lesson, options: Options) -> list[Job]:
    """The sections of `lesson` a build would run (for a course to send them all at once)."""
    return plan(lesson, options, lambda line: None, dry=True).jobs


def execute(
    lesson: Lesson, options: Options, progress: Progress, executor: Executor | None = None
) -> Execution:
    """Results for every section: from the cache where it is still valid, else by running
    (on `executor`: this machine's workers unless one is given).

    Sections that ran successfully are saved to the cache even when another section failed,
    so after the fix only the broken one runs again.
    """
    log = progress.log
    found = plan(lesson, options, log)
    store, frozen, results, reused = found.store, found.frozen, found.results, found.reused
    jobs, why = found.jobs, found.why
    runner = executor or LocalPool(options.jobs)

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
            outcomes = runner.run(lesson, jobs, finished, options.verbose, progress.step)
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
                last = results[section.name].seconds
                from deck.execute.run import Job

                jobs.append(Job(section, key, store.figure_dir(key), last))
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
    if ran and not options.freeze:
        frozen.stale(ran)  # (an author's reminder that _freeze/ no longer matches)
    return Execution(results, ran, why, tuple(reused), tuple(warnings), tuple(frozen.taken))
