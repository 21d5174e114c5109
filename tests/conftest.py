"""Every engine test may use the shared fixtures of tests/support/fixtures.py."""

import os
from pathlib import Path

import pytest

from fixtures import browser, context, mini  # noqa: F401

# A build without PDFs checks its layout in Chromium (deck/publish/layoutcheck.py): the tests
# of that check turn it on; elsewhere it would start a browser for every --no-pdf build.
os.environ["DECK_LAYOUT_CHECK"] = "0"
# The layout check's warm browser (deck/publish/layoutd.py) ends 5 s after its last request,
# not minutes: no service a test started outlives the tests for long.
os.environ["DECK_LAYOUTD_IDLE"] = "5"
# A `build.py` a test starts runs in its own process (deck/buildd.py's warm service would hold
# the engine as the first such build found it, and outlive the test); the service's own tests
# (tests/test_buildd.py) turn it on for theirs.
os.environ["DECK_BUILDD"] = "0"
# Font subsets are kept in one folder for every build of the tests (deck.publish.fonts,
# `$DECK_FONT_CACHE`; keyed by the font file's identity and the characters): a fresh build's
# subsetting of the CJK faces took 2 of its 4 seconds. tests/publish/test_fonts.py, which
# counts the subsets a build makes, gives each of its builds an empty store of its own.
os.environ.setdefault(
    "DECK_FONT_CACHE", str(Path(__file__).resolve().parents[1] / ".cache" / "test-fonts")
)

# torch sets TORCHINDUCTOR_CACHE_DIR for itself in a process that imports its compiler (the
# lesson's tests do, in the tests' processes). A section reads it, so a build given it by the
# tests would be cached for that value, and the next build without it (the author's, or the
# next test's) would run those sections again: minutes of the main lesson each time.
STARTED_WITH = set(os.environ)


@pytest.fixture(autouse=True)
def _no_variable_torch_set_for_itself():
    yield
    for name in [k for k in os.environ if k.startswith("TORCHINDUCTOR_")]:
        if name not in STARTED_WITH:
            del os.environ[name]
