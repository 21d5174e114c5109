"""Saving the matplotlib figures a cell left open, byte-identically across builds."""

from __future__ import annotations

import sys
from pathlib import Path

from deck.model import Figure

# A figure's PNG has twice its size in CSS px (96 per inch): sharp on a high-density screen
# and on a projected PPTX slide. Drawing it costs 0.1–0.2 s a figure, in the cell's time.
PNG_DPI = 2 * 96


def save_open_figures(folder: Path, stem: str) -> list[Figure]:
    """Save every open figure as `<stem>.svg` (then `<stem>-2.svg`, …), and as PNG beside it
    for the notebook and the PowerPoint file, and close them.

    matplotlib is only looked at if the cell imported it, so sections without plots
    never pay for importing it.
    """
    if "matplotlib.pyplot" not in sys.modules:
        return []
    import matplotlib.pyplot as plt

    saved = []
    for n, num in enumerate(plt.get_fignums(), start=1):
        fig = plt.figure(num)
        name = f"{stem}.svg" if n == 1 else f"{stem}-{n}.svg"
        fig.savefig(folder / name, format="svg", metadata={"Date": None})
        png = name[: -len(".svg")] + ".png"
        fig.savefig(folder / png, format="png", dpi=PNG_DPI, metadata={"Software": None})
        width, height = fig.get_size_inches()
        saved.append(Figure(name, round(float(width), 3), round(float(height), 3), png))
    plt.close("all")
    return saved
