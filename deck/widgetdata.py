"""What a widget kind's data check (a lesson's `widgets/<kind>.py`) works with: `DataProblem`
and small checks that name the offending JSON path (`` `scaled[2]` has 7 weights ``)."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

__all__ = [
    "DataProblem",
    "mapping",
    "listed",
    "vector",
    "number",
    "index",
    "text",
    "distribution",
    "nested",
    "path_at",
    "described",
    "finite",
]


class DataProblem(Exception):
    """Widget data not in its kind's format; the message names the JSON path."""


def path_at(path: str, key: str | int) -> str:
    """The JSON path of `key` inside `path`: `scaled` and 2 → `scaled[2]`, `` and `Q` → `Q`."""
    return f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else key)


def described(path: str) -> str:
    """A path as a message names it: `` `scaled[2]` ``, or "the data" for the whole."""
    return f"`{path}`" if path else "the data"


def mapping(
    value: Any,
    path: str,
    required: tuple[str, ...],
    optional: tuple[str, ...] = (),
    ignored: tuple[str, ...] = (),
) -> dict[str, Any]:
    """`value` is an object with every key of `required`, and no key but those, `optional`
    and `ignored` ones; returns it."""
    if not isinstance(value, dict):
        raise DataProblem(f"{described(path)} must be an object with keys {', '.join(required)}")
    missing = [k for k in required if k not in value]
    if missing:
        raise DataProblem(f"{described(path)} has no key `{missing[0]}`")
    unknown = sorted(set(value) - set(required) - set(optional) - set(ignored))
    if unknown:
        allowed = ", ".join([*required, *optional])
        raise DataProblem(
            f"{described(path)} has an unknown key `{unknown[0]}` (allowed: {allowed})"
        )
    return value


def number(value: Any, path: str, low: float | None = None, high: float | None = None) -> float:
    """`value` is a finite number (not a boolean) within [`low`, `high`]; returns it."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not finite(value):
        raise DataProblem(f"{described(path)} must be a number, not {json.dumps(value)[:40]}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise DataProblem(f"{described(path)} is {value}, outside [{low}, {high}]")
    return value


def finite(value: int | float) -> bool:
    """Finite and within a double's range (a whole number may be larger: 10**400)."""
    return abs(value) <= sys.float_info.max if isinstance(value, int) else math.isfinite(value)


def index(value: Any, path: str, count: int) -> int:
    """`value` is a whole number from 0 to `count` - 1; returns it."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
        raise DataProblem(
            f"{described(path)} must be an index from 0 to {count - 1}, not {value!r}"
        )
    return value


def text(value: Any, path: str) -> str:
    """`value` is a string; returns it."""
    if not isinstance(value, str):
        raise DataProblem(f"{described(path)} must be text, not {json.dumps(value)[:40]}")
    return value


def listed(value: Any, path: str, length: int | None = None, what: str = "items") -> list[Any]:
    """`value` is a list, of `length` items when given (a wrong length is said in `what`:
    "has 7 weights, expected 8"); returns it."""
    if not isinstance(value, list):
        raise DataProblem(f"{described(path)} must be a list")
    if length is not None and len(value) != length:
        raise DataProblem(f"{described(path)} has {len(value)} {what}, expected {length}")
    return value


def vector(value: Any, path: str, length: int | None, what: str = "numbers", **bounds) -> list:
    """`value` is a list of numbers, `length` of them when given, each within `bounds`
    (`low=`, `high=`, as `number` takes them); returns it."""
    items = listed(value, path, length, what)
    if not _plain_floats(items, bounds.get("low"), bounds.get("high")):
        for k, x in enumerate(items):  # the first item that is not, by its path
            number(x, path_at(path, k), **bounds)
    return items


def _plain_floats(items: list[Any], low: float | None, high: float | None) -> bool:
    """Every item a finite float within [`low`, `high`], seen without a call per item (the
    usual data: a widget's weights); False when any is not, or is another kind of number."""
    if not items or not all(type(x) is float for x in items):
        return not items
    if any(x != x for x in items):  # NaN
        return False
    least, most = min(items), max(items)
    return (
        math.isfinite(least)
        and math.isfinite(most)
        and (low is None or least >= low)
        and (high is None or most <= high)
    )


def distribution(value: Any, path: str, length: int, what: str, tolerance: float) -> list:
    """Weights: `length` numbers ≥ 0 adding up to 1 within `tolerance`; returns them."""
    items = vector(value, path, length, what, low=0.0)
    total = math.fsum(items)
    if abs(total - 1) > tolerance:
        raise DataProblem(f"{described(path)} adds up to {total:.6g}, not 1 (softmax weights)")
    return items


def nested(value: Any, path: str, sizes: tuple[int, ...], names: tuple[str, ...]) -> None:
    """`value` nests lists of the given sizes (the last level holds anything)."""
    items = listed(value, path, sizes[0], names[0])
    if len(sizes) > 1:
        for k, item in enumerate(items):
            nested(item, path_at(path, k), sizes[1:], names[1:])
