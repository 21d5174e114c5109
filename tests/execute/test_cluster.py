"""Sections on a Dask cluster (`--executor dask://HOST:PORT`): a real scheduler and two worker
processes on loopback that cannot import deck. A course built through them publishes the same
values.json and figures as a local build; a worker killed mid-section is retried, and past the
scheduler's allowed failures the section fails at its line with the deck left as it was."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from catalogue import line_of, outputs, stray, write_lesson
from dask_cluster import Cluster, dask_cluster
from deck.execute.executor import executor_address
from deck.options import UsageError
from fixture_build import copy_fixture, run_build
from report_build import build_report_in_new_process

SLEEPY = {
    "01-wait.md": """
        ## 等待

        ```{python}
        import time

        time.sleep(SLEEP)
        waited = "好了"
        ```

        结果：`{python} waited`。
        """,
}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with dask_cluster(tmp_path_factory.mktemp("cluster")) as running:
        yield running


def sleepy(root: Path, seconds: float) -> Path:
    text = SLEEPY["01-wait.md"].replace("SLEEP", str(seconds))
    return write_lesson(root, {"01-wait.md": text}, name="wait")


@pytest.mark.slow
def test_a_course_through_the_cluster_publishes_what_a_local_build_does(
    tmp_path: Path, cluster: Cluster
):
    local, remote = tmp_path / "local", tmp_path / "remote"
    for root in (local, remote):
        copy_fixture("mini", root)  # two sections, a figure, a lesson module
        write_lesson(root, {"01-pure.md": "## 算\n\n```{python}\nx = 6 * 7\n```\n\n`{python} x`\n"})
    assert run_build(local, "--no-pdf").returncode == 0
    proc = run_build(remote, "--no-pdf", "--executor", cluster.address)
    assert proc.returncode == 0, proc.stderr
    assert f"sent    3 sections to {cluster.address}" in proc.stderr  # both lessons at once
    for lesson in ("mini", "cat"):
        for name in ("values.json", f"{lesson}.ipynb"):
            built = (remote / "dist" / lesson / name).read_bytes()
            assert built == (local / "dist" / lesson / name).read_bytes(), (lesson, name)
    assert outputs(remote)["figures"] == outputs(local)["figures"]
    # the results came back into this machine's cache: nothing runs again, Dask not imported
    again = build_report_in_new_process(remote, "mini", executor=cluster.address)
    assert (
        again["ok"]
        and again["executed"] == []
        and again["reused"]
        == [
            "mini/01-basics",
            "mini/02-figure",
        ]
    )
    assert not {"dask", "distributed"} & set(again["heavy"])
    # frozen here, a result the cluster computed keeps its distributions' versions
    assert run_build(remote, "mini", "--no-pdf", "--freeze").returncode == 0
    record = json.loads((remote / "content/mini/_freeze/01-basics.json").read_text("utf-8"))
    assert ["dist", "numpy", record["result"]["kernels"]["numpy"]["version"]] in record["inputs"]
    assert ["file", "helper.py"] in [d[:2] for d in record["inputs"]]
    assert record["computed"]["host"] == {}  # (not this machine's CPU: a worker's, unknown)


@pytest.mark.slow
def test_a_worker_killed_mid_section_is_retried(tmp_path: Path, cluster: Cluster):
    sleepy(tmp_path, 3)
    killed: list[bool] = []
    killer = threading.Thread(
        target=lambda: killed.append(cluster.kill_worker_running_a_section(120))
    )
    killer.start()
    proc = run_build(tmp_path, "wait", "--no-pdf", "--executor", cluster.address)
    killer.join(timeout=130)
    assert killed == [True]
    assert proc.returncode == 0, proc.stderr
    assert "好了" in (tmp_path / "dist" / "wait" / "values.json").read_text("utf-8")


@pytest.mark.slow
def test_a_section_whose_workers_keep_dying_fails_at_its_line(tmp_path: Path, cluster: Cluster):
    folder = sleepy(tmp_path, 0.5)
    assert run_build(tmp_path, "wait", "--no-pdf").returncode == 0  # the last good deck
    before = outputs(tmp_path)
    sleepy(tmp_path, 3)  # (a new key: it must run)
    text = (folder / "01-wait.md").read_text("utf-8")

    def kill_twice() -> None:  # the cluster allows one failure: the second is the end
        for _ in range(2):
            if not cluster.kill_worker_running_a_section(120):
                return

    killer = threading.Thread(target=kill_twice)
    killer.start()
    proc = run_build(tmp_path, "wait", "--no-pdf", "--executor", cluster.address)
    killer.join(timeout=250)
    assert proc.returncode == 1, proc.stderr
    first_line = line_of(text, "## 等待")
    assert f"content/wait/01-wait.md:{first_line}: error [cluster]" in proc.stderr
    assert "the Dask worker running this section died" in proc.stderr
    after = outputs(tmp_path)
    for found in (before, after):
        found["dist"].pop("index.html", None)  # (the course page marks the failure)
    assert after == before and stray(tmp_path) == []


@pytest.mark.slow
def test_an_error_on_the_cluster_is_reported_at_its_line(tmp_path: Path, cluster: Cluster):
    folder = write_lesson(
        tmp_path, {"01-bad.md": "## 错\n\n```{python}\nx = 1\nassert x == 2, 'x 应为 2'\n```\n"}
    )
    proc = run_build(tmp_path, "cat", "--no-pdf", "--executor", cluster.address)
    line = line_of((folder / "01-bad.md").read_text("utf-8"), "assert x == 2")
    assert proc.returncode == 1
    assert f"content/cat/01-bad.md:{line}: error [assert] assertion failed" in proc.stderr
    assert not (tmp_path / "dist" / "cat").exists()
    shutil.rmtree(tmp_path / "content")


def test_the_executor_is_local_or_a_dask_address():
    assert executor_address("local") == "" and executor_address("") == ""
    assert executor_address("dask://127.0.0.1:8786") == "dask://127.0.0.1:8786"
    for bad in ("ray://x:1", "dask://host", "tcp://127.0.0.1:8786", "dask://a b:1"):
        with pytest.raises(UsageError):
            executor_address(bad)


WRITER = {
    "01-write.md": """
        ## 写

        ```{python}
        from pathlib import Path

        Path("made.txt").write_text("41", "utf-8")
        ```

        写好了。
        """,
    "02-read.md": """
        ## 读

        ```{python}
        from pathlib import Path

        made = Path("made.txt")
        found = made.read_text("utf-8") if made.exists() else "没有"
        ```

        读到 `{python} found`。
        """,
}


@pytest.mark.slow
def test_a_file_a_section_writes_comes_back_as_from_a_local_run(tmp_path: Path, cluster: Cluster):
    """The writer's file lands in the lesson folder here, as a local run leaves it; a section
    added later reads it there (the lesson's files are sent again as they are)."""
    local, remote = tmp_path / "local", tmp_path / "remote"
    values = "dist/cat/values.json"
    for root in (local, remote):
        write_lesson(root, {"01-write.md": WRITER["01-write.md"]})
    assert run_build(local, "cat", "--no-pdf").returncode == 0
    proc = run_build(remote, "cat", "--no-pdf", "--executor", cluster.address)
    assert proc.returncode == 0, proc.stderr
    assert (remote / "content/cat/made.txt").read_text("utf-8") == "41"
    assert (remote / values).read_bytes() == (local / values).read_bytes()
    for root in (local, remote):  # (not at once: a section's test of a path is recorded as
        write_lesson(root, {"02-read.md": WRITER["02-read.md"]})  # the path is at its end)
    assert run_build(local, "cat", "--no-pdf").returncode == 0
    proc = run_build(remote, "cat", "--no-pdf", "--executor", cluster.address)
    assert proc.returncode == 0, proc.stderr
    assert (remote / values).read_bytes() == (local / values).read_bytes()
    shown = json.loads((remote / values).read_text("utf-8"))["values"]
    assert {v["expr"]: v["text"] for v in shown}["found"] == "41"
