"""Where a computed value comes from: the cells binding the names its expression uses.

Quizzes name the line computing their answer (`render.answer_source`); every inline value on
a slide becomes a `<span class="value">` that carries its expression, its `file:line` and the
cells that produced it, which `deck/static/provenance.js` shows in a popover. Values stay plain
text where markup cannot go: inside formulas, alt text, attributes, links and buttons.
"""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from deck.blocks.widgetembed import script_json
from deck.model import Cell, Loc, Section

VALUE = re.compile("\u2063V(\\d+)\u2063")  # an inline value's placeholder (model.placeholder)
TAG = re.compile(r"<!--.*?-->|<(/?)([A-Za-z][\w-]*)[^>]*>", re.S)
# Inside these a value may not become an interactive element of its own.
NO_WRAP = {"a", "button", "label", "summary", "select", "option", "textarea", "script", "style"}
# A value that starts a link or source attribute is a URL: one that would run script when
# followed (`javascript:`, `vbscript:`) is made relative (`./javascript:…`), a file's name.
URL_START = re.compile(
    r"(?i)\b(?:href|src|xlink:href|action|formaction|poster|cite|background)\s*=\s*[\"']?$"
)
# A value that reads as one number (or a range, or a short number with a unit): kept on one
# line (`data-unbroken`, deck.css), as a break at its minus, dash or comma would misread it.
UNBROKEN = re.compile(r"(?=.*\d)(?:\S{1,40}|.{1,16})", re.S)
SCRIPT_URL = re.compile(r"(?i)^(?:javascript|vbscript):")
URL_IGNORED = re.compile(r"[\x00-\x20]")  # what a browser skips in a URL's scheme


@dataclass(frozen=True)
class Binding:
    """A statement of a cell binding `name`: its .md lines, and whether it is an import."""

    name: str
    first: int
    last: int
    is_import: bool


@dataclass(frozen=True)
class Producer:
    """A cell that binds names an expression uses, with the statements that bind them."""

    cell: Cell
    bindings: tuple[Binding, ...]

    @property
    def line(self) -> int:
        """The .md line of the last binding statement (a quiz's answer source)."""
        return max(b.first for b in self.bindings)

    @property
    def imports_only(self) -> bool:
        return all(b.is_import for b in self.bindings)


def used_names(exprs: Iterable[str]) -> set[str]:
    """Names the expressions read from the namespace (not those a comprehension binds)."""
    names: set[str] = set()
    for expr in exprs:
        try:
            tree = ast.parse(expr.strip(), mode="eval")
        except SyntaxError:
            continue
        local = {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        local |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda) for a in n.args.args}
        names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - local
    return names


class Bindings:
    """Every binding statement of a section's cells, parsed once."""

    def __init__(self, section: Section):
        self.cells: list[tuple[Cell, list[Binding]]] = []
        for cell in section.cells():
            module = setup_module(section, cell)
            if module is None:
                self.cells.append((cell, _cell_bindings(cell)))
            else:  # what `from <setup> import *` binds: the module's public names, at its lines
                public = [b for b in _cell_bindings(module) if not b.name.startswith("_")]
                self.cells.append((module, public))

    def producers(self, exprs: Iterable[str], before: int | None = None) -> list[Producer]:
        """For each name the expressions use, the last cell (before line `before`, if given)
        binding it; those cells in order, each with its statements binding a used name."""
        names = used_names(exprs)
        last: dict[str, int] = {}  # name → index of the last cell binding it
        for k, (cell, bindings) in enumerate(self.cells):
            if before is not None and cell.loc.line > before:
                break
            for binding in bindings:
                if binding.name in names:
                    last[binding.name] = k
        found = []
        for k in sorted(set(last.values())):
            cell, bindings = self.cells[k]
            mine = tuple(b for b in bindings if last.get(b.name) == k)
            found.append(Producer(cell, mine))
        return found


def setup_module(section: Section, cell: Cell) -> Cell | None:
    """The lesson's setup module as a cell at its own lines, for the replay cell importing it
    at the section's start (`setup:` in lesson.yml); None for any other cell."""
    module = section.settings.setup
    if not (cell.replay and module and cell.code == f"from {module} import *"):
        return None
    path = section.path.parent / f"{module}.py"
    try:
        code = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    rel = section.rel.rpartition("/")[0]
    return Cell(code, {}, Loc(f"{rel}/{module}.py" if rel else f"{module}.py", 1), 1, replay=True)


def shown_producers(producers: list[Producer]) -> list[Producer]:
    """What a reader is shown: the cells computing, not the imports of the functions they
    call (unless imports are all there is)."""
    computing = [p for p in producers if not p.imports_only]
    return computing or producers


def _cell_bindings(cell: Cell) -> list[Binding]:
    try:
        tree = ast.parse(cell.code)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        names = _binds(node)
        if not names:
            continue
        start = cell.code_line + node.lineno - 1  # type: ignore[attr-defined]
        end = cell.code_line + (node.end_lineno or node.lineno) - 1  # type: ignore[attr-defined]
        is_import = isinstance(node, ast.Import | ast.ImportFrom)
        out += [Binding(name, start, end, is_import) for name in sorted(names)]
    return out


def _binds(node: ast.AST) -> set[str]:
    """The names a statement binds (assignment targets, loop variables, defs, imports)."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For):
        targets = [node.target]
    elif isinstance(node, ast.FunctionDef | ast.ClassDef):
        return {node.name}
    elif isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    else:
        return set()
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


# ---- markup ---------------------------------------------------------------------------------


def substitute_values(
    markup: str, text_of: Callable[[int], str], span_of: Callable[[int], str]
) -> str:
    """Replace value placeholders in rendered HTML: by `span_of(index)` in text, by the plain
    (escaped) `text_of(index)` inside tags and inside elements that may not hold controls."""

    def plain(m: re.Match[str]) -> str:
        return html.escape(text_of(int(m.group(1))))

    def in_tag(m: re.Match[str]) -> str:
        text = text_of(int(m.group(1)))
        starts_url = URL_START.search(m.string, 0, m.start())
        if starts_url and SCRIPT_URL.match(URL_IGNORED.sub("", text)):
            text = "./" + text
        return html.escape(text)

    def wrapped(m: re.Match[str]) -> str:
        return span_of(int(m.group(1)))

    out, pos = [], 0
    depth: dict[str, int] = {}
    for m in TAG.finditer(markup):
        text = markup[pos : m.start()]
        out.append(VALUE.sub(plain if any(depth.values()) else wrapped, text))
        out.append(VALUE.sub(in_tag, m.group(0)))
        name = (m.group(2) or "").lower()
        if name in NO_WRAP and not m.group(0).endswith("/>"):
            depth[name] = max(0, depth.get(name, 0) + (-1 if m.group(1) else 1))
        pos = m.end()
    out.append(VALUE.sub(plain if any(depth.values()) else wrapped, markup[pos:]))
    return "".join(out)


def value_span(expr: str, loc: str, text: str, producers: list[Producer]) -> str:
    """A value a reader can ask about (Enter or a click opens the popover): `data-cells` names
    the producing cells (their code is in the slide's `sources_script`), `data-marks` the .md
    line ranges of the statements binding the names the expression uses (each `file:` first
    when they are in more than one file)."""
    cells = " ".join(str(p.cell.loc) for p in producers)
    several = len({p.cell.loc.path for p in producers}) > 1  # (the setup module and a section)
    marks = " ".join(
        dict.fromkeys(
            f"{p.cell.loc.path}:{b.first}-{b.last}" if several else f"{b.first}-{b.last}"
            for p in producers
            for b in p.bindings
        )
    )
    unbroken = " data-unbroken" if UNBROKEN.fullmatch(text) else ""
    return (
        f'<span class="value"{unbroken} tabindex="0" role="button" aria-haspopup="dialog" '
        f'aria-expanded="false" data-expr="{html.escape(expr)}" data-loc="{html.escape(loc)}" '
        f'data-cells="{html.escape(cells)}" data-marks="{marks}">{html.escape(text)}</span>'
    )


def sources_script(producers: Iterable[Producer]) -> str:
    """The code of the cells a slide's values come from, once per slide, for the popover:
    {cell file:line: {"first": .md line of its first code line, "code": its code}}."""
    cells = {str(p.cell.loc): {"first": p.cell.code_line, "code": p.cell.code} for p in producers}
    if not cells:
        return ""
    return f'\n<script type="application/json" class="value-sources">{script_json(cells)}</script>'
