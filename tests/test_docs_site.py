"""Issue 33, item 1: the documentation site. `python build.py docs` builds docs/ with MkDocs
offline into dist/docs/ (whole or not at all); the reference pages are written from the code;
every lesson example a page shows is a file of an example lesson that builds with no warning."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from catalogue import options_in
from deck.pipeline import build
from deck.progress import LogOnly
from fixture_build import run_cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = sorted(p for p in (DOCS / "examples").iterdir() if (p / "lesson.yml").is_file())
FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    ran = run_cli(out, "docs", "--out", str(out / "dist"))
    assert ran.returncode == 0, ran.stderr
    assert "wrote" in ran.stderr and "documentation site" in ran.stderr
    return out / "dist/docs"


def nav_pages(entries: list) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages.extend(nav_pages(value) if isinstance(value, list) else [value])
    return pages


def test_every_page_of_the_nav_is_built(site: Path):
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))
    pages = nav_pages(config["nav"])
    assert len(pages) >= 20 and "quickstart.md" in pages
    for page in pages:
        assert (DOCS / page).is_file(), page
        assert (site / page.replace(".md", ".html")).is_file(), page
    assert (site / "search/search_index.json").is_file()
    # lesson sections and the hooks are the site's sources, never pages of it
    assert not (site / "examples").exists() and not (site / "hooks.py").exists()


def test_the_site_fetches_nothing(site: Path):
    """Offline: no web font, no script or stylesheet from a CDN; links out are only links."""
    for page in site.rglob("*.html"):
        html = page.read_text("utf-8")
        fetched = re.findall(r"<(?:script|img|link)\b[^>]*\b(?:src|href)=\"(https?:[^\"]+)", html)
        assert fetched == [], (page, fetched)
        assert "fonts.googleapis" not in html and "fonts.gstatic" not in html
    for sheet in site.rglob("*.css"):
        assert not re.search(r"url\(['\"]?https?:", sheet.read_text("utf-8")), sheet


def test_the_reference_is_the_code(site: Path):
    """The generated pages name every block kind, deck.show function, option and widget
    helper the code has: read from the code itself, so they cannot go stale."""
    from deck import cli, widgetdata
    from deck import show as deck_show
    from deck.blocks import KINDS, PLAIN

    blocks = (site / "reference/blocks.html").read_text("utf-8")
    for kind in (*KINDS, PLAIN):
        assert f"<code>{kind.name}</code>" in blocks, kind.name
    show = (site / "reference/show.html").read_text("utf-8")
    for name in deck_show.__all__:
        assert f'id="{name.lower()}"' in show, name
    assert "formats" in show  # table()'s signature, with its per-column formats
    command = (site / "reference/cli.html").read_text("utf-8")
    for action in cli.parser()._actions:
        for flag in action.option_strings:
            if action.help != "==SUPPRESS==":
                assert flag in command, flag
    assert "build.py new" in command and "build.py docs" in command
    widgets = (site / "reference/widgets.html").read_text("utf-8")
    for name in widgetdata.__all__:
        assert f"<code>{name}</code>" in widgets, name
    for helper in ("el(tag, attrs, text)", "barChart(width, height, n, labels, ticks, noted)"):
        assert helper in widgets, helper
    settings = (site / "reference/settings.html").read_text("utf-8")
    assert "quiz.shuffle" in settings or "shuffle" in settings


def test_a_kind_without_its_reference_stops_the_start():
    from dataclasses import replace

    from deck.blocks import KINDS, check_handlers
    from deck.blocks.base import DOCUMENT_OUTPUTS

    with pytest.raises(RuntimeError, match="without their reference.*callout"):
        check_handlers(
            tuple(replace(k, doc="") if k.name == "callout" else k for k in KINDS), DOCUMENT_OUTPUTS
        )


def test_a_helper_without_its_comment_is_an_error(tmp_path: Path, monkeypatch):
    from deck import reference as docsite

    (tmp_path / "deck/static/widgets").mkdir(parents=True)
    runtime = (ROOT / "deck/static/widgets/runtime.js").read_text("utf-8")
    runtime = runtime.replace("  // [0, 1, …, n - 1].\n", "")
    (tmp_path / "deck/static/widgets/runtime.js").write_text(runtime, "utf-8")
    monkeypatch.setattr(docsite, "ROOT", tmp_path)
    with pytest.raises(ValueError, match="helper range has no comment"):
        docsite.widget_helpers_markdown()


@pytest.mark.slow
def test_a_failed_site_build_keeps_the_last_good_site(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    """A page linking to a page that does not exist fails the strict build: exit non-zero,
    the message names the page, and the site built before stays whole."""
    root = tmp_path / "project"
    root.mkdir()
    shutil.copytree(DOCS, root / "docs")
    shutil.copy(ROOT / "mkdocs.yml", root)
    shutil.copy(ROOT / "CHANGELOG.md", root)
    from deck.docsite import build_site

    site = build_site(tmp_path / "dist", root)
    before = sorted(p.relative_to(site) for p in site.rglob("*"))
    page = root / "docs/quickstart.md"
    page.write_text(page.read_text("utf-8") + "\n[gone](no-such-page.md)\n", "utf-8")
    with pytest.raises(SystemExit, match="build.py docs"):
        build_site(tmp_path / "dist", root)
    assert "quickstart.md" in caplog.text and "no-such-page.md" in caplog.text
    assert sorted(p.relative_to(site) for p in site.rglob("*")) == before
    assert [p.name for p in (tmp_path / "dist").iterdir()] == ["docs"]  # no staging left


def lesson_fences(text: str) -> list[str]:
    """The bodies of fenced blocks holding lesson source (Markdown or YAML)."""
    return [m.group(3) for m in FENCE.finditer(text) if m.group(2) in ("markdown", "md", "yaml")]


def test_every_lesson_example_in_the_docs_is_a_file_of_an_example_lesson():
    """A page shows lesson source only by including a file of docs/examples/ (which the next
    test builds), never as text typed into the page that no build has seen."""
    assert len(EXAMPLES) >= 5
    typed = []
    included = set()
    for page in DOCS.rglob("*.md"):
        if "examples" in page.relative_to(DOCS).parts:
            continue
        for body in lesson_fences(page.read_text("utf-8")):
            lines = [line for line in body.split("\n") if line.strip()]
            if not all(line.startswith("--8<--") for line in lines):
                typed.append((page.relative_to(DOCS), lines[:2]))
            for line in lines:
                m = re.match(r'--8<-- "([^":]+)', line)
                if m and m.group(1).startswith("examples/"):
                    included.add(m.group(1))
    assert typed == []
    for path in included:
        assert (DOCS / path).is_file(), path
    # every example lesson, the Quarto example and the course file are shown somewhere
    shown = {Path(p).parts[1] for p in included}
    assert shown >= {e.name for e in EXAMPLES} | {"_talk", "course.yml"}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_each_example_lesson_builds_without_a_warning(example: Path, tmp_path: Path):
    shutil.copytree(example, tmp_path / "content" / example.name)
    report = build([example.name], options_in(tmp_path), LogOnly())
    assert report.published
    assert [str(w) for w in report.warnings] == []


@pytest.mark.slow
def test_the_examples_are_one_course_that_builds(tmp_path: Path):
    """docs/examples/ is itself a content folder: every lesson at once, in course.yml's order
    on the course page (with the lecturer's notes of the one course.yml names)."""
    content = tmp_path / "content"
    shutil.copytree(DOCS / "examples", content)
    ran = run_cli(tmp_path, "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "warning" not in ran.stderr, ran.stderr
    course = yaml.safe_load((content / "course.yml").read_text("utf-8"))
    page = (tmp_path / "dist/index.html").read_text("utf-8")
    assert f"<h1>{course['title']}</h1>" in page
    places = [page.index(f'id="lesson-{name}"') for name in course["lessons"]]
    assert places == sorted(places) and len(places) == len(EXAMPLES)


def test_the_quarto_example_builds_without_a_warning(tmp_path: Path):
    shutil.copytree(DOCS / "examples/_talk", tmp_path / "_talk")
    ran = run_cli(tmp_path, "_talk/talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "warning" not in ran.stderr, ran.stderr
    assert (tmp_path / "dist/talk/index.html").is_file()


@pytest.mark.slow
def test_the_readmes_first_lesson_is_the_examples_and_says_what_it_shows(tmp_path: Path):
    """The README's lesson example is the first slide of docs/examples/first/, which the tests
    build; the value the README says it shows is the one that build computes."""
    readme = (ROOT / "README.md").read_text("utf-8")
    assert readme.startswith("```\nbash setup.sh\nbash test.sh --all\n```\n")
    (example,) = re.findall(r"^````markdown\n(.*?)^````$", readme, re.M | re.S)
    first = (DOCS / "examples/first/01-softmax.md").read_text("utf-8")
    assert first.startswith(example)
    said = re.search(r"the value reads (\d\.\d+)", readme)
    assert said is not None
    shutil.copytree(DOCS / "examples/first", tmp_path / "content/first")
    build(["first"], options_in(tmp_path), LogOnly())
    values = json.loads((tmp_path / "dist/first/values.json").read_text("utf-8"))["values"]
    (shown,) = [v["text"] for v in values if v["expr"] == 'f"{p.max():.3f}"']
    scores = np.array([2.0, 1.0, 0.1])
    assert shown == said.group(1) == f"{(np.exp(scores) / np.exp(scores).sum()).max():.3f}"
