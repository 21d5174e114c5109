"""A `.qmd`'s `width`/`height` (issue 17, item 4): reveal.js, the slide's CSS, the overflow
lint, the PDFs' pages, the handouts' frames and the single file all follow the deck's size.

Two decks, 1050×700 and 1920×1080, each with a box 1600 px wide (fits 1920, not 1280) and,
in the small one, a box 1100 px wide (overflows 1050 only)."""

from __future__ import annotations

import re

import pytest

from catalogue import write
from fixture_build import run_build

pytestmark = pytest.mark.browser

BOX = '<div style="width: {w}px; height: 40px; background: #ccd">{w}</div>'


def deck(width: int, height: int) -> str:
    return (
        f"---\ntitle: Size\nformat:\n  revealjs:\n    width: {width}\n    height: {height}\n---\n\n"
        "## Fits\n\nshort\n\n"
        f"## Wide\n\n{BOX.format(w=1000)}\n\n"
        f"## Wider\n\n{BOX.format(w=1600)}\n"
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Both decks built once with their PDFs and single files: {(w, h): (dist folder, stderr)}."""
    found = {}
    for width, height in ((1050, 700), (1920, 1080)):
        root = tmp_path_factory.mktemp(f"size{width}")
        write(root, {"talk.qmd": deck(width, height)})
        proc = run_build(root, "talk.qmd", "--single-file")
        assert proc.returncode == 0, proc.stderr
        found[(width, height)] = (root / "dist", proc.stderr)
    return found


def overflow_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "[overflow]" in line]


def test_size_is_read_without_a_warning(built):
    for _, stderr in built.values():
        assert "width" not in stderr and "1280" not in stderr, stderr


@pytest.mark.parametrize("size", [(1050, 700), (1920, 1080)])
def test_slides_pdf_pages_have_the_decks_aspect(built, size):
    import pikepdf

    dist, _ = built[size]
    with pikepdf.open(dist / "talk" / "slides.pdf") as pdf:
        assert len(pdf.pages) == 4  # title slide and three
        for page in pdf.pages:
            x0, y0, x1, y1 = (float(v) for v in page.mediabox)
            # CSS px are 3/4 pt
            assert x1 - x0 == pytest.approx(size[0] * 0.75, abs=1)
            assert y1 - y0 == pytest.approx(size[1] * 0.75, abs=1)


def test_overflow_lint_measures_the_decks_own_page(built):
    small = overflow_lines(built[(1050, 700)][1])
    big = overflow_lines(built[(1920, 1080)][1])
    assert big == []  # 1600 px fits 1920 (it would not fit 1280)
    # 1050 px less the slide's padding (56 px a side) is 938 px of content: 1000 px overflows
    assert len(small) == 2, small
    first = r"talk\.qmd:\d+: warning \[overflow\] slide 3 overflows \d+ px right"
    assert re.search(first, small[0])
    assert "slide 4 overflows" in small[1]
    dx = [int(re.search(r"overflows (\d+) px right", line).group(1)) for line in small]
    # the box's right edge (56 px padding + its width) past 1050 - 56 + 8 px of margin
    assert dx == [pytest.approx(56 + w - (1050 - 56 + 8), abs=3) for w in (1000, 1600)]


@pytest.mark.parametrize("size", [(1050, 700), (1920, 1080)])
@pytest.mark.slow
def test_presented_and_single_file_decks_are_the_decks_size(built, context, size):
    dist, _ = built[size]
    for page_file in (dist / "talk" / "index.html", dist / "talk.html"):
        page = context.new_page()
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(page_file.as_uri() + "#/2")
        page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
        shown = page.evaluate(
            """() => { const s = document.querySelector('section.present');
                       const r = s.getBoundingClientRect();
                       return [Reveal.getConfig().width, Reveal.getConfig().height,
                               Reveal.getScale(), r.width, r.height]; }"""
        )
        page.close()
        width, height, scale, shown_w, shown_h = shown
        assert (width, height) == size
        assert scale == pytest.approx(1 / 1.04, abs=0.01)  # reveal's 4% margin, nothing else
        assert shown_w / scale == pytest.approx(size[0], abs=1)
        assert shown_h / scale == pytest.approx(size[1], abs=1)


def test_handout_frames_keep_the_decks_shape(built, context):
    dist, _ = built[(1050, 700)]
    page = context.new_page()
    page.goto((dist / "talk" / "index.html").as_uri() + "?print-pdf")
    page.wait_for_function("document.documentElement.dataset.pdfReady === 'true'")
    page.evaluate("window.deckHandout('student', {slots: true, perPage: 2})")
    ratios = page.evaluate(
        """() => [...document.querySelectorAll('.handout-frame')].map(f => {
             const r = f.getBoundingClientRect(); return r.height / r.width; })"""
    )
    page.close()
    assert ratios and all(r == pytest.approx(700 / 1050, abs=0.01) for r in ratios)
