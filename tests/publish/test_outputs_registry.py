"""The outputs come from one registry (`deck.model.outputs`): the exporters the write stage
runs, the names `--to` and lesson.yml's `outputs:` take, the defaults, `--help` and the
README's `--to` line are each read from it, and the single file is an output like the others
(`--to html,single`, `outputs: [html, single]`, or `--single-file`)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from catalogue import write_lesson
from deck.cli import parser
from deck.model.outputs import DEFAULT_OUTPUTS, KNOWN_OUTPUTS, LESSON_OUTPUTS, OUTPUTS
from deck.publish.write import EXPORTERS
from fixture_build import run_cli

ROOT = Path(__file__).resolve().parents[2]


def test_the_write_stage_runs_each_registered_exporter_in_the_registry_order() -> None:
    expected = []
    for entry in OUTPUTS:
        if entry.exporter is None:
            continue
        module, name = entry.exporter.split(":")
        expected.append(getattr(importlib.import_module(module), name))
    assert [type(e) for e in EXPORTERS] == expected
    assert [o.name for o in OUTPUTS if o.exporter is None] == ["course"]  # (after the lessons)


def test_each_exporter_writes_the_places_the_registry_gives_it(tmp_path: Path) -> None:
    from deck.options import Options
    from deck.publish.places import PLACES, output_places

    options = Options(out=tmp_path / "out", figures=tmp_path / "fig")
    entries = [o for o in OUTPUTS if o.exporter]
    for entry, exporter in zip(entries, EXPORTERS, strict=True):
        own = {p: PLACES[p]("talk", options) for p in entry.places}
        assert exporter.places("talk", options) == own, entry.name
    assert output_places("talk", options) == {
        "deck": tmp_path / "out" / "talk",
        "figures": tmp_path / "fig" / "talk",
        "single": tmp_path / "out" / "talk.html",
    }


def test_names_defaults_and_help_come_from_the_registry() -> None:
    assert KNOWN_OUTPUTS == ("html", "pdf", "single", "ipynb", "pptx", "course")
    assert DEFAULT_OUTPUTS == ("html", "pdf", "ipynb", "course")
    assert "course" not in LESSON_OUTPUTS and "single" in LESSON_OUTPUTS
    shown = parser().format_help()
    for entry in OUTPUTS:
        listed = re.search(rf"^  {entry.name} +(.+)$", shown, re.M)
        assert (listed is not None) == entry.asked, entry.name
        if listed:
            assert listed.group(1).split()[0] == entry.makes.split()[0]
    assert "else html,pdf,ipynb,course" in " ".join(shown.split())


def test_the_readme_names_every_output_the_registry_has() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    usage = re.search(r"\[--to ([a-z,]+)\]", readme)
    assert usage is not None
    assert tuple(usage.group(1).split(",")) == KNOWN_OUTPUTS


def test_an_unknown_name_is_bad_usage_naming_the_registry(tmp_path: Path) -> None:
    write_lesson(tmp_path, {"01-a.md": "## A\n\nText.\n"})
    ran = run_cli(tmp_path, "cat", "--to", "html,slides")
    assert ran.returncode == 2
    assert f"unknown output 'slides' (known: {', '.join(KNOWN_OUTPUTS)})" in ran.stderr


@pytest.mark.slow
def test_the_single_file_is_an_output_like_the_others(tmp_path: Path) -> None:
    write_lesson(tmp_path, {"01-a.md": "## A\n\nText.\n"})
    single = tmp_path / "dist" / "cat.html"
    ran = run_cli(tmp_path, "cat", "--to", "html,single")
    assert ran.returncode == 0, ran.stderr
    assert single.is_file() and "Text." in single.read_text("utf-8")
    ran = run_cli(tmp_path, "cat", "--to", "html")
    assert ran.returncode == 0, ran.stderr
    assert not single.exists() and "--to …,single" in ran.stderr  # (why it went)
    lesson_yml = tmp_path / "content" / "cat" / "lesson.yml"
    lesson_yml.write_text(lesson_yml.read_text("utf-8") + "outputs: [html, single]\n", "utf-8")
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert single.is_file()
