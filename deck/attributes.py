"""Small pure checks for what authors write in braces and `#|` lines."""

from __future__ import annotations

import re
from typing import Any

CELL_OPTIONS = {"label", "echo", "output", "include", "fig-cap", "fig-alt", "timeout"}
BOOL_OPTIONS = {"echo", "output", "include"}
# A label names a figure file: ASCII only, so the name is safe on every file system and URL
# (`$` would accept a trailing newline: \Z does not).
LABEL = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_-]{0,99}\Z")
ATTR_TOKEN = re.compile(
    r"""\s*(?:\.([\w-]+)|#([\w-]+)|([\w-]+)=(?:"([^"]*)"|'([^']*)'|([^\s"']+)))"""
)


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
            attrs[key] = value
        pos = m.end()
    return tuple(classes), attrs


def option_problem(key: str, value: Any) -> str | None:
    """What is wrong with cell option `key: value`, or None."""
    if key not in CELL_OPTIONS:
        known = ", ".join(sorted(CELL_OPTIONS))
        return f"unknown cell option `{key}` (known: {known})"
    if key in BOOL_OPTIONS and not isinstance(value, bool):
        return f"cell option `{key}` must be true or false"
    if key == "timeout" and (isinstance(value, bool) or not isinstance(value, int | float)):
        return "cell option `timeout` must be a number of seconds"
    if key == "timeout" and value <= 0:
        return "cell option `timeout` must be positive"
    if key == "label" and not (isinstance(value, str) and LABEL.match(value)):
        return "cell option `label` must be a name of ASCII letters, digits, - and _ (at most 100)"
    if key in ("fig-cap", "fig-alt") and not isinstance(value, str):
        return f"cell option `{key}` must be text"
    return None
