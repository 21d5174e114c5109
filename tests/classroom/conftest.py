"""The classroom tests' lesson, built once per module, and a classroom server over it per test
(a module may build its own: tests/classroom/test_ink.py)."""

from collections.abc import Iterator

import pytest

from fixture_build import Built
from room_support import Served, build_room, serve_room


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build_room(tmp_path_factory.mktemp("room"))


@pytest.fixture
def served(built: Built) -> Iterator[Served]:
    with serve_room(built) as served:
        yield served
