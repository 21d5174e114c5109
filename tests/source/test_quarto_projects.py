"""Issue 32, item 3: a course as Quarto lays it out, `_quarto.yml` at the root and the decks
in `lectures/NN/`: the paths the yml names (`bibliography`, `css`, `include-*`, `csl`, `logo`)
are read from the yml's folder, as Quarto reads a path written in a yml; `/images/x.png` in a
deck is the project's `images/x.png`; a path that truly leaves the project is still one error
at the line that names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, line_of, write
from deck.errors import DeckError
from deck.source.contain import from_root, outside, project_root
from deck.source.qmd import load_qmd
from fixture_build import run_cli

YML = """\
project:
  type: default
bibliography: refs.bib
format:
  revealjs:
    css: style.css
    include-in-header: head.html
"""
REFS = """\
@book{knuth1984,
  author = {Donald E. Knuth},
  title = {The TeXbook},
  publisher = {Addison-Wesley},
  year = {1984}
}
"""
TALK = """\
---
title: 第一讲
---

## 引用

As @knuth1984 says. <img src="/images/x.png" width="40">

## 图 {background-image="/images/bg.png"}

![](/images/x.png)
"""
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


def course(root: Path, talk: str = TALK, yml: str = YML) -> Path:
    """`root/_quarto.yml`, refs.bib, style.css, head.html, images/; the deck two folders down
    (`lectures/01/talk.qmd`), as the course in the issue has them."""
    write(root, {"_quarto.yml": yml, "refs.bib": REFS, "style.css": "h2 { color: red; }\n"})
    (root / "head.html").write_text('<meta name="course" content="c1">\n')
    (root / "images").mkdir()
    (root / "images/x.png").write_bytes(PNG)
    (root / "images/bg.png").write_bytes(PNG)
    return write(root / "lectures/01", {"talk.qmd": talk})


def test_the_ymls_paths_are_read_from_the_ymls_folder(tmp_path: Path, monkeypatch):
    talk = course(tmp_path)
    monkeypatch.chdir(tmp_path)
    lesson = load_qmd(talk.relative_to(tmp_path))
    config = lesson.config
    assert config.citations.bibliography == ("../../refs.bib",)
    assert config.slides.css == ("../../style.css",)
    assert [text for _, _, text in config.slides.includes] == [
        '<meta name="course" content="c1">\n'
    ]
    assert not [w for w in lesson.warnings if "refs.bib" in w.message or "style" in w.message]


def test_a_deck_beside_its_yml_reads_its_paths_as_before(tmp_path: Path, monkeypatch):
    write(tmp_path, {"_quarto.yml": YML, "refs.bib": REFS, "style.css": "h2 {}\n"})
    (tmp_path / "head.html").write_text("<meta>\n")
    write(tmp_path, {"talk.qmd": "---\ntitle: T\n---\n\n## A\n\nx\n"})
    monkeypatch.chdir(tmp_path)
    config = load_qmd(Path("talk.qmd")).config
    assert config.citations.bibliography == ("refs.bib",)
    assert config.slides.css == ("style.css",)


def test_project_root_paths_are_the_projects(tmp_path: Path):
    folder = course(tmp_path / "c").parent
    assert project_root(folder) == (tmp_path / "c").resolve()
    assert from_root(folder, "/images/x.png") == "../../images/x.png"
    assert not outside(folder, from_root(folder, "/images/x.png"))
    assert not outside(folder, "../../images/x.png")
    assert outside(folder, "../../../secret.png")
    assert outside(folder, "/images/x.png")  # (unread: `from_root` makes it a path first)
    lone = tmp_path / "lone"
    lone.mkdir()
    assert from_root(lone, "/etc/hostname") == "/etc/hostname"  # no project: absolute
    assert outside(lone, "/etc/hostname")


def test_a_path_in_the_yml_that_leaves_the_project_is_one_error_at_its_line(tmp_path: Path):
    yml = YML.replace("bibliography: refs.bib", "bibliography: ../refs.bib")
    talk = course(tmp_path / "course", yml=yml)
    (tmp_path / "refs.bib").write_text(REFS)
    with pytest.raises(DeckError) as caught:
        load_qmd(talk)
    errors = [d for d in caught.value.diagnostics if "refs.bib" in d.message]
    assert len(errors) == 1, caught.value.diagnostics
    (error,) = errors
    assert error.loc.path.endswith("_quarto.yml")
    assert error.loc.line == line_of(yml, "bibliography:")
    assert error.message.startswith("bibliography `../refs.bib` lies outside the project folder")


def test_a_deck_path_that_leaves_the_project_is_one_error_at_its_line(tmp_path: Path):
    talk_text = TALK + "\n## 外\n\n![泄露](../../../secret.png)\n"
    course(tmp_path / "course", talk=talk_text)
    (tmp_path / "secret.png").write_bytes(PNG)
    where = f"course/lectures/01/talk.qmd:{line_of(talk_text, '泄露')}"
    ran = assert_failed_cleanly(
        tmp_path, ["course/lectures/01/talk.qmd", "--no-pdf"], where, says="secret.png"
    )
    assert ran.stderr.count("secret.png` is outside the project folder") == 1, ran.stderr


@pytest.mark.slow
def test_the_course_builds_with_its_project_files_published(tmp_path: Path):
    course(tmp_path)
    ran = run_cli(tmp_path, "lectures/01/talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist/talk/index.html").read_text()
    assert "Knuth" in page  # the bibliography at the root, formatted
    assert 'href="media/up/up/style.css"' in page
    assert (tmp_path / "dist/talk/media/up/up/images/x.png").read_bytes() == PNG
    assert 'data-background-image="media/up/up/images/bg.png"' in page
