"""Fixtures shared by the engine tests; tests/conftest.py makes them every test's.

Playwright is imported only by the fixtures that drive Chromium, so a test that needs no
browser never loads it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from fixture_build import Built, copy_fixture, run_build

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext


@pytest.fixture(scope="session")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The `mini` fixture lesson built once with PDFs, shared by read-only tests.

    A real CLI process: PDF printing runs Playwright's async API, which cannot run in a
    thread where the `browser` fixture's sync session is open."""
    root = tmp_path_factory.mktemp("mini")
    copy_fixture("mini", root)
    proc = run_build(root, "mini")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "mini", proc)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, launched once per test module."""
    from playwright.sync_api import sync_playwright

    from deck.publish.pdf import launch

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
