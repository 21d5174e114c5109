"""The overflow check outside printing: a `--no-pdf` build lays the deck out in headless
Chromium and measures every slide with the check `slides.pdf` runs while it prints (the same
warnings, at the same `file.md:line`), and keeps its answer while the page is unchanged.

What the layout depends on is its key: the page as the slides show it (its HTML), every file
the page loads (assets: CSS, scripts; figures, media), the check itself, and Chromium's
version with the installed fonts. Of the deck's font subsets, what made them counts, not their
bytes (`fonts_part`): a new character changes them, not the other
slides. An unchanged key keeps the answer (a hidden file beside the deck, whose warnings the
build repeats) and starts no browser. `--serve` leaves the check to
the page it shows (static/live.js asks the preview server for it), so an edit never waits on a
second browser there.

A changed key measures only the slides that changed: each slide's answer is kept under a key of
its own (what the page around the slides holds, its assets, and the slide's own markup and
number, not its source line), and the page is laid out with those slides alone given their
content (deck.js empties the others), so a prose edit lays out one slide, not the deck.

The browser is a warm one when it can be (layoutd.py: a local service keeping Chromium open
between builds, started by the first build that wants it, ended when idle); without it, the
build starts its own, as printing does.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict
from pathlib import Path

from deck.options import Options
from deck.progress import Progress, counted
from deck.publish import fonts, layoutlate
from deck.publish.exporter import DECK, Built, Exported, file_digest
from deck.publish.layoutd import Client
from deck.publish.layoutlate import late_file
from deck.publish.layoutrecord import CHECKED as CHECKED
from deck.publish.layoutrecord import late_answers
from deck.publish.layoutrecord import unchecked as unchecked
from deck.publish.pdf import Overflow
from deck.publish.pdfs import slide_size
from deck.publish.printer import printer_key
from deck.theme import ENGINE


def layout_key(built: Built) -> str:
    """A hash of everything the deck's print layout depends on (see the module's text)."""
    h = hashlib.sha256(surroundings_key(built).encode())
    h.update(b"\0slides\0" + built.deck.views["slides"].encode())
    return h.hexdigest()


_AROUND: list[tuple[Built, str]] = []  # (this build's: asked by made_from, then by export)


def surroundings_key(built: Built) -> str:
    """A hash of what every slide's layout depends on besides its own markup: the check, the
    printer, the page's size, its files (assets, figures, media) and the page around the
    slides. Worked out once a build (its files are staged before either asks)."""
    if _AROUND and _AROUND[0][0] is built:
        return _AROUND[0][1]
    key = _surroundings_key(built)
    _AROUND[:] = [(built, key)]
    return key


def _surroundings_key(built: Built) -> str:
    folder = built.staging[DECK]
    h = hashlib.sha256((ENGINE / "publish" / "pdf.py").read_bytes())  # the check, the page size
    h.update((ENGINE / "publish" / "layoutcheck.py").read_bytes())
    h.update((ENGINE / "publish" / "overflow.py").read_bytes())  # what it measures
    h.update(printer_key(built.options.cache).encode())  # Chromium's version, the fonts
    subsets = ("assets", fonts.FOLDER)  # (their bytes: fonts_part says what counts)
    stylesheet = f"assets/{fonts.STYLESHEET}"
    css = ""
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder)
        if rel.parts[:2] == subsets:
            continue
        if rel.as_posix() == stylesheet:
            css = path.read_text("utf-8")
        elif len(rel.parts) > 1:  # assets/ (CSS, scripts), figures/, media
            h.update(rel.as_posix().encode() + b"\0" + path.read_bytes())
    h.update(b"\0fonts\0" + fonts_part(css).encode())
    page = built.deck.views["slides"]
    first, last = page.find("<section"), page.rfind("</section>")
    h.update(b"\0page\0" + (page[:first] + page[last:] if 0 <= first < last else page).encode())
    h.update(json.dumps([len(built.deck.slides), slide_size(built)]).encode())
    return h.hexdigest()


FONTS_CODE = ("fonts.py", "subset.py")  # (beside this module): what makes the subsets


def fonts_part(stylesheet: str) -> str:
    """What of the deck's fonts the layout depends on, the subsets' bytes left out:
    `assets/fonts.css` (its rules name each face's subset file, never the characters in it)
    and what made the subsets (deck.publish.fonts, deck.publish.subset and its libraries). A
    subset's glyphs are the font file's for the characters it holds, so a slide's text lays
    out the same whatever other characters the subsets hold: a prose edit that brings a new
    character changes the subsets' bytes, not the other slides. (The font files themselves
    are the printer key's, deck.publish.printer; the subsets the handout and notes add are
    inlined in the page the build stages, not in the page the slides show.)"""
    from deck.publish.subset import version

    folder = Path(__file__).parent
    made = [fonts.VERSION, version()]
    made += [hashlib.sha256((folder / f).read_bytes()).hexdigest() for f in FONTS_CODE]
    return json.dumps([stylesheet, made])


def slide_keys(built: Built) -> list[str]:
    """Each slide's key: the page's surroundings and the slide as the slides show it (its
    number, for the slide number's width; not its source line, which an edit above moves)."""
    around = surroundings_key(built)
    keys = []
    for slide in built.deck.slides:
        shown = {**slide.to_json(), "body": slide.without_handouts(), "notes": "", "handouts": []}
        shown.pop("loc")
        what = json.dumps([around, shown], ensure_ascii=False, sort_keys=True)
        keys.append(hashlib.sha256(what.encode()).hexdigest())
    return keys


def earlier_answers(built: Built) -> dict[str, list[dict]]:
    """The slides measured by the last build, by their keys (their overflows, maybe none),
    with those a check after it measured (`deck.publish.layoutlate`)."""
    late = late_answers(late_file(built.options.cache, built.lesson.name))
    try:
        record = json.loads((built.options.out / built.lesson.name / CHECKED).read_text("utf-8"))
    except (OSError, ValueError):
        return late
    slides = record.get("slides") if isinstance(record, dict) else None
    return {**late, **slides} if isinstance(slides, dict) else late


class LayoutCheck:
    name = "layout"
    why_not = "printing the slides checks their layout"

    def wanted(self, options: Options) -> bool:
        return not options.pdf and options.lint

    def places(self, name: str, options: Options) -> dict[str, Path]:
        return {DECK: options.out / name}

    def files(self, built: Built) -> tuple[str, ...]:
        return (CHECKED,)

    def made_from(self, built: Built) -> dict[str, str] | None:
        return {CHECKED: layout_key(built)}

    def digest(self, path: Path) -> str:
        # A check that could not run is never kept: the next build tries again.
        try:
            checked = json.loads(path.read_text("utf-8")).get("checked", True)
        except (OSError, ValueError, AttributeError):
            checked = True
        return file_digest(path) if checked else f"unchecked {time.time_ns()}"

    def export(self, built: Built, todo: list[str], progress: Progress) -> Exported:
        t0 = time.perf_counter()
        progress.start("layout", "checking the slides' layout in Chromium")
        checked = True
        warm = Client(built.options.cache)
        warm.warm()  # (started now, it is getting ready while the slides' keys are made)
        keys = slide_keys(built)
        known = earlier_answers(built)
        answers: dict[str, list[dict]] = {}
        changed = tuple(n for n, key in enumerate(keys, 1) if key not in known)
        later = bool(changed) and len(changed) < len(keys) and layoutlate.wanted()
        try:
            index = built.staging[DECK] / "index.html"
            found = [] if later or not changed else measure(index, built, changed, warm)
            for n in () if later else changed:
                answers[keys[n - 1]] = [asdict(o) for o in found if o.slide == n]
            overflows = []
            for n, (slide, key) in enumerate(zip(built.deck.slides, keys, strict=True), 1):
                if later and n in changed:
                    continue  # (measured after the build: its answer is not known yet)
                for o in answers.get(key, known.get(key, [])):  # (its source line as it is now)
                    overflows.append(Overflow(**{**o, "slide": n, "source": str(slide.loc)}))
                answers.setdefault(key, known.get(key, []))
            warnings = [str(o) for o in overflows]
        # No browser (or the check failed): the deck is still good; the note says so, and the
        # next build checks again (an unchecked result is never kept: see digest)
        except Exception as exc:  # noqa: BLE001
            checked = False
            said = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
            warnings = [
                f"{built.lesson.path}: warning [overflow] the slides' layout was not checked: "
                f"Chromium did not start ({type(exc).__name__}{': ' + said if said else ''}; "
                "`bash setup.sh` installs it, or set DECK_CHROMIUM)"
            ]
        finally:
            progress.stop("layout")
        seconds = time.perf_counter() - t0
        pending: dict | None = None
        if later and checked:
            pending = leave_until_published(built, changed, keys, index)
            many = f"{len(changed)} changed slides" if len(changed) > 1 else "the changed slide"
            progress.log(f"  checking the layout of {many} after the build (warnings follow)")
        elif changed:
            many = counted(len(keys), "slide")
            count = f"{len(changed)} of {many}" if len(changed) < len(keys) else many
            progress.log(f"  checked the layout of {count} ({seconds:.1f} s)")
        record = {"checked": checked, "warnings": warnings, "slides": answers if checked else {}}
        if pending is not None:
            record["late"] = pending
        text = json.dumps(record, ensure_ascii=False, indent=1)
        (built.staging[DECK] / CHECKED).write_text(text + "\n", "utf-8")
        return Exported({CHECKED: warnings}, seconds)


def leave_until_published(
    built: Built, changed: tuple[int, ...], keys: list[str], index: Path
) -> dict:
    """Leaves the changed slides' check until the deck is published (`deck.publish.layoutlate`):
    what the record says is pending (the slides' keys, the file their answers go to)."""
    late = late_file(built.options.cache, built.lesson.name)
    job = {
        "index": str((built.options.out / built.lesson.name / "index.html").resolve()),
        "digest": file_digest(index),
        "count": len(keys),
        "size": list(size) if (size := slide_size(built)) else None,
        "numbers": list(changed),
        "keys": [keys[n - 1] for n in changed],
        "sources": {str(n): str(built.deck.slides[n - 1].loc) for n in changed},
        "cache": str(built.options.cache.resolve()),
        "late": str(late),
        "lesson": str(built.lesson.path),
    }
    built.later.append(lambda: layoutlate.start(job))
    return {"keys": job["keys"], "file": str(late)}


def measure(
    index_html: Path, built: Built, only: tuple[int, ...] = (), warm: Client | None = None
) -> list[Overflow]:
    """The overflowing slides of the staged deck, measured as slides.pdf's printing does;
    of the slides `only` numbers when they are not all of them. In the warm browser's service
    when it answers, else in a browser of this build's own."""
    count = len(built.deck.slides)
    chosen = only if len(only) < count else ()
    found = warm.measure(index_html, count, slide_size(built), chosen) if warm else None
    if found is not None:
        return found
    from playwright.sync_api import sync_playwright

    from deck.publish.pdf import launch, measure_overflow

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            return measure_overflow(browser, index_html, count, slide_size(built), chosen)
        finally:
            browser.close()
