"""The engine's shape: no import cycle among deck's modules, no engine file past about 400
lines, and each module says in its first line what it is."""

from __future__ import annotations

import ast

import pytest

from engine_graph import ENGINE, find_cycle, graph, modules

MAX_LINES = 400


def test_no_import_cycle_in_the_engine() -> None:
    edges = graph()
    assert {"deck.pipeline", "deck.render.deck"} <= set(edges)  # the engine was found
    assert find_cycle(edges) is None, " → ".join(find_cycle(edges) or [])


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
