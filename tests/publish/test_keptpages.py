"""The warm service's kept pages (deck/publish/keptpages.py): one page measures deck after
deck, each answer that deck's own (what a fresh page says), never the page's last deck's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_layout_check import SLIDES, lesson

from deck.publish.keptpages import KeptPages
from deck.publish.pdf import launch, measure_overflow
from fixture_build import run_build

pytestmark = pytest.mark.browser

FITS = "## 合适\n\n短。\n\n## 也合适\n\n- 第 0 行\n\n## 还合适\n\n$$x$$\n"


def deck(root: Path, text: str) -> Path:
    lesson(root, text)
    built = run_build(root, "long", "--no-pdf")
    assert built.returncode == 0, built.stderr
    return root / "dist" / "long" / "index.html"


@pytest.mark.slow
def test_a_kept_page_measures_each_deck_as_a_fresh_page_does(tmp_path: Path):
    from playwright.sync_api import sync_playwright

    long, fits = deck(tmp_path / "a", SLIDES), deck(tmp_path / "b", FITS)
    again = tmp_path / "c"  # the first deck again, at URLs of its own (a build's staging)
    shutil.copytree(long.parent, again)
    kept = KeptPages()
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            fresh = measure_overflow(browser, long, 3)
            first = kept(browser, long, 3)
            page = kept.pages[None]
            assert [o.slide for o in first] == [o.slide for o in fresh] == [2, 3]
            assert kept(browser, fits, 3) == []  # not the last deck's overflows
            assert kept(browser, again / "index.html", 3, only=(2,)) == [
                o for o in fresh if o.slide == 2
            ]
            assert kept.pages[None] is page  # one page did it all
        finally:
            browser.close()
