"""fontconfig asked in-process (deck.render.fontconfig) answers what the `fc-match` program
answers, for the deck's own faces, a theme's, a family this machine lacks and a pattern
fontconfig cannot parse."""

from __future__ import annotations

import subprocess

import pytest

from deck.publish.fonts import FACES
from deck.render import themefonts
from deck.render.fontconfig import match

PATTERNS = [
    *(face.pattern for face in FACES),
    "Lato",
    "DejaVu Serif:italic",
    "No Such Family Anywhere",
    "Noto Sans CJK SC:weight=200",
]


def fc_match(pattern: str) -> tuple[str, int, tuple[str, ...]]:
    out = subprocess.run(
        ["fc-match", "-f", "%{file}\n%{index}\n%{family}\n", pattern],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return out[0], int(out[1]), tuple(f.strip() for f in out[2].split(","))


def test_in_process_matches_are_fc_matchs():
    found = match(PATTERNS)
    assert found is not None, "libfontconfig not loaded"
    for pattern, ours in zip(PATTERNS, found, strict=True):
        assert ours is not None, pattern
        assert (ours.file, ours.index, ours.families) == fc_match(pattern), pattern


def test_installed_family_and_a_stand_in():
    assert themefonts.installed("Noto Sans CJK SC")
    assert themefonts.installed("dejavu sans")  # (as fontconfig compares: case aside)
    assert not themefonts.installed("No Such Family Anywhere")  # answered by a stand-in


def test_without_the_library_each_pattern_asks_fc_match(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("deck.render.fontconfig.match", lambda patterns: None)
    answers = themefonts.matches(PATTERNS[:3])
    assert [(m.file, m.index, m.families) for m in answers if m] == [
        fc_match(p) for p in PATTERNS[:3]
    ]
