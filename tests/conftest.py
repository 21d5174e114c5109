"""Fixtures shared by the engine tests."""

from __future__ import annotations

import pytest

from fixture_build import Built, copy_fixture, run_build


@pytest.fixture(scope="session")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The `mini` fixture lesson built once with PDFs, shared by read-only tests."""
    root = tmp_path_factory.mktemp("mini")
    copy_fixture("mini", root)
    proc = run_build(root, "mini")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "mini", proc)
