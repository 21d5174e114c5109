"""The files a parent project's `_quarto.yml` names (a root `refs.bib`, `style.css`, an
include) and the yml itself are recorded inputs of a deck's build
(`deck.source.registry.QmdFile.inputs`): a build with none of them changed is "up to date",
an edit of one rebuilds, and the preview's watcher counts them as inputs (`is_input`)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from test_quarto_projects import REFS, course

from deck.publish.manifest import Hasher
from deck.source.registry import QmdFile
from fixture_build import run_cli

NEW_REF = """
@article{turing1936,
  author = {Alan M. Turing},
  title = {On Computable Numbers},
  journal = {Proceedings of the London Mathematical Society},
  year = {1936}
}
"""
TALK = "---\ntitle: 第一讲\n---\n\n## 引用\n\nAs @knuth1984 and @turing1936 say.\n"


def _edit(path: Path, text: str) -> None:
    time.sleep(0.01)  # (a new mtime, whatever the file system's resolution)
    path.write_text(text, "utf-8")


@pytest.mark.slow
def test_editing_the_projects_bibliography_rebuilds(tmp_path: Path):
    course(tmp_path, talk=TALK)
    first = run_cli(tmp_path, "lectures/01/talk.qmd", "--no-pdf")
    assert first.returncode == 0, first.stderr
    page = tmp_path / "dist/talk/index.html"
    assert "Knuth" in page.read_text() and "Turing" not in page.read_text()

    again = run_cli(tmp_path, "lectures/01/talk.qmd", "--no-pdf")
    assert again.returncode == 0 and "talk: up to date" in again.stderr, again.stderr

    _edit(tmp_path / "refs.bib", REFS + NEW_REF)
    rebuilt = run_cli(tmp_path, "lectures/01/talk.qmd", "--no-pdf")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "up to date" not in rebuilt.stderr
    assert "Turing" in page.read_text()  # the new reference shows

    still = run_cli(tmp_path, "lectures/01/talk.qmd", "--no-pdf")
    assert "talk: up to date" in still.stderr, still.stderr


def test_the_projects_files_and_yml_are_inputs(tmp_path: Path):
    talk = course(tmp_path, talk=TALK)
    source = QmdFile("talk", talk)
    inputs = source.inputs(Hasher(known={}))
    named = {k: v for k, v in inputs.items() if not k.startswith("$")}
    for name in ("refs.bib", "style.css", "head.html"):
        assert named.get(f"../../{name}") not in (None, "missing"), sorted(inputs)
    for path in ("refs.bib", "style.css", "head.html", "_quarto.yml"):
        assert source.is_input(tmp_path / path), path
    assert not source.is_input(tmp_path / "notes.txt")  # the project's other files are not

    before = inputs
    _edit(tmp_path / "style.css", "h2 { color: blue; }\n")
    assert source.inputs(Hasher(known={})) != before


def test_a_websites_pages_are_not_the_decks_inputs(tmp_path: Path):
    yml = "project:\n  type: website\nwebsite:\n  navbar:\n    left:\n      - index.qmd\n"
    talk = course(tmp_path, talk=TALK, yml=yml + "bibliography: refs.bib\n")
    (tmp_path / "index.qmd").write_text("---\ntitle: Home\n---\n")
    source = QmdFile("talk", talk)
    assert source.is_input(tmp_path / "refs.bib")
    assert not source.is_input(tmp_path / "index.qmd")
    assert "../../index.qmd" not in source.inputs(Hasher(known={}))
