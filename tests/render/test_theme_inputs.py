"""Every file a theme's compile loads is an input of its cached CSS: a partial or a `.css` it
`@use`s or `@import`s, as `sass_compile.cjs`'s importer read it, checked on reuse by its
content (not its size or mtime), and each place the importer looked for a file and found none
(a file added there would be loaded instead). Editing only an imported file rebuilds the deck
with the new rule, also when the edit keeps the size and the mtime is set back."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from catalogue import write_lesson
from deck.errors import Loc
from deck.render import sass
from deck.render.sass import compile_theme
from fixture_build import run_cli


def same_size_edit(path: Path, old: str, new: str) -> None:
    """Replace `old` by `new` (as long) in the file, and set its mtime back."""
    assert len(old) == len(new)
    st = path.stat()
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


def compiled(folder: Path, cache: Path, theme: str = "custom.scss") -> str:
    css, problems = compile_theme((theme,), folder, Loc("proj", 1), cache)
    assert css is not None and not [p for p in problems if p.severity == "error"], problems
    return css


@pytest.mark.parametrize("imported", ["plain.css", "_colours.scss", "parts/_deep.sass"])
def test_an_edited_import_is_compiled_again_though_size_and_mtime_are_kept(
    tmp_path: Path, imported: str
):
    folder, cache = tmp_path / "proj", tmp_path / "cache"
    (folder / "parts").mkdir(parents=True)
    (folder / "plain.css").write_text(".plain-aaaa { color: red; }\n")
    (folder / "_colours.scss").write_text(".colours-aaaa { color: red; }\n")
    (folder / "parts" / "_deep.sass").write_text(".sassy-aaaa\n  color: red\n")
    (folder / "custom.scss").write_text(
        '/*-- scss:functions --*/\n@use "plain.css";\n'
        '/*-- scss:rules --*/\n@import "colours";\n@import "parts/deep";\n'
    )
    first = compiled(folder, cache)
    assert {".plain-aaaa", ".colours-aaaa", ".sassy-aaaa"} <= set(re.findall(r"\.\w+-aaaa", first))
    same_size_edit(folder / imported, "-aaaa", "-bbbb")
    again = compiled(folder, cache)
    assert "-bbbb" in again, again


def test_an_unchanged_theme_is_taken_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    folder, cache = tmp_path / "proj", tmp_path / "cache"
    folder.mkdir()
    (folder / "plain.css").write_text(".plain { color: red; }\n")
    (folder / "custom.scss").write_text('/*-- scss:functions --*/\n@use "plain.css";\n')
    first = compiled(folder, cache)
    monkeypatch.setattr(sass.shutil, "which", lambda name: None)  # no Node: the cache only
    assert compiled(folder, cache) == first


def test_a_file_added_where_the_importer_looked_is_compiled_again(tmp_path: Path):
    """`@import "colours"` from styles/custom.scss found the root's partial after looking in
    styles/: a styles/_colours.scss added later is the one dart-sass loads."""
    folder, cache = tmp_path / "proj", tmp_path / "cache"
    (folder / "styles").mkdir(parents=True)
    (folder / "_colours.scss").write_text(".root-one { color: red; }\n")
    (folder / "styles" / "custom.scss").write_text('@import "colours";\n')
    assert ".root-one" in compiled(folder, cache, "styles/custom.scss")
    (folder / "styles" / "_colours.scss").write_text(".styles-one { color: red; }\n")
    again = compiled(folder, cache, "styles/custom.scss")
    assert ".styles-one" in again and ".root-one" not in again


def test_two_projects_with_the_same_theme_text_keep_their_own_css(tmp_path: Path):
    cache = tmp_path / "cache"
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "_colours.scss").write_text(f".from-{name} {{ color: red; }}\n")
        (tmp_path / name / "custom.scss").write_text('@import "colours";\n')
    assert ".from-one" in compiled(tmp_path / "one", cache)
    assert ".from-two" in compiled(tmp_path / "two", cache)
    assert ".from-one" in compiled(tmp_path / "one", cache)


LESSON = "title: T\ntitle-slide: false\nslides:\n  theme: [default, custom.scss]\n"


def test_a_lesson_rebuilds_when_only_its_imported_css_changed(tmp_path: Path):
    files = {
        "lesson.yml": LESSON,
        "01-a.md": "## A\n\nhello\n",
        "custom.scss": '/*-- scss:functions --*/\n@use "parts/plain.css";\n',
        "parts/plain.css": ".rule-aaaa { color: red; }\n",
    }
    folder = write_lesson(tmp_path, files)
    page = tmp_path / "dist" / "cat" / "index.html"
    assert run_cli(tmp_path, "cat", "--no-pdf").returncode == 0
    assert ".rule-aaaa" in page.read_text()
    same_size_edit(folder / "parts" / "plain.css", "-aaaa", "-bbbb")
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert ".rule-bbbb" in page.read_text(), ran.stderr
    assert ".rule-aaaa" not in page.read_text()


QMD = "---\nformat:\n  revealjs:\n    theme: [default, styles/custom.scss]\n---\n\n## A\n\nhi\n"


def test_a_qmd_rebuilds_when_only_a_partial_its_theme_imports_changed(tmp_path: Path):
    (tmp_path / "styles").mkdir()
    (tmp_path / "talk.qmd").write_text(QMD)
    (tmp_path / "styles" / "custom.scss").write_text('/*-- scss:rules --*/\n@import "colours";\n')
    (tmp_path / "styles" / "_colours.scss").write_text(".rule-aaaa { color: red; }\n")
    page = tmp_path / "dist" / "talk" / "index.html"
    assert run_cli(tmp_path, "talk.qmd", "--no-pdf").returncode == 0
    assert ".rule-aaaa" in page.read_text()
    same_size_edit(tmp_path / "styles" / "_colours.scss", "-aaaa", "-bbbb")
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert ".rule-bbbb" in page.read_text(), ran.stderr


def test_theme_inputs_are_the_files_the_last_compile_of_the_folder_loaded(tmp_path: Path):
    folder, cache = tmp_path / "proj", tmp_path / "cache"
    (folder / "styles").mkdir(parents=True)
    (folder / "styles" / "custom.scss").write_text('@import "colours";\n')
    (folder / "styles" / "_colours.scss").write_text(".c { color: red; }\n")
    assert sass.theme_inputs(cache, folder) == []
    compiled(folder, cache, "styles/custom.scss")
    found = sass.theme_inputs(cache, folder)
    assert (folder / "styles" / "_colours.scss").resolve() in found
    shutil.rmtree(cache)
    assert sass.theme_inputs(cache, folder) == []
