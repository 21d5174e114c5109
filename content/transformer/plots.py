"""Small plotting helpers shared by the lesson's figures (matplotlib, Chinese labels)."""

import re
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np

BLUE, ORANGE, GREEN, RED, GREY = "#1a5fb4", "#e66100", "#26a269", "#c01c28", "#77767b"

# Heat maps (imshow) are bitmaps inside the SVG: embed them at 200 pixels per figure inch, twice
# what a slide shows them at, instead of the default 100.
plt.rcParams["savefig.dpi"] = 200

CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
VERTICAL_FORMS = {"（": "︵", "）": "︶", "(": "︵", ")": "︶", "：": "︰"}


def set_ylabel(ax: plt.Axes, text: str) -> None:
    """A y-axis label that reads: Chinese is written top to bottom, one character per line
    (a 90° rotation would lay the characters on their side); Latin words and mathtext stay
    whole on their own line; labels without Chinese keep matplotlib's rotation."""
    if not CJK.search(text):
        ax.set_ylabel(text)
        return
    pieces = re.findall(r"\$[^$]*\$|[A-Za-z0-9.·+\-]+|\S", text)
    lines = [VERTICAL_FORMS.get(p, p) for p in pieces]
    ax.set_ylabel("\n".join(lines), rotation=0, ha="center", va="center", linespacing=1.0)
    ax.yaxis.labelpad = 14


def heatmap(
    weights: np.ndarray,
    xlabels: Sequence[str],
    ylabels: Sequence[str],
    title: str,
    ax: plt.Axes | None = None,
    annotate: bool = True,
    xlabel: str = "key（被关注的词）",
    ylabel: str = "query（发出关注的词）",
    digits: int = 2,
    vmax: float | None = None,
) -> plt.Axes:
    """An attention matrix as a heat map: rows are queries, columns are keys.

    Text sizes come from the deck's matplotlibrc (readable on a slide); size the figure in
    inches for the space it gets on the slide rather than shrinking its text.
    """
    weights = np.asarray(weights)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 5.2))
    top = max(float(weights.max()), 1e-9) if vmax is None else vmax
    ax.imshow(weights, cmap="Blues", vmin=0, vmax=top)
    ax.set_xticks(range(len(xlabels)), xlabels, rotation=45, ha="right")
    ax.set_yticks(range(len(ylabels)), ylabels)
    ax.set_xlabel(xlabel)
    set_ylabel(ax, ylabel)
    ax.set_title(title)
    ax.spines[:].set_visible(False)
    if annotate:
        for i in range(weights.shape[0]):
            for j in range(weights.shape[1]):
                value = weights[i, j]
                color = "white" if value > 0.6 * top else "#1c2733"
                ax.text(j, i, f"{value:.{digits}f}", ha="center", va="center", color=color)
    return ax


def outline_row(ax: plt.Axes, row: int, n_columns: int, color: str = RED) -> None:
    """Draw a box around one row of a heat map (e.g. the query being discussed)."""
    ax.add_patch(
        plt.Rectangle((-0.5, row - 0.5), n_columns, 1, fill=False, edgecolor=color, linewidth=2.5)
    )


def lines(
    x: Sequence[float],
    series: dict[str, Sequence[float]],
    title: str,
    xlabel: str,
    ylabel: str,
    logy: bool = False,
    ax: plt.Axes | None = None,
    markers: bool = True,
) -> plt.Axes:
    """Several named curves over the same x values."""
    if ax is None:
        _, ax = plt.subplots(figsize=(7.2, 4.2))
    colors = [BLUE, ORANGE, GREEN, RED, GREY]
    for (name, y), color in zip(series.items(), colors, strict=False):
        y = list(y)  # a curve may stop early (a training run that diverged)
        ax.plot(
            list(x)[: len(y)],
            y,
            marker="o" if markers else None,
            markersize=4,
            label=name,
            color=color,
        )
    if logy:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    set_ylabel(ax, ylabel)
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    return ax
