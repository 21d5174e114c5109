"""The render cache's key covers every engine file rendering runs: no list kept by hand can
miss a module that rendering imports."""

from __future__ import annotations

from deck.render.store import render_code
from engine_graph import ENGINE, closure, graph, modules


def test_the_render_key_covers_every_module_rendering_imports() -> None:
    known = modules()
    covered = {path.resolve() for path in render_code()}
    rendering = closure("deck.render.deck", graph())
    missing = sorted(name for name in rendering if known[name].resolve() not in covered)
    assert missing == [], f"rendering imports {missing}, which the render key does not hash"


def test_the_render_key_covers_the_templates() -> None:
    covered = {path.resolve() for path in render_code()}
    assert {p.resolve() for p in (ENGINE / "templates").glob("*.j2")} <= covered


def test_the_render_key_covers_the_words_the_engine_puts_on_slides() -> None:
    # callout titles, cross-reference names, the contents title: a change re-renders
    assert ENGINE / "static" / "strings.json" in render_code()
