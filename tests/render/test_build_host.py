"""`values.json` records the build host (CPU model, cores, Python, library versions) under
`"build_host"`, the same on every render on one machine."""

from __future__ import annotations

import json
from pathlib import Path

from test_render import stand_in_results

from catalogue import write_lesson
from deck.render.deck import render_lesson
from deck.render.host import build_host
from deck.source.folder import load_lesson


def test_values_record_the_build_host(tmp_path: Path):
    lesson = load_lesson(write_lesson(tmp_path, {"01-a.md": "## A\n\ntext\n"}))
    first = render_lesson(lesson, stand_in_results(lesson)).values
    second = render_lesson(lesson, stand_in_results(lesson)).values
    host = first["build_host"]
    assert host == build_host()
    assert set(host) == {"cpu", "cores", "cores_usable", "python", "libraries"}
    assert set(host["libraries"]) == {"numpy", "torch", "matplotlib"}
    assert isinstance(host["cores"], int) and 1 <= host["cores_usable"] <= host["cores"]
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
