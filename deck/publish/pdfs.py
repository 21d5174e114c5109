"""The PDF exporter: `slides.pdf`, `handout.pdf` and `notes.pdf`, printed by Chromium from the
staged deck (see `deck.publish.pdf`). Each PDF is made from the printer, the deck's files and
the view of the page it shows, so an edit of the speaker notes reprints notes.pdf alone."""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path

from deck.options import Options
from deck.progress import Progress
from deck.publish.exporter import DECK, Built, Exported
from deck.publish.pdfmeta import stamp
from deck.publish.printer import printer_key
from deck.theme import ENGINE, PDFS, VIEW_OF_LAYOUT

# Chromium stamps each PDF with the time it was printed; the rest of its bytes follow the deck.
PDF_DATES = re.compile(rb"/(CreationDate|ModDate) \(D:[0-9+'Z-]+\)")


def pdf_digest(path: Path) -> str:
    """The digest of a PDF but for its dates: equal for two prints of the same deck, so the
    build record stays byte-identical between clean builds; any other edit changes it."""
    return hashlib.sha256(PDF_DATES.sub(b"/\\1 (D:0)", path.read_bytes())).hexdigest()


def handout_options(built: Built) -> dict[str, int]:
    """`handout:` of lesson.yml as handout.js takes it: `perPage`, and `lines` when set."""
    return handout_settings(built.lesson.config)


def handout_settings(lesson_config: object) -> dict[str, int]:
    """`handout_options` of a lesson's config (a `.qmd`'s has none: two slides a page)."""
    config = getattr(lesson_config, "handout", None)
    if config is None:
        return {"perPage": 2}
    options = {"perPage": config.per_page}
    if config.lines is not None:
        options["lines"] = config.lines
    return options


def slide_size(built: Built) -> tuple[int, int]:
    """The deck's slide size in CSS px (a .qmd's `width`/`height`): the slides' page size."""
    slides = getattr(built.lesson.config, "slides", None)
    return (getattr(slides, "width", 1280), getattr(slides, "height", 720))


class Pdfs:
    name = "pdf"
    why_not = "build without --no-pdf to print them again"

    def wanted(self, options: Options) -> bool:
        return options.pdf

    def places(self, name: str, options: Options) -> dict[str, Path]:
        return {DECK: options.out / name}

    def files(self, built: Built) -> tuple[str, ...]:
        return tuple(PDFS)

    def made_from(self, built: Built) -> dict[str, str] | None:
        """The printer (its code, Chromium's version, the installed fonts), every file the
        page loads (assets, figures, media: the deck folder's subfolders), and the page as the
        PDF's layout shows it (`RenderedDeck.views`)."""
        folder = built.staging[DECK]
        base = hashlib.sha256((ENGINE / "publish" / "pdf.py").read_bytes())
        base.update((ENGINE / "publish" / "compose.py").read_bytes())
        base.update((ENGINE / "publish" / "overflow.py").read_bytes())  # its layout check
        base.update(printer_key(built.options.cache).encode())  # Chromium's version, the fonts
        base.update((ENGINE / "publish" / "pdfmeta.py").read_bytes())
        base.update(repr((built.lesson.config.author, built.lesson.config.date)).encode())
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            rel = path.relative_to(folder)
            if len(rel.parts) > 1:
                base.update(rel.as_posix().encode() + b"\0" + path.read_bytes())
        hashes = {}
        for name, layout in PDFS.items():
            h = base.copy()
            h.update(f"\0{name}\0{layout}\0".encode())
            h.update(built.deck.views[VIEW_OF_LAYOUT[layout]].encode())
            if layout:  # a handout: slides.pdf's pages are placed in it
                h.update(built.deck.views["slides"].encode())
            if layout == "student":  # `handout:` of lesson.yml lays it out
                h.update(repr(sorted(handout_options(built).items())).encode())
            hashes[name] = h.hexdigest()
        return hashes

    def digest(self, path: Path) -> str:
        return pdf_digest(path)

    def export(self, built: Built, todo: list[str], progress: Progress) -> Exported:
        from deck.publish.pdf import PrintJob, print_pdfs

        t0 = time.perf_counter()
        staging = built.staging[DECK]
        jobs = [PrintJob(staging / name, PDFS[name]) for name in todo]
        done: list[str] = []

        def printed(name: str) -> None:
            done.append(name)
            progress.update("pdf", f"{len(done)}/{len(todo)} done ({', '.join(done)})")

        progress.start("pdf", f"printing {', '.join(todo)}")
        try:
            result = print_pdfs(
                staging / "index.html",
                jobs,
                len(built.deck.slides),
                printed,
                slides=staging / "slides.pdf",  # printed now, or kept from the last build
                handout=handout_options(built),
                size=slide_size(built),
            )
        finally:
            progress.stop("pdf")
        config = built.lesson.config
        for name in todo:  # the lesson's authors and date, as the PDF's metadata
            stamp(staging / name, config.author, config.date)
        seconds = time.perf_counter() - t0
        progress.log(f"  printed {', '.join(todo)} ({seconds:.1f} s)")
        # the slides' overflows are found while printing them, and belong to slides.pdf
        warnings: dict[str, list[str]] = {name: [] for name in todo}
        if "slides.pdf" in todo:
            warnings["slides.pdf"] = [str(o) for o in result.overflows]
        if "handout.pdf" in todo:  # the slides it could not lay out as `handout:` asks
            warnings["handout.pdf"] = [str(w) for w in result.handout]
        return Exported(warnings, seconds)
