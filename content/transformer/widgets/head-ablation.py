"""Widget kind `head-ablation`: switch one head off, see the accuracy per relation. This module
checks its data; head-ablation.js, beside it, draws it."""

from __future__ import annotations

from typing import Any

from deck.widgetdata import DataProblem, listed, mapping, number, path_at, text, vector

SUMMARY = "data: head_ablation()'s result (relations, num_heads, full_accuracy, ablated_accuracy)"


def check(data: Any) -> Any:
    """`head_ablation()`'s result: {"relations": [r…], "num_heads": H, "full_accuracy": [R],
    "ablated_accuracy": H×R, optional "head_focus": [H × {relation: weight}],
    "relation_names": {relation: label}, "threshold": drop shown as harm (default 0.05)}."""
    ignored = ("losses", "drop", "specialist")  # in head_ablation()'s result, not drawn
    mapping(
        data,
        "",
        ("relations", "num_heads", "full_accuracy", "ablated_accuracy"),
        ("head_focus", "relation_names", "threshold"),
        ignored,
    )
    relations = listed(data["relations"], "relations")
    if not relations:
        raise DataProblem("`relations` is empty")
    for k, name in enumerate(relations):
        text(name, path_at("relations", k))
    heads = data["num_heads"]
    if isinstance(heads, bool) or not isinstance(heads, int) or not 1 <= heads <= 32:
        raise DataProblem(f"`num_heads` must be a whole number from 1 to 32, not {heads!r}")
    r = len(relations)
    vector(data["full_accuracy"], "full_accuracy", r, "values (one per relation)", low=0, high=1)
    rows = listed(data["ablated_accuracy"], "ablated_accuracy", heads, "rows (one per head)")
    for h, row in enumerate(rows):
        at = path_at("ablated_accuracy", h)
        vector(row, at, r, "values (one per relation)", low=0, high=1)
    if "head_focus" in data:
        focus = listed(data["head_focus"], "head_focus", heads, "entries (one per head)")
        for h, entry in enumerate(focus):
            mapping(entry, path_at("head_focus", h), tuple(relations))
            for name in relations:
                number(entry[name], path_at(path_at("head_focus", h), name))
    if "relation_names" in data:
        names = mapping(data["relation_names"], "relation_names", tuple(relations))
        for name in relations:
            text(names[name], path_at("relation_names", name))
    if "threshold" in data:
        number(data["threshold"], "threshold", low=0, high=1)
    return {k: v for k, v in data.items() if k not in ignored}
