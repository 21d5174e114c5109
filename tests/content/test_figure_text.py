"""Figures are readable from the back of the room: every text in every figure (tick labels,
axis labels, titles, legends, annotations) is at least 20 px tall on the 1280×720 slide (the
engine's 15 pt, and 8 pt in a two-up student handout; a figure shown a pixel under its own
width is 19.9).

matplotlib draws text as paths; each text is a group `scale(s -s)` with s = font size / 100 in
the SVG's own units (its viewBox). The slide shows the SVG at the width Chromium lays it out
at, so the text's size on the slide is 100·s times (shown width / viewBox width).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lesson_build import Built

MIN_PX = 19.5
TEXT_SCALE = re.compile(r'<g transform="[^"]*scale\(([\d.]+) -\1\)">')
VIEWBOX = re.compile(r'viewBox="0 0 ([\d.]+) ([\d.]+)"')

SHOWN_WIDTHS = """() => [...document.querySelectorAll('.pdf-page > section')].flatMap((s, i) =>
  [...s.querySelectorAll('img')].filter(img => img.getAttribute('src').endsWith('.svg'))
    .map(img => ({slide: i + 1, src: img.getAttribute('src'),
                  width: img.getBoundingClientRect().width})))"""


def smallest_text(svg: Path) -> tuple[float, float]:
    """(the smallest font size in the SVG's units, the viewBox width)."""
    text = svg.read_text("utf-8")
    sizes = [100 * float(s) for s in TEXT_SCALE.findall(text)]
    assert sizes, f"{svg.name}: no text found (did matplotlib stop drawing text as paths?)"
    return min(sizes), float(VIEWBOX.search(text).group(1))


def test_smallest_text_parsed_from_a_known_figure(tmp_path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.fonttype": "path"}):
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.set_title("title", fontsize=20)
        ax.tick_params(labelsize=9)
        fig.savefig(tmp_path / "f.svg")
        plt.close(fig)
    size, width = smallest_text(tmp_path / "f.svg")
    assert size == 9 and width == 4 * 72


@pytest.mark.slow
def test_every_figure_text_is_at_least_20px(lesson: Built):
    from playwright.sync_api import sync_playwright

    from deck.publish.pdf import launch, open_print_layout

    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = open_print_layout(browser, lesson.out / "index.html", lesson.values["slides"])
            shown = page.evaluate(SHOWN_WIDTHS)
        finally:
            browser.close()
    assert len(shown) >= len(lesson.values["figures"]) - 1  # the handout-only copies aside
    too_small = []
    for img in shown:
        size, width = smallest_text(lesson.out / img["src"])
        px = size * img["width"] / width
        if px < MIN_PX:
            too_small.append(f"slide {img['slide']} {img['src']}: {px:.1f} px")
    assert too_small == []


SHOWN_TEXT_PT = re.compile(
    r'<img (?:data-)?src="(figures/[^"]+\.svg)"[^>]*?(?: data-text-pt="([\d.]+)")?>'
)


def test_each_figure_records_its_smallest_text(lesson: Built):
    """The size the handout judges a figure's text by (`data-text-pt`, recorded when the figure
    was saved) is the smallest text drawn in its SVG."""
    shown = SHOWN_TEXT_PT.findall((lesson.out / "index.html").read_text("utf-8"))
    assert len(shown) >= 10
    for src, pt in shown:
        size, _ = smallest_text(lesson.out / src)
        assert pt and abs(float(pt) - size) < 0.05, (src, pt, size)


IMAGE = re.compile(r'<image xlink:href="data:image/png;base64,([^"]+)"[^>]*? width="([\d.]+)"')


def embedded_ppi(svg: Path) -> list[float]:
    """Pixels per inch of each bitmap in an SVG: the PNG's own width (IHDR) over the width it
    is drawn at (SVG units are points, 72 to the inch)."""
    import base64
    import struct

    ppi = []
    for data, width_pt in IMAGE.findall(svg.read_text("utf-8")):
        png = base64.b64decode(data)
        (pixels,) = struct.unpack(">I", png[16:20])
        ppi.append(pixels / (float(width_pt) / 72))
    return ppi


def test_heatmaps_are_embedded_at_200_ppi_or_more(lesson: Built):
    seen = 0
    for figure in lesson.values["figures"]:
        for ppi in embedded_ppi(lesson.out / figure["file"]):
            seen += 1
            assert ppi >= 199, f"{figure['file']}: {ppi:.0f} ppi"
    assert seen >= 5  # the attention and encoding heat maps are bitmaps


def test_chinese_y_labels_are_not_laid_on_their_side(lesson: Built):
    """matplotlib draws a rotated label as glyph paths under a `rotate(-90)` group; no such
    group may use a CJK font's glyphs (Chinese must read top to bottom, not sideways)."""
    rotated = re.compile(r'<g transform="[^"]*rotate\(-90\)[^"]*">(.*?)</g>', re.S)
    sideways = []
    for figure in lesson.values["figures"]:
        text = (lesson.out / figure["file"]).read_text("utf-8")
        sideways += [figure["file"] for group in rotated.findall(text) if "CJK" in group]
    assert sideways == []
