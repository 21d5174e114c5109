"""Faults in cells: each is reported at the line that was running, in bounded time, with
nothing left behind (no process, no changed output), through the real command line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, processes_with, write_lesson
from fixture_build import ROOT, run_build, run_cli

YML = "title: 限制\nlang: zh-CN\nexec:\n  seed: 0\n  timeout: 20\n"


@pytest.fixture(autouse=True)
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A TMPDIR of the test's own: the workers' command lines name it, so a worker left
    running would be found by `processes_with`."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))  # the build in this process too
    return folder


def at(folder: Path, file: str, needle: str, nth: int = 1) -> str:
    """`content/<lesson>/<file>:<line>` of the `nth` line containing `needle`."""
    lines = (folder / file).read_text("utf-8").splitlines()
    found = [n for n, line in enumerate(lines, start=1) if needle in line]
    number = found[nth - 1] if nth > 0 else found[nth]
    return f"{folder.relative_to(folder.parent.parent).as_posix()}/{file}:{number}"


def fails(root: Path, where: str, says: str, marker: str | None = None) -> str:
    proc = assert_failed_cleanly(root, ["cat", "--no-pdf"], where, says=says, marker=marker)
    assert processes_with(str(Path(os.environ["TMPDIR"]))) == [], "a worker outlived the build"
    return proc.stderr


def two_cells(second: str) -> str:
    """A section whose first cell is fine and whose second cell is `second`."""
    return (
        "## 第一张\n\n```{python}\nx = 1\n```\n\n## 第二张\n\n```{python}\n"
        + second.strip("\n")
        + "\n```\n"
    )


def test_os_exit_is_reported_at_the_running_cell(tmp_path: Path):
    folder = write_lesson(tmp_path, {"01-a.md": two_cells("import os\nos._exit(3)")})
    fails(tmp_path, at(folder, "01-a.md", "```{python}", 2), "exited with code 3")


def test_segfault_is_named_in_words(tmp_path: Path):
    folder = write_lesson(tmp_path, {"01-a.md": two_cells("import ctypes\nctypes.string_at(0)")})
    fails(tmp_path, at(folder, "01-a.md", "```{python}", 2), "segmentation fault (SIGSEGV)")


def test_sigkill_suggests_memory(tmp_path: Path):
    code = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"
    folder = write_lesson(tmp_path, {"01-a.md": two_cells(code)})
    fails(tmp_path, at(folder, "01-a.md", "```{python}", 2), "killed by SIGKILL (out of memory?)")


def test_repr_that_raises_is_an_error_in_the_cell(tmp_path: Path):
    code = """
class Odd:
    def __repr__(self):
        raise ValueError("no repr today")

Odd()
"""
    folder = write_lesson(tmp_path, {"01-a.md": two_cells(code)})
    fails(tmp_path, at(folder, "01-a.md", 'raise ValueError("no repr'), "no repr today")


def test_lone_surrogate_in_printed_text_is_an_error_at_the_cell(tmp_path: Path):
    code = 'print(b"caf\\xe9".decode("utf-8", "surrogateescape"))'
    folder = write_lesson(tmp_path, {"01-a.md": two_cells(code)})
    fails(tmp_path, at(folder, "01-a.md", "```{python}", 2), "printed text is not valid Unicode")


def test_glyph_missing_from_every_font_is_an_error_at_the_cell(tmp_path: Path):
    code = """
#| fig-alt: 一条线
import matplotlib.pyplot as plt
plt.plot([0, 1])
plt.title("\\U00010000")
"""
    folder = write_lesson(tmp_path, {"01-a.md": two_cells(code)})
    fails(tmp_path, at(folder, "01-a.md", "```{python}", 2), "missing from font")


@pytest.mark.slow
def test_cell_that_swallows_its_timeout_is_stopped_with_its_children(tmp_path: Path):
    marker = f"399.{os.getpid()}4242"  # a unique number of seconds to sleep
    code = f"""
#| timeout: 1
import subprocess, time
subprocess.Popen(["sleep", "{marker}"])
while True:
    try:
        time.sleep(10)
    except BaseException:
        pass
"""
    folder = write_lesson(tmp_path, {"01-a.md": two_cells(code)})
    stderr = fails(tmp_path, at(folder, "01-a.md", "```{python}", 2), "after 1 s", marker)
    assert "[timeout]" in stderr


@pytest.mark.slow
def test_inline_expression_that_never_ends_is_stopped_at_its_line(tmp_path: Path):
    section = """
    ## 一张

    ```{python}
    import time

    def stubborn():
        while True:
            try:
                time.sleep(10)
            except BaseException:
                pass
    ```

    永远算不完：`{python} stubborn()`。
    """
    yml = YML.replace("timeout: 20", "timeout: 1")
    folder = write_lesson(tmp_path, {"lesson.yml": yml, "01-a.md": section})
    stderr = fails(tmp_path, at(folder, "01-a.md", "stubborn()`"), "inline expression")
    assert "[timeout]" in stderr


@pytest.mark.slow
def test_child_process_does_not_outlive_a_successful_build(tmp_path: Path):
    marker = f"399.{os.getpid()}4343"
    code = f'import subprocess\nsubprocess.Popen(["sleep", "{marker}"])\nx = 2'
    write_lesson(tmp_path, {"01-a.md": two_cells(code)})
    proc = run_cli(tmp_path, "cat", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    assert processes_with(marker) == []
    assert processes_with(os.environ["TMPDIR"]) == []


def test_memory_cap_is_reported_at_the_line_with_the_setting(tmp_path: Path):
    yml = YML + "  memory: 1G\n"
    code = "block = bytearray(3 * 2**30)"
    folder = write_lesson(tmp_path, {"lesson.yml": yml, "01-a.md": two_cells(code)})
    stderr = fails(tmp_path, at(folder, "01-a.md", "bytearray"), "exec.memory = 1,024 MB")
    assert "[memory]" in stderr


@pytest.mark.slow
def test_printed_output_beyond_the_limit_is_truncated_with_a_note(tmp_path: Path):
    yml = YML + "  output: 1000\n"
    write_lesson(tmp_path, {"lesson.yml": yml, "01-a.md": two_cells('print("x" * 50_000)')})
    proc = run_cli(tmp_path, "cat", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    values = json.loads((tmp_path / "dist/cat/values.json").read_text("utf-8"))
    (printed,) = [o["text"] for o in values["outputs"] if o["kind"] == "stdout"]
    note = "\n… output truncated: 50,001 characters, showing the first 1,000"
    assert printed == "x" * 1000 + note
    assert note in (tmp_path / "dist/cat/index.html").read_text("utf-8")


@pytest.mark.slow
def test_cells_read_stdin_from_dev_null(tmp_path: Path):
    section = """
    ## 一张

    ```{python}
    import os
    stdin = os.readlink("/proc/self/fd/0")
    ```

    标准输入：`{python} stdin`。

    ```{python}
    answer = input()
    ```
    """
    folder = write_lesson(tmp_path, {"01-a.md": section})
    fails(tmp_path, at(folder, "01-a.md", "input()"), "EOFError")
    (folder / "01-a.md").write_text(
        (folder / "01-a.md").read_text("utf-8").replace("input()", "'-'"), "utf-8"
    )
    proc = run_cli(tmp_path, "cat", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    values = json.loads((tmp_path / "dist/cat/values.json").read_text("utf-8"))
    assert values["values"][0]["text"] == "/dev/null"


@pytest.mark.slow
def test_set_order_and_figures_are_identical_across_clean_builds(tmp_path: Path):
    section = """
    ## 一张

    ```{python}
    #| label: line
    #| fig-alt: 一条线
    import matplotlib.pyplot as plt
    words = set("注意力 attention query key value".split())
    plt.plot([0, 1, 2], [1, 0, 2])
    ```

    集合：`{python} repr(words)`。
    """
    write_lesson(tmp_path, {"01-a.md": section})
    builds = []
    for _ in range(2):
        for folder in ("dist", "figures", ".cache"):
            subprocess.run(["rm", "-rf", str(tmp_path / folder)], check=True)
        proc = run_build(tmp_path, "cat", "--no-pdf")  # a process each: no hash seed shared
        assert proc.returncode == 0, proc.stderr
        out = tmp_path / "dist/cat"
        builds.append(
            {
                name: (out / name).read_bytes()
                for name in ("index.html", "values.json", "figures/line.svg")
            }
        )
    assert builds[0] == builds[1]
    html = builds[0]["index.html"].decode()
    assert "Line2D" not in html and "Line2D" not in builds[0]["values.json"].decode()
    # the order is that of Python with PYTHONHASHSEED=0, computed independently
    expected = subprocess.run(
        [sys.executable, "-c", 'print(repr(set("注意力 attention query key value".split())))'],
        env=dict(os.environ, PYTHONHASHSEED="0"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    values = json.loads(builds[0]["values.json"])
    assert values["values"][0]["text"] == expected


def _build_in_background(root: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(ROOT / "build.py"), "cat", "--no-pdf"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(condition, what: str, limit: float = 60.0) -> None:
    end = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.1)


HANGING = """
import subprocess, time
subprocess.Popen(["sleep", "{marker}"])
time.sleep(300)
"""


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_interrupted_build_leaves_no_process(tmp_path: Path, how: signal.Signals):
    marker = f"399.{os.getpid()}{int(how)}4444"
    code = HANGING.format(marker=marker)
    write_lesson(tmp_path, {"01-a.md": two_cells(code), "02-b.md": two_cells(code)})
    build = _build_in_background(tmp_path)
    try:
        _wait_for(lambda: len(processes_with(marker)) == 2, "both cells to start their child")
        build.send_signal(how)
        build.wait(timeout=60)
    finally:
        build.kill()
        build.communicate()
    assert build.returncode != 0
    # after a Ctrl-C the build killed the workers itself; after kill -9 each worker sees its
    # parent gone and kills its own group: either way nothing is left.
    _wait_for(lambda: processes_with(marker) == [], "the cells' children to be gone", 20)
    _wait_for(lambda: processes_with(os.environ["TMPDIR"]) == [], "the workers to be gone", 20)


def test_crash_in_an_inline_expression_is_reported_at_its_line(tmp_path: Path):
    section = "## 一张\n\n```{python}\nimport os\n```\n\n值：`{python} os._exit(4)`。\n"
    folder = write_lesson(tmp_path, {"01-a.md": section})
    stderr = fails(tmp_path, at(folder, "01-a.md", "os._exit(4)"), "exited with code 4")
    assert "while this inline expression ran" in stderr


def test_garbage_on_the_progress_socket_is_ignored(tmp_path: Path):
    code = 'import os, sys\nos.write(int(sys.argv[3]), b"not an event\\n{}\\n")\nx = 3'
    write_lesson(tmp_path, {"01-a.md": two_cells(code)})
    proc = run_cli(tmp_path, "cat", "--no-pdf")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    "code,says",
    [
        ('raise ValueError("bad \\udcff byte")', "ValueError: bad \\udcff byte"),
        (
            "class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError\n"
            "\nraise Odd()",
            "Odd: (its message could not be shown)",
        ),
    ],
    ids=["surrogate-in-message", "message-that-raises"],
)
def test_exception_with_an_unprintable_message_is_still_reported(
    tmp_path: Path, code: str, says: str
):
    folder = write_lesson(tmp_path, {"01-a.md": two_cells(code)})
    fails(tmp_path, at(folder, "01-a.md", "raise ", -1 if "Odd" in code else 1), says)


# ---- what a cell leaves behind cannot hold the build or outlive it -----------------------------

LEFT_RUNNING = {
    "thread": "import threading, time\n"
    'threading.Thread(target=time.sleep, args=(1000,), name="sleeper").start()',
    "atexit": "import atexit, time\natexit.register(time.sleep, 1000)",
}


@pytest.mark.parametrize("what", sorted(LEFT_RUNNING))
@pytest.mark.slow
def test_a_leftover_thread_or_atexit_hook_cannot_hold_the_build(tmp_path: Path, what: str):
    code = LEFT_RUNNING[what] + "\nx = 2"
    folder = write_lesson(tmp_path, {"01-a.md": two_cells(code) + "\n`{python} x + 1`\n"})
    t0 = time.monotonic()
    proc = run_cli(tmp_path, "cat", "--no-pdf")
    seconds = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    assert seconds < 15, f"the build took {seconds:.1f} s"
    values = json.loads((tmp_path / "dist/cat/values.json").read_text("utf-8"))
    assert [v["text"] for v in values["values"]] == ["3"]
    where = at(folder, "01-a.md", "```{python}", 2)
    kind = "thread 'sleeper'" if what == "thread" else "an atexit hook registered"
    warnings = [line for line in proc.stderr.splitlines() if ": warning: " in line]
    assert len(warnings) == 1 and warnings[0].startswith(f"{where}: warning: {kind}"), warnings
    assert "still running 2 s after the section ended: stopped" in warnings[0]
    assert processes_with(os.environ["TMPDIR"]) == []


def test_processes_that_leave_the_group_do_not_outlive_the_build(tmp_path: Path):
    marker = f"1000.{os.getpid()}4545"
    pids = tmp_path / "pids.txt"
    code = f"""
import os, subprocess
subprocess.Popen(["setsid", "sleep", "{marker}1"])
subprocess.Popen(["sleep", "{marker}2"], start_new_session=True)
if os.fork() == 0:  # a double fork: the grandchild is orphaned at once
    os.setsid()
    if os.fork() == 0:
        with open({str(pids)!r}, "a") as f:
            f.write(f"{{os.getpid()}}\\n")
        os.execvp("sleep", ["sleep", "{marker}3"])
    os._exit(0)
import time
for _ in range(1000):  # the grandchild has written its pid (else the build may end first)
    if os.path.exists({str(pids)!r}) and open({str(pids)!r}).read().endswith("\\n"):
        break
    time.sleep(0.01)
x = 2
"""
    write_lesson(tmp_path, {"01-a.md": two_cells(code)})
    proc = run_cli(tmp_path, "cat", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    # (one grandchild a run: the section runs again when, under load, its first read of
    # pids.txt saw the file before the grandchild had written it, an input that then changed)
    found = [int(p) for p in pids.read_text().split()]
    assert found
    time.sleep(0.2)
    assert processes_with(marker) == []
    for pid in found:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@pytest.mark.slow
def test_reprs_with_memory_addresses_are_identical_across_clean_builds(tmp_path: Path):
    section = """
    ## 对象

    ```{python}
    class Foo:
        pass

    def f():
        pass

    print(f, [Foo()])
    Foo()
    ```

    对象：`{python} repr(Foo())`。
    """
    write_lesson(tmp_path, {"01-a.md": section})
    builds = []
    for n in range(2):
        root = tmp_path / f"build{n}"  # fresh dist, figures and cache folders each time
        shutil.copytree(tmp_path / "content", root / "content")
        proc = run_build(root, "cat", "--no-pdf")  # a process each
        assert proc.returncode == 0, proc.stderr
        out = root / "dist/cat"
        builds.append({name: (out / name).read_bytes() for name in ("index.html", "values.json")})
    assert builds[0] == builds[1]
    values = json.loads(builds[0]["values.json"])
    assert [v["text"] for v in values["values"]] == ["<__main__.Foo object>"]
    assert [(o["kind"], o["text"]) for o in values["outputs"]] == [
        ("stdout", "<function f> [<__main__.Foo object>]\n"),
        ("text", "<__main__.Foo object>"),
    ]
    assert " at 0x" not in builds[0]["index.html"].decode()


def test_an_idle_thread_pool_is_shut_down_as_python_would_without_a_warning(tmp_path: Path):
    pool = "from concurrent.futures import ThreadPoolExecutor\nPOOL = ThreadPoolExecutor(2)\n"
    code = "import pools\nx = pools.POOL.submit(pow, 2, 5).result()"  # a module keeps the pool
    write_lesson(tmp_path, {"01-a.md": two_cells(code) + "\n`{python} x`\n", "pools.py": pool})
    t0 = time.monotonic()
    proc = run_cli(tmp_path, "cat", "--no-pdf")
    seconds = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    assert ": warning: " not in proc.stderr
    values = json.loads((tmp_path / "dist/cat/values.json").read_text("utf-8"))
    assert [v["text"] for v in values["values"]] == ["32"]
    assert seconds < 10, f"the build took {seconds:.1f} s"
