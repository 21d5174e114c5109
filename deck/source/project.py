"""A Quarto project's `_quarto.yml`, as Quarto reads it for a file inside the project: its
document options (`format: revealjs:`, `execute:`, `bibliography`…) under the file's own
`_metadata.yml` and front matter. Keys about the project as a whole (`project:`, `website:`,
`book:`…) are not this build's business and pass without a warning.

A path the `_quarto.yml` names (`bibliography`, `csl`, `css`, `logo`, a theme's `.scss`, an
`include-*` file, the title slide's background) is relative to the yml's folder, as Quarto
reads it: it is rewritten relative to the file's folder (`refs.bib` → `../../refs.bib`), where
the file's own settings are read from."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from deck.errors import Diagnostic, Loc
from deck.source.contain import outside
from deck.source.folder import display_path, read_text
from deck.source.projectfind import LEVELS as LEVELS
from deck.source.projectfind import NAMES as NAMES
from deck.source.projectfind import find_project as find_project
from deck.source.qmdconfig import parse_quarto_config
from deck.source.schema import Key, Schema
from deck.source.schemaqmd import INCLUDES, QUARTO_SCHEMA

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
    base, folder = found.parent, path.resolve().parent
    if base == folder:
        return values, locs

    def move(key: str, name: str) -> str | None:
        """`name` (written in the yml) from `folder`; None, and an error at its line, when it
        leaves the project (a URL, an anchor, a project-root `/x`: the same from anywhere)."""
        if not name or urlsplit(name).scheme or name.startswith(("/", "\\", "#")):
            return name
        there = Path(os.path.relpath(os.path.join(base, name), folder)).as_posix()
        if outside(folder, there):
            at = locs.get(f"format.revealjs.{key}") or locs.get(key) or Loc(display_path(found), 1)
            message = f"{key} `{name}` lies outside the project folder {display_path(base)}"
            diagnostics.append(Diagnostic(at, "path", message))
            return None
        return there

    values = rebased(values, move)
    if isinstance(values.get("format"), dict):
        values["format"] = rebased(values["format"], move)
    return values, locs


Move = Callable[[str, str], "str | None"]


def rebased(values: dict[str, Any], move: Move) -> dict[str, Any]:
    """The checked options with the files they name `move`d (see the module's note); a file
    `move` refuses is left out."""

    def files(key: str, names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(m for m in (move(key, n) for n in names) if m is not None)

    out = dict(values)
    for key in ("bibliography", "css"):
        if key in out:
            out[key] = files(key, out[key])
    for key in ("csl", "logo"):
        if isinstance(out.get(key), str):
            out[key] = move(key, out[key])
            if out[key] is None:
                del out[key]
    if isinstance(out.get("theme"), tuple):
        theme, names = out["theme"]
        out["theme"] = (theme, files("theme", names))
    for key in INCLUDES:
        if key in out:
            items = [(kind, move(key, v) if kind == "file" else v) for kind, v in out[key]]
            out[key] = tuple((kind, v) for kind, v in items if v is not None)
    attributes = out.get("title-slide-attributes")
    if isinstance(attributes, dict):
        for k, v in attributes.items():
            if k.removeprefix("data-") in ("background-image", "background-video"):
                attributes = {**attributes, k: move("title-slide-attributes", v) or ""}
        out["title-slide-attributes"] = attributes
    return out


def project_loc(path: Path) -> Loc | None:
    found = find_project(path)
    return Loc(display_path(found), 1) if found else None
