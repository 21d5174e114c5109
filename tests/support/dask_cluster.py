"""A real Dask cluster for the tests (and bench/cluster.py): a scheduler and worker processes
(two unless said; each under a nanny that starts it again when it dies) on loopback, in a
process of its own started outside the
project (so neither scheduler nor workers can import deck: the build must send what they run),
stopped when the tests are done; and a way to kill the worker running a section."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psutil

START_SECONDS = 60.0

LAUNCHER = textwrap.dedent(
    """
    import json, sys
    import dask
    from distributed import LocalCluster

    if __name__ == "__main__":
        dask.config.set({"distributed.scheduler.allowed-failures": int(sys.argv[1])})
        cluster = LocalCluster(
            n_workers=int(sys.argv[2]), threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, silence_logs=50, worker_dashboard_address=None,
        )
        print(json.dumps({"address": cluster.scheduler_address}), flush=True)
        sys.stdin.read()  # until the tests close it
        cluster.close(timeout=10)
    """
)


@dataclass
class Cluster:
    address: str  # dask://127.0.0.1:PORT, as --executor takes it
    process: subprocess.Popen[str]
    killed: set[int] = field(default_factory=set)  # worker processes the tests killed

    def sections_running(self) -> list[psutil.Process]:
        """The section supervisors (`deck.execute.shipped`) running under this cluster."""
        found = []
        try:
            below = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        for proc in below:
            try:
                if "deck.execute.shipped" in " ".join(proc.cmdline()):
                    found.append(proc)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        return found

    def kill_worker_running_a_section(self, seconds: float) -> bool:
        """SIGKILL the Dask worker process that runs a section, once one does (within
        `seconds`); whether one was killed. Only a process of this cluster, never twice the
        same (a section orphaned by a kill is no longer below the cluster)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                ours = {p.pid for p in psutil.Process(self.process.pid).children(recursive=True)}
            except psutil.NoSuchProcess:
                return False
            for shipped in self.sections_running():
                try:
                    worker = shipped.ppid()
                except psutil.NoSuchProcess:
                    continue
                if worker in ours and worker not in self.killed:
                    self.killed.add(worker)
                    os.kill(worker, signal.SIGKILL)  # (the Dask worker running it)
                    return True
            time.sleep(0.05)
        return False


@contextmanager
def dask_cluster(folder: Path, allowed_failures: int = 1, workers: int = 2) -> Iterator[Cluster]:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "launch_cluster.py"
    script.write_text(LAUNCHER, "utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    process = subprocess.Popen(
        [sys.executable, str(script), str(allowed_failures), str(workers)],
        cwd=folder,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=open(folder / "cluster.log", "w"),  # noqa: SIM115 - closed with the process
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], START_SECONDS)
        assert ready, f"no Dask cluster in {START_SECONDS:g} s: {folder / 'cluster.log'}"
        address = json.loads(process.stdout.readline())["address"]
        yield Cluster("dask://" + address.removeprefix("tcp://"), process)
    finally:
        try:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=30)
        except (subprocess.TimeoutExpired, OSError):
            pass
        try:
            os.killpg(process.pid, signal.SIGKILL)  # whatever is left of it
        except ProcessLookupError:
            pass
        process.wait(timeout=10)
