"""Every engine test may use the shared fixtures of tests/support/fixtures.py."""

from fixtures import browser, context, mini  # noqa: F401
