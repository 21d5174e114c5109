"""The write stage: fill staging folders with everything a lesson's build publishes (the deck,
its assets and figures, values.json, the PDFs whose input changed, the single file), then swap
them into place all at once, never half-written."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
from pathlib import Path

from deck.model import Lesson
from deck.options import Options, Published
from deck.progress import Progress
from deck.publish.assets import copy_assets
from deck.publish.journal import Target, new_build_id, publish
from deck.render.deck import RenderedDeck
from deck.theme import ENGINE, PDFS, SHOWS_NOTES

PDF_RECORD = ".build-stamp"  # in dist/<lesson>: what each PDF was printed from, and its digest


# Speaker notes, as slide.html.j2 writes them: the last thing in a slide's <section>.
NOTES = re.compile(r'<aside class="notes">.*?</aside>\n</section>', re.S)
HANDOUT = '<div class="handout">'  # a `::: handout` block: shown in the handouts only
DIV = re.compile(r"<div\b|</div>")


def without_notes(html: str) -> str | None:
    """The page without its speaker notes; None when they are not written as expected."""
    stripped = NOTES.sub("</section>", html)
    if stripped.count("<aside") != html.count("<aside") - html.count('<aside class="notes">'):
        return None
    return stripped


def without_handout_blocks(html: str) -> str | None:
    """The page without its `::: handout` blocks; None when one does not close."""
    parts, at = [], 0
    while (start := html.find(HANDOUT, at)) >= 0:
        depth, end = 0, -1
        for tag in DIV.finditer(html, start):
            depth += 1 if tag.group() != "</div>" else -1
            if depth == 0:
                end = tag.end()
                break
        if end < 0:
            return None
        parts.append(html[at:start])
        at = end
    return "".join(parts) + html[at:]


def pdf_inputs(folder: Path) -> dict[str, str]:
    """For each PDF, a hash of what it is printed from: the printer, every file of the deck, and
    index.html as that PDF shows it. The slides show neither speaker notes nor `::: handout`
    blocks, the students' handout no speaker notes: an edit of the notes alone leaves the
    hashes of slides.pdf and handout.pdf as they were, an edit of a handout block that of
    slides.pdf. Equal hashes print equal PDFs."""
    base = hashlib.sha256((ENGINE / "publish" / "pdf.py").read_bytes())
    page = folder / "index.html"
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p != page):
        base.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    html = page.read_bytes().decode("utf-8")
    student = without_notes(html)
    slides = without_handout_blocks(student) if student is not None else None
    views = {"": slides or html, "student": student or html}  # else: all of the page
    hashes = {}
    for name, kind in PDFS.items():
        h = base.copy()
        h.update(f"\0{name}\0{kind}\0".encode())
        h.update((html if kind in SHOWS_NOTES else views.get(kind, html)).encode())
        hashes[name] = h.hexdigest()
    return hashes


# Chromium stamps each PDF with the time it was printed; the rest of its bytes follow the deck.
PDF_DATES = re.compile(rb"/(CreationDate|ModDate) \(D:[0-9+'Z-]+\)")


def pdf_digest(path: Path) -> str:
    """The digest of a PDF but for its dates: equal for two prints of the same deck, so the
    build record stays byte-identical between clean builds; any other edit changes it."""
    return hashlib.sha256(PDF_DATES.sub(b"/\\1 (D:0)", path.read_bytes())).hexdigest()


def write(lesson: Lesson, deck: RenderedDeck, options: Options, progress: Progress) -> Published:
    """Stage dist/<lesson> and figures/<lesson> completely, then publish both at once."""
    t0 = time.perf_counter()
    log = progress.log
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
        inputs = pdf_inputs(staging)
        values = json.dumps(deck.values, ensure_ascii=False, indent=1)
        (staging / "values.json").write_text(values + "\n", "utf-8")
        seconds = {"write": time.perf_counter() - t0}
        printed, warnings, pdfs = write_pdfs(
            out.path, staging, inputs, len(deck.slides), options, progress, seconds
        )
        record = {
            "inputs": {name: inputs[name] for name in pdfs},
            "digests": {name: pdf_digest(staging / name) for name in pdfs},
            "warnings": warnings,
        }
        (staging / PDF_RECORD).write_text(json.dumps(record, ensure_ascii=False), "utf-8")
        if options.single_file:
            from deck.publish.singlefile import inline_deck

            targets[2].staging.write_text(inline_deck(staging / "index.html"), "utf-8")
        publish(targets)
    finally:
        for target in targets:
            if target.staging.is_dir():
                shutil.rmtree(target.staging, ignore_errors=True)
            else:
                target.staging.unlink(missing_ok=True)
    single = f", {targets[2].path}" if options.single_file else ""
    log(f"  wrote   {out.path}/index.html, values.json" + "".join(f", {p}" for p in pdfs) + single)
    written = ("index.html", "values.json", *pdfs)
    return Published(written, tuple(printed), tuple(warnings), seconds)


def previous_build(out: Path) -> dict:
    try:
        record = json.loads((out / PDF_RECORD).read_text("utf-8"))
        return record if isinstance(record, dict) else {}
    except (OSError, ValueError):
        return {}


def write_pdfs(
    out: Path,
    staging: Path,
    inputs: dict[str, str],
    slides: int,
    options: Options,
    progress: Progress,
    seconds: dict[str, float],
) -> tuple[list[str], list[str], list[str]]:
    """Print the PDFs whose input changed; keep the others from the previous build.

    A PDF is kept when it was printed from the same input (`pdf_inputs`) and is still the file
    that build wrote (its digest). Returns the PDFs printed now, the layout warnings (slides
    that overflow; kept with the build so that a rebuild that does not print the slides
    repeats them), and the PDFs now in `staging`. Without PDFs (`--no-pdf`), PDFs printed from
    another deck are dropped, never kept as if they showed this one.
    """
    log = progress.log
    previous = previous_build(out)
    old_inputs = previous.get("inputs") if isinstance(previous.get("inputs"), dict) else {}
    digests = previous.get("digests") if isinstance(previous.get("digests"), dict) else {}
    kept = []
    for name in PDFS:
        path = out / name
        if old_inputs.get(name) == inputs[name] and path.is_file():
            if digests.get(name) == pdf_digest(path):
                shutil.copyfile(path, staging / name)
                kept.append(name)
    old_warnings = [w for w in previous.get("warnings", []) if isinstance(w, str)]
    if kept:
        log(f"  kept    {', '.join(kept)} (printed from the same deck)")
    if not options.pdf:
        stale = [n for n in PDFS if n not in kept and (out / n).exists()]
        if stale:
            log(
                f"  removed {', '.join(stale)}: printed from an earlier deck "
                "(build without --no-pdf to print them again)"
            )
        warnings = old_warnings if "slides.pdf" in kept else []
        for warning in warnings:
            log(warning)
        return [], warnings, kept
    todo = [name for name in PDFS if name not in kept]
    if not todo:
        for warning in old_warnings:
            log(warning)
        return [], old_warnings, kept
    from deck.publish.pdf import PrintJob, print_pdfs

    t0 = time.perf_counter()
    jobs = [PrintJob(staging / name, PDFS[name]) for name in todo]
    done: list[str] = []

    def printed(name: str) -> None:
        done.append(name)
        progress.update("pdf", f"{len(done)}/{len(todo)} done ({', '.join(done)})")

    progress.start("pdf", f"printing {', '.join(todo)}")
    try:
        overflows = print_pdfs(staging / "index.html", jobs, slides, printed)
    finally:
        progress.stop("pdf")
    warnings = [str(o) for o in overflows] if "slides.pdf" in todo else old_warnings
    for warning in warnings:
        log(warning)
    seconds["pdf"] = time.perf_counter() - t0
    log(f"  printed {', '.join(todo)} ({time.perf_counter() - t0:.1f} s)")
    return todo, warnings, [name for name in PDFS if name in kept or name in todo]
