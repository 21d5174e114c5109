"""Small plotting helpers shared by the lesson's figures (matplotlib, Chinese labels)."""

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np

BLUE, ORANGE, GREEN, RED, GREY = "#1a5fb4", "#e66100", "#26a269", "#c01c28", "#77767b"


def heatmap(
    weights: np.ndarray,
    xlabels: Sequence[str],
    ylabels: Sequence[str],
    title: str,
    ax: plt.Axes | None = None,
    annotate: bool = True,
    xlabel: str = "key（被关注的词）",
    ylabel: str = "query（发出关注的词）",
) -> plt.Axes:
    """An attention matrix as a heat map: rows are queries, columns are keys."""
    weights = np.asarray(weights)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 5.2))
    ax.imshow(weights, cmap="Blues", vmin=0, vmax=max(float(weights.max()), 1e-9))
    ax.set_xticks(range(len(xlabels)), xlabels, rotation=45, ha="right")
    ax.set_yticks(range(len(ylabels)), ylabels)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.spines[:].set_visible(False)
    if annotate:
        for i in range(weights.shape[0]):
            for j in range(weights.shape[1]):
                value = weights[i, j]
                color = "white" if value > 0.6 * weights.max() else "#1c2733"
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=9, color=color)
    return ax


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
        ax.plot(x, y, marker="o" if markers else None, markersize=4, label=name, color=color)
    if logy:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    return ax
