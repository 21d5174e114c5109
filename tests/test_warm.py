"""What builds keep in memory between them (deck.warm): kept under keys of everything they
were made from, handed back from a fork whole or not at all, the least recently used dropped
first."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from deck import warm


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    warm.forget()
    yield
    warm.forget()


def test_a_key_tells_its_parts_apart() -> None:
    assert warm.key("ab", "c") != warm.key("a", "bc")
    assert warm.key("a", b"b") == warm.key("a", "b")


def test_what_a_fork_made_and_took_is_handed_back_to_the_service() -> None:
    warm.put("section", "k1", ("parsed", 1))
    service_state = warm.handed()
    warm.forget()
    assert warm.take_back(service_state) == 1
    warm.began_fork()  # (a fork of the service: it has k1)
    assert warm.get("section", "k1") == ("parsed", 1)
    warm.put("render", "k2", "slides")
    made = warm.handed()
    warm.forget()
    assert warm.take_back(made) == 1  # k2 only: k1 was the service's already
    assert warm.get("render", "k2") == "slides" and warm.get("section", "k1") is None


def test_damaged_data_is_dropped_whole() -> None:
    warm.put("section", "k1", 1)
    data = warm.handed()
    warm.forget()
    assert warm.take_back(data[:-3]) == 0
    assert warm.take_back(b"not a pickle") == 0
    assert warm.get("section", "k1") is None


def test_the_least_recently_used_go_first() -> None:
    for n in range(warm.KEEP):
        warm.put("entry", f"k{n}", n)
    warm.began_fork()
    assert warm.get("entry", "k0") == 0  # taken: now the newest where it came from
    took = warm.handed()
    assert warm.take_back(took) == 0
    warm.put("entry", "new", -1)  # one too many: k1 goes, not k0
    assert warm.get("entry", "k0") == 0 and warm.get("entry", "k1") is None


def test_a_thing_that_cannot_be_handed_back_is_left_out_alone() -> None:
    warm.put("render", "fine", "slides")
    warm.put("render", "odd", lambda: None)  # (no pickle for a lambda)
    data = warm.handed()
    warm.forget()
    assert warm.take_back(data) == 1 and warm.get("render", "fine") == "slides"
