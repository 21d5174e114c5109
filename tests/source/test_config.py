"""lesson.yml is checked against a schema: wrong values are errors at their line, unknown keys
warnings naming the nearest known key."""

from __future__ import annotations

import pytest

from deck.model import ExecConfig
from deck.source.config import parse_config


def problems(text: str) -> list[str]:
    return [str(d) for d in parse_config(text, "lesson.yml")[2]]


def test_a_valid_file_gives_typed_values():
    config, meta, found = parse_config(
        "title: T\nlang: en\nexec:\n  seed: 3\n  timeout: 20\n  memory: 2G\n  output: 5000\n",
        "lesson.yml",
    )
    assert found == []
    assert config.title == "T" and config.lang == "en"
    assert config.exec == ExecConfig(seed=3, timeout=20.0, memory_mb=2048, output_limit=5000)
    assert meta["exec"]["seed"] == 3


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("title: T\nexec:\n  seed: abc\n", "lesson.yml:3: error [config] `exec.seed: abc` must be"),
        ("exec:\n  timeout: soon\n", "lesson.yml:2: error [config] `exec.timeout: soon` must be"),
        ("exec:\n  timeout: 0\n", "lesson.yml:2: error [config] `exec.timeout: 0` must be more"),
        ("exec:\n  timeout: -5\n", "lesson.yml:2: error [config] `exec.timeout: -5` must be more"),
        ("title: T\nexec:\n  - 1\n", "lesson.yml:3: error [config] `exec` must be a mapping"),
        ("title: [1, 2]\n", "lesson.yml:1: error [config] `title: …` must be text"),
        ("lang: true\n", "lesson.yml:1: error [config] `lang: true` must be text"),
        ("exec:\n  memory: lots\n", "lesson.yml:2: error [config] `exec.memory: lots` must be"),
        ("date: 2020-13-01\n", "lesson.yml:1: error [config] `date: 2020-13-01`"),
        ("- a\n- b\n", "lesson.yml:1: error [config] the file must be a mapping"),
        ("title: [unclosed\n", "lesson.yml:1: error [config] not valid YAML"),
    ],
)
def test_bad_values_are_errors_at_their_line(text: str, expected: str):
    found = problems(text)
    assert len(found) == 1 and found[0].startswith(expected), found


def test_unknown_keys_are_warnings_with_the_nearest_known_key():
    found = problems("titel: T\nexec:\n  sed: 1\n")
    assert found == [
        "lesson.yml:1: warning [config] unknown key `titel` is ignored (did you mean `title`?)",
        "lesson.yml:3: warning [config] unknown key `exec.sed` is ignored (did you mean `seed`?)",
    ]


def test_a_date_reads_as_text():
    config, _, found = parse_config("date: 2026-11-29\n", "lesson.yml")
    assert found == [] and config.date == "2026-11-29"


def test_defaults_cap_memory_at_half_the_machine():
    config = parse_config("", "lesson.yml")[0]
    assert config.exec.timeout == 300.0 and config.exec.seed == 0
    assert 512 <= config.exec.memory_mb
