"""Runs builds safely: checks the paths, takes each lesson's lock, finishes what a killed build
left, and skips a lesson whose inputs and outputs are as the last good build left them.

Only the standard library and light deck modules are imported here; the pipeline (parser,
renderer, executor) is imported when a lesson actually needs building.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from deck.options import Options, Report
from deck.publish.journal import clean_leftovers, output_lock
from deck.store.manifest import Manifest, inputs_digest, outputs_digest

Log = Callable[[str], None]
LESSON_NAME = re.compile(r"[^\W][\w.-]*")


class UsageError(Exception):
    """The command cannot be carried out as given (exit status 2); nothing was touched."""


def is_qmd(name: str) -> bool:
    """A Quarto file named on the command line (a path), not a lesson folder's name."""
    return name.endswith(".qmd")


def output_name(name: str) -> str:
    """What a lesson or a `.qmd` is built as: `dist/<this>/`."""
    return Path(name).stem if is_qmd(name) else name


def check_names(names: list[str]) -> None:
    for name in names:
        if is_qmd(name):
            if not LESSON_NAME.fullmatch(output_name(name)):
                raise UsageError(
                    f"{name}: the file name must be a plain name (letters, digits, -, _, .): "
                    f"it names the output folder"
                )
            continue
        if not LESSON_NAME.fullmatch(name) or name in (".", ".."):
            raise UsageError(
                f"lesson name {name!r} must be a plain folder name inside the content folder "
                "(letters, digits, -, _, .; no /, no ..)"
            )
    built = [output_name(n) for n in names]
    twice = sorted({n for n in built if built.count(n) > 1})
    if twice:
        raise UsageError(f"two inputs would both be built into {', '.join(twice)}")


def check_paths(names: list[str], options: Options) -> None:
    """No two of content (and each lesson folder), out, figures and cache may overlap: a
    build replaces out/<lesson> and figures/<lesson> whole, and must never touch sources."""
    places = {
        "--content": options.content,
        "--out": options.out,
        "--figures": options.figures,
        "--cache": options.cache,
    }
    for name in names:
        if not is_qmd(name):
            places[f"lesson {name}"] = options.content / name
    resolved = {flag: path.resolve() for flag, path in places.items()}
    for name in filter(is_qmd, names):
        # A .qmd's outputs may lie in its folder (as Quarto's _site/ does), not around it.
        folder = Path(name).resolve().parent
        for flag in ("--out", "--figures", "--cache"):
            if resolved[flag] == folder or resolved[flag] in folder.parents:
                raise UsageError(
                    f"{flag} {places[flag]} holds {name}: a build replaces its output folders "
                    "whole, so they must not contain the sources (a folder inside the .qmd's "
                    "folder, such as dist/, is fine)"
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


def build(names: list[str], options: Options, log: Log, progress: object | None = None) -> Report:
    """Build each lesson of `names`; raises DeckError (the author's problems), UsageError,
    LockTimeout, or whatever broke outside the lesson. Returns what was done."""
    check_names(names)
    check_paths(names, options)
    report = Report()
    for name in names:
        build_one(name, options, log, report, progress)
    return report


def _dependencies_hold(cache: Path, name: str, folder: Path) -> bool:
    """What the cached sections read outside the lesson folder (data, installed packages,
    engine files) is still as it was."""
    from deck.store.sections import Store

    return Store(cache, name, folder).dependencies_hold() == ""


def _fingerprint(options: Options) -> dict[str, object]:
    return {
        "pdf": options.pdf,
        "single_file": options.single_file,
        "out": str(options.out.resolve()),
        "figures": str(options.figures.resolve()),
    }


def build_one(name: str, options: Options, log: Log, report: Report, progress: object) -> None:
    t0 = time.perf_counter()
    folder = Path(name) if is_qmd(name) else options.content / name  # a .qmd: the file
    name = output_name(name)
    targets = [options.out / name, options.figures / name]
    if options.single_file:
        targets.append(options.out / f"{name}.html")
    with output_lock(options.out, log):
        clean_leftovers(targets)
        manifest = Manifest.load(options.cache / f"{name}.manifest.json")
        hasher = manifest.hasher()
        sources = inputs_digest(hasher, folder, _fingerprint(options))
        cache_dir = options.cache / name
        recorded = manifest.data
        if (
            not options.force
            and recorded.get("inputs") == [sources, hasher.tree_digest(cache_dir)]
            and recorded.get("outputs") == outputs_digest(hasher, targets)
            and _dependencies_hold(options.cache, name, folder)
        ):
            for warning in recorded.get("report", {}).get("warnings", []):
                log(warning)
                report.warnings.append(warning)
            report.lessons.append(name)
            report.up_to_date.append(name)
            report.seconds["check"] = time.perf_counter() - t0
            log(f"{name}: up to date ({time.perf_counter() - t0:.2f} s)")
            return
        from deck.pipeline import build_lesson

        warnings_before = len(report.warnings)
        build_lesson(folder, options, log, report, progress)
        try:
            manifest.save(
                [sources, hasher.tree_digest(cache_dir)],
                outputs_digest(hasher, targets),
                hasher,
                {"warnings": report.warnings[warnings_before:]},
            )
        except OSError as exc:  # the build is published; the next one just won't be skipped
            log(f"note: could not record the build manifest ({exc})")
