"""The layout check after the build (deck/publish/layoutlate.py): at a terminal, a prose edit's
build returns once its files are written, and the changed slide's overflow is said a moment
later, at the line a check within the build names; the answer is kept, so that the next build
repeats it without measuring, and a no-change build is "up to date" only once it is there. A
check that could not run leaves the deck unchecked: the next build checks again."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_layout_check import lesson, overflows
from test_layoutd import MORE, at, stop_services  # noqa: F401 (a fixture)

from deck.publish import layoutlate
from deck.publish.layoutrecord import unchecked
from fixture_build import run_build

pytestmark = pytest.mark.browser
LATER = "after the build (warnings follow)"


@pytest.fixture(autouse=True)
def late(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DECK_LAYOUT_CHECK", "1")
    monkeypatch.setenv("DECK_LAYOUTD", "1")
    monkeypatch.setenv("DECK_LAYOUT_LATE", "1")


def record(root: Path) -> dict:
    return json.loads((root / "dist" / "long" / ".layout-check.json").read_text("utf-8"))


@pytest.mark.slow
def test_a_prose_edit_is_measured_after_the_build_and_said_at_its_line(
    tmp_path,
    monkeypatch,
    stop_services,  # noqa: F811
):
    root = tmp_path / "late"
    folder = lesson(root)
    stop_services.append(root)
    first = run_build(root, "long", "--no-pdf")  # (every slide new: checked within the build)
    assert "checked the layout of 3 slides" in first.stderr, first.stderr
    assert at(overflows(first.stderr)) == ["content/long/01-a.md:5", "content/long/01-a.md:48"]
    (folder / "01-a.md").write_text(MORE, "utf-8")
    edit = run_build(root, "long", "--no-pdf")  # (its stderr is the check's too: it waits)
    assert edit.returncode == 0, edit.stderr
    said = edit.stderr.splitlines()
    after = said.index(
        "  checking the layout of the changed slide after the build (warnings follow)"
    )
    built = next(k for k, line in enumerate(said) if "slides built in" in line)
    assert after < built
    late_lines = [line for line in said[built:] if "[overflow]" in line]
    assert at(late_lines) == ["content/long/01-a.md:5"]  # the changed slide, said after the build
    assert at(overflows(edit.stderr)) == ["content/long/01-a.md:49", "content/long/01-a.md:5"]
    # the same warnings as a check within the build
    monkeypatch.setenv("DECK_LAYOUT_LATE", "0")
    fresh = tmp_path / "fresh"
    lesson(fresh, MORE)
    whole = run_build(fresh, "long", "--no-pdf")
    assert sorted(overflows(whole.stderr)) == sorted(overflows(edit.stderr))
    monkeypatch.setenv("DECK_LAYOUT_LATE", "1")
    # kept: a no-change build is up to date, and the next edit repeats it without measuring
    same = run_build(root, "long", "--no-pdf")
    assert "up to date" in same.stderr, same.stderr
    assert sorted(overflows(same.stderr)) == sorted(overflows(edit.stderr))  # (repeated)
    (folder / "01-a.md").write_text(MORE.replace("短。", "短。短。"), "utf-8")  # (no new glyph)
    again = run_build(root, "long", "--no-pdf")
    assert f"checking the layout of the changed slide {LATER}" in again.stderr
    assert sorted(at(overflows(again.stderr))) == [
        "content/long/01-a.md:49",
        "content/long/01-a.md:5",
    ]
    assert record(root)["late"]["keys"] and layoutlate.wanted() is not None


def test_a_check_that_could_not_run_says_so_and_leaves_the_deck_unchecked(
    tmp_path, monkeypatch, capsys
):
    import deck.publish.pdf

    def refuse(*args: object, **kwargs: object) -> None:
        raise RuntimeError("no browser here")

    monkeypatch.setenv("DECK_LAYOUTD", "0")  # (its own browser, which cannot start)
    monkeypatch.setattr(deck.publish.pdf, "launch", refuse)
    index = tmp_path / "dist" / "long" / "index.html"
    index.parent.mkdir(parents=True)
    index.write_text("<html></html>")
    late = tmp_path / "cache" / "layout-late" / "long.json"
    from deck.publish.exporter import file_digest

    job = {
        "index": str(index), "digest": file_digest(index), "count": 3, "size": None,
        "numbers": [2], "keys": ["k2"], "sources": {"2": "content/long/01-a.md:5"},
        "cache": str(tmp_path / "cache"), "late": str(late), "lesson": "content/long",
    }  # fmt: skip
    assert layoutlate.check(job) == 1
    assert "the changed slides' layout was not checked: RuntimeError: no browser here" in (
        capsys.readouterr().err
    )
    assert not late.exists()
    record = {
        "checked": True,
        "warnings": [],
        "slides": {},
        "late": {"keys": ["k2"], "file": str(late)},
    }
    (index.parent / ".layout-check.json").write_text(json.dumps(record))
    assert unchecked(index.parent)  # the next no-change build checks again
    late.parent.mkdir(parents=True)
    late.write_text(json.dumps({"answers": {"k2": []}}))
    assert not unchecked(index.parent)  # once every answer is there, it is checked
    # a page that is not the one the build published (a newer build's): left to that build
    index.write_text("<html>newer</html>")
    late.unlink()
    assert layoutlate.check(job) == 0 and not late.exists()


def test_after_the_build_only_at_a_terminal_unless_asked(monkeypatch):
    monkeypatch.delenv("DECK_LAYOUT_LATE")
    assert layoutlate.wanted() is os.isatty(2)
    monkeypatch.setenv("DECK_LAYOUT_LATE", "0")
    assert layoutlate.wanted() is False


@pytest.mark.slow
def test_a_check_that_does_not_start_leaves_a_published_deck_and_a_note(
    tmp_path,
    monkeypatch,
    stop_services,  # noqa: F811
):
    from fixture_build import run_cli

    def fails(job: dict) -> None:
        raise OSError("no process for it")

    root = tmp_path / "late"
    folder = lesson(root)
    stop_services.append(root)
    assert run_build(root, "long", "--no-pdf").returncode == 0
    (folder / "01-a.md").write_text(MORE, "utf-8")
    monkeypatch.setattr(layoutlate, "start", fails)
    ran = run_cli(root, "long", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "the layout check after the build did not start (no process for it)" in ran.stderr
    assert "第 1 行" in (root / "dist" / "long" / "index.html").read_text("utf-8")  # published
    assert unchecked(root / "dist" / "long")  # the next build checks again
