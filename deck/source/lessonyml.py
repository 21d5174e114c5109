"""`lesson.yml` read whole (`LESSON_SCHEMA`): the keys of `deck.source.config`'s table, and
the deck options a `.qmd` has, in a `slides:` block (or `format: revealjs:`, nested as Quarto
nests it), declared once for both (`deck.source.schemaqmd.REVEALJS_SCHEMA`, with a lesson's
own defaults) so the two never drift. A `_quarto.yml` in the lesson's folder (or in the folder
above it, `content/`) is read under it for the keys that apply to a lesson; every other key is
one warning at its line."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import yaml

from deck.errors import Diagnostic
from deck.model import CitationConfig, LessonConfig, Loc
from deck.source.config import TOP_SCHEMA, config_from, yaml_error
from deck.source.qmdchecks import format_reader
from deck.source.qmdconfig import merge, slide_config
from deck.source.schema import Key, Reading, Schema, section
from deck.source.schemaqmd import CITATIONS, QUARTO_SCHEMA, REVEAL_OPTIONS, REVEALJS_SCHEMA

PROJECT_NAMES = ("_quarto.yml", "_quarto.yaml")  # (deck.source.registry has them as inputs)

# A lesson's deck options: the `.qmd`'s, with a lesson's own defaults where they differ from
# Quarto's (slide numbers on, no line numbers on code), and those a lesson does not take
SLIDES_SCHEMA = Schema(
    "slides:", {**REVEALJS_SCHEMA, **REVEAL_OPTIONS}, "", REVEALJS_SCHEMA.unknown
).but(
    "slides:",
    "A lesson's deck options: `slides:` in lesson.yml (or `format: revealjs:`), the `.qmd`'s "
    "(reveal.js's own `hash`, `margin`, `show-slide-number`… too).",
    slide_number={"default": True},
    code_line_numbers={"default": False},
    slide_level={
        "not_applied": "a lesson's slides are cut by its own rule (`#` a section title, `##` a "
        "slide); not applied",
    },
)
# Every key lesson.yml takes (the README's "lesson.yml reference" lists each one: a test
# reads this table).
LESSON_SCHEMA = Schema(
    "lesson.yml",
    {
        **TOP_SCHEMA,
        "logo": Key(
            "text",
            "an image in the corner of every slide, as Quarto's top-level `logo` (the same as "
            "`slides: {logo: …}`)",
            REVEALJS_SCHEMA["logo"].check,
        ),
        **CITATIONS,
        "slides": section("the deck's options (the table below)", SLIDES_SCHEMA),
        "format": Key(
            "`revealjs` or mapping",
            "`revealjs:` with the deck's options, as a `.qmd` nests them (the same as `slides:`)",
            read=format_reader(SLIDES_SCHEMA),
        ),
    },
    "`content/<lesson>/lesson.yml`: the lesson's settings.",
)
# A `_quarto.yml` beside a lesson is read for these keys (and the deck options at its top
# level); every other key is one warning at its line.
PROJECT_APPLIES = (
    "title", "subtitle", "author", "date", "lang", "format", "exec", "bibliography", "csl",
    "nocite",
)  # fmt: skip


def _not_for_a_lesson(key: str, reading: Reading) -> str:
    return (
        f"`{key}` in {Path(reading.path).name} does not apply to a lesson: ignored (a lesson "
        "reads its `format: revealjs:` options, title, subtitle, author, date, lang, exec and "
        "bibliography from it)"
    )


LESSON_PROJECT_SCHEMA = Schema(
    "_quarto.yml beside a lesson",
    {
        **QUARTO_SCHEMA.only(*PROJECT_APPLIES),
        "format": LESSON_SCHEMA["format"],
        **{k: v for k, v in SLIDES_SCHEMA.items() if k in QUARTO_SCHEMA},
    },
    "A `_quarto.yml` in the lesson's folder (or in `content/`), read under lesson.yml.",
    unknown=_not_for_a_lesson,
)


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
        values = LESSON_SCHEMA.read(node, Reading(rel, diagnostics, own))
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
    return lesson_config(values), values, locs


def lesson_config(values: dict[str, Any]) -> LessonConfig:
    """Checked values (the deck options under `format`) → the lesson's config; a lesson's
    own defaults where they differ from Quarto's: slide numbers on, no line numbers on code."""
    config = config_from({k: v for k, v in values.items() if k in TOP_SCHEMA})
    slides = slide_config(values.get("format") or {}, values, SLIDES_SCHEMA)
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
    `format`; one warning for each other key, at its line."""
    locs: dict[str, Loc] = {}
    try:
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        diagnostics.append(yaml_error(exc, rel))
        return {"format": {}}, locs
    values = {}
    if node is not None:
        values = LESSON_PROJECT_SCHEMA.read(node, Reading(rel, diagnostics, locs))
    top = {k: v for k, v in values.items() if k in REVEALJS_SCHEMA}
    kept = {k: v for k, v in values.items() if k in PROJECT_APPLIES}
    kept["format"] = {**top, **(values.get("format") or {})}
    for name, loc in list(locs.items()):
        if name in top:
            locs["format.revealjs." + name] = loc
    return kept, locs
