"""Issue 29, item 1: a theme `.scss` may `@import`/`@use` only files inside the project
folder. An import that leaves it (`..`, an absolute path, a `file:` URL, a symlink pointing
out, from the theme file or from a partial it imports) is an error at the line of the
import, the build exits 1 and the previous deck stays; imports inside the folder, and sass's
own modules, keep working."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, write_lesson
from deck.errors import Loc
from deck.render.sass import compile_theme
from fixture_build import run_cli

SECRET = "leaked-0x5eed"
LESSON = "title: T\nslides:\n  theme: [default, custom.scss]\n"
GOOD = "/*-- scss:rules --*/\n.ok { color: red; }\n"
HERE = "content/cat"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A lesson with a good custom.scss, built once; a secret partial beside the project."""
    root = tmp_path_factory.mktemp("theme")
    (root / "outside").mkdir()
    (root / "outside" / "_secret.scss").write_text(f".{SECRET} {{ color: red; }}\n")
    write_lesson(root, {"lesson.yml": LESSON, "01-a.md": "## A\n\nhello\n", "custom.scss": GOOD})
    ran = run_cli(root, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert ".ok" in (root / "dist" / "cat" / "index.html").read_text()
    return root


def leaked(root: Path) -> list[str]:
    return [
        str(p.relative_to(root))
        for p in (root / "dist").rglob("*")
        if p.is_file() and SECRET.encode() in p.read_bytes()
    ]


ESCAPES = {
    "relative": '@import "../../outside/secret";',
    "relative-use": '/*-- scss:functions --*/\n@use "../../outside/secret";',
    "absolute": '@import "{root}/outside/secret";',
    "absolute-file": '/*-- scss:functions --*/\n@use "{root}/outside/_secret.scss";',
    "file-url": '@import "file://{root}/outside/secret";',
    "in-a-section": '/*-- scss:defaults --*/\n$x: 1;\n@import "../../outside/secret";',
}


@pytest.mark.parametrize("name", list(ESCAPES))
def test_a_theme_import_outside_the_project_is_an_error_at_its_line(built: Path, name: str):
    text = "// a theme\n" + ESCAPES[name].format(root=built) + "\n"
    (built / HERE / "custom.scss").write_text(text)
    line = text.split("\n").index(next(t for t in text.split("\n") if "secret" in t)) + 1
    ran = assert_failed_cleanly(
        built, ["cat", "--no-pdf"], f"{HERE}/custom.scss:{line}", says="outside the project"
    )
    assert SECRET not in ran.stderr
    assert leaked(built) == []


def test_a_partial_importing_from_outside_is_an_error_at_the_partials_line(built: Path):
    (built / HERE / "parts").mkdir(exist_ok=True)
    (built / HERE / "parts" / "_colours.scss").write_text(
        '$a: 1;\n@import "../../../outside/secret";\n'
    )
    (built / HERE / "custom.scss").write_text('@import "parts/colours";\n')
    where = f"{HERE}/parts/_colours.scss:2"
    assert_failed_cleanly(built, ["cat", "--no-pdf"], where, says="outside the project")
    assert leaked(built) == []


def test_a_symlink_pointing_out_of_the_project_is_refused(built: Path):
    link = built / HERE / "_link.scss"
    link.unlink(missing_ok=True)
    link.symlink_to(built / "outside" / "_secret.scss")
    try:
        (built / HERE / "custom.scss").write_text('\n@import "link";\n')
        where = f"{HERE}/custom.scss:2"
        assert_failed_cleanly(built, ["cat", "--no-pdf"], where, says="outside the project")
        assert leaked(built) == []
    finally:
        link.unlink()


def test_imports_inside_the_project_and_sass_modules_keep_working(tmp_path: Path):
    folder = tmp_path / "proj"
    (folder / "parts" / "deep").mkdir(parents=True)
    (folder / "parts" / "_colours.scss").write_text('@import "deep/more";\n$c: #123456;\n')
    (folder / "parts" / "deep" / "_more.scss").write_text(".more { color: blue; }\n")
    (folder / "parts" / "deep" / "_index.scss").write_text(".indexed { color: green; }\n")
    (folder / "plain.css").write_text(".plain { color: olive; }\n")
    (folder / "inside.scss").write_text(".sub { width: 1px; }\n")
    os.symlink(folder / "inside.scss", folder / "_alias.scss")  # a link that stays inside
    (folder / "custom.scss").write_text(
        '/*-- scss:functions --*/\n@use "sass:math";\n'
        '/*-- scss:defaults --*/\n@import "parts/colours";\n'
        '/*-- scss:rules --*/\n@import "parts/deep";\n@import "alias";\n@import "plain";\n'
        '@import "./parts/../inside";\n'
        ".w { width: percentage(0.25); height: math.div(10px, 4); color: $c; }\n"
    )
    css, problems = compile_theme(("custom.scss",), folder, Loc("proj", 1), None)
    assert [p for p in problems if p.severity == "error"] == [], problems
    assert css is not None
    for rule in (".more", ".indexed", ".sub", "width: 25%", "height: 2.5px", "#123456", ".plain"):
        assert rule in css, rule


def test_a_theme_in_a_subfolder_imports_relative_to_itself_first(tmp_path: Path):
    """As dart-sass (and Quarto, whose load paths are the theme files' folders) resolve them:
    relative to the importing file, then the load paths, the project folder last."""
    folder = tmp_path / "proj"
    (folder / "styles" / "parts").mkdir(parents=True)
    (folder / "_colours.scss").write_text("$c: #fefefe;\n.root-colours { color: red; }\n")
    (folder / "styles" / "_colours.scss").write_text('@import "sibling";\n$c: #0a0b0c;\n')
    (folder / "styles" / "_sibling.scss").write_text(".sibling { color: teal; }\n")
    (folder / "styles" / "_palette.scss").write_text("$accent: #123123;\n")
    (folder / "styles" / "parts" / "_deep.scss").write_text('@use "near";\n@import "colours";\n')
    (folder / "styles" / "parts" / "_near.scss").write_text(".near { color: navy; }\n")
    (folder / "styles" / "custom.scss").write_text(
        '/*-- scss:functions --*/\n@use "palette";\n'
        '/*-- scss:defaults --*/\n@import "colours";\n'
        '/*-- scss:rules --*/\n@import "parts/deep";\n@import "../top";\n'
        ".w { color: $c; background: palette.$accent; }\n"
    )
    (folder / "_top.scss").write_text(".top { color: olive; }\n")
    css, problems = compile_theme(("styles/custom.scss",), folder, Loc("proj", 1), None)
    assert [p for p in problems if p.severity == "error"] == [], problems
    assert css is not None
    for rule in (".sibling", ".near", ".top", "color: #0a0b0c", "background: #123123"):
        assert rule in css, rule
    assert ".root-colours" not in css and "#fefefe" not in css  # styles/ before the root


def test_a_subfolder_theme_leaving_the_project_is_refused_at_its_line(built: Path):
    (built / HERE / "lesson.yml").write_text(LESSON.replace("custom.scss", "styles/custom.scss"))
    (built / HERE / "styles").mkdir(exist_ok=True)
    (built / HERE / "styles" / "_ok.scss").write_text(".fine { color: red; }\n")
    (built / HERE / "styles" / "custom.scss").write_text(
        '@import "ok";\n@import "../../../outside/secret";\n'
    )
    try:
        where = f"{HERE}/styles/custom.scss:2"
        assert_failed_cleanly(built, ["cat", "--no-pdf"], where, says="outside the project")
        assert leaked(built) == []
    finally:
        (built / HERE / "lesson.yml").write_text(LESSON)
