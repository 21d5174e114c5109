"""A `.qmd`'s front matter and `_metadata.yml`, checked against Quarto's reveal.js options.

The options a deck commonly sets are applied; those Quarto has but this build does not apply
are read and named in a warning (never silently dropped); another format or engine says that
this build makes reveal.js slides from Python cells.
https://quarto.org/docs/reference/formats/presentations/revealjs.html
"""

from __future__ import annotations

from typing import Any

import yaml

from deck.errors import Diagnostic
from deck.model import CitationConfig, ExecConfig, LessonConfig, Loc, SlideConfig
from deck.source.config import (
    EXEC_FIELDS,
    EXEC_SCHEMA,
    Accepted,
    Check,
    Invalid,
    NodeCheck,
    as_text,
    check_mapping,
    yaml_error,
)
from deck.source.qmdchecks import (
    _any,
    _attributes,
    _bool,
    _bool_or,
    _code_line_numbers,
    _date,
    _embed,
    _ignored,
    _includes,
    _level,
    _names,
    _nocite,
    _one_of,
    _paths,
    _plugin,
    _size,
    _slide_number,
    _theme,
)

TRANSITIONS = ("none", "fade", "slide", "convex", "concave", "zoom")
# Quarto's option → reveal.js's (passed as they are)
REVEAL_NAMES = {
    "transition": "transition",
    "background-transition": "backgroundTransition",
    "transition-speed": "transitionSpeed",
    "navigation-mode": "navigationMode",
    "center": "center",
}


INCLUDES = ("include-in-header", "include-before-body", "include-after-body")
DECK_OPTIONS: dict[str, Check] = {  # at the top or under format: revealjs:
    **{key: _includes for key in INCLUDES},
    "toc": _bool,
    "toc-depth": _level,
    "toc-title": as_text,
    "slide-level": _level,
    "title-slide-attributes": _attributes,
}
NOT_APPLIED = "a Quarto option this build does not apply; ignored"
REVEALJS_SCHEMA: dict[str, Check] = {
    "width": _size(1280),
    "height": _size(720),
    "slide-number": _slide_number,
    "incremental": _bool,
    "smaller": _bool,
    "scrollable": _bool,
    "footer": as_text,
    "logo": as_text,
    "controls": _bool_or("auto"),
    "progress": _bool,
    "menu": _plugin("slide menu"),
    "chalkboard": _plugin("chalkboard"),
    "code-line-numbers": _code_line_numbers,
    "css": _paths,
    "theme": _theme,
    "embed-resources": _embed,
    "self-contained": _embed,
    "transition": _one_of(*TRANSITIONS),
    "background-transition": _one_of(*TRANSITIONS),
    "transition-speed": _one_of("default", "fast", "slow"),
    "navigation-mode": _one_of("linear", "vertical", "grid"),
    "center": _bool,
    "hash-type": _one_of("title", "number"),  # (the deck's addresses are numbers either way)
    **DECK_OPTIONS,
    **{
        key: _ignored(NOT_APPLIED)
        for key in (
            "auto-animate-duration",
            "auto-animate-easing",
            "auto-stretch",
            "center-title-slide",
            "code-copy",
            "code-overflow",
            "fig-dpi",
            "fig-height",
            "fig-width",
            "highlight-style",
            "html-math-method",
            "link-external-icon",
            "multiplex",
            "pdf-separate-fragments",
            "preview-links",
            "reference-location",
            "revealjs-plugins",
            "show-notes",
        )
    },
}
EXECUTE_SCHEMA: dict[str, Check] = {
    "echo": _bool_or("fenced"),
    "eval": _bool,
    "output": _bool_or("asis"),
    "warning": _bool,
    "error": _bool,
    "include": _bool,
    "enabled": _bool,
    # Results are kept per section in the build's cache, keyed by the code: freeze and cache
    # are what it does already.
    "freeze": _any,
    "cache": _any,
    "daemon": _ignored(NOT_APPLIED),
    "kernel-keepalive": _ignored(NOT_APPLIED),
}


def _format(
    node: yaml.Node,
    name: str,
    path: str,
    diagnostics: list[Diagnostic],
    locs: dict[str, Loc] | None,
) -> dict[str, Any]:
    """`format: revealjs`, or `format: {revealjs: {options}, pdf: …}`: the revealjs options;
    another format is a warning (this builds reveal.js slides and their PDFs)."""
    at = Loc(path, node.start_mark.line + 1)
    other = "is not built here: this builds reveal.js slides (and their PDFs)"
    if isinstance(node, yaml.ScalarNode):
        if node.value != "revealjs":
            message = f"format `{node.value}` {other}"
            diagnostics.append(Diagnostic(at, "config", message, "warning"))
        return {}
    if not isinstance(node, yaml.MappingNode):
        diagnostics.append(Diagnostic(at, "config", f"`{name}` must be a format or a mapping"))
        return {}
    options: dict[str, Any] = {}
    found = False
    for key_node, value_node in node.value:
        key = str(key_node.value)
        key_at = Loc(path, key_node.start_mark.line + 1)
        if key != "revealjs":
            diagnostics.append(Diagnostic(key_at, "config", f"format `{key}` {other}", "warning"))
            continue
        found = True
        if isinstance(value_node, yaml.ScalarNode):  # `revealjs: default` or nothing
            continue
        where = f"{name}.revealjs"
        options = check_mapping(value_node, REVEALJS_SCHEMA, where, path, diagnostics, locs)
    if not found:
        message = "no `revealjs` format: the file is built as reveal.js slides anyway"
        diagnostics.append(Diagnostic(at, "config", message, "warning"))
    return options


def _engine(value: Any) -> str:
    """`engine: knitr`/`julia`: only Python cells run here; a file without cells of that
    engine still builds (a warning), and each such cell is an error at its own line."""
    text = as_text(value)
    if text not in ("jupyter", "python"):
        raise Accepted(
            "only Python cells run here (engine: jupyter); "
            "each cell of another engine is an error at its line",
            text,
        )
    return text


NOT_PYTHON = ("julia", "ir", "r", "ijulia", "javascript", "deno", "bash", "sas", "stata")


def _jupyter(value: Any) -> Any:
    """`jupyter: python3`, `jupyter: my-env` or `jupyter: {kernelspec: {name: …}}`: a Python
    kernel (its interpreter runs the cells); another language's kernel is an error."""
    if isinstance(value, dict):
        spec = value.get("kernelspec")
        kernel = spec.get("name", "") if isinstance(spec, dict) else ""
        language = (spec.get("language") or "") if isinstance(spec, dict) else ""
    else:
        kernel, language = as_text(value), ""
    lowered = str(kernel).lower()
    if (language and language.lower() != "python") or lowered.startswith(NOT_PYTHON):
        raise Invalid("is not available: only Python cells run here (jupyter: python3)")
    return str(kernel)


QUARTO_SCHEMA: dict[str, Any] = {
    "bibliography": _paths,
    "csl": as_text,
    "nocite": _nocite,
    "title": as_text,
    "subtitle": as_text,
    "author": _names,
    "authors": _names,  # Quarto's normalized form: `authors: [{name: …, affiliations: …}]`
    "affiliations": _any,  # (shown with the authors in Quarto's title block; read, not shown)
    "date": _date,
    "lang": as_text,
    "format": NodeCheck(_format),
    "execute": EXECUTE_SCHEMA,
    "jupyter": _jupyter,
    "engine": _engine,
    "exec": EXEC_SCHEMA,  # this build's own settings (seed, timeout, memory, output)
    **DECK_OPTIONS,
    # a format's options may stand at the top level too (`footer:` beside `format: revealjs`)
    **{k: v for k, v in REVEALJS_SCHEMA.items() if k not in DECK_OPTIONS},
    **{
        key: _ignored(NOT_APPLIED)
        for key in (
            "abstract",
            "citation",
            "copyright",
            "crossref",
            "date-format",
            "description",
            "editor",
            "filters",
            "institute",
            "keywords",
            "license",
            "lightbox",
            "number-sections",
            "resources",
            "subject",
        )
    },
}


def parse_quarto_config(
    text: str, path: str, first_line: int = 1
) -> tuple[dict[str, Any], dict[str, Loc], list[Diagnostic]]:
    """Front matter (its YAML starting at `first_line` of the file) or `_metadata.yml` text →
    (the checked values, where each key was written, diagnostics)."""
    diagnostics: list[Diagnostic] = []
    locs: dict[str, Loc] = {}
    try:  # leading blank lines: the YAML's marks are the file's lines
        node = yaml.compose("\n" * (first_line - 1) + text)
    except yaml.YAMLError as exc:
        diagnostics.append(yaml_error(exc, path, first_line))
        return {}, locs, diagnostics
    if node is None:
        return {}, locs, diagnostics
    values = check_mapping(node, QUARTO_SCHEMA, "", path, diagnostics, locs)
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
    top = {k: v for k, v in values.items() if k in REVEALJS_SCHEMA and k not in DECK_OPTIONS}
    reveal = {**top, **(values.get("format") or {})}
    slides = slide_config(reveal, values)
    execute = {k: v for k, v in (values.get("execute") or {}).items() if k in CELL_DEFAULTS}
    if (values.get("execute") or {}).get("enabled") is False:
        execute["eval"] = False
    exec_values = values.get("exec") or {}
    return LessonConfig(
        title=values.get("title"),
        subtitle=values.get("subtitle"),
        author=values.get("author") or values.get("authors"),
        date=values.get("date"),
        lang=values.get("lang", "en"),
        exec=ExecConfig(**{EXEC_FIELDS[k]: v for k, v in exec_values.items()}),
        slides=slides,
        execute=execute,
        kernel=values.get("jupyter"),
        citations=CitationConfig(
            tuple(values.get("bibliography", ())), values.get("csl"), values.get("nocite", "")
        ),
    )


def slide_config(
    reveal: dict[str, Any],
    values: dict[str, Any],
    slide_number: bool | str = False,
    code_line_numbers: bool | str = True,
) -> SlideConfig:
    """The checked `format: revealjs:` options (`reveal`) → how the deck is presented; the
    defaults are Quarto's (a lesson's `slides:` passes its own). `values`: the whole file, for
    the options read under `format: revealjs:` or at the top (`deck_option`)."""
    return SlideConfig(
        slide_number=reveal.get("slide-number", slide_number),
        controls=reveal.get("controls") if isinstance(reveal.get("controls"), bool) else None,
        progress=reveal.get("progress"),
        incremental=reveal.get("incremental", False),
        smaller=reveal.get("smaller", False),
        scrollable=reveal.get("scrollable", False),
        footer=reveal.get("footer"),
        logo=reveal.get("logo"),
        code_line_numbers=reveal.get("code-line-numbers", code_line_numbers),
        css=reveal.get("css", ()),
        theme=reveal.get("theme", ("default", ()))[0],
        theme_files=reveal.get("theme", ("default", ()))[1],
        reveal=tuple((REVEAL_NAMES[k], v) for k, v in reveal.items() if k in REVEAL_NAMES),
        includes=tuple(
            (key.removeprefix("include-"), kind, text)
            for key in INCLUDES
            for kind, text in deck_option(values, key, ())
        ),
        width=reveal.get("width", 1280),
        height=reveal.get("height", 720),
    )


CELL_DEFAULTS = ("echo", "eval", "output", "warning", "error", "include")
