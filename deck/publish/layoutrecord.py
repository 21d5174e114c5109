"""The layout check's record beside a published deck (`.layout-check.json`: the slides that
overflow, as warnings, and each slide's answer), and whether the last check could not run.
Light: a no-change build asks it, without loading the check or its browser service.

A check left until after the build (deck.publish.layoutlate) names the slides it has still to
measure (`late`: their keys, and the cache file their answers go to); until that file holds
every one of them, the deck counts as not checked."""

from __future__ import annotations

import json
from pathlib import Path

CHECKED = ".layout-check.json"  # in dist/<lesson>/: the slides that overflow, as warnings


def unchecked(folder: Path) -> bool:
    """The deck in `folder` was published with a layout check that could not run (or that was
    left until after the build, and has not given every answer): a build with nothing changed
    is not "up to date" then, it tries the check again."""
    try:
        record = json.loads((folder / CHECKED).read_text("utf-8"))
        if record.get("checked") is False:
            return True
        late = record.get("late") or {}
        if not late:
            return False
        answers = late_answers(Path(late["file"]))
        return any(key not in answers for key in late["keys"])
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return False


def late_answers(path: Path) -> dict[str, list[dict]]:
    """The answers a check after the build gave (each slide's key → its overflows)."""
    try:
        found = json.loads(path.read_text("utf-8")).get("answers")
    except (OSError, ValueError, AttributeError):
        return {}
    return found if isinstance(found, dict) else {}


def late_warnings(folder: Path) -> list[str]:
    """The warnings a check after the last build said (a no-change build repeats them with
    those found within it)."""
    try:
        late = json.loads((folder / CHECKED).read_text("utf-8")).get("late") or {}
        said = json.loads(Path(late["file"]).read_text("utf-8")).get("warnings", [])
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return []
    return [str(w) for w in said] if isinstance(said, list) else []
