"""The engine's shape: no import cycle among deck's modules, no engine file past about 400
lines, and each module says in its first line what it is."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "deck"
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = path.relative_to(ENGINE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """Every deck module `path` imports: at the top, inside functions and under TYPE_CHECKING
    alike (a cycle hidden in a function is still a cycle)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] == "deck" and name in known:
                found.add(name)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycle_in_the_engine() -> None:
    known = modules()
    graph = {name: imports(path, known) - {name} for name, path in known.items()}
    assert find_cycle(graph) is None, " → ".join(find_cycle(graph) or [])


def test_the_cycle_finder_sees_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.parametrize("name", sorted(modules()))
def test_each_engine_module_is_small_and_says_what_it_is(name: str) -> None:
    path = modules()[name]
    text = path.read_text("utf-8")
    assert text.count("\n") <= MAX_LINES, f"{path}: {text.count(chr(10))} lines"
    doc = ast.get_docstring(ast.parse(text))
    assert doc and doc.strip(), f"{path}: no docstring saying what the module is"


def test_each_static_script_is_small() -> None:
    for path in sorted((ENGINE / "static").rglob("*.js")):
        lines = path.read_text("utf-8").count("\n")
        assert lines <= MAX_LINES, f"{path}: {lines} lines"
