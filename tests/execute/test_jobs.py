"""deck.jobs.each: a lesson's independent calls (its seeds) side by side, in forked children
besides this process, with the values, printed text and errors of the calls made in order;
in a build, on the cores no section's worker uses, its children's reads the section's inputs."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest

from deck import jobs
from tests.support.fixture_build import run_cli

PARENT = os.getpid()


@pytest.fixture(autouse=True)
def _torch_on_one_thread():
    """Another test of this process may have imported torch, which then runs on every core:
    `each` makes no child beside several threads (test_no_children_while_torch_runs…)."""
    import sys

    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch else 1
    if torch:
        torch.set_num_threads(1)
    yield
    if torch:
        torch.set_num_threads(before)


def where(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def test_the_values_are_those_of_the_calls_in_order_some_made_in_children(monkeypatch):
    monkeypatch.setenv("DECK_JOBS", "3")
    monkeypatch.delenv(jobs.SPARE, raising=False)
    found = jobs.each(where, range(6))
    assert [value for value, _ in found] == [x * x for x in range(6)]
    pids = {pid for _, pid in found}
    assert os.getpid() in pids and len(pids) > 1  # (this process made some, children others)


def test_calls_run_at_the_same_time(monkeypatch):
    """Four calls on four at once: each is running while every other one is (their times on
    the machine's one monotonic clock overlap), where one after the other none would."""
    monkeypatch.setenv("DECK_JOBS", "4")

    def span(x: int) -> tuple[float, float]:
        start = time.monotonic()
        time.sleep(1.0)
        return start, time.monotonic()

    spans = jobs.each(span, range(4))
    assert max(start for start, _ in spans) < min(end for _, end in spans)


def test_printed_text_comes_in_the_items_order(monkeypatch, capsys):
    monkeypatch.setenv("DECK_JOBS", "3")

    def say(x: int) -> int:
        time.sleep(0.3 if x == 0 else 0)  # (the first ends last)
        print(f"item {x}")
        return x

    assert jobs.each(say, range(5)) == list(range(5))
    assert capsys.readouterr().out == "".join(f"item {x}\n" for x in range(5))


def test_an_error_in_a_child_is_raised_here_with_its_traceback(monkeypatch):
    monkeypatch.setenv("DECK_JOBS", "2")

    def fail_in_child(x: int) -> int:
        if os.getpid() != PARENT:
            raise ValueError(f"bad seed {x}")
        time.sleep(0.5)  # (this process's call is slower: the child's fails first)
        return x

    with pytest.raises(ValueError, match="bad seed") as raised:
        jobs.each(fail_in_child, [0, 1])
    assert any("in a child process" in note for note in raised.value.__notes__)
    assert any("fail_in_child" in note for note in raised.value.__notes__)


def test_a_child_killed_has_its_call_made_here(monkeypatch):
    monkeypatch.setenv("DECK_JOBS", "2")

    def killed_in_child(x: int) -> tuple[int, int]:
        if os.getpid() != PARENT:
            os.kill(os.getpid(), signal.SIGKILL)
        return x, os.getpid()

    assert jobs.each(killed_in_child, [0, 1]) == [(0, PARENT), (1, PARENT)]


def test_a_warning_in_a_child_is_given_here(monkeypatch):
    import warnings

    monkeypatch.setenv("DECK_JOBS", "2")

    def warn(x: int) -> int:
        if os.getpid() != PARENT:
            warnings.warn(f"from child {x}", UserWarning, stacklevel=1)
        return x

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jobs.each(warn, [0, 1])
    assert [str(w.message) for w in caught] == ["from child 1"]


def test_in_a_build_only_the_spare_cores_are_used(monkeypatch):
    """The build's pipe of spare cores: none in it, every call is made here (no third process
    beside two sections' workers); one in it, a child makes calls and gives it back."""
    monkeypatch.delenv("DECK_JOBS", raising=False)
    read, write = os.pipe()
    os.set_blocking(read, False)
    monkeypatch.setenv(jobs.SPARE, f"{read},{write}")
    try:
        assert {pid for _, pid in jobs.each(where, range(4))} == {PARENT}
        os.write(write, b"+")
        assert len({pid for _, pid in jobs.each(where, range(4))}) == 2
        assert os.read(read, 10) == b"+"  # (given back)
    finally:
        os.close(read)
        os.close(write)


def test_no_children_for_one_item_or_inside_a_child(monkeypatch):
    monkeypatch.setenv("DECK_JOBS", "4")
    assert jobs.each(where, [3]) == [(9, PARENT)]
    inner = jobs.each(lambda x: (os.getpid(), {p for _, p in jobs.each(where, range(3))}), [0, 1])
    (here, made_here), (child, made_in_child) = inner
    assert here == PARENT and child != PARENT
    assert made_in_child == {child}  # (a child's own calls are all made in it)
    assert len(made_here) > 1  # (this process's own call makes children)


LESSON = """\
## Data

```{python}
import os

from deck.jobs import each

read = each(lambda name: (open(name).read().strip(), os.getpid()), ["one.txt", "two.txt"])
texts = [text for text, _ in read]
```

Read: `{python} " ".join(texts)` in `{python} len({pid for _, pid in read})` processes
"""


def values(page: Path) -> list[str]:
    return re.findall(r'<span class="value"[^>]*>([^<]*)</span>', page.read_text("utf-8"))


def test_in_a_build_a_file_a_child_reads_is_an_input(tmp_path: Path):
    """`two.txt` is read by a child (this process takes the first item): an edit of it makes
    the section run again, and no 'inputs not fully known' for the fork."""
    lesson = tmp_path / "content" / "kids"
    lesson.mkdir(parents=True)
    (lesson / "lesson.yml").write_text("title: Kids\nlang: en\n")
    (lesson / "01-data.md").write_text(LESSON)
    (lesson / "one.txt").write_text("alpha\n")
    (lesson / "two.txt").write_text("beta\n")
    ran = run_cli(tmp_path, "kids", "--no-pdf", "--to", "html", "--jobs", "1")
    assert ran.returncode == 0, ran.stderr
    assert "not fully known" not in ran.stderr + ran.stdout
    page = tmp_path / "dist" / "kids" / "index.html"
    assert values(page) == ["alpha beta", "2"]
    (lesson / "two.txt").write_text("gamma\n")
    ran = run_cli(tmp_path, "kids", "--no-pdf", "--to", "html", "--jobs", "1")
    assert ran.returncode == 0, ran.stderr
    assert values(page) == ["alpha gamma", "2"]


def test_no_children_while_torch_runs_on_several_threads():
    """GNU OpenMP's pool, used before a fork, is not in the child (its first parallel operation
    would wait for ever): a notebook kernel's torch runs on several threads, so there each call
    is made in the kernel itself."""
    import subprocess
    import sys

    code = (
        "import os, torch; torch.set_num_threads(2); torch.ones(1 << 16).sum()\n"
        "from deck.jobs import each\n"
        "print(sorted(set(each(lambda x: os.getpid(), range(3)))) == [os.getpid()])\n"
    )
    env = {**os.environ, "DECK_JOBS": "3", "OMP_NUM_THREADS": "2"}
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert ran.stdout.strip() == "True", ran.stderr
