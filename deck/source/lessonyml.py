"""`lesson.yml` read whole: the keys of `deck.source.config`'s table, and the deck options a
`.qmd` has, in a `slides:` block (or `format: revealjs:`, nested as Quarto nests it), checked
through the `.qmd`'s own table (`deck.source.qmdconfig.REVEALJS_SCHEMA`) so the two never
drift. A `_quarto.yml` in the lesson's folder (or in the folder above it, `content/`) is read
under it for the keys that apply to a lesson; every other key is one warning at its line."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import yaml

from deck.errors import Diagnostic
from deck.model import CitationConfig, LessonConfig, Loc
from deck.source.config import (
    TOP_SCHEMA,
    NodeCheck,
    as_text,
    check_mapping,
    config_from,
    yaml_error,
)
from deck.source.qmdchecks import _date, _names, _nocite, _paths
from deck.source.qmdconfig import (
    REVEALJS_SCHEMA,
    _format,
    merge,
    parse_quarto_config,
    slide_config,
)

PROJECT_NAMES = ("_quarto.yml", "_quarto.yaml")  # (deck.source.registry has them as inputs)


def _slides(
    node: yaml.Node, name: str, path: str, diagnostics: list[Diagnostic], locs: Any
) -> dict[str, Any]:
    """`slides:` the deck's options, each as under a `.qmd`'s `format: revealjs:`."""
    if isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null"):
        return {}
    return check_mapping(node, REVEALJS_SCHEMA, name, path, diagnostics, locs)


# Every key lesson.yml takes (the README's "lesson.yml reference" lists each one: a test
# reads this table). Quarto's readers for the title slide's fields: `author` may be a list
# (or `- name:` items), `date: today` is the build's day.
LESSON_SCHEMA: dict[str, Any] = {
    **TOP_SCHEMA,
    "author": _names,
    "date": _date,
    "logo": as_text,  # as Quarto's top-level `logo:`; the same as `slides: {logo: …}`
    "bibliography": _paths,
    "csl": as_text,
    "nocite": _nocite,
    "slides": NodeCheck(_slides),
    "format": NodeCheck(_format),
}
# Options of the `.qmd` table that a lesson does not take, and why (a warning at their line)
NOT_IN_A_LESSON = {
    "slide-level": "a lesson's slides are cut by its own rule (`#` a section title, `##` a "
    "slide); not applied",
}
# What a `_quarto.yml` beside a lesson is read for (besides the deck options at its top level)
PROJECT_APPLIES = (
    "title", "subtitle", "author", "date", "lang", "format", "exec", "bibliography", "csl",
    "nocite",
)  # fmt: skip


def lesson_settings(
    text: str, rel: str, project: tuple[str, str] | None, diagnostics: list[Diagnostic]
) -> tuple[LessonConfig, dict[str, Any], dict[str, Loc]]:
    """`lesson.yml` text (and `project`: a `_quarto.yml`'s text and path, read under it) →
    (the config, the checked values with the deck options under `format`, where each key
    was written: `slides.X` also as `format.revealjs.X`)."""
    under: dict[str, Any] = {}
    locs: dict[str, Loc] = {}
    if project is not None:
        under, locs = read_project(*project, diagnostics)
    own: dict[str, Loc] = {}
    values: dict[str, Any] = {}
    try:
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        diagnostics.append(yaml_error(exc, rel))
        node = None
    if node is not None:
        values = check_mapping(node, LESSON_SCHEMA, "", rel, diagnostics, own)
    reveal = merge(values.pop("format", None) or {}, values.pop("slides", None) or {})
    if "logo" in values:
        reveal.setdefault("logo", values.pop("logo"))
    values["format"] = reveal
    for name, loc in own.items():
        locs[name] = loc
        for prefix in ("slides.", "logo"):
            if name.startswith(prefix):
                locs["format.revealjs." + name.removeprefix("slides.")] = loc
    values = merge(under, values)
    for key, why in NOT_IN_A_LESSON.items():
        if key in values["format"]:
            at = locs.get(f"format.revealjs.{key}", Loc(rel, 1))
            diagnostics.append(Diagnostic(at, "config", f"`{key}`: {why}", "warning"))
    return lesson_config(values), values, locs


def lesson_config(values: dict[str, Any]) -> LessonConfig:
    """Checked values (the deck options under `format`) → the lesson's config; a lesson's
    own defaults where they differ from Quarto's: slide numbers on, no line numbers on code."""
    config = config_from({k: v for k, v in values.items() if k in TOP_SCHEMA})
    slides = slide_config(values.get("format") or {}, values, True, False)
    citations = CitationConfig(
        tuple(values.get("bibliography", ())), values.get("csl"), values.get("nocite", "")
    )
    return dataclasses.replace(config, slides=slides, citations=citations)


def find_project(folder: Path) -> Path | None:
    """A `_quarto.yml` in the lesson's folder, else in the folder holding it (`content/`)."""
    for where in (folder, folder.parent):
        for name in PROJECT_NAMES:
            if (where / name).is_file():
                return where / name
    return None


def read_project(
    text: str, rel: str, diagnostics: list[Diagnostic]
) -> tuple[dict[str, Any], dict[str, Loc]]:
    """A `_quarto.yml`'s keys that apply to a lesson, the deck options gathered under
    `format`; one warning for each other key, at its line (its own problems dropped)."""
    values, locs, problems = parse_quarto_config(text, rel)
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        node = None  # (reported by parse_quarto_config)
    skipped: list[tuple[int, int]] = []
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in PROJECT_APPLIES or key in REVEALJS_SCHEMA:
                continue
            first = key_node.start_mark.line + 1
            end = value_node.end_mark
            skipped.append((first, end.line if end.column == 0 else end.line + 1))
            message = (
                f"`{key}` in {Path(rel).name} does not apply to a lesson: ignored (a lesson "
                "reads its `format: revealjs:` options, title, subtitle, author, date, lang, "
                "exec and bibliography from it)"
            )
            diagnostics.append(Diagnostic(Loc(rel, first), "config", message, "warning"))
    for problem in problems:
        line = problem.loc.line
        if not any(a <= line <= b for a, b in skipped):
            diagnostics.append(problem)
    top = {k: v for k, v in values.items() if k in REVEALJS_SCHEMA}
    kept = {k: v for k, v in values.items() if k in PROJECT_APPLIES}
    kept["format"] = {**top, **(values.get("format") or {})}
    for name, loc in list(locs.items()):
        if name in top:
            locs["format.revealjs." + name] = loc
    return kept, locs
