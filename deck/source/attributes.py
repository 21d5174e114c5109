"""Small pure checks for what authors write in braces and `#|` lines."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import yaml

from deck.blocks.styles import layout_rows
from deck.source.config import seconds_problem

# Cell options Quarto knows that only shape its own HTML or its own cache: in a .qmd they are
# read and named in a warning, not applied.
QUARTO_ONLY_OPTIONS = {
    "cache",
    "cap-location",
    "classes",
    "code-fold",
    "code-overflow",
    "code-summary",
    "code-tools",
    "column",
    "comment",
    "fig-cap-location",
    "fig-column",
    "fig-dpi",
    "fig-env",
    "fig-format",
    "fig-link",
    "fig-pos",
    "fig-subcap",
    "freeze",
    "lst-cap",
    "lst-label",
    "message",
    "panel",
    "tbl-cap-location",
    "tbl-colwidths",
    "tbl-column",
}
# What PyYAML may raise on text it cannot read (a bad date raises ValueError, deep nesting
# RecursionError): every one of them is an author's mistake to report, never a crash.
YAML_PROBLEMS = (yaml.YAMLError, ValueError, OverflowError, RecursionError)
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: 4× faster, same values


def read_yaml(text: str) -> Any:
    return yaml.load(text, Loader=YAML_LOADER)  # a safe loader: plain values only


# A label names a figure file: ASCII only, so the name is safe on every file system and URL
# (`$` would accept a trailing newline: \Z does not).
LABEL = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_-]{0,99}\Z")
# A value may hold backslash escapes, as Pandoc reads them: `width="\"50%"` is `"50%`.
ATTR_TOKEN = re.compile(
    r"""\s*(?:\.([\w-]+)|#([\w-]+)|([\w-]+)="""
    r"""(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|((?:[^\s"'\\]|\\\S)+)))"""
)
ESCAPE = re.compile(r"""\\([!-/:-@\[-`{-~])""")  # Pandoc escapes ASCII punctuation only
# `code-line-numbers="1-3|5"`: steps apart by `|`, each a list of lines and ranges (reveal.js's
# highlight plugin reads `data-line-numbers` the same way).
LINE_STEPS = re.compile(r"\A\s*[\d,\s-]*(\|[\d,\s-]*)*\Z")
LINE_RANGE = re.compile(r"\A\s*(\d+)\s*(?:-\s*(\d+)\s*)?\Z")


def parse_attrs(text: str) -> tuple[tuple[str, ...], dict[str, str]] | None:
    """`.a .b #id key="v"` → (classes, attrs); None when the syntax is not understood."""
    classes: list[str] = []
    attrs: dict[str, str] = {}
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = ATTR_TOKEN.match(text, pos)
        if not m or m.end() == pos:
            return None
        cls, ident, key = m.group(1), m.group(2), m.group(3)
        if cls:
            classes.append(cls)
        elif ident:
            attrs["id"] = ident
        else:
            value = next(v for v in (m.group(4), m.group(5), m.group(6)) if v is not None)
            attrs[key] = ESCAPE.sub(r"\1", value)
        pos = m.end()
    return tuple(classes), attrs


def line_steps(spec: str) -> list[set[int]] | None:
    """`"1-3|5"` → [{1, 2, 3}, {5}]; an empty step highlights nothing; None if unreadable."""
    if not LINE_STEPS.match(spec):
        return None
    steps = []
    for step in spec.split("|"):
        lines: set[int] = set()
        for part in filter(str.strip, step.split(",")):
            m = LINE_RANGE.match(part)
            if not m:
                return None
            first = int(m.group(1))
            last = int(m.group(2) or first)
            if last < first:
                return None
            lines.update(range(first, last + 1))
        steps.append(lines)
    return steps


# ---- cell options ---------------------------------------------------------------------------
# Each option has a check returning what is wrong with a value (None: fine). Quarto's meaning:
# https://quarto.org/docs/reference/cells/cells-jupyter.html


def _bool(key: str) -> Callable[[Any], str | None]:
    return lambda v: None if isinstance(v, bool) else f"cell option `{key}` must be true or false"


def _bool_or(key: str, word: str) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        if isinstance(v, bool) or v == word:
            return None
        return f"cell option `{key}` must be true, false or {word}"

    return check


def _text(key: str) -> Callable[[Any], str | None]:
    return lambda v: None if isinstance(v, str) else f"cell option `{key}` must be text"


def _positive(key: str, unit: str) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, int | float):
            return f"cell option `{key}` must be a number of {unit}"
        return None if 0 < v < math.inf else f"cell option `{key}` must be positive and finite"

    return check


def _seconds(v: Any) -> str | None:
    problem = seconds_problem(v)
    return f"cell option `timeout` {problem}" if problem else None


def _one_of(key: str, *words: str) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        return None if v in words else f"cell option `{key}` must be one of {', '.join(words)}"

    return check


def _label(v: Any) -> str | None:
    if isinstance(v, str) and LABEL.match(v):
        return None
    return "cell option `label` must be a name of ASCII letters, digits, - and _ (at most 100)"


def _line_numbers(v: Any) -> str | None:
    if isinstance(v, bool) or (isinstance(v, str) and line_steps(v) is not None):
        return None
    return 'cell option `code-line-numbers` must be true, false or lines such as "1-3|5"'


def _inputs(v: Any) -> str | None:
    """`#| inputs: data/*.db` (or a list): globs relative to the lesson folder."""
    items = [v] if isinstance(v, str) else v
    if isinstance(items, list) and items and all(isinstance(i, str) and i for i in items):
        if not any(i.startswith("/") or ".." in i.split("/") for i in items):
            return None
    return "cell option `inputs` must be a glob or a list of globs inside the lesson folder"


def _count(key: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 12:
            return f"{key} must be a whole number from 1 to 12"
        return None

    return check


def _layout(value: Any) -> str | None:
    if layout_rows(value) is None:
        return "layout must read as rows of relative widths, as [[1,1],[1]] or [40,60]"
    return None


CELL_OPTIONS: dict[str, Callable[[Any], str | None]] = {
    "label": _label,
    "echo": _bool_or("echo", "fenced"),
    "eval": _bool("eval"),
    "output": _bool_or("output", "asis"),
    "include": _bool("include"),
    "warning": _bool("warning"),
    "error": _bool("error"),
    "fig-cap": _text("fig-cap"),
    "fig-alt": _text("fig-alt"),
    "tbl-cap": _text("tbl-cap"),
    "fig-width": _positive("fig-width", "inches"),
    "fig-height": _positive("fig-height", "inches"),
    "fig-align": _one_of("fig-align", "default", "left", "center", "right"),
    "output-location": _one_of(
        "output-location", "default", "fragment", "slide", "column", "column-fragment"
    ),
    "code-line-numbers": _line_numbers,
    "timeout": _seconds,
    "inputs": _inputs,
    "layout-ncol": _count("layout-ncol"),
    "layout-nrow": _count("layout-nrow"),
    "layout": _layout,
    "layout-align": _one_of("layout-align", "default", "left", "center", "right"),
    "exercise": _bool("exercise"),  # blanked in the student notebook (deck.publish.nbcells)
}


def option_problem(key: str, value: Any) -> str | None:
    """What is wrong with cell option `key: value`, or None."""
    check = CELL_OPTIONS.get(key)
    if check is None:
        known = ", ".join(sorted(CELL_OPTIONS))
        return f"unknown cell option `{key}` (known: {known})"
    return check(value)


def front_matter_end(lines: list[str]) -> int | None:
    """The closing line's index when the file opens like YAML front matter: `---`, at once
    `key: value` lines, then `---` or `...`."""
    if len(lines) < 3 or lines[0].strip() != "---" or not lines[1].strip():
        return None
    end = next((k for k in range(1, len(lines)) if lines[k].strip() in ("---", "...")), None)
    if end is None:
        return None
    try:
        data = read_yaml("\n".join(lines[1:end]))
    except YAML_PROBLEMS:
        return None
    return end if isinstance(data, dict) and data else None


def front_matter_note(lines: list[str]) -> str:
    """The warning for a section file that opens like front matter (see `front_matter_end`)."""
    return (
        f"lines 1-{(front_matter_end(lines) or 0) + 1} look like YAML front matter, which "
        "section files do not have: they are shown as a slide (lesson settings go in lesson.yml)"
    )
