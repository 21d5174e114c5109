"""Which sections run: each section's results come from the cache while its key and recorded
dependencies hold, else from running it; returns an `Execution` saying which and why."""

from __future__ import annotations

from deck.errors import DeckError, Diagnostic
from deck.model import Lesson, SectionResult
from deck.options import Execution, Options
from deck.progress import Progress
from deck.store.sections import DAMAGED, Store, cache_key, environment_fingerprint


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
    for section in lesson.sections:
        key = cache_key(section, fingerprint)
        cached, reason = store.lookup(section, key)  # also learns how long it took last time
        if options.force:
            cached, reason = None, "--force"
        if cached is not None:
            results[section.name] = cached
            reused.append(section.name)
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
        cells = len(job.section.cells())
        reason = why[job.section.name]
        log(f"  {status:6}  {job.section.rel}  ({cells} cells, {seconds:.1f} s; {reason})")

    outcomes = {}
    if jobs:
        from deck.execute.run import run_sections

        outcomes = run_sections(
            lesson, jobs, options.jobs, finished, options.verbose, progress.step
        )
    for job in jobs:
        result = outcomes[job.section.name]
        if isinstance(result, SectionResult):
            store.save(job.section, result)
            results[job.section.name] = result
    problems = [o for o in outcomes.values() if isinstance(o, Diagnostic)]
    if problems:
        raise DeckError(problems)
    store.prune({r.key for r in results.values()})
    executed = tuple(job.section.name for job in jobs)
    return Execution(results, executed, why, tuple(reused))
