"""A build stages a file the published deck holds exactly as a hard link to it (one system call
instead of a new file), never when the published copy differs, and never changes the published
copy through the link: what the build changes after staging is written anew."""

from __future__ import annotations

import os
from pathlib import Path

from catalogue import options_in as options
from catalogue import tree, write_lesson
from deck.pipeline import build
from deck.progress import LogOnly
from deck.publish.assets import drop_unused_theme_fonts
from deck.publish.carry import append_text, carry, carry_bytes, replace_text
from deck.theme import NODE_MODULES

LESSON = {
    "01-a.md": """
        ## 一页

        ```{python}
        #| echo: false
        #| fig-alt: 一条上升的直线
        import matplotlib.pyplot as plt
        plt.plot([1, 2, 3])
        ```

        讲解文字。
        """
}


def files(root: Path, name: str = "cat") -> dict[str, os.stat_result]:
    deck = root / "dist" / name
    return {p.relative_to(deck).as_posix(): p.stat() for p in deck.rglob("*") if p.is_file()}


def test_carry_links_the_published_copy_only_when_its_bytes_are_the_sources(tmp_path: Path):
    source, published = tmp_path / "source.js", tmp_path / "published.js"
    source.write_bytes(b"let a = 1;\n")
    published.write_bytes(b"let a = 1;\n")
    carry(source, tmp_path / "same.js", published)
    assert (tmp_path / "same.js").stat().st_ino == published.stat().st_ino

    published.write_bytes(b"let a = 2;\n")  # the same size, other bytes: a copy of the source
    carry(source, tmp_path / "other.js", published)
    assert (tmp_path / "other.js").stat().st_ino != published.stat().st_ino
    assert (tmp_path / "other.js").read_bytes() == b"let a = 1;\n"

    carry(source, tmp_path / "none.js", tmp_path / "missing.js")
    assert (tmp_path / "none.js").read_bytes() == b"let a = 1;\n"

    carry_bytes(b"let a = 2;\n", tmp_path / "bytes.js", published)
    assert (tmp_path / "bytes.js").stat().st_ino == published.stat().st_ino
    carry_bytes(b"let a = 3;\n", tmp_path / "new.js", published)
    assert (tmp_path / "new.js").stat().st_ino != published.stat().st_ino


def test_writing_a_staged_link_anew_leaves_the_published_file_as_it_was(tmp_path: Path):
    published, staged = tmp_path / "fonts.css", tmp_path / "staged.css"
    published.write_text("a {}\n", "utf-8")
    os.link(published, staged)
    append_text(staged, "b {}\n")
    assert staged.read_text("utf-8") == "a {}\nb {}\n"
    assert published.read_text("utf-8") == "a {}\n"
    os.unlink(staged)
    os.link(published, staged)
    replace_text(staged, "c {}\n")
    assert published.read_text("utf-8") == "a {}\n"


def test_pruning_a_staged_theme_linked_to_the_published_one_leaves_that_one(tmp_path: Path):
    theme = NODE_MODULES / "reveal.js" / "dist" / "theme" / "white.css"
    published = tmp_path / "published.css"
    published.write_bytes(theme.read_bytes())
    staged = tmp_path / "deck" / "assets" / "reveal" / "theme" / "white.css"
    staged.parent.mkdir(parents=True)
    os.link(published, staged)
    assert drop_unused_theme_fonts(tmp_path / "deck", "<html></html>") > 0  # (it prunes)
    assert published.read_bytes() == theme.read_bytes()


def test_a_prose_edit_links_the_unchanged_files_and_restores_a_changed_one(tmp_path: Path):
    folder = write_lesson(tmp_path, LESSON)
    opts = options(tmp_path)
    build(["cat"], opts, LogOnly(lambda _: None))
    before = files(tmp_path)
    reveal = tmp_path / "dist" / "cat" / "assets" / "reveal" / "reveal.js"
    original = reveal.read_bytes()
    with open(reveal, "r+b") as f:  # changed in place, its size kept
        f.write(b"X")
    section = folder / "01-a.md"
    section.write_text(section.read_text("utf-8") + "\n又一段。\n", "utf-8")
    build(["cat"], opts, LogOnly(lambda _: None))
    after = files(tmp_path)

    assert reveal.read_bytes() == original  # the engine's own bytes again, not the changed file
    linked = {f for f in before if f in after and after[f].st_ino == before[f].st_ino}
    assert "assets/deck.css" in linked
    assert any(f.startswith("figures/") for f in linked)
    assert "assets/reveal/reveal.js" not in linked
    assert not {"index.html", "values.json"} & linked  # (made anew)
    # what the linked deck holds is what a build into an empty folder stages
    build(["cat"], options(tmp_path, out=tmp_path / "fresh"), LogOnly(lambda _: None))
    linked_deck, fresh = (tree(tmp_path / top / "cat") for top in ("dist", "fresh"))
    assert {f: h for f, h in linked_deck.items() if not f.startswith(".")} == {
        f: h
        for f, h in fresh.items()
        if not f.startswith(".")  # (the build's own records)
    }
