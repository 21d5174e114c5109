"""Hints for a `NameError`: the near name the author probably meant, and, since each section
runs in its own namespace, the other section that binds the name (`import numpy as np` in
section 1 is not seen by section 2)."""

from __future__ import annotations

import ast
import builtins
import dataclasses
import difflib
import re

from deck.errors import Diagnostic, Loc
from deck.model import Cell, Lesson, Section

UNDEFINED = re.compile(r"NameError: name '(\w+)' is not defined")


def near_name(name: str, names: list[str]) -> str | None:
    """The defined name closest to a misspelled one, if one is close."""
    found = difflib.get_close_matches(name, [*names, *dir(builtins)], n=1, cutoff=0.75)
    return found[0] if found and found[0] != name else None


def binding_lines(code: str) -> dict[str, int]:
    """Each name a cell binds at its top level (imports, assignments, defs, classes) with the
    line of the code (1-based) of its first statement binding it."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return {}
    found: dict[str, int] = {}
    for node in tree.body:
        names: set[str] = set()
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = {node.name}
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        for name in names:
            found.setdefault(name, node.lineno)
    return found


def other_section_hint(
    lesson: Lesson, problem: Diagnostic, own: Section | None = None
) -> Diagnostic:
    """The problem (of the section `own`, else of the section at its path), with where
    another section binds the undefined name (if one does)."""
    m = UNDEFINED.search(problem.message)
    if not m or len(lesson.sections) < 2:
        return problem
    name = m.group(1)
    for section in lesson.sections:
        if section.name == own.name if own else section.rel == problem.loc.path:
            continue
        cell: Cell
        for cell in section.cells():
            line = binding_lines(cell.code).get(name)
            if line is not None:
                where = Loc(cell.loc.path, cell.code_line + line - 1)  # the binding line
                hint = (
                    f"; `{name}` is bound in {where}, but each section runs in its own "
                    f"namespace: import or define it in this section too"
                )
                return dataclasses.replace(problem, message=problem.message + hint)
    return problem
