"""Build through `deck.pipeline.build` and return its report as data: in this process
(`build_report`), or in a fresh one (`build_report_in_new_process`), the only way to see which
modules a build imports or to build with another copy of the engine.

Tests assert on the report (which sections ran and why), never on log text: a test that a
prose edit runs no cell must fail when a prose edit re-runs a section.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from fixture_build import ROOT

SCRIPT = """
import json, sys
from pathlib import Path
from deck.errors import DeckError
from deck.pipeline import Options, build
from deck.progress import LogOnly

lessons, args = json.loads(sys.argv[1])
paths = {"content", "out", "figures", "cache"}
options = Options(**{k: Path(v) if k in paths else v for k, v in args.items()})
log = []
try:
    report = build(lessons, options, LogOnly(log.append))
    answer = {"ok": True, **report.to_json()}
except DeckError as exc:
    answer = {"ok": False, "errors": [str(d) for d in exc.diagnostics]}
heavy = [
    m
    for m in ("torch", "matplotlib", "numpy", "playwright", "nbformat", "dask", "distributed")
    if m in sys.modules
]
print(json.dumps({**answer, "log": log, "heavy": heavy}))
"""


def settings(root: Path, options: dict[str, Any]) -> dict[str, Any]:
    """Build `root/content/<lesson>` (HTML only unless `pdf=True`) with output in `root`."""
    return {
        "content": str(root / "content"),
        "out": str(root / "dist"),
        "figures": str(root / "figures"),
        "cache": str(root / ".cache"),
        "pdf": False,
        **options,
    }


def build_report(root: Path, lesson: str, **options: Any) -> dict[str, Any]:
    """Build `lesson` in this process (cells run in their workers as always).

    Returns the `BuildReport` fields (`executed`, `reasons`, `ran`, `cached`, …) or, for a
    failed build, `ok: False` and `errors`; plus the `log` lines.
    """
    from deck import warm
    from deck.errors import DeckError
    from deck.execute import deps
    from deck.options import Options
    from deck.pipeline import build
    from deck.progress import LogOnly

    deps._OWNERS.clear()  # a new process reads site-packages afresh
    warm.forget()  # (and keeps nothing an earlier build made: deck.warm)
    paths = {"content", "out", "figures", "cache"}
    args = settings(root, options)
    log: list[str] = []
    with contextlib.chdir(root):  # as the fresh process runs in `root`
        try:
            report = build(
                [lesson],
                Options(**{k: Path(v) if k in paths else v for k, v in args.items()}),
                LogOnly(log.append),
            )
            answer = {"ok": True, **report.to_json()}
        except DeckError as exc:
            answer = {"ok": False, "errors": [str(d) for d in exc.diagnostics]}
    # what the report says, exactly as a fresh process prints it
    return json.loads(json.dumps({**answer, "log": log}))


def build_report_in_new_process(
    root: Path, lesson: str, engine: Path = ROOT, **options: Any
) -> dict[str, Any]:
    """`build_report` in a fresh process using the `deck` package found in `engine`; the
    answer also has the `heavy` modules (torch, numpy, …) that process imported."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(engine), os.environ.get("PYTHONPATH", "")])
    )
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps([[lesson], settings(root, options)])],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])
