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


# The layers, lowest first: a package (or a module at deck/'s root) imports only from layers
# below its own (README, Architecture). Block kinds sit below the source stage: the scanner
# and the renderer ask their registry, and each kind module holds a kind's parse, render,
# resolution and per-output handlers over the protocols in `deck.blocks.base`/`context`.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "theme", "strings", "progress", "host", "interpreter", "widgetdata", "localsocket")
    + ("jobs",)  # (a cell's calls side by side: the standard library only, shipped to notebooks)
    + ("warm",),  # (what builds keep between them: the standard library only)
    ("buildclient",),  # the build's side of the warm build service: what build.py imports first
    ("model",),
    ("options", "store"),
    ("show", "blocks"),
    ("source",),
    ("execute",),
    ("render",),
    ("publish",),
    ("pipeline", "preview", "docsite"),
    ("classroom",),  # the preview served to a room: its server is the preview's
    ("cli",),
    ("buildd",),  # the warm build service: runs the CLI in a fork of itself
    ("reference",),  # the docs site's reference pages, read from every layer
)


def package_of(module: str) -> str:
    return module.split(".")[1] if "." in module else module


def package_edges() -> dict[str, dict[str, list[str]]]:
    """package → package it imports → the module imports that make the edge."""
    found: dict[str, dict[str, list[str]]] = {}
    for name, targets in graph().items():
        for target in targets:
            a, b = package_of(name), package_of(target)
            if a != b and b != "deck":
                found.setdefault(a, {}).setdefault(b, []).append(f"{name} → {target}")
    return found


def layer_faults(edges: dict[str, dict[str, list[str]]]) -> list[str]:
    rank = {name: k for k, layer in enumerate(LAYERS) for name in layer}
    faults = []
    for a, targets in sorted(edges.items()):
        for b, why in sorted(targets.items()):
            if a not in rank or b not in rank:
                faults.append(f"{a} → {b}: a package no layer names")
            elif rank[b] >= rank[a]:
                faults.append(f"{a} → {b} ({why[0]}): not a lower layer")
    return faults


def test_packages_import_only_lower_layers_so_no_package_cycle() -> None:
    edges = package_edges()
    assert {"blocks", "render", "publish"} <= set(edges)  # the packages were found
    assert layer_faults(edges) == []
    assert find_cycle({a: set(b) for a, b in edges.items()}) is None


def test_the_layer_check_sees_an_upward_import() -> None:
    edges = {"blocks": {"render": ["deck.blocks.quiz → deck.render.provenance"]}}
    assert layer_faults(edges) == [
        "blocks → render (deck.blocks.quiz → deck.render.provenance): not a lower layer"
    ]
    assert layer_faults({"nowhere": {"model": ["x → y"]}}) == [
        "nowhere → model: a package no layer names"
    ]
