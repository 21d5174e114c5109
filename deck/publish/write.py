"""The write stage: every exporter fills its staging places (a file is kept from the previous
build while what it is made from is unchanged), then all places are swapped in at once by the
journal, never half-written. Adding an output is one exporter module and its entry in the
registry, `deck.model.outputs`."""

from __future__ import annotations

import importlib
import json
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deck.model.outputs import OUTPUTS
from deck.options import Options, Published
from deck.progress import Progress
from deck.publish.carry import link
from deck.publish.exporter import DECK, Built, Exported, Exporter
from deck.publish.journal import Target, new_build_id, publish
from deck.publish.places import output_places

if TYPE_CHECKING:
    from deck.model import Lesson, SectionResult
    from deck.render.deck import RenderedDeck


def _exporter(path: str) -> Exporter:
    module, name = path.split(":")
    made: Exporter = getattr(importlib.import_module(module), name)()
    return made


# Every lesson output of the registry (deck.model.outputs), in the order they are made (later
# ones may read what earlier ones staged); the course page is made after every lesson.
EXPORTERS: tuple[Exporter, ...] = tuple(_exporter(o.exporter) for o in OUTPUTS if o.exporter)
RECORD = ".build-stamp"  # in dist/<lesson>: what each kept file was made from, its digest


def dropped_places(name: str, options: Options) -> set[str]:
    """The places only unwanted exporters fill: removed by this build."""
    wanted = {p for e in EXPORTERS if e.wanted(options) for p in e.places(name, options)}
    return set(output_places(name, options)) - wanted


def previous_record(folder: Path) -> dict[str, dict[str, Any]]:
    try:
        record = json.loads((folder / RECORD).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(record, dict):
        return {}
    return {k: v for k, v in record.items() if isinstance(v, dict)}


def write(
    lesson: Lesson,
    deck: RenderedDeck,
    options: Options,
    progress: Progress,
    results: dict[str, SectionResult] | None = None,
) -> Published:
    """Stage every output of the lesson completely, then publish them all at once."""
    t0 = time.perf_counter()
    log = progress.log
    build_id = new_build_id()
    places = output_places(lesson.name, options)
    drop = dropped_places(lesson.name, options)
    targets = {place: Target(path, build_id, place in drop) for place, path in places.items()}
    staging = {p: t.staging for p, t in targets.items()}
    built = Built(lesson, deck, options, staging, results or {})
    before = previous_record(places[DECK])
    record: dict[str, dict[str, Any]] = {"inputs": {}, "digests": {}, "warnings": {}}
    printed: list[str] = []
    kept_all: set[str] = set()  # (said on a `kept` line: not said again as written)
    seconds: dict[str, float] = {}
    try:
        for exporter in EXPORTERS:  # (what one makes beside the build, started first)
            if (start := getattr(exporter, "ahead", None)) and exporter.wanted(options):
                start(built)
        for exporter in EXPORTERS:
            wanted = exporter.wanted(options)
            earlier = any((places[DECK] / f).is_file() for f in exporter.files(built))
            # (hashing what an unwanted output is made from is only worth it to keep one)
            made = exporter.made_from(built) if wanted or earlier else None
            kept, todo = keep_unchanged(exporter, built, made, before, record)
            shown = [f for f in kept if not f.startswith(".")]
            kept_all.update(shown)
            if shown:
                log(f"  kept    {', '.join(shown)} (made from the same deck)")
            if not wanted:
                stale = [f for f in todo if (places[DECK] / f).exists() and not f.startswith(".")]
                if stale:
                    made_before = f"made from an earlier deck ({exporter.why_not})"
                    log(f"  removed {', '.join(stale)}: {made_before}")
                continue
            if todo or made is None:
                exported = exporter.export(built, todo, progress)
                record_made(exporter, built, todo, made, exported, record)
                if todo and made is not None:
                    printed += [f for f in todo if f.endswith(".pdf")]  # (printed: the PDFs)
                    seconds[exporter.name] = exported.seconds
            seconds.setdefault("write", time.perf_counter() - t0)  # (the deck itself)
        staged = [  # (a hidden file is the build's own record, not an output)
            f
            for e in EXPORTERS
            for f in e.files(built)
            if (built.staging[DECK] / f).is_file() and not f.startswith(".") and f not in kept_all
        ]
        (built.staging[DECK] / RECORD).write_text(json.dumps(record, ensure_ascii=False), "utf-8")
        gone = {place: places[place].exists() for place in drop}
        publish(list(targets.values()))
        for job in built.later:  # (what needs the published deck: the layout check, late)
            try:
                job()
            except OSError as exc:  # (the deck is published: a note, and the next build checks)
                log(f"note: the layout check after the build did not start ({exc})")
    finally:
        for started in built.beside:
            started.close()
        for target in targets.values():
            if target.staging.is_dir():
                shutil.rmtree(target.staging, ignore_errors=True)
            else:
                target.staging.unlink(missing_ok=True)
    others = [str(places[p]) for p in places if p not in (DECK, "figures", *drop)]
    log(f"  wrote   {places[DECK]}/" + ", ".join(staged + others))
    why = {p: e.why_not for e in EXPORTERS for p in e.places(lesson.name, options)}
    for place in drop:
        if gone.get(place):
            log(f"  removed {places[place]}: made by an earlier build ({why[place]})")
    warnings = [w for ws in record["warnings"].values() for w in ws]
    for warning in warnings:
        log(warning)
    return Published(tuple(staged), tuple(printed), tuple(warnings), seconds)


def keep_unchanged(
    exporter: Exporter,
    built: Built,
    made: dict[str, str] | None,
    before: dict[str, dict[str, Any]],
    record: dict[str, dict[str, Any]],
) -> tuple[list[str], list[str]]:
    """Copy the files of the previous build that are made from what they would be made from
    now and are still as that build wrote them; the rest are to make (when wanted)."""
    if made is None:
        return [], list(exporter.files(built))
    kept, todo = [], []
    old_folder = built.options.out / built.lesson.name
    for name in exporter.files(built):
        old = old_folder / name
        same = before.get("inputs", {}).get(name) == made[name] and old.is_file()
        if same and before.get("digests", {}).get(name) == exporter.digest(old):
            (built.staging[DECK] / name).parent.mkdir(parents=True, exist_ok=True)  # (code/…)
            if not link(old, built.staging[DECK] / name):  # (its bytes just found the same)
                shutil.copyfile(old, built.staging[DECK] / name)
            kept.append(name)
            record["inputs"][name] = made[name]
            record["digests"][name] = before["digests"][name]
            old_warnings = before.get("warnings", {}).get(name, [])
            record["warnings"][name] = [w for w in old_warnings if isinstance(w, str)]
        else:
            todo.append(name)
    return kept, todo


def record_made(
    exporter: Exporter,
    built: Built,
    todo: list[str],
    made: dict[str, str] | None,
    exported: Exported,
    record: dict[str, dict[str, Any]],
) -> None:
    """What each file made now was made from, its digest and its warnings."""
    if made is None:
        return
    for name in todo:
        record["inputs"][name] = made[name]
        record["digests"][name] = exporter.digest(built.staging[DECK] / name)
        record["warnings"][name] = exported.warnings.get(name, [])
