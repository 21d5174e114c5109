"""PDF slides and handout, printed by Chromium through Playwright from the built deck.

Printing waits on real readiness signals: reveal.js's `pdf-ready` event (flagged on <html>
by deck.js), web fonts, and every image decoded. Never a fixed sleep.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from deck.publish.overflow import OVERFLOW as OVERFLOW  # (its importers know it here)
from deck.publish.overflow import Overflow as Overflow
from deck.publish.printer import chromium_executable
from deck.theme import (
    SLIDE_HEIGHT,
    SLIDE_VIEWPORT,
    SLIDE_WIDTH,
)

if TYPE_CHECKING:
    from playwright.async_api import ViewportSize

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
READY = "document.documentElement.dataset.pdfReady === 'true'"
SETTLED = """async () => {
  await document.fonts.ready;
  await Promise.all([...document.images].map(img => img.decode().catch(() => null)));
  return document.querySelectorAll('.pdf-page').length;
}"""


def chromium_path() -> str | None:
    """Debian's Chromium (or $DECK_CHROMIUM); None lets Playwright use its own browser."""
    return chromium_executable()


def launch(playwright):  # noqa: ANN001, ANN201 - Playwright's types are dynamic
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)


@dataclass(frozen=True)
class HandoutWarning:
    """A slide the student's handout could not give its share of a page (`per-page`), as
    handout.js measured it: too dense for a portrait frame (`wide`: the frame width its
    smallest text needs to stay 8 pt, `what` that text, `size` its px on the slide, `most` a
    portrait frame's width), or too tall to share a page (`tall` px with one ruled line, of
    which `frame`, `band` and `text`, against `share`, a page's height over `perPage`)."""

    slide: int
    source: str  # file:line of the slide
    wide: int = 0
    what: str = ""
    size: float = 0.0
    most: int = 0
    tall: int = 0
    share: int = 0
    perPage: int = 2  # noqa: N815 - handout.js's name
    lines: int = 0
    frame: int = 0
    band: int = 0
    text: int = 0

    def __str__(self) -> str:
        head = f"{self.source}: warning [handout] handout.pdf: slide {self.slide}"
        if self.wide:
            return (
                f"{head} has an A4 landscape page of its own: its smallest text ({self.what}, "
                f"{self.size:g} px on the slide) needs a frame {self.wide} px wide to print at "
                f"8 pt, and a portrait page's frames are at most {self.most} px wide"
            )
        parts = [f"the slide {self.frame} px"]
        parts += [f"its section title {self.band} px"] if self.band else []
        parts += [f"its text {self.text} px"] if self.text else []
        parts.append(f"{self.lines} ruled line" + ("" if self.lines == 1 else "s"))
        part = "half" if self.perPage == 2 else f"1/{self.perPage} of"
        return (
            f"{head} has a page of its own: it is {self.tall} px tall ({', '.join(parts)}), "
            f"more than {part} a page ({self.share} px)"
        )


@dataclass(frozen=True)
class Printed:
    """What printing found: the slides that overflow their page (measured while slides.pdf
    prints) and what the student's handout could not lay out as asked."""

    overflows: list[Overflow]
    handout: list[HandoutWarning]


def viewport(size: tuple[int, int] | None) -> ViewportSize:
    """The browser window for a deck of `size` (CSS px; None: 1280×720)."""
    width, height = (
        size if size is not None else (SLIDE_VIEWPORT["width"], SLIDE_VIEWPORT["height"])
    )
    return {"width": int(width), "height": int(height)}


def open_print_layout(  # noqa: ANN201
    browser,  # noqa: ANN001
    index_html: Path,
    slide_count: int,
    size: tuple[int, int] | None = None,
    only: tuple[int, ...] = (),
):
    """A page showing the deck's print layout, every page laid out, fonts and images loaded;
    with `only` (slide numbers), those slides alone have their content (deck.js empties the
    others, each keeping its page and number)."""
    page = browser.new_page(viewport=viewport(size))  # screen media, as _print_all loads it
    show_print_layout(page, index_html, slide_count, only)
    return page


def show_print_layout(page, index_html: Path, slide_count: int, only: tuple[int, ...]) -> None:  # noqa: ANN001
    """Opens the deck's print layout in `page` (a new one, or one a deck was measured in
    before: a page's documents share nothing but the browser's cache, and every build's deck
    has URLs of its own)."""
    chosen = f"&deck-measure={','.join(map(str, only))}" if only else ""
    page.goto(index_html.resolve().as_uri() + "?print-pdf" + chosen, wait_until="load")
    page.wait_for_function(READY, timeout=120_000)
    pages = page.evaluate(SETTLED)
    if pages != slide_count:
        raise RuntimeError(f"print layout has {pages} pages for {slide_count} slides")


def measure_overflow(
    browser,  # noqa: ANN001
    index_html: Path,
    slide_count: int,
    size: tuple[int, int] | None = None,
    only: tuple[int, ...] = (),
) -> list[Overflow]:
    """The slides whose content does not fit their page (the deck's size), measured in
    `browser`; with `only`, of those slides alone."""
    page = open_print_layout(browser, index_html, slide_count, size, only)
    try:
        return overflows_in(page, only)
    finally:
        page.close()


def overflows_in(page, only: tuple[int, ...] = ()) -> list[Overflow]:  # noqa: ANN001
    """The overflowing slides of the print layout `page` shows (of those `only` names)."""
    found = [Overflow(**o) for o in page.evaluate(OVERFLOW)]
    return [o for o in found if o.slide in only] if only else found


@dataclass(frozen=True)
class PrintJob:
    """One PDF to print: `handout` names the layout `window.deckHandout(kind)` makes of the
    slide pages ("" prints the slides as they are)."""

    path: Path
    handout: str = ""


def slides_pdf(size: tuple[int, int] | None = None) -> dict:
    """page.pdf's options for slides.pdf: one page per slide, the deck's size (CSS px: a
    1280×720 deck prints 960×540 pt pages), no margin."""
    width, height = size or (SLIDE_WIDTH, SLIDE_HEIGHT)
    return {
        "width": f"{width}px",
        "height": f"{height}px",
        "margin": {"top": "0", "right": "0", "bottom": "0", "left": "0"},
    }


SLIDES_PDF = slides_pdf()
# The handouts' paper, margins and footers are handout.js's @page rules (A4, and A4
# landscape for a dense slide's page of its own).


def print_pdfs(
    index_html: Path,
    jobs: list[PrintJob],
    slide_count: int,
    on_printed: Callable[[str], None] | None = None,
    slides: Path | None = None,
    handout: dict | None = None,
    size: tuple[int, int] | None = None,
) -> Printed:
    """Print every job from `index.html?print-pdf` in one page. Returns the slides that
    overflow their page (measured when the slides themselves are printed) and the slides the
    student's handout could not give their share of a page (`per-page`), with the reason.

    The deck is laid out and printed once, as the slides (`slides`: slides.pdf, printed now
    or kept from the last build). Each handout is then a light page (text, ruled lines, an
    empty frame per slide) in the same tab, which Chromium prints in a fraction of the
    slides' time; compose.py places the slides' vector pages in the frames, while the next
    handout prints. So the three PDFs cost about one print (bench/pdfs.py measures it).
    (Printing the handouts in a second tab beside the slides was tried: the tab's start and
    the light page's load cost more CPU than the overlap saved, measured under load.)
    `handout` holds the student handout's `per-page` and `lines` (lesson.yml); `size` is
    the slide's (CSS px, None: 1280×720): the window's and the slides' pages'.
    """
    import asyncio

    slides = slides or index_html.with_name("slides.pdf")
    return asyncio.run(_print_all(index_html, jobs, slide_count, on_printed, slides, handout, size))


async def _print_all(
    index_html: Path,
    jobs: list[PrintJob],
    slide_count: int,
    on_printed: Callable[[str], None] | None,
    slides: Path,
    handout: dict | None,
    size: tuple[int, int] | None = None,
) -> Printed:
    import asyncio
    import importlib

    from playwright.async_api import async_playwright

    from deck.publish.compose import compose

    options = {"slots": True, "perPage": 2, **(handout or {})}
    url = index_html.resolve().as_uri() + "?print-pdf"
    overflows: list[Overflow] = []
    layout: list[HandoutWarning] = []
    composing: list[asyncio.Future] = []

    def composed(job: PrintJob, light: Path) -> None:
        try:
            compose(light, slides, job.path)
        finally:
            light.unlink(missing_ok=True)
        if on_printed:
            on_printed(job.path.name)

    # pikepdf's import (0.1 s) on the other core while Chromium starts and lays the deck out.
    importing = asyncio.ensure_future(asyncio.to_thread(importlib.import_module, "pikepdf"))
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport=viewport(size))
            # Loaded in screen media, as a plain print is: print media from the start made the
            # load 0.7–0.8 s slower for 0.4 s less in the slides' `page.pdf`, and the light
            # handout pages print as fast either way (bench/README.md). reveal.js's print
            # layout is its `?print-pdf` class, not the media, so the overflow measured is the
            # one printed (the deck's few `@media print` rules have `.print-pdf` twins).
            await page.goto(url, wait_until="load")
            await page.wait_for_function(READY, timeout=120_000)
            pages = await page.evaluate(SETTLED)
            if pages != slide_count:
                raise RuntimeError(f"print layout has {pages} pages for {slide_count} slides")
            # The slides first; then each handout takes the print layout's place in this page
            # (a light page: nothing to lay out again) and is composed while the next prints.
            for job in sorted(jobs, key=lambda job: job.handout != ""):
                if not job.handout:
                    overflows = [Overflow(**o) for o in await page.evaluate(OVERFLOW)]
                    await page.pdf(
                        path=str(job.path),
                        print_background=True,
                        tagged=True,
                        outline=True,
                        **slides_pdf(size),
                    )
                    if on_printed:
                        on_printed(job.path.name)
                    continue
                await page.evaluate("([k, o]) => window.deckHandout(k, o)", [job.handout, options])
                if job.handout == "student":
                    found = await page.evaluate("window.deckHandoutWarnings || []")
                    layout = [HandoutWarning(**w) for w in found]
                await page.evaluate(SETTLED)
                light = job.path.with_name(f".{job.path.name}.light")
                await page.pdf(
                    path=str(light),
                    print_background=True,
                    tagged=True,
                    outline=True,
                    prefer_css_page_size=True,
                )
                composing.append(asyncio.ensure_future(asyncio.to_thread(composed, job, light)))
            await page.close()
        finally:
            # The last handout is composed while Chromium shuts down.
            await asyncio.gather(browser.close(), importing, *composing, return_exceptions=True)
    for future in composing:
        future.result()  # a composition that failed fails the build
    return Printed(overflows, layout)
