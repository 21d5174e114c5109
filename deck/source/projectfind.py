"""Where a `.qmd`'s Quarto project is: the nearest `_quarto.yml` at or above its folder. Light
(no parsing, no settings): a no-change build asks it to list the file's inputs."""

from __future__ import annotations

from pathlib import Path

NAMES = ("_quarto.yml", "_quarto.yaml")
LEVELS = 6  # folders looked at, from the file's own upwards


def find_project(path: Path) -> Path | None:
    """The nearest `_quarto.yml` in the file's folder or above it."""
    folder = path.resolve().parent
    for _ in range(LEVELS):
        for name in NAMES:
            if (folder / name).is_file():
                return folder / name
        if folder.parent == folder:
            break
        folder = folder.parent
    return None
