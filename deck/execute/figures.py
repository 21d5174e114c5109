"""Saving the matplotlib figures a cell left open, byte-identically across builds, and the
pictures a `.qmd` cell displayed (`_repr_svg_`, `_repr_png_`, `_repr_jpeg_`) before them."""

from __future__ import annotations

import base64
import re
import struct
import sys
from pathlib import Path
from typing import Any

from deck.model import Figure

# A figure's PNG has twice its size in CSS px (96 per inch): sharp on a high-density screen
# and on a projected PPTX slide. Drawing it costs 0.1–0.2 s a figure, in the cell's time.
PNG_DPI = 2 * 96


PX_PER_IN = 96  # a picture is shown at its own size in CSS px
UNITS = {"": 1, "px": 1, "pt": 96 / 72, "pc": 16, "in": 96, "cm": 96 / 2.54, "mm": 96 / 25.4}
SVG_TAG = re.compile(r"<svg\b[^>]*>", re.S)
LENGTH = r"\s*=\s*[\"']\s*([\d.]+)\s*(px|pt|pc|in|cm|mm)?\s*[\"']"
DEFAULT_PX = (768, 432)  # a picture whose size says nothing: the deck's 8×4.5 in


def svg_size(svg: str) -> tuple[float, float]:
    """An SVG's size in CSS px: its `width`/`height` (px, pt, in…), else its `viewBox`."""
    tag = SVG_TAG.search(svg)
    head = tag.group(0) if tag else ""
    sizes = []
    for name in ("width", "height"):
        m = re.search(rf"\b{name}{LENGTH}", head)
        sizes.append(float(m.group(1)) * UNITS[m.group(2) or ""] if m else 0.0)
    box = re.search(r"\bviewBox\s*=\s*[\"']([^\"']*)[\"']", head)
    numbers = [float(n) for n in re.findall(r"-?[\d.]+", box.group(1))] if box else []
    if not all(sizes) and len(numbers) == 4 and numbers[2] > 0 and numbers[3] > 0:
        w, h = numbers[2], numbers[3]
        if sizes[0]:  # one side given: the other by the box's aspect
            return sizes[0], sizes[0] * h / w
        return (sizes[1] * w / h, sizes[1]) if sizes[1] else (w, h)
    return (sizes[0], sizes[1]) if all(sizes) else DEFAULT_PX


def raster_size(mime: str, data: bytes) -> tuple[int, int]:
    """A PNG's or JPEG's size in pixels (DEFAULT_PX if it cannot be read)."""
    if mime == "image/png" and data[12:16] == b"IHDR":
        return struct.unpack(">II", data[16:24])
    at = 2
    while mime == "image/jpeg" and at + 9 < len(data) and data[at] == 0xFF:
        marker, length = data[at + 1], struct.unpack(">H", data[at + 2 : at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return DEFAULT_PX


def save_image(folder: Path, name: str, mime: str, data: bytes) -> Figure:
    """One displayed picture as the figure `name` (an SVG): an SVG as it is; a PNG or JPEG
    inside one (so the notebook, the PPTX and the page read it as any figure), a PNG also
    beside it, as a matplotlib figure's is."""
    stem = name[: -len(".svg")]
    if mime == "image/svg+xml":
        svg = data.decode("utf-8", "replace")
        width, height = svg_size(svg)
        (folder / name).write_text(svg, "utf-8")
        return Figure(name, round(width / PX_PER_IN, 3), round(height / PX_PER_IN, 3))
    width, height = raster_size(mime, data)
    encoded = base64.b64encode(data).decode()
    (folder / name).write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="{width}px" height="{height}px" viewBox="0 0 {width} {height}">'
        f'<image width="{width}" height="{height}" xlink:href="data:{mime};base64,{encoded}"/>'
        "</svg>\n",
        "utf-8",
    )
    png = ""
    if mime == "image/png":
        png = f"{stem}.png"
        (folder / png).write_bytes(data)
    return Figure(name, round(width / PX_PER_IN, 3), round(height / PX_PER_IN, 3), png)


def save_figures(folder: Path, stem: str, images: list[tuple[str, bytes]]) -> list[Figure]:
    """The cell's displayed pictures (in the order shown), then its open matplotlib figures,
    as `<stem>.svg`, `<stem>-2.svg`, …"""
    saved = []
    for n, (mime, data) in enumerate(images, start=1):
        saved.append(save_image(folder, f"{stem}.svg" if n == 1 else f"{stem}-{n}.svg", mime, data))
    return saved + save_open_figures(folder, stem, len(saved))


def smallest_text_pt(fig: Any) -> float:
    """The size in pt of the smallest visible text the figure draws (0 if it draws none): the
    student handout keeps it at 8 pt or more in print."""
    from matplotlib.text import Text

    sizes = [
        float(t.get_fontsize())
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.get_figure() is not None
    ]
    return round(min(sizes), 2) if sizes else 0.0


def save_open_figures(folder: Path, stem: str, before: int = 0) -> list[Figure]:
    """Save every open figure as `<stem>.svg` (then `<stem>-2.svg`, …), and as PNG beside it
    for the notebook and the PowerPoint file, and close them.

    matplotlib is only looked at if the cell imported it, so sections without plots
    never pay for importing it.
    """
    if "matplotlib.pyplot" not in sys.modules:
        return []
    import matplotlib.pyplot as plt

    saved = []
    for n, num in enumerate(plt.get_fignums(), start=before + 1):
        fig = plt.figure(num)
        name = f"{stem}.svg" if n == 1 else f"{stem}-{n}.svg"
        fig.savefig(folder / name, format="svg", metadata={"Date": None})
        png = name[: -len(".svg")] + ".png"
        fig.savefig(folder / png, format="png", dpi=PNG_DPI, metadata={"Software": None})
        width, height = fig.get_size_inches()
        size = (round(float(width), 3), round(float(height), 3))
        saved.append(Figure(name, *size, png, smallest_text_pt(fig)))
    plt.close("all")
    return saved
