"""Hints for a `NameError`: the near name the author probably meant, and, since each section
runs in its own namespace, the other section that binds the name (`import numpy as np` in
section 1 is not seen by section 2)."""

from __future__ import annotations

import ast
import builtins
import dataclasses
import difflib
import re

from deck.errors import Diagnostic
from deck.model import Cell, Lesson, Section

UNDEFINED = re.compile(r"NameError: name '(\w+)' is not defined")


def near_name(name: str, names: list[str]) -> str | None:
    """The defined name closest to a misspelled one, if one is close."""
    found = difflib.get_close_matches(name, [*names, *dir(builtins)], n=1, cutoff=0.75)
    return found[0] if found and found[0] != name else None


def bound_names(code: str) -> set[str]:
    """The names a cell binds at its top level (imports, assignments, defs, classes)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                found |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
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
            if name in bound_names(cell.code):
                hint = (
                    f"; `{name}` is bound in {cell.loc}, but each section runs in its own "
                    f"namespace: import or define it in this section too"
                )
                return dataclasses.replace(problem, message=problem.message + hint)
    return problem
