"""TeX macros defined in a deck's formulas (`\\newcommand{\\RR}{\\mathbb{R}}`, `\\def`,
`\\DeclareMathOperator`): as MathJax does in a Quarto page, a definition holds for every
formula of the deck. Each formula is rendered with the deck's macros and without the
definitions themselves (KaTeX would refuse a second definition of the same name)."""

from __future__ import annotations

import hashlib
import json
import re

START = re.compile(
    r"\\(?:(?P<cmd>(?:re)?newcommand\*?|DeclareMathOperator\*?)\s*(?:\{\s*(?P<n1>\\[A-Za-z]+)\s*\}|(?P<n2>\\[A-Za-z]+))"
    r"|def\s*(?P<n3>\\[A-Za-z]+)(?P<params>(?:#\d)*))"
)


# `\definecolor{name}{rgb}{…}` (MathJax's color extension): KaTeX has no named colours to
# define; the definition is dropped (a `\color{name}` then falls back to the text colour)
DEFINECOLOR = re.compile(r"\\definecolor\s*\{[^{}]*\}\s*\{[^{}]*\}\s*\{[^{}]*\}")


def _group(tex: str, at: int) -> tuple[str, int] | None:
    """The brace group starting at `at` (after spaces): its content and the index after it."""
    while at < len(tex) and tex[at].isspace():
        at += 1
    if at >= len(tex) or tex[at] != "{":
        return None
    depth = 0
    for k in range(at, len(tex)):
        if tex[k] == "\\":
            continue
        if tex[k] == "{" and (k == 0 or tex[k - 1] != "\\"):
            depth += 1
        elif tex[k] == "}" and tex[k - 1] != "\\":
            depth -= 1
            if depth == 0:
                return tex[at + 1 : k], k + 1
    return None


def definitions(tex: str) -> tuple[dict[str, str], str]:
    """The macros a formula defines, and the formula without those definitions."""
    found: dict[str, str] = {}
    out, pos = [], 0
    for m in START.finditer(tex):
        if m.start() < pos:
            continue
        name = m.group("n1") or m.group("n2") or m.group("n3")
        at = m.end()
        if m.group("cmd") and not m.group("cmd").startswith("Declare"):
            optional = re.match(r"\s*\[\d\]", tex[at:])  # `[2]`: its number of arguments
            at += optional.end() if optional else 0
        body = _group(tex, at)
        if body is None:
            continue
        value, end = body
        if m.group("cmd") and m.group("cmd").startswith("Declare"):
            star = "*" if m.group("cmd").endswith("*") else ""
            value = f"\\operatorname{star}{{{value}}}"
        found[name] = value
        out.append(tex[pos : m.start()])
        pos = end
    out.append(tex[pos:])
    return found, DEFINECOLOR.sub("", "".join(out))


def deck_macros(formulas: set[tuple[str, bool]]) -> dict[str, str]:
    """Every macro the deck's formulas define (a later definition of a name wins)."""
    found: dict[str, str] = {}
    for tex, _ in sorted(formulas):
        if "\\" in tex and ("newcommand" in tex or "\\def" in tex or "DeclareMath" in tex):
            found.update(definitions(tex)[0])
    return found


def macros_digest(macros: dict[str, str]) -> str:
    if not macros:
        return ""
    return hashlib.sha256(json.dumps(macros, sort_keys=True).encode()).hexdigest()[:12]


# Code spans are matched first so that `$` inside them is left alone.
MATH = re.compile(
    r"(?P<code>`+)(?:.+?)(?P=code)"
    r"|(?<!\\)\$\$(?P<display>.+?)\$\$"
    r"|(?<![\\$])\$(?P<inline>[^\s$](?:[^$\n]*?[^\s\\$])?)\$(?![\d$])",
    re.S,
)
MATH_TOKEN = re.compile("\u2063M(\\d+)\u2063")


def math_placeholder(index: int) -> str:
    return f"\u2063M{index}\u2063"


def extract(text: str, first: int = 0) -> tuple[str, list[tuple[str, bool, int]]]:
    """Replace formulas by placeholders numbered from `first`; return the text and, per formula,
    (tex, display, line offset of its start within `text`)."""
    found: list[tuple[str, bool, int]] = []

    def sub(m: re.Match[str]) -> str:
        if m.group("code"):
            return m.group(0)
        display = m.group("display") is not None
        tex = (m.group("display") if display else m.group("inline")).strip()
        found.append((tex, display, text.count("\n", 0, m.start())))
        return math_placeholder(first + len(found) - 1)

    return MATH.sub(sub, text), found
