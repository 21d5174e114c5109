"""A `.qmd`'s front matter and `_metadata.yml`, read with the keys `deck.source.schemaqmd`
declares (Quarto's reveal.js options), into the deck's settings."""

from __future__ import annotations

from typing import Any

import yaml

from deck.errors import Diagnostic
from deck.model import CitationConfig, ExecConfig, LessonConfig, Loc, SlideConfig
from deck.source.authors import byline
from deck.source.config import EXEC_FIELDS, yaml_error
from deck.source.schema import Reading, Schema
from deck.source.schemaqmd import (
    DECK_OPTIONS,
    EXECUTE_SCHEMA,
    INCLUDES,
    PER_FORMAT,
    QMD_REVEALJS_SCHEMA,
    QUARTO_SCHEMA,
    REVEALJS_SCHEMA,
    TRANSITIONS,
)

__all__ = ["EXECUTE_SCHEMA", "QUARTO_SCHEMA", "REVEALJS_SCHEMA", "TRANSITIONS"]

# Quarto's option → reveal.js's (passed as they are)
REVEAL_NAMES = {
    "transition": "transition",
    "background-transition": "backgroundTransition",
    "transition-speed": "transitionSpeed",
    "navigation-mode": "navigationMode",
    "center": "center",
    "show-slide-number": "showSlideNumber",
    "hash": "hash",
    "history": "history",
    "margin": "margin",
    "view-distance": "viewDistance",
    "viewDistance": "viewDistance",
    "controls-tutorial": "controlsTutorial",
    # (reveal.js has no such option: the deck's pass that stretches a lone image reads it,
    # deck.render.transforms.auto_stretch)
    "auto-stretch": "autoStretch",
}


def parse_quarto_config(
    text: str, path: str, first_line: int = 1, schema: Schema = QUARTO_SCHEMA
) -> tuple[dict[str, Any], dict[str, Loc], list[Diagnostic]]:
    """Front matter (its YAML starting at `first_line` of the file), `_metadata.yml` or
    (`schema`) a project's `_quarto.yml` text → (the checked values, where each key was
    written, diagnostics)."""
    diagnostics: list[Diagnostic] = []
    locs: dict[str, Loc] = {}
    try:  # leading blank lines: the YAML's marks are the file's lines
        node = yaml.compose("\n" * (first_line - 1) + text)
    except yaml.YAMLError as exc:
        diagnostics.append(yaml_error(exc, path, first_line))
        return {}, locs, diagnostics
    if node is None:
        return {}, locs, diagnostics
    values = schema.read(node, Reading(path, diagnostics, locs))
    return values, locs, diagnostics


def merge(under: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over`'s values on top of `under`'s, mappings merged key by key (as Quarto merges
    `_metadata.yml` under a file's front matter)."""
    out = dict(under)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def deck_option(values: dict[str, Any], key: str, default: Any = None) -> Any:
    """One of `DECK_OPTIONS`: under `format: revealjs:` over the top level, as Quarto reads it."""
    reveal = values.get("format") or {}
    return reveal.get(key, values.get(key, default))


def quarto_config(values: dict[str, Any]) -> LessonConfig:
    """Checked (and merged) front matter → the deck's settings. Quarto's defaults where they
    differ from a lesson's: no slide numbers, line numbers on code."""
    top = {k: v for k, v in values.items() if k in QMD_REVEALJS_SCHEMA and k not in DECK_OPTIONS}
    per_format = values.get("format") or {}
    reveal = {k: v for k, v in {**top, **per_format}.items() if k not in PER_FORMAT}
    slides = slide_config(reveal, values)
    execute = {k: v for k, v in (values.get("execute") or {}).items() if k in CELL_DEFAULTS}
    if (values.get("execute") or {}).get("enabled") is False:
        execute["eval"] = False
    # `format: revealjs: echo: true` (and the other cell defaults) over `execute:`, as Quarto
    # merges a format's options over the document's; so are its citation settings
    execute.update((k, v) for k, v in per_format.items() if k in CELL_DEFAULTS)
    values = {
        **values,
        **{k: v for k, v in per_format.items() if k in ("bibliography", "csl", "nocite")},
    }
    exec_values = values.get("exec") or {}
    return LessonConfig(
        title=values.get("title"),
        subtitle=values.get("subtitle"),
        author=byline(
            values.get("author") or values.get("authors"),
            values.get("affiliations") or {},
            values.get("institute") or (),
        ),
        date=values.get("date"),
        lang=values.get("lang", QUARTO_SCHEMA.default("lang")),
        exec=ExecConfig(**{EXEC_FIELDS[k]: v for k, v in exec_values.items()}),
        slides=slides,
        execute=execute,
        kernel=values.get("jupyter"),
        citations=CitationConfig(
            tuple(values.get("bibliography", ())), values.get("csl"), values.get("nocite", "")
        ),
    )


def slide_config(
    reveal: dict[str, Any], values: dict[str, Any], options: Schema = REVEALJS_SCHEMA
) -> SlideConfig:
    """The checked `format: revealjs:` options (`reveal`) → how the deck is presented; the
    defaults are those `options` declares (Quarto's; a lesson's `slides:` has its own).
    `values`: the whole file, for the options read under `format: revealjs:` or at the top
    (`deck_option`)."""

    def option(key: str) -> Any:
        return reveal.get(key, options.default(key))

    theme, theme_files = option("theme")
    return SlideConfig(
        slide_number=option("slide-number"),
        controls=reveal.get("controls") if isinstance(reveal.get("controls"), bool) else None,
        progress=option("progress"),
        incremental=option("incremental"),
        smaller=option("smaller"),
        scrollable=option("scrollable"),
        footer=option("footer"),
        logo=option("logo"),
        code_line_numbers=option("code-line-numbers"),
        css=option("css"),
        theme=theme,
        theme_files=theme_files,
        reveal=tuple((REVEAL_NAMES[k], v) for k, v in reveal.items() if k in REVEAL_NAMES),
        includes=tuple(
            (key.removeprefix("include-"), kind, text)
            for key in INCLUDES
            for kind, text in deck_option(values, key, ())
        ),
        width=option("width"),
        height=option("height"),
    )


CELL_DEFAULTS = ("echo", "eval", "output", "warning", "error", "include")
