"""Work done beside the build (deck.publish.ahead): the value comes from a child process, a
failure there is raised by the build itself, an unwanted child is ended, and the notebooks
made beside the build are those made in it."""

from __future__ import annotations

import json
import os
import time

import pytest

from deck.publish.ahead import Ahead


def test_the_value_is_computed_in_a_child_process_while_the_caller_goes_on():
    parent = os.getpid()
    started = time.perf_counter()
    ahead = Ahead(lambda: (os.getpid(), time.sleep(0.5)))
    took = time.perf_counter() - started
    assert ahead.forked and took < 0.4  # (it did not wait for the work)
    pid, _ = ahead.result()
    assert pid != parent
    assert time.perf_counter() - started >= 0.5


def test_started_from_a_thread_other_than_the_main_one_the_child_still_answers():
    """`--serve` builds in a thread of its own."""
    import threading

    found: list[int] = []
    thread = threading.Thread(target=lambda: found.append(Ahead(os.getpid).result()))
    thread.start()
    thread.join(30)
    assert found and found[0] != os.getpid()


def test_off_it_is_done_in_the_caller(monkeypatch):
    monkeypatch.setenv("DECK_AHEAD", "0")
    ahead = Ahead(os.getpid)
    assert not ahead.forked and ahead.result() == os.getpid()


def test_a_failure_in_the_child_is_raised_by_the_caller_doing_the_work_again():
    calls = []

    def work() -> int:
        calls.append(os.getpid())
        raise ValueError("the work's own error")

    ahead = Ahead(work)
    with pytest.raises(ValueError, match="the work's own error"):
        ahead.result()
    assert calls == [os.getpid()]  # (the child's call was in its own memory)


def test_a_child_whose_value_is_not_wanted_is_ended_and_reaped():
    ahead = Ahead(lambda: time.sleep(60))
    pid = ahead._pid
    assert pid is not None
    started = time.perf_counter()
    ahead.close()
    assert time.perf_counter() - started < 5
    with pytest.raises(ChildProcessError):  # (reaped: no zombie left)
        os.waitpid(pid, os.WNOHANG)


def test_a_child_that_does_not_answer_in_time_is_ended_and_the_work_done_here(monkeypatch):
    from deck.publish import ahead as module

    monkeypatch.setattr(module, "WAIT", 0.5)
    parent = os.getpid()
    started = time.perf_counter()
    ahead = Ahead(lambda: "here" if os.getpid() == parent else time.sleep(60))
    pid = ahead._pid
    assert ahead.result() == "here"
    assert 0.5 <= time.perf_counter() - started < 10
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_a_large_value_comes_back_whole():
    data = os.urandom(8 << 20)
    assert Ahead(lambda: data).result() == data


@pytest.mark.slow
def test_the_notebooks_made_beside_the_build_are_those_made_in_it(tmp_path, monkeypatch):
    from test_notebook import LESSON, build  # (a lesson with exercises)

    from catalogue import write_lesson

    made = {}
    for ahead in ("1", "0"):
        monkeypatch.setenv("DECK_AHEAD", ahead)
        root = tmp_path / ahead
        write_lesson(root, LESSON, "nb")
        build(root)
        out = root / "dist" / "nb"
        made[ahead] = {p.name: p.read_bytes() for p in sorted(out.glob("*.ipynb"))}
    assert made["1"] == made["0"] and len(made["1"]) == 2
    for data in made["1"].values():
        assert json.loads(data)["cells"]
