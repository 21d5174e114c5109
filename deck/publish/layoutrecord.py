"""The layout check's record beside a published deck (`.layout-check.json`: the slides that
overflow, as warnings, and each slide's answer), and whether the last check could not run.
Light: a no-change build asks it, without loading the check or its browser service."""

from __future__ import annotations

import json
from pathlib import Path

CHECKED = ".layout-check.json"  # in dist/<lesson>/: the slides that overflow, as warnings


def unchecked(folder: Path) -> bool:
    """The deck in `folder` was published with a layout check that could not run: a build
    with nothing changed is not "up to date" then, it tries the check again."""
    try:
        return json.loads((folder / CHECKED).read_text("utf-8")).get("checked") is False
    except (OSError, ValueError, AttributeError):
        return False
