"""The overflow check outside printing: a `--no-pdf` build lays the deck out in headless
Chromium and measures every slide with the check `slides.pdf` runs while it prints (the same
warnings, at the same `file.md:line`), and keeps its answer while the page is unchanged.

What the layout depends on is its key: the page as the slides show it (its HTML), every file
the page loads (assets: CSS, scripts, fonts; figures, media), the check itself, and Chromium's
version with the installed fonts. An unchanged key keeps the answer (a hidden file beside the
deck, whose warnings the build repeats) and starts no browser. `--serve` leaves the check to
the page it shows (static/live.js asks the preview server for it), so an edit never waits on a
second browser there.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from deck.options import Options
from deck.progress import Progress
from deck.publish.exporter import DECK, Built, Exported, file_digest
from deck.publish.printer import printer_key
from deck.theme import ENGINE

CHECKED = ".layout-check.json"  # in dist/<lesson>/: the slides that overflow, as warnings


def layout_key(built: Built) -> str:
    """A hash of everything the deck's print layout depends on (see the module's text)."""
    folder = built.staging[DECK]
    h = hashlib.sha256((ENGINE / "publish" / "pdf.py").read_bytes())  # the check, the page size
    h.update((ENGINE / "publish" / "layoutcheck.py").read_bytes())
    h.update(printer_key(built.options.cache).encode())  # Chromium's version, the fonts
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder)
        if len(rel.parts) > 1:  # assets/ (CSS, scripts, fonts), figures/, media
            h.update(rel.as_posix().encode() + b"\0" + path.read_bytes())
    h.update(b"\0slides\0" + built.deck.views["slides"].encode())
    return h.hexdigest()


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
        try:
            warnings = [str(o) for o in measure(built.staging[DECK] / "index.html", built)]
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
        progress.log(f"  checked the layout of {len(built.deck.slides)} slides ({seconds:.1f} s)")
        text = json.dumps({"checked": checked, "warnings": warnings}, ensure_ascii=False, indent=1)
        (built.staging[DECK] / CHECKED).write_text(text + "\n", "utf-8")
        return Exported({CHECKED: warnings}, seconds)


def unchecked(folder: Path) -> bool:
    """The deck in `folder` was published with a layout check that could not run: a build
    with nothing changed is not "up to date" then, it tries the check again."""
    try:
        return json.loads((folder / CHECKED).read_text("utf-8")).get("checked") is False
    except (OSError, ValueError, AttributeError):
        return False


def measure(index_html: Path, built: Built) -> list:
    """The overflowing slides of the staged deck, measured as slides.pdf's printing does."""
    from playwright.sync_api import sync_playwright

    from deck.publish.pdf import launch, measure_overflow
    from deck.publish.pdfs import slide_size

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            size = slide_size(built)
            return measure_overflow(browser, index_html, len(built.deck.slides), size)
        finally:
            browser.close()
