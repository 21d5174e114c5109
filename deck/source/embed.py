"""Quarto's `{{< embed nb.ipynb#cell-id >}}`: a notebook's stored cells as Markdown lines.

As Quarto does (https://quarto.org/docs/authoring/notebook-embed.html), the notebook is not
run: its saved outputs are shown. A cell is named by its id, its `#| label:` or a tag (several
with commas: `#a,b`), or by position (`nb.ipynb[2-3]`, 1-based); no name embeds every cell,
Markdown cells too (so their headings start slides). `echo=true` shows a code cell's code
above its outputs. Outputs, richest first: an image (inline, as a data URI), Markdown, LaTeX,
HTML (the author's notebook, as Quarto shows it), plain text. A missing notebook, a cell not
found, or a named cell with nothing to show is an error at the shortcode's line.
"""

from __future__ import annotations

import base64
import os
import re
from pathlib import Path
from typing import Any

from deck.source.contain import outside
from deck.source.shortcodes import ShortcodeError, parse_args

EMBED_LINE = re.compile(r"^\s*\{\{<\s*embed\s+(.+?)\s*>\}\}\s*$")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
OPTION_LINE = re.compile(r"^\s*#\|")
LABEL = re.compile(r"^\s*#\|\s*label:\s*(\S+)\s*$", re.M)
OUTPUT = '{{.cell-output-{} code-line-numbers="false"}}'  # (an output's lines are not numbered)
IMAGES = ("image/svg+xml", "image/png", "image/jpeg", "image/gif")


def address(spec: str) -> tuple[str, list[str] | None, list[int] | None, dict[str, str]]:
    """`nb.ipynb#a,b echo=true` → (path, ids, 1-based positions, named arguments)."""
    words, named = parse_args(spec)
    if len(words) != 1:
        raise ShortcodeError("needs a notebook, as `{{< embed nb.ipynb#cell-id >}}`")
    target = words[0]
    ids = positions = None
    if "#" in target:
        target, _, names = target.partition("#")
        ids = [n.strip() for n in names.split(",") if n.strip()]
        if not ids:
            raise ShortcodeError(f"`{words[0]}` names no cell after `#`")
    elif (m := re.fullmatch(r"(.+?)\[([0-9,\s-]+)\]", target)) is not None:
        target, positions = m.group(1), _positions(m.group(2))
    if not target.lower().endswith(".ipynb"):
        raise ShortcodeError(f"`{target}` is not a Jupyter notebook (.ipynb)")
    return target, ids, positions, named


def _positions(text: str) -> list[int]:
    found: list[int] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        start, _, end = part.partition("-")
        a, b = int(start), int(end or start)
        found += list(range(a, b + 1) if a <= b else range(a, b - 1, -1))
    return found


def read_notebook(path: Path) -> Any:
    import nbformat

    try:
        return nbformat.read(str(path), as_version=4)
    except Exception as e:  # noqa: BLE001 - nbformat raises JSON, validation and I/O errors
        raise ShortcodeError(f"cannot read `{path.name}` as a notebook: {e}") from None


def _label(cell: Any) -> str | None:
    found = LABEL.search(cell.get("source", ""))
    if found:
        return found.group(1).strip("\"'")
    return (cell.get("metadata") or {}).get("label")


def find_cells(nb: Any, ids: list[str] | None, positions: list[int] | None, name: str) -> list:
    """The cells an address names, in its order (Quarto's: an id, then a label, then a tag)."""
    cells = [c for c in nb.cells if c.get("cell_type") in ("code", "markdown")]
    if positions is not None:
        out = []
        for k in positions:
            if not 1 <= k <= len(cells):
                raise ShortcodeError(f"`{name}` has no cell {k} (it has {len(cells)})")
            out.append(cells[k - 1])
        return out
    if ids is None:
        return cells
    out = []
    for wanted in ids:
        found = (
            next((c for c in cells if c.get("id") == wanted), None)
            or next((c for c in cells if _label(c) == wanted), None)
            or next((c for c in cells if wanted in (c.get("metadata") or {}).get("tags", [])), None)
        )
        if found is None:
            raise ShortcodeError(f"`{name}` has no cell with the id, label or tag `{wanted}`")
        out.append(found)
    return out


def _fence(text: str, info: str = "") -> list[str]:
    ticks = "`" * max(3, max((len(m) for m in re.findall(r"`{3,}", text)), default=0) + 1)
    return [ticks + info, *text.rstrip("\n").split("\n"), ticks]


def _output(output: Any) -> list[str]:
    kind = output.get("output_type")
    if kind == "stream":
        kind = "stderr" if output.get("name") == "stderr" else "stdout"
        return _fence(ANSI.sub("", output.get("text", "")), OUTPUT.format(kind))
    if kind == "error":
        trace = "\n".join(output.get("traceback") or [f"{output.get('ename')}: "])
        return _fence(ANSI.sub("", trace), OUTPUT.format("error"))
    data = output.get("data") or {}
    for mime in IMAGES:
        if mime in data:
            value = data[mime]
            if mime == "image/svg+xml":
                raw = "".join(value) if isinstance(value, list) else value
                value = base64.b64encode(raw.encode()).decode()
            value = re.sub(r"\s+", "", value if isinstance(value, str) else "".join(value))
            return [f'<img src="data:{mime};base64,{value}" alt="">']
    if "text/markdown" in data:
        return data["text/markdown"].rstrip("\n").split("\n")
    if "text/latex" in data:
        return data["text/latex"].strip().split("\n")
    if "text/html" in data:
        return ['<div class="cell-output-display">', *data["text/html"].split("\n"), "</div>"]
    if "text/plain" in data:
        return _fence(ANSI.sub("", data["text/plain"]), OUTPUT.format("display"))
    return []


def cell_lines(cell: Any, echo: bool, language: str) -> list[str]:
    """A notebook cell as Markdown lines: a Markdown cell's own text; a code cell's outputs
    (with `echo`, its code first, without its `#|` options)."""
    source = cell.get("source", "")
    if cell.get("cell_type") == "markdown":
        return [*source.split("\n"), ""]
    out: list[str] = []
    if echo:
        code = "\n".join(line for line in source.split("\n") if not OPTION_LINE.match(line))
        if code.strip():
            out += [*_fence(code.strip("\n"), language), ""]
    for output in cell.get("outputs") or []:
        shown = _output(output)
        if shown:
            out += [*shown, ""]
    return out


def embed_lines(spec: str, folder: Path, root: Path) -> tuple[list[str], Path]:
    """The Markdown an embed shortcode stands for, and the notebook it read."""
    name, ids, positions, named = address(spec)
    target = folder / name
    if outside(root, os.path.relpath(target, root)):
        raise ShortcodeError(f"`{name}` lies outside the project folder")
    if not target.is_file():
        raise ShortcodeError(f"`{name}`: no such notebook")
    nb = read_notebook(target)
    echo = str(named.get("echo", "false")).lower() == "true"
    language = ((nb.metadata.get("kernelspec") or {}).get("language") or "python").lower()
    lines: list[str] = [""]
    for cell in find_cells(nb, ids, positions, name):
        shown = cell_lines(cell, echo, language)
        if ids is not None and not any(line.strip() for line in shown):
            which = cell.get("id") or _label(cell) or "?"
            raise ShortcodeError(
                f"cell `{which}` of `{name}` has no output to embed (was the notebook run "
                "and saved?)"
            )
        lines += shown
    return lines, target.resolve()
