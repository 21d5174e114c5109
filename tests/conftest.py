"""Every engine test may use the shared fixtures of tests/support/fixtures.py."""

import os

from fixtures import browser, context, mini  # noqa: F401

# A build without PDFs checks its layout in Chromium (deck/publish/layoutcheck.py): the tests
# of that check turn it on; elsewhere it would start a browser for every --no-pdf build.
os.environ["DECK_LAYOUT_CHECK"] = "0"
