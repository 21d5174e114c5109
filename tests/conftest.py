"""Fixtures shared by the engine tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, sync_playwright

from deck.publish.pdf import launch
from fixture_build import Built, copy_fixture, run_build


@pytest.fixture(scope="session")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The `mini` fixture lesson built once with PDFs, shared by read-only tests."""
    root = tmp_path_factory.mktemp("mini")
    copy_fixture("mini", root)
    proc = run_build(root, "mini")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "mini", proc)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, launched once per test module."""
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser context with the deck's 1280×720 viewport."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    yield context
    context.close()
