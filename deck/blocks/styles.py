"""Styles of `:::` and slide attributes: `.absolute` placement, Quarto's panel layouts
(`layout-ncol`, `layout="[[1,1],[2]]"`) as CSS, shared by block kinds and the renderer."""

from __future__ import annotations

import json
import re
from typing import Any

POSITION = ("top", "left", "right", "bottom", "width", "height")
NUMBER = re.compile(r"^\d+(\.\d+)?$")


def css_length(value: str) -> str:
    return f"{value}px" if NUMBER.match(value.strip()) else value.strip()


def position_style(attrs: dict[str, str]) -> str:
    """`.absolute` placement: `top=10 left=0 width=300` → `position: absolute; top: 10px; …`,
    the keys taken out of `attrs`."""
    parts = ["position: absolute"]
    for key in POSITION:
        if key in attrs:
            parts.append(f"{key}: {css_length(attrs.pop(key))}")
    return "; ".join(parts)


def layout_style(attrs: dict[str, Any]) -> str | None:
    """Quarto's panel layout as a CSS grid: `layout-ncol=2`, `layout-nrow=2`, or
    `layout="[[1,1],[2]]"` / `[40,60]` (relative widths; rows of one shape). The keys are
    taken out of `attrs`; None when none is there."""
    ncol, nrow, layout = (attrs.pop(k, None) for k in ("layout-ncol", "layout-nrow", "layout"))
    attrs.pop("layout-align", None)
    if layout is not None:
        rows = layout_rows(layout)
        widths = " ".join(f"{w}fr" for w in rows[0]) if rows else None
        if widths:
            return (
                f"display: grid; grid-template-columns: {widths}; gap: 0.5em; align-items: center"
            )
    if ncol is not None and str(ncol).isdigit() and int(ncol) > 0:
        return (
            f"display: grid; grid-template-columns: repeat({int(ncol)}, minmax(0, 1fr)); "
            "gap: 0.5em; align-items: center"
        )
    if nrow is not None and str(nrow).isdigit() and int(nrow) > 0:
        return (
            f"display: grid; grid-template-rows: repeat({int(nrow)}, auto); "
            "grid-auto-flow: column; gap: 0.5em; align-items: center"
        )
    return None


def style_join(*styles: str | None) -> str:
    return "; ".join(s.strip().rstrip(";") for s in styles if s and s.strip())


def layout_rows(layout: Any) -> list[list[float]] | None:
    """`[[1,1],[2]]` → its rows' relative widths (negative widths are spaces: kept as
    their size); None when it does not read so, or rows differ in how many panels."""
    try:
        value = json.loads(layout) if isinstance(layout, str) else layout
    except ValueError:
        return None
    rows = value if isinstance(value, list) and value and isinstance(value[0], list) else [value]
    if not all(isinstance(r, list) and r and all(_number(x) for x in r) for r in rows):
        return None
    return [[abs(float(x)) for x in r] for r in rows]


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and x != 0
