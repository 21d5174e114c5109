"""Pandoc's reading before the scanner: HTML comments skipped, Quarto's shortcodes expanded and
`{{< include >}}` files spliced in, every resulting line keeping the file:line it came from.

The scanner then reads the expanded lines; `Expanded.origins[k]` is where line `k` was
written, so an error inside an included file points at that file's own line. Code fences are
copied as written (a comment or a shortcode in code is code), but for an `include` line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from deck.errors import Diagnostic, Loc
from deck.errors import display_path as display_path  # (its first home)
from deck.source.config import yaml_error
from deck.source.contain import CODE_SPAN, outside
from deck.source.embed import EMBED_LINE, embed_lines
from deck.source.shortcodes import SHORTCODES, Call, ShortcodeError, parse_args

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
ESCAPED = re.compile(r"\{\{\{<(.*?)>\}\}\}")  # `{{{< meta x >}}}` shows `{{< meta x >}}`
SHORTCODE = re.compile(r"\{\{<\s*([\w-]+)((?:[^>]|>(?!\}\}))*?)\s*>\}\}")
CELL_FENCE = re.compile(r"\s*\{\s*[A-Za-z]")  # ```{python}: code that runs, kept as written
INCLUDE_LINE = re.compile(r"^\s*\{\{<\s*include\s+(.+?)\s*>\}\}\s*$")
COMMENT_OPEN, COMMENT_CLOSE = "<!--", "-->"
MAX_INCLUDE_DEPTH = 20
VARIABLES = "_variables.yml"
ESCAPE_MARK = "\u2064"  # (invisible plus) holds an escaped `{{<` while shortcodes expand


@dataclass
class Expanded:
    lines: list[str] = field(default_factory=list)
    origins: list[Loc] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)  # the included files, each once


@dataclass(frozen=True)
class Context:
    """What shortcodes read: the front matter (`meta`), `_variables.yml` (`var`), the
    environment (`env`) and the project folder, which includes may not leave."""

    root: Path
    meta: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, Any] = field(default_factory=dict)
    environ: Callable[[str], str | None] = os.environ.get


def decoded(data: bytes, shown: str) -> str | Diagnostic:
    """A source file's bytes as text (UTF-8, a byte-order mark allowed), or the error at the
    line of its first byte that is not UTF-8 (`shown`: its path as messages name it)."""
    data = data.removeprefix(b"\xef\xbb\xbf")  # (utf-8-sig's error positions would skip it)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.end].hex(" ")
        message = f"not UTF-8 (byte {bad}): save the file as UTF-8"
        return Diagnostic(Loc(shown, line), "encoding", message)


def project_variables(folder: Path, diagnostics: list[Diagnostic]) -> dict[str, Any]:
    """`_variables.yml` in the folder (Quarto's `{{< var >}}` values), if there is one."""
    found = folder / VARIABLES
    if not found.is_file():
        return {}
    rel = display_path(found)
    try:
        text = decoded(found.read_bytes(), rel)
    except OSError as e:
        diagnostics.append(Diagnostic(Loc(rel, 1), "config", f"cannot read: {e}"))
        return {}
    if isinstance(text, Diagnostic):
        diagnostics.append(text)
        return {}
    try:
        values = yaml.safe_load(text)
    except yaml.YAMLError as e:
        diagnostics.append(yaml_error(e, rel))
        return {}
    return values if isinstance(values, dict) else {}


def expand(lines: list[str], rel: str, path: Path, context: Context, first: int = 0) -> Expanded:
    """`lines` (line `first` of the file is `lines[0]`) with comments blanked and shortcodes
    expanded; problems as diagnostics at their lines."""
    out = Expanded()
    _expand(lines, rel, path, context, first, out, (path.resolve(),))
    return out


def _expand(
    lines: list[str],
    rel: str,
    path: Path,
    context: Context,
    first: int,
    out: Expanded,
    chain: tuple[Path, ...],
) -> None:
    fence: str | None = None
    shown = False  # the fence is code to show (not a cell): `{{{< x >}}}` in it shows `{{< x >}}`
    comment: Loc | None = None
    for k, line in enumerate(lines):
        loc = Loc(rel, first + k + 1)
        if comment is None:
            m = FENCE.match(line)
            if fence is not None:
                if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                    if not line.strip().strip(fence[0]):
                        fence = None
                if not INCLUDE_LINE.match(line):
                    out.lines.append(ESCAPED.sub(r"{{<\1>}}", line) if shown else line)
                    out.origins.append(loc)
                    continue
            elif m and line.strip().lstrip(m.group(1)[0]) != line.strip():
                fence = m.group(1)
                shown = not CELL_FENCE.match(line[m.end() :])
                out.lines.append(line)
                out.origins.append(loc)
                continue
        text, comment = _uncomment(line, comment, loc)
        include = INCLUDE_LINE.match(text)
        if include:
            _include(include.group(1), loc, path, context, out, chain)
            continue
        embed = EMBED_LINE.match(text)
        if embed:  # a notebook's cells, each line at the shortcode's
            try:
                found, notebook = embed_lines(embed.group(1), path.parent, context.root)
            except ShortcodeError as e:
                out.diagnostics.append(Diagnostic(loc, "shortcode", f"`embed`: {e}"))
                continue
            if notebook not in out.files:
                out.files.append(notebook)
            out.lines += found
            out.origins += [loc] * len(found)
            continue
        for piece in _shortcodes(text, loc, context, out).split("\n"):
            out.lines.append(piece)  # (a shortcode may give paragraphs: each at its line)
            out.origins.append(loc)
    if comment is not None:
        out.diagnostics.append(
            Diagnostic(comment, "parse", "HTML comment `<!--` opened here is never closed by `-->`")
        )


def _uncomment(line: str, comment: Loc | None, loc: Loc) -> tuple[str, Loc | None]:
    """The line without its comments, and where a comment still open after it began."""
    kept = ""
    rest = line
    while True:
        if comment is not None:
            end = rest.find(COMMENT_CLOSE)
            if end < 0:
                return kept, comment
            rest = rest[end + len(COMMENT_CLOSE) :]
            comment = None
            continue
        start = rest.find(COMMENT_OPEN)
        if start < 0 or _in_code_span(kept + rest, len(kept) + start):
            return kept + rest, None
        kept += rest[:start]
        rest = rest[start + len(COMMENT_OPEN) :]
        comment = loc


def _in_code_span(text: str, at: int) -> bool:
    """Whether position `at` lies inside a `code span` of the line."""
    for m in CODE_SPAN.finditer(text):
        if m.start() < at < m.end():
            return True
    return False


def _include(
    spec: str,
    loc: Loc,
    path: Path,
    context: Context,
    out: Expanded,
    chain: tuple[Path, ...],
) -> None:
    name = spec.strip().strip("\"'")
    target = path.parent / name
    where = os.path.relpath(target, context.root)
    if outside(context.root, where):
        out.diagnostics.append(
            Diagnostic(loc, "path", f"include `{name}` lies outside the project folder")
        )
        return
    if not target.is_file():
        out.diagnostics.append(Diagnostic(loc, "path", f"include `{name}`: no such file"))
        return
    resolved = target.resolve()
    if resolved in chain or len(chain) > MAX_INCLUDE_DEPTH:
        out.diagnostics.append(
            Diagnostic(loc, "path", f"include `{name}` includes itself ({len(chain)} files deep)")
        )
        return
    rel = os.path.normpath(os.path.join(os.path.dirname(loc.path), name))  # as the file's
    try:
        text = decoded(target.read_bytes(), rel)
    except OSError as e:
        out.diagnostics.append(Diagnostic(loc, "path", f"include `{name}` cannot be read: {e}"))
        return
    if resolved not in out.files:
        out.files.append(resolved)  # (read: a lesson says nothing of it as a file not read)
    if isinstance(text, Diagnostic):  # at the included file's line of the bad byte
        out.diagnostics.append(text)
        return
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    _expand(lines, rel, target, context, 0, out, (*chain, resolved))


def _shortcodes(line: str, loc: Loc, context: Context, out: Expanded) -> str:
    if "{{<" not in line:
        return line
    line = ESCAPED.sub(lambda m: ESCAPE_MARK + m.group(1) + ESCAPE_MARK, line)

    def sub(m: re.Match[str]) -> str:
        name, args = m.group(1), m.group(2)
        handler = SHORTCODES.get(name)
        if handler is None:
            out.diagnostics.append(
                Diagnostic(
                    loc,
                    "shortcode",
                    f"unknown shortcode `{name}`: left as text (known: {', '.join(SHORTCODES)})",
                    "warning",
                )
            )
            return m.group(0)
        try:
            positional, named = parse_args(args)
            return handler(Call(name, positional, named, context, in_path=_in_path(line, m)))
        except ShortcodeError as e:
            out.diagnostics.append(Diagnostic(loc, "shortcode", f"`{name}`: {e}"))
            return m.group(0)

    line = SHORTCODE.sub(sub, line)
    return re.sub(ESCAPE_MARK + "(.*?)" + ESCAPE_MARK, r"{{<\1>}}", line)


def _in_path(line: str, m: re.Match[str]) -> bool:
    """Whether the shortcode stands inside a link/image target `(…)` or an attribute value."""
    before = line[: m.start()]
    return before.rstrip().endswith(("](", '="', "='", "=")) or bool(
        re.search(r"\]\([^)\s]*$", before)
    )
