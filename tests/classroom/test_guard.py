"""The classroom's checks, each alone (deck.classroom.guard), and what the audience's page keeps
of the deck (deck.classroom.page)."""

from __future__ import annotations

from deck.classroom import guard, page


def test_a_host_is_an_ip_address_or_localhost_with_this_servers_port():
    for ok in ("127.0.0.1:8000", "localhost:8000", "192.168.1.20:8000", "[::1]:8000"):
        assert guard.host_allowed(ok, 8000), ok
    assert guard.host_allowed("10.0.0.1", 80)
    for bad in (
        "evil.example:8000",
        "127.0.0.1:8001",
        "999.1.1.1:8000",
        "127.0.0.1",
        "",
        None,
        "127.0.0.1:8000 x",
        "[zz::1]:8000",
        "lo.calhost:8000",
    ):
        assert not guard.host_allowed(bad, 8000), bad


def test_an_origin_is_none_or_this_very_host():
    assert guard.origin_allowed(None, "10.0.0.5:8000")
    assert guard.origin_allowed(["http://10.0.0.5:8000"], "10.0.0.5:8000")
    assert not guard.origin_allowed(["http://10.0.0.5:8000"], "127.0.0.1:8000")
    assert not guard.origin_allowed(["http://10.0.0.5:8000", "x"], "10.0.0.5:8000")
    assert not guard.origin_allowed(["null"], "10.0.0.5:8000")
    assert not guard.origin_allowed(["https://10.0.0.5:8000"], "10.0.0.5:8000")


def test_device_ids_are_the_servers_own_and_the_presenters_secret_is_compared_whole():
    keys, other = guard.Keys("s3cret"), guard.Keys()
    device = keys.new_device()
    assert keys.device(device) == device
    assert keys.device(other.new_device()) is None  # signed by another server
    token, mac = device.split(".")
    assert keys.device(f"{token[:-1]}{'A' if token[-1] != 'A' else 'B'}.{mac}") is None
    assert keys.device(None) is None and keys.device("x" * 39) is None
    assert keys.is_lead("s3cret") and not keys.is_lead("s3cre") and not keys.is_lead(None)
    assert guard.cookies("a=1; deck_device=x.y; a=2") == {"a": "1", "deck_device": "x.y"}


def test_the_rate_limit_allows_a_burst_then_a_steady_pace_per_key():
    limit = guard.RateLimit(burst=3, per_second=1)
    assert [limit.allow("a", now=0.0) for _ in range(4)] == [True, True, True, False]
    assert limit.allow("b", now=0.0)  # another device is not slowed down
    assert not limit.allow("a", now=0.5) and limit.allow("a", now=1.6)


def test_the_gate_bounds_open_connections():
    gate = guard.Gate(2)
    assert gate.enter() and gate.enter() and not gate.enter()
    gate.leave()
    assert gate.enter() and gate.refused == 1


DECK = """<html lang="en"><body><div class="reveal"><div class="slides">
<section><h2>One</h2><aside class="notes"><div>a <div>nested</div> note</div></aside></section>
<section><div class="quiz"><ol>
<li><button class="quiz-choice" data-correct="false">x</button></li>
<li><button class="quiz-choice" data-correct="true">y</button></li></ol>
<div class="quiz-explain" hidden><div><p>why <b>y</b></p></div> right</div>
</div><p>after</p></section>
<section><div class="quiz"><ol><li><button class="quiz-choice" data-correct="true">z</button>
</li></ol></div></section></div></div></body></html>"""


def test_the_audience_page_drops_notes_answers_and_explanations_whole():
    shown = page.audience_page(DECK)
    assert "note" not in shown and "why" not in shown and "right" not in shown
    assert "data-correct" not in shown
    assert '<div class="quiz-explain" hidden></div>' in shown and "<p>after</p>" in shown
    assert len(page.sections(shown)) == 3


def test_the_quizzes_are_read_with_their_slide_answer_and_explanation():
    found = page.quizzes(DECK)
    assert [(q.index, q.slide, q.choices, q.answer) for q in found] == [(0, 1, 2, 1), (1, 2, 1, 0)]
    assert found[0].explain == "<div><p>why <b>y</b></p></div> right" and found[1].explain == ""
