"""Every engine test may use the shared fixtures of tests/support/fixtures.py."""

import os

from fixtures import browser, context, mini  # noqa: F401

# A build without PDFs checks its layout in Chromium (deck/publish/layoutcheck.py): the tests
# of that check turn it on; elsewhere it would start a browser for every --no-pdf build.
os.environ["DECK_LAYOUT_CHECK"] = "0"
# The layout check's warm browser (deck/publish/layoutd.py) ends 5 s after its last request,
# not minutes: no service a test started outlives the tests for long.
os.environ["DECK_LAYOUTD_IDLE"] = "5"
