"""A Quarto project's `_quarto.yml`, as Quarto reads it for a file inside the project: its
document options (`format: revealjs:`, `execute:`, `bibliography`…) under the file's own
`_metadata.yml` and front matter. Keys about the project as a whole (`project:`, `website:`,
`book:`…) are not this build's business and pass without a warning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deck.errors import Diagnostic, Loc
from deck.source.folder import display_path, read_text
from deck.source.qmdconfig import parse_quarto_config

NAMES = ("_quarto.yml", "_quarto.yaml")
PROJECT_KEYS = (
    "project", "website", "book", "manuscript", "execute-dir", "output-dir", "render",
    "resources", "profile", "metadata-files", "brand", "filters", "freeze", "preview",
)  # fmt: skip
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


def project_config(path: Path, diagnostics: list[Diagnostic]) -> tuple[dict[str, Any], dict]:
    """(checked values, where each key was written) of the project around `path`, if any."""
    found = find_project(path)
    if found is None:
        return {}, {}
    text = read_text(found)
    if isinstance(text, Diagnostic):
        diagnostics.append(text)
        return {}, {}
    values, locs, problems = parse_quarto_config(text, display_path(found))
    for problem in problems:
        if problem.severity == "warning" and any(
            problem.message.startswith(f"unknown key `{k}`") for k in PROJECT_KEYS
        ):
            continue
        diagnostics.append(problem)
    return values, locs


def project_loc(path: Path) -> Loc | None:
    found = find_project(path)
    return Loc(display_path(found), 1) if found else None
