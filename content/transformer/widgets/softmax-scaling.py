"""Widget kind `softmax-scaling`: a √d_k slider, softmax weights with and without scaling. This
module checks its data; softmax-scaling.js, beside it, draws it."""

from __future__ import annotations

from typing import Any

from deck.widgetdata import DataProblem, distribution, listed, mapping, path_at, text, vector

SUMMARY = 'data: {"d_k": [...], "unscaled": [[weights] per d_k], "scaled": [[weights] per d_k]}'


def check(data: Any) -> Any:
    """{"d_k": [d…], "unscaled": [[w…] per d_k], "scaled": [[w…] per d_k], optional
    "stats": [{"label", "unscaled": [x per d_k], "scaled": [x per d_k]}], "keys": [label per
    weight], "initial": one of d_k}."""
    mapping(data, "", ("d_k", "unscaled", "scaled"), ("stats", "keys", "initial"))
    d_ks = vector(data["d_k"], "d_k", None, "values", low=1e-12)
    if not d_ks:
        raise DataProblem("`d_k` is empty")
    first = listed(data["unscaled"], "unscaled", len(d_ks), "rows (one per d_k)")
    n = len(listed(first[0], "unscaled[0]"))
    if not 2 <= n <= 64:
        raise DataProblem(f"`unscaled[0]` has {n} weights: give 2 to 64 keys")
    for name in ("unscaled", "scaled"):
        rows = listed(data[name], name, len(d_ks), "rows (one per d_k)")
        for k, row in enumerate(rows):
            distribution(row, path_at(name, k), n, "weights", 1e-6)
    for k, stat in enumerate(listed(data.get("stats", []), "stats")):
        path = path_at("stats", k)
        mapping(stat, path, ("label", "unscaled", "scaled"))
        text(stat["label"], path_at(path, "label"))
        for name in ("unscaled", "scaled"):
            vector(stat[name], path_at(path, name), len(d_ks), "values (one per d_k)")
    if "keys" in data:
        for k, key in enumerate(listed(data["keys"], "keys", n, "labels (one per weight)")):
            text(key, path_at("keys", k))
    if "initial" in data and data["initial"] not in d_ks:
        raise DataProblem(f"`initial` is {data['initial']!r}, not one of `d_k` {d_ks}")
    return data
