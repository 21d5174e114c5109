"""Build through `deck.pipeline.build` in a fresh process and return its report as data.

Tests assert on the report (which sections ran and why), never on log text: a test that a
prose edit runs no cell must fail when a prose edit re-runs a section.
"""

from __future__ import annotations

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
heavy = [m for m in ("torch", "matplotlib", "numpy", "playwright") if m in sys.modules]
print(json.dumps({**answer, "log": log, "heavy": heavy}))
"""


def build_report(root: Path, lesson: str, engine: Path = ROOT, **options: Any) -> dict[str, Any]:
    """Build `root/content/<lesson>` (HTML only unless `pdf=True`) with output in `root`,
    using the `deck` package found in `engine`.

    Returns the `Report` fields (`executed`, `reasons`, `ran`, `cached`, …) or, for a failed
    build, `ok: False` and `errors`; plus `log` lines and the `heavy` modules this process
    imported.
    """
    settings = {
        "content": str(root / "content"),
        "out": str(root / "dist"),
        "figures": str(root / "figures"),
        "cache": str(root / ".cache"),
        "pdf": False,
        **options,
    }
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(engine), os.environ.get("PYTHONPATH", "")])
    )
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps([[lesson], settings])],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])
