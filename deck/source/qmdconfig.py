"""A `.qmd`'s front matter and `_metadata.yml`, checked against Quarto's reveal.js options.

The options a deck commonly sets are applied; those Quarto has but this build does not apply
are read and named in a warning (never silently dropped); another format or engine says that
this build makes reveal.js slides from Python cells.
https://quarto.org/docs/reference/formats/presentations/revealjs.html
"""

from __future__ import annotations

import datetime
from typing import Any

import yaml

from deck.errors import Diagnostic
from deck.model import ExecConfig, LessonConfig, Loc, SlideConfig
from deck.source.attributes import line_steps
from deck.source.config import (
    EXEC_FIELDS,
    EXEC_SCHEMA,
    Accepted,
    Check,
    Invalid,
    NodeCheck,
    as_text,
    check_mapping,
)


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Invalid("must be true or false")
    return value


def _bool_or(*words: str) -> Check:
    def check(value: Any) -> Any:
        if isinstance(value, bool) or value in words:
            return value
        raise Invalid(f"must be true, false or {' or '.join(words)}")

    return check


def _any(value: Any) -> Any:
    return value


def _ignored(what: str) -> Check:
    """A Quarto option this build reads but does not apply: a warning, and the value dropped."""

    def check(value: Any) -> Any:
        raise Accepted(what)

    return check


def _names(value: Any) -> str:
    """`author: A`, `author: [A, B]` or `author: [{name: A, affiliation: …}]` → "A, B"."""
    items = value if isinstance(value, list) else [value]
    names = []
    for item in items:
        if isinstance(item, dict):
            item = item.get("name")
            if isinstance(item, dict):  # name: {given: …, family: …} or {literal: …}
                item = item.get("literal") or " ".join(
                    str(item[k]) for k in ("given", "family") if k in item
                )
        names.append(as_text(item))
    return ", ".join(names)


def _date(value: Any) -> str:
    if value in ("today", "now"):
        return datetime.date.today().isoformat()
    return as_text(value)


def _size(expected: int) -> Check:
    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise Invalid("must be a number of pixels")
        if value != expected:
            raise Accepted(
                f"the deck is 1280×720 (its theme, PDF pages and overflow checks are laid "
                f"out for that size); {value} is not applied"
            )
        return value

    return check


def _slide_number(value: Any) -> Any:
    if isinstance(value, bool) or value in ("c/t", "c", "h/v", "h.v"):
        return value
    raise Invalid("must be true, false, c/t, c, h/v or h.v")


def _code_line_numbers(value: Any) -> Any:
    if isinstance(value, bool) or (isinstance(value, str) and line_steps(value) is not None):
        return value
    raise Invalid('must be true, false or lines such as "1-3|5"')


def _paths(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    return tuple(as_text(item) for item in items)


THEMES = {"default": "default", "white": "default", "dark": "dark", "black": "dark"}


def _theme(value: Any) -> str:
    items = value if isinstance(value, list) else [value]
    names = [as_text(item) for item in items]
    chosen = [THEMES[n] for n in names if n in THEMES]
    others = [n for n in names if n not in THEMES]
    if others:
        raise Accepted(
            f"theme {', '.join(others)} is not available (only default and dark); "
            f"the {chosen[0] if chosen else 'default'} theme is used",
            chosen[0] if chosen else "default",
        )
    return chosen[0] if chosen else "default"


def _embed(value: Any) -> bool:
    if _bool(value):
        raise Accepted(
            "index.html is written with its assets/ folder beside it (it opens offline from "
            "there, from any copy of the folder); no single self-contained file is made",
            True,
        )
    return False


def _plugin(name: str) -> Check:
    def check(value: Any) -> Any:
        if value is True:
            return True
        if value is False:
            raise Accepted(f"the deck's {name} stays available; false is not applied", False)
        raise Accepted(f"the deck's own {name} is used; its settings here are not read", True)

    return check


def _one_of(*words: str) -> Check:
    def check(value: Any) -> Any:
        if value not in words:
            raise Invalid(f"must be {', '.join(words[:-1])} or {words[-1]}")
        return value

    return check


TRANSITIONS = ("none", "fade", "slide", "convex", "concave", "zoom")
# Quarto's option → reveal.js's (passed as they are)
REVEAL_NAMES = {
    "transition": "transition",
    "background-transition": "backgroundTransition",
    "transition-speed": "transitionSpeed",
    "navigation-mode": "navigationMode",
    "center": "center",
}


def _level(value: Any) -> int:
    if isinstance(value, bool) or value not in (1, 2, 3):
        raise Invalid("must be 1, 2 or 3")
    return value


def _attributes(value: Any) -> dict[str, str]:
    """`title-slide-attributes: {data-background-image: a.png, …}`."""
    if not isinstance(value, dict):
        raise Invalid("must be a mapping of attributes, as `data-background-color: black`")
    return {str(k): as_text(v) for k, v in value.items()}


DECK_OPTIONS: dict[str, Check] = {  # at the top or under format: revealjs:
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
            "include-after-body",
            "include-in-header",
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
    text = as_text(value)
    if text not in ("jupyter", "python"):
        raise Invalid("is not available: only Python cells run here (engine: jupyter)")
    return text


def _jupyter(value: Any) -> Any:
    kernel = value.get("kernelspec", {}).get("name", "") if isinstance(value, dict) else value
    if not str(kernel).lower().startswith("python"):
        raise Invalid("is not available: only Python cells run here (jupyter: python3)")
    return value


QUARTO_SCHEMA: dict[str, Any] = {
    "title": as_text,
    "subtitle": as_text,
    "author": _names,
    "date": _date,
    "lang": as_text,
    "format": NodeCheck(_format),
    "execute": EXECUTE_SCHEMA,
    "jupyter": _jupyter,
    "engine": _engine,
    "exec": EXEC_SCHEMA,  # this build's own settings (seed, timeout, memory, output)
    **DECK_OPTIONS,
    **{
        key: _ignored(NOT_APPLIED)
        for key in (
            "abstract",
            "bibliography",
            "citation",
            "copyright",
            "crossref",
            "csl",
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
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark else first_line
        problem = getattr(exc, "problem", None) or str(exc)
        diagnostics.append(Diagnostic(Loc(path, line), "config", f"not valid YAML: {problem}"))
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
    reveal = values.get("format") or {}
    slides = SlideConfig(
        slide_number=reveal.get("slide-number", False),
        controls=reveal.get("controls") if isinstance(reveal.get("controls"), bool) else None,
        progress=reveal.get("progress"),
        incremental=reveal.get("incremental", False),
        smaller=reveal.get("smaller", False),
        scrollable=reveal.get("scrollable", False),
        footer=reveal.get("footer"),
        logo=reveal.get("logo"),
        code_line_numbers=reveal.get("code-line-numbers", True),
        css=reveal.get("css", ()),
        theme=reveal.get("theme", "default"),
        reveal=tuple((REVEAL_NAMES[k], v) for k, v in reveal.items() if k in REVEAL_NAMES),
    )
    execute = {k: v for k, v in (values.get("execute") or {}).items() if k in CELL_DEFAULTS}
    if (values.get("execute") or {}).get("enabled") is False:
        execute["eval"] = False
    exec_values = values.get("exec") or {}
    return LessonConfig(
        title=values.get("title"),
        subtitle=values.get("subtitle"),
        author=values.get("author"),
        date=values.get("date"),
        lang=values.get("lang", "en"),
        exec=ExecConfig(**{EXEC_FIELDS[k]: v for k, v in exec_values.items()}),
        slides=slides,
        execute=execute,
    )


CELL_DEFAULTS = ("echo", "eval", "output", "warning", "error", "include")
