"""A Quarto project's `_quarto.yml`, as Quarto reads it for a file inside the project: its
document options (`format: revealjs:`, `execute:`, `bibliography`…) under the file's own
`_metadata.yml` and front matter. Keys about the project as a whole (`project:`, `website:`,
`book:`…) are not this build's business and pass without a warning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deck.errors import Diagnostic, Loc
from deck.source.folder import display_path, read_text
from deck.source.projectfind import LEVELS as LEVELS
from deck.source.projectfind import NAMES as NAMES
from deck.source.projectfind import find_project as find_project
from deck.source.qmdconfig import parse_quarto_config
from deck.source.schema import Key, Schema
from deck.source.schemaqmd import QUARTO_SCHEMA

PROJECT_KEYS = (
    "project", "website", "book", "manuscript", "execute-dir", "output-dir", "render",
    "resources", "profile", "metadata-files", "brand", "filters", "freeze", "preview",
)  # fmt: skip
PROJECT_KEY = Key("any", "about the project as a whole: passes without a warning", quiet=True)
# A project's `_quarto.yml`: a `.qmd`'s keys (its document options), and the project's own
PROJECT_SCHEMA = Schema(
    "_quarto.yml",
    {**QUARTO_SCHEMA, **{k: PROJECT_KEY for k in PROJECT_KEYS if k not in QUARTO_SCHEMA}},
    "A Quarto project's `_quarto.yml` (the `.qmd`'s folder or up to 5 above), read under its "
    "`_metadata.yml` and front matter: a `.qmd`'s keys, and the project's own.",
)


def project_config(path: Path, diagnostics: list[Diagnostic]) -> tuple[dict[str, Any], dict]:
    """(checked values, where each key was written) of the project around `path`, if any."""
    found = find_project(path)
    if found is None:
        return {}, {}
    text = read_text(found)
    if isinstance(text, Diagnostic):
        diagnostics.append(text)
        return {}, {}
    values, locs, problems = parse_quarto_config(text, display_path(found), schema=PROJECT_SCHEMA)
    diagnostics += problems
    return values, locs


def project_loc(path: Path) -> Loc | None:
    found = find_project(path)
    return Loc(display_path(found), 1) if found else None
