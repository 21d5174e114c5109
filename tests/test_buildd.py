"""The warm build service (deck/buildd.py): `python build.py` run in a fork of a service holding
the engine imported gives what a build of its own process gives (its output on the author's
descriptors, its exit status), stops on the author's Ctrl-C and when `build.py` is killed, and
is never used for another key (here: another `PYTHON…` variable)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from catalogue import write_lesson
from deck import buildd
from fixture_build import ROOT, copy_fixture

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the service forks")


@pytest.fixture
def service(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A service of its own (socket, log) for a test's builds; their environment."""
    env = dict(os.environ, DECK_BUILDD="1", DECK_BUILDD_IDLE="60")
    env["DECK_BUILDD_SOCKET"] = str(tmp_path / "s" / "buildd.sock")
    (tmp_path / "s").mkdir()
    log = open(tmp_path / "s" / "service.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        buildd.service_command(),
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    until = time.monotonic() + 30
    while not Path(env["DECK_BUILDD_SOCKET"]).exists():
        assert proc.poll() is None and time.monotonic() < until, (
            tmp_path / "s/service.log"
        ).read_text()
        time.sleep(0.05)
    yield env
    proc.terminate()
    proc.wait(10)
    log.close()


def forks(env: dict[str, str]) -> list[str]:
    """The builds the service forked, as its log says them."""
    text = (Path(env["DECK_BUILDD_SOCKET"]).parent / "service.log").read_text()
    return [line.split(": ", 1)[1] for line in text.splitlines() if "] build " in line]


def build(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *args],
        cwd=root, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.slow
def test_a_build_in_the_service_is_the_build_of_its_own_process(
    tmp_path: Path, service: dict[str, str]
) -> None:
    copy_fixture("mini", tmp_path)
    warm = build(tmp_path, service, "mini", "--no-pdf")
    assert warm.returncode == 0, warm.stderr
    assert forks(service) == ["mini --no-pdf"]  # (the service ran it)
    assert "mini: " in warm.stderr and "wrote   dist/mini/index.html" in warm.stderr
    page = (tmp_path / "dist" / "mini" / "index.html").read_bytes()
    values = (tmp_path / "dist" / "mini" / "values.json").read_bytes()
    own = build(tmp_path, {**service, "DECK_BUILDD": "0"}, "mini", "--no-pdf", "--force")
    assert own.returncode == 0 and len(forks(service)) == 1
    assert (tmp_path / "dist" / "mini" / "index.html").read_bytes() == page
    assert (tmp_path / "dist" / "mini" / "values.json").read_bytes() == values
    again = build(tmp_path, service, "mini", "--no-pdf")  # stdout too, and the working folder
    assert "up to date" in again.stderr and len(forks(service)) == 2


def test_its_errors_and_exit_status_reach_the_author(
    tmp_path: Path, service: dict[str, str]
) -> None:
    write_lesson(tmp_path, {"01-a.md": "## A\n\n```{python}\n1 / 0\n```\n"})
    failed = build(tmp_path, service, "cat", "--no-pdf")
    assert failed.returncode == 1 and forks(service) == ["cat --no-pdf"]
    assert "content/cat/01-a.md:4: error" in failed.stderr and "ZeroDivisionError" in failed.stderr
    usage = build(tmp_path, service, "--jobs", "0")
    assert usage.returncode == 2 and "--jobs must be at least 1" in usage.stderr
    helped = build(tmp_path, service, "--help")
    assert helped.returncode == 0 and "usage: build.py" in helped.stdout


@pytest.mark.slow
def test_another_key_is_never_served(tmp_path: Path, service: dict[str, str]) -> None:
    copy_fixture("mini", tmp_path)
    other = build(tmp_path, {**service, "PYTHONWARNDEFAULTENCODING": ""}, "mini", "--no-pdf")
    assert other.returncode == 0 and forks(service) == []  # (it ran itself)
    log = (Path(service["DECK_BUILDD_SOCKET"]).parent / "service.log").read_text()
    assert "another key" in log  # (and the service ended: the next build starts a fresh one)


@pytest.mark.parametrize("stop", ["SIGINT", "SIGKILL"])
def test_ctrl_c_or_a_kill_of_build_py_ends_the_build(
    tmp_path: Path, service: dict[str, str], stop: str
) -> None:
    marker = tmp_path / "started"
    cell = f"import pathlib, time\npathlib.Path({str(marker)!r}).write_text('x')\ntime.sleep(120)"
    write_lesson(tmp_path, {"01-a.md": f"## A\n\n```{{python}}\n{cell}\n```\n"})
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "build.py"), "cat", "--no-pdf"],
        cwd=tmp_path, env=service, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    until = time.monotonic() + 60
    while not marker.exists():
        assert time.monotonic() < until and proc.poll() is None
        time.sleep(0.05)
    log = (Path(service["DECK_BUILDD_SOCKET"]).parent / "service.log").read_text()
    build_pid = int(log.split("] build ")[1].split(":")[0])  # (the log names it)
    proc.send_signal(getattr(signal, stop))
    proc.wait(30)
    if stop == "SIGINT":
        assert proc.returncode == 130, proc.stderr.read() if proc.stderr else ""
    until = time.monotonic() + 10  # (a cell sleeping 120 s: only the end of build.py ends it)
    while _alive(build_pid):  # the build (and its cell's worker) ended with build.py
        assert time.monotonic() < until, f"the build {build_pid} outlived build.py"
        time.sleep(0.1)
    assert not (tmp_path / "dist" / "cat").exists()  # (nothing half-published)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # (a zombie the service has not reaped yet is gone)
        return f.read().split(")")[-1].split()[0] != "Z"


def test_serve_and_python_flags_run_in_their_own_process() -> None:
    os.environ["DECK_BUILDD"] = "1"
    try:
        assert buildd.enabled(["mini", "--no-pdf"])
        assert not buildd.enabled(["mini", "--serve"])
    finally:
        os.environ["DECK_BUILDD"] = "0"
    assert not buildd.enabled(["mini"])  # (off)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["killed", "older"])
def test_a_service_that_does_not_answer_makes_way_for_a_new_one(tmp_path: Path, kind: str) -> None:
    """`killed`: a service ended without removing its socket file (connecting is refused);
    `older`: an older engine's service, which cannot read the request and closes the
    connection without an answer (each request would keep it from going idle). Either way the
    build runs itself, the socket file is removed, and the service it starts runs the next."""
    import socket
    import threading

    copy_fixture("mini", tmp_path)
    (tmp_path / "s").mkdir()
    path = tmp_path / "s" / "buildd.sock"
    env = dict(os.environ, DECK_BUILDD="1", DECK_BUILDD_IDLE="30", DECK_BUILDD_SOCKET=str(path))
    old = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old.bind(str(path))
    if kind == "killed":
        old.close()  # (its file stays: connecting to it is refused)
    else:
        old.listen(4)

        def close_unanswered() -> None:
            while True:
                try:
                    conn, _ = old.accept()
                except OSError:
                    return
                conn.recv(65536)
                conn.close()

        threading.Thread(target=close_unanswered, daemon=True).start()
    old_inode = path.stat().st_ino
    try:
        first = build(tmp_path, env, "mini", "--no-pdf")
        assert first.returncode == 0, first.stderr
        until = time.monotonic() + 60
        while not (path.exists() and path.stat().st_ino != old_inode):
            assert time.monotonic() < until, "no new service started"
            time.sleep(0.05)
        second = build(tmp_path, env, "mini", "--no-pdf")
        assert second.returncode == 0 and "up to date" in second.stderr
        log = (tmp_path / "s" / "buildd.log").read_text()
        assert "] build " in log and "mini --no-pdf" in log  # (the new service ran it)
    finally:
        old.close()
        path.unlink(missing_ok=True)  # (the new service ends when its socket file is gone)


@pytest.mark.slow
def test_a_build_that_runs_itself_starts_the_service_first(tmp_path: Path) -> None:
    """The service a build starts (none answered it) is listening when that build ends, so the
    build right after it, however soon, is the service's: started after the build, it was
    still importing the engine then, and that next build ran in its own process too."""
    write_lesson(tmp_path, {"01-a.md": "## 慢\n\n```{python}\nimport time\ntime.sleep(6)\n```\n"})
    (tmp_path / "s").mkdir()
    path = tmp_path / "s" / "buildd.sock"
    env = dict(os.environ, DECK_BUILDD="1", DECK_BUILDD_IDLE="30", DECK_BUILDD_SOCKET=str(path))
    try:
        first = build(tmp_path, env, "cat", "--no-pdf")
        assert first.returncode == 0, first.stderr
        assert path.exists()  # (listening as the build ended)
        second = build(tmp_path, env, "cat", "--no-pdf")
        assert second.returncode == 0 and "up to date" in second.stderr
        log = (tmp_path / "s" / "buildd.log").read_text()
        assert "] build " in log and ": cat --no-pdf" in log  # (the service ran the second)
    finally:
        path.unlink(missing_ok=True)  # (the service ends when its socket file is gone)


def test_the_key_follows_every_engine_file_even_rewritten_with_its_old_size_and_mtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service asks its key at every request and keeps each file's hash by its identity
    (size, mtime, ctime, inode): a file rewritten with the same size and its old mtime set back
    (`touch -r`) still changes the key, through its ctime; a new file changes it too."""
    engine = tmp_path / "deck"
    (engine / "sub").mkdir(parents=True)
    (tmp_path / "build.py").write_text("print('build')\n")
    (engine / "a.py").write_text("A = 1\n")
    (engine / "sub" / "b.py").write_text("B = 2\n")
    monkeypatch.setattr(buildd, "ENGINE", engine)
    monkeypatch.setattr(buildd, "ROOT", tmp_path)
    monkeypatch.setattr(buildd, "RACY_NS", 0)  # (kept at once: the test need not wait)
    monkeypatch.setattr(buildd, "_DIGESTS", {})
    env = {"PATH": "/bin"}
    first = buildd.service_key(env)
    assert buildd.service_key(env) == first and len(buildd._DIGESTS) == 3
    st = (engine / "a.py").stat()
    time.sleep(0.01)
    (engine / "a.py").write_text("A = 7\n")  # the same size
    os.utime(engine / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns))  # its old mtime
    assert (engine / "a.py").stat().st_mtime_ns == st.st_mtime_ns
    second = buildd.service_key(env)
    assert second != first
    (engine / "sub" / "c.py").write_text("")
    assert buildd.service_key(env) not in (first, second)
    assert buildd.service_key({**env, "PYTHONHASHSEED": "1"}) != buildd.service_key(env)


def kept(env: dict[str, str]) -> list[int]:
    """How many things each build handed back to the service (deck.warm), as its log says."""
    text = (Path(env["DECK_BUILDD_SOCKET"]).parent / "service.log").read_text()
    return [
        int(line.split("] kept ")[1].split()[0]) for line in text.splitlines() if "] kept " in line
    ]


def wait_kept(env: dict[str, str], count: int) -> list[int]:
    until = time.monotonic() + 30
    while len(kept(env)) < count and time.monotonic() < until:
        time.sleep(0.05)
    return kept(env)


def test_a_fork_takes_what_earlier_builds_made_for_the_same_input_alone(
    tmp_path: Path, service: dict[str, str]
) -> None:
    folder = write_lesson(
        tmp_path,
        {
            "01-a.md": "## 一\n\n```{python}\nx = 6 * 7\n```\n\n答案是 `{python} x`。\n",
            "02-b.md": "## 二\n\n{{< include part.md >}}\n",
            "part.md": "包含的第一版。\n",
        },
    )
    first = build(tmp_path, service, "cat", "--no-pdf")
    assert first.returncode == 0, first.stderr
    # each section's cache entry and render; the parse of 01-a.md alone (02-b.md has a
    # shortcode)
    assert wait_kept(service, 1) == [5]
    page = tmp_path / "dist" / "cat" / "index.html"
    (folder / "01-a.md").write_text(
        "## 一\n\n```{python}\nx = 6 * 7\n```\n\n答案仍是 `{python} x`。\n"
    )
    second = build(tmp_path, service, "cat", "--no-pdf")
    assert second.returncode == 0, second.stderr
    assert "答案仍是" in page.read_text("utf-8")
    assert wait_kept(service, 2)[1] == 2  # the edited file's parse and render: the rest taken
    (folder / "part.md").write_text("包含的第二版。\n")
    third = build(tmp_path, service, "cat", "--no-pdf")
    assert third.returncode == 0, third.stderr
    assert "包含的第二版" in page.read_text("utf-8")  # (the included file is read again)
    assert wait_kept(service, 3)[2] == 1  # 02-b.md's render: the rest taken as kept
    assert len(forks(service)) == 3
    own = build(
        tmp_path, {**service, "DECK_BUILDD": "0"}, "cat", "--no-pdf", "--force", "--out", "own"
    )
    assert own.returncode == 0, own.stderr
    assert (tmp_path / "own" / "cat" / "index.html").read_bytes() == page.read_bytes()


def test_a_build_that_ran_itself_hands_what_it_made_to_the_service(tmp_path: Path) -> None:
    cell = "## 慢\n\n```{python}\nimport time\ntime.sleep(1.5)\nx = 1\n```\n\n值 `{python} x`。\n"
    folder = write_lesson(tmp_path, {"01-a.md": cell})
    (tmp_path / "s").mkdir()
    path = tmp_path / "s" / "buildd.sock"
    env = dict(os.environ, DECK_BUILDD="1", DECK_BUILDD_IDLE="30", DECK_BUILDD_SOCKET=str(path))
    log = tmp_path / "s" / "buildd.log"

    def kept_lines() -> list[str]:
        until = time.monotonic() + 30
        while "] kept " not in log.read_text() and time.monotonic() < until:
            time.sleep(0.05)
        return [line for line in log.read_text().splitlines() if "] kept " in line]

    try:
        first = build(tmp_path, env, "cat", "--no-pdf")  # (none answers: it runs itself)
        assert first.returncode == 0, first.stderr
        (handed,) = kept_lines()
        assert "kept 3 things" in handed and "handed over" in handed  # parse, entry, render
        (folder / "01-a.md").write_text(cell + "\n一段新话。\n", "utf-8")
        second = build(tmp_path, env, "cat", "--no-pdf")
        assert second.returncode == 0, second.stderr
        assert "一段新话" in (tmp_path / "dist" / "cat" / "index.html").read_text("utf-8")
        until = time.monotonic() + 30
        while len(kept_lines()) < 2 and time.monotonic() < until:
            time.sleep(0.05)
        assert "kept 2 things" in kept_lines()[1]  # (the new parse and render: the entry taken)
    finally:
        path.unlink(missing_ok=True)  # (the service ends when its socket file is gone)
