"""The benchmark's history: each recorded run's medians per scenario, and the table of the last
three measured commits in bench/README.md (between its `history` markers), so a regression is
visible in review.

    .venv/bin/python bench/build.py --record        # measures, then records the medians
    .venv/bin/python bench/history.py               # rewrites the README's table from the file

`bench/history.json` holds one entry per recorded run: the commit (and whether the tree had
uncommitted changes), the date, the repeats, the load average before and after, and for each
deck the median of each scenario in `build.ROWS`. The README shows the newest entry of each of
the last three commits.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FILE = HERE / "history.json"
README = HERE / "README.md"
START = "<!-- history:start (bench/history.py writes this table) -->"
END = "<!-- history:end -->"
SHOWN = 3  # commits


def commit() -> str:
    """The checkout's commit, `+` when its tree has uncommitted changes."""
    root = HERE.parent
    rev = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=root,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{rev}+" if dirty else rev


def cpu() -> str:
    """The machine's CPU model (timings from two CPUs are not comparable)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or "unknown"


def entries() -> list[dict[str, Any]]:
    return json.loads(FILE.read_text("utf-8")) if FILE.is_file() else []


def record(decks: dict[str, dict[str, float]], repeats: int, load: tuple[float, float]) -> None:
    """Append one run's medians (deck name → scenario key → median) and rewrite the table."""
    entry = {
        "commit": commit(),
        "date": time.strftime("%Y-%m-%d"),
        "repeats": repeats,
        "load": [round(load[0], 1), round(load[1], 1)],
        "cpu": cpu(),
        "decks": {name: {k: round(v, 3) for k, v in rows.items()} for name, rows in decks.items()},
    }
    FILE.write_text(json.dumps([*entries(), entry], indent=1) + "\n", "utf-8")
    write_readme()


def latest_per_commit(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The newest entry of each of the last `SHOWN` commits, oldest first."""
    newest: dict[str, dict[str, Any]] = {}
    for entry in history:
        newest.pop(entry["commit"], None)  # (re-inserted: the order is that of the last run)
        newest[entry["commit"]] = entry
    return list(newest.values())[-SHOWN:]


def bench_rows() -> Any:
    """`ROWS` of bench/build.py, loaded from its file: `import build` would find the project's
    build.py once the bench has put the project's folder first on the path (its --serve row)."""
    import importlib.util

    main = sys.modules.get("__main__")
    if Path(getattr(main, "__file__", None) or ".").resolve() == HERE / "build.py":
        return main.ROWS  # type: ignore[union-attr]  # (run as `bench/build.py --record`)
    name = "deck_bench_build"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "build.py")
        assert spec and spec.loader
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name].ROWS


def table(history: list[dict[str, Any]]) -> str:
    ROWS = bench_rows()  # noqa: N806

    shown = latest_per_commit(history)
    if not shown:
        return "(nothing recorded yet: `bench/build.py --record`)"
    decks = [name for name in ("lesson", "reference") if any(name in e["decks"] for e in shown)]
    head = ["scenario"]
    for entry in shown:
        head.append(f"{entry['commit']} ({entry['date']}, ×{entry['repeats']})")
    lines = []
    for deck in decks:
        lines += [f"**{'main lesson' if deck == 'lesson' else 'reference deck'}**", ""]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for key, label in ROWS.items():
            cells = []
            for entry in shown:
                value = entry["decks"].get(deck, {}).get(key)
                cells.append(
                    "–" if value is None else f"{value:.0f}" if key == "peak_mb" else f"{value:.2f}"
                )
            if any(c != "–" for c in cells):
                lines.append(f"| {label} | " + " | ".join(cells) + " |")
        loads = " | ".join(f"{e['load'][0]:.1f} → {e['load'][1]:.1f}" for e in shown)
        lines += [f"| load average (before → after) | {loads} |"]
        lines += ["| CPU | " + " | ".join(e.get("cpu", "not recorded") for e in shown) + " |", ""]
    return "\n".join(lines).rstrip()


def write_readme() -> None:
    text = README.read_text("utf-8")
    if START not in text or END not in text:
        sys.exit(f"{README}: no history markers ({START} … {END})")
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    README.write_text(f"{before}{START}\n{table(entries())}\n{END}{after}", "utf-8")


if __name__ == "__main__":
    write_readme()
