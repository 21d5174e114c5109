"""Issue 20, item 1: the course page `dist/index.html`: every lesson in order with its title,
subtitle, date, slide count and planned minutes (as the speaker view counts them), links to
the files that exist, offline, accessible, `content/course.yml`, and a failed lesson keeping
its last good entry, marked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from catalogue import edit, tree, write_lesson
from fixture_build import run_cli

pytestmark = pytest.mark.browser

ALPHA = {
    "lesson.yml": """
        title: Alpha <b>basics</b>
        subtitle: first steps
        date: 2026-09-01
        lang: en
    """,
    "01-a.md": """
        ## One

        ```{python}
        x = 6 * 7
        ```

        The answer is `{python} x`.

        ::: notes
        2 minutes. Say why.
        :::

        ## Two {.optional}

        Maybe.

        ::: notes
        1.5 min: only if there is time.
        :::

        ## Three {timing="90"}

        Timed.

        ::: notes
        5 minutes (the timing attribute wins).
        :::

        ## Four

        Said as an attribute.

        ::: {.notes minutes=2.5}
        Then the words.
        :::

        ## Five

        In bold.

        ::: notes
        **1 min** to close.
        :::
    """,
}
BETA = {
    "lesson.yml": """
        title: Beta
        lang: en
    """,
    "01-b.md": """
        ## Only

        ```{python}
        y = 1 + 1
        ```

        Two is `{python} y`.

        ::: notes
        3 minutes.
        :::
    """,
}
COURSE = """\
title: Deep learning
lecturer: Dr. Ada
term: Autumn 2026
description: A short course.
lessons:
  - beta
  - alpha
"""


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("course")
    write_lesson(root, ALPHA, "alpha")
    write_lesson(root, BETA, "beta")
    (root / "content/course.yml").write_text(COURSE, "utf-8")
    ran = run_cli(root, "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    ran = run_cli(root, "beta", "--no-pdf", "--single-file")
    assert ran.returncode == 0, ran.stderr
    return root


def open_page(context, path: Path):
    page = context.new_page()
    outside: list[str] = []
    page.route(
        re.compile(r"^(?!file:).*"),
        lambda route: (outside.append(route.request.url), route.abort()),
    )
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, outside


def test_lessons_in_the_course_order_with_their_facts_and_links(course: Path, context):
    page, outside = open_page(context, course / "dist/index.html")
    assert outside == []  # offline: nothing but the file itself
    assert page.locator("h1").inner_text() == "Deep learning"
    assert page.locator("html").get_attribute("lang") == "en"
    header = page.locator("header").inner_text()
    assert "Dr. Ada" in header and "Autumn 2026" in header and "A short course." in header
    lessons = page.locator("li.lesson")
    assert lessons.count() == 2
    beta, alpha = lessons.nth(0), lessons.nth(1)
    assert beta.locator("h3").inner_text() == "Beta"
    assert alpha.locator("h3").inner_text() == "Alpha basics"  # as the deck's title reads
    assert alpha.locator("h3 b").inner_text() == "basics"
    assert alpha.locator(".lesson-subtitle").inner_text() == "first steps"
    slides = json.loads((course / "dist/alpha/values.json").read_text())["slides"]
    facts = alpha.locator(".lesson-facts").inner_text()
    assert facts.startswith(f"2026-09-01 · {slides} slides · ")
    hrefs = {
        name: [a.get_attribute("href") for a in item.locator(".lesson-links a").all()]
        for name, item in (("alpha", alpha), ("beta", beta))
    }
    assert hrefs == {
        "alpha": ["alpha/index.html", "alpha/alpha.ipynb"],  # no PDFs: built with --no-pdf
        "beta": ["beta/index.html", "beta.html", "beta/beta.ipynb"],
    }
    for href in hrefs["alpha"] + hrefs["beta"]:
        assert (course / "dist" / href).is_file()


def test_planned_minutes_are_the_speaker_views(course: Path, context):
    """The minutes the deck itself computes in the browser (deck.js, `data-deck-minutes`)."""
    listed = {}
    page, _ = open_page(context, course / "dist/index.html")
    for item in page.locator("li.lesson").all():
        name = item.get_attribute("id").removeprefix("lesson-")
        listed[name] = item.locator(".lesson-facts").inner_text()
    for name in ("alpha", "beta"):
        deck = context.new_page()
        deck.goto((course / f"dist/{name}/index.html").as_uri())
        deck.wait_for_function("document.documentElement.dataset.deckMinutes !== undefined")
        minutes = float(deck.evaluate("document.documentElement.dataset.deckMinutes"))
        extra = float(deck.evaluate("document.documentElement.dataset.deckOptionalMinutes"))
        shown = re.search(r"(\d+(?:\.\d+)?) min planned", listed[name])
        assert shown and float(shown.group(1)) == pytest.approx(minutes, abs=0.05)
        more = re.search(r"optional slides: (\d+(?:\.\d+)?) min more", listed[name])
        assert (float(more.group(1)) if more else 0.0) == pytest.approx(extra, abs=0.05)
    # 2 + 1.5 (timing=90) + 2.5 (minutes=) + 1 (**1 min**), the optional slide apart
    assert "7 min planned (optional slides: 1.5 min more)" in listed["alpha"]


def test_the_course_page_is_accessible(course: Path, context):
    from axe_playwright_python.sync_playwright import Axe

    page, _ = open_page(context, course / "dist/index.html")
    violations = Axe().run(page).response["violations"]
    bad = [(v["id"], v["impact"]) for v in violations if v["impact"] in ("serious", "critical")]
    assert bad == []


@pytest.mark.slow
def test_a_failed_lesson_keeps_its_last_good_entry_marked(tmp_path: Path, context):
    write_lesson(tmp_path, ALPHA, "alpha")
    write_lesson(tmp_path, BETA, "beta")
    assert run_cli(tmp_path, "--no-pdf").returncode == 0
    edit(tmp_path / "content/beta/01-b.md", "y = 1 + 1", "y = 1 / 0")
    before = (tmp_path / "dist/index.html").read_bytes()
    ran = run_cli(tmp_path, "--no-pdf")
    assert ran.returncode == 1
    assert (tmp_path / "dist/index.html").read_bytes() == before  # a failed build writes none
    assert run_cli(tmp_path, "alpha", "--no-pdf").returncode == 0  # the next good one marks it
    page, _ = open_page(context, tmp_path / "dist/index.html")
    beta = page.locator("#lesson-beta")
    assert "lesson-has-failed" in beta.get_attribute("class")
    failed = beta.locator(".lesson-failed").inner_text()
    assert "content/beta/01-b.md:4" in failed and "ZeroDivisionError" in failed
    assert beta.locator(".lesson-links a").first.get_attribute("href") == "beta/index.html"
    assert page.locator("#lesson-alpha .lesson-failed").count() == 0
    edit(tmp_path / "content/beta/01-b.md", "y = 1 / 0", "y = 1 + 1")
    assert run_cli(tmp_path, "--no-pdf").returncode == 0  # (up to date: the entry as it was)
    page.reload()
    assert page.locator("#lesson-beta .lesson-failed").count() == 0


def test_bad_course_yml_is_an_error_at_its_line(tmp_path: Path):
    write_lesson(tmp_path, ALPHA, "alpha")
    assert run_cli(tmp_path, "--no-pdf").returncode == 0
    before = tree(tmp_path / "dist")
    (tmp_path / "content/course.yml").write_text(
        "title: Deep learning\nlessons:\n  - alpha\n  - gamma\nterm: [1, 2]\n", "utf-8"
    )
    ran = run_cli(tmp_path, "--no-pdf")
    assert ran.returncode == 1
    errors = [line for line in ran.stderr.splitlines() if ": error [" in line]
    assert errors[0].startswith("content/course.yml:4: error [config] `lessons`: 'gamma'")
    assert errors[1].startswith("content/course.yml:5: error [config] `term: …` must be text")
    assert tree(tmp_path / "dist") == before


def test_no_course_page_when_not_asked_for(tmp_path: Path):
    write_lesson(tmp_path, BETA, "beta")
    assert run_cli(tmp_path, "--no-pdf", "--to", "html,ipynb").returncode == 0
    assert not (tmp_path / "dist/index.html").exists()
    assert run_cli(tmp_path, "--no-pdf").returncode == 0
    assert (tmp_path / "dist/index.html").is_file()


def test_a_lesson_not_built_yet_says_so_and_a_removed_one_goes(tmp_path: Path):
    import shutil

    write_lesson(tmp_path, ALPHA, "alpha")
    write_lesson(tmp_path, BETA, "beta")
    assert run_cli(tmp_path, "alpha", "--no-pdf").returncode == 0
    page = (tmp_path / "dist/index.html").read_text("utf-8")
    assert page.index('id="lesson-alpha"') < page.index('id="lesson-beta"')
    assert re.search(r'id="lesson-beta"><h3>beta</h3><p class="lesson-status">Not built', page)
    assert run_cli(tmp_path, "beta", "--no-pdf").returncode == 0
    shutil.rmtree(tmp_path / "content/alpha")
    assert run_cli(tmp_path, "beta", "--no-pdf").returncode == 0
    page = (tmp_path / "dist/index.html").read_text("utf-8")
    assert 'id="lesson-alpha"' not in page and 'id="lesson-beta"' in page
