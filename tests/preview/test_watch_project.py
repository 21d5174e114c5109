"""`--serve`'s watcher and a Quarto project: a `.qmd` two folders below its `_quarto.yml`
rebuilds when a file the yml names changes (a root refs.bib, style.css), as the no-change
check counts it; another file of the project's root does not."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from deck.preview.watch import Changes, Watcher, outside_files
from deck.source.registry import QmdFile

YML = (
    "project:\n  type: default\nbibliography: refs.bib\nformat:\n  revealjs:\n    css: style.css\n"
)


def course(root: Path) -> Path:
    """`root/_quarto.yml` naming refs.bib and style.css; the deck in `lectures/01/`."""
    (root / "_quarto.yml").write_text(YML)
    (root / "refs.bib").write_text("@book{k, title={T}}\n")
    (root / "style.css").write_text("h2 { color: red; }\n")
    (root / "lectures/01").mkdir(parents=True)
    talk = root / "lectures/01/talk.qmd"
    talk.write_text("---\ntitle: T\n---\n\n## A\n\nAs @k says.\n")
    return talk


def changed(
    watcher: Watcher, changes: Changes, path: Path, text: str, wait: float = 10
) -> list[Path]:
    path.write_text(text, "utf-8")
    until, wanted = time.monotonic() + wait, []
    while time.monotonic() < until and not wanted:
        wanted = changes.rebuild_for(watcher.take(0.5), (0.0, 0.0), print)
    return wanted


@pytest.mark.slow
def test_a_file_the_projects_yml_names_rebuilds_the_deck(tmp_path: Path):
    talk = course(tmp_path)
    source = QmdFile(talk.stem, talk)
    outside = outside_files([source])
    assert {p.name for p in outside} >= {"_quarto.yml", "refs.bib", "style.css"}
    watcher, changes = Watcher([source], print), Changes([source])
    watcher.start()
    try:
        time.sleep(0.5)  # (the OS watches are in place)
        assert changed(watcher, changes, tmp_path / "refs.bib", "@book{x, title={X}}\n") == [
            (tmp_path / "refs.bib").absolute()
        ]
        assert changed(watcher, changes, tmp_path / "notes.txt", "not an input\n", 2) == []
        assert changed(watcher, changes, tmp_path / "style.css", "h2 { color: blue; }\n") == [
            (tmp_path / "style.css").absolute()
        ]
    finally:
        watcher.close()
