"""Widget kind `temperature`: softmax of a few scores at a temperature the audience picks.
This module checks the data; temperature.js, beside it, draws it."""

from __future__ import annotations

from typing import Any

from deck.widgetdata import DataProblem, listed, mapping, number, path_at, text, vector

SUMMARY = 'data: {"scores": [x, …], "labels": [text per score], "temperatures": [t > 0, …]}'


def check(data: Any) -> Any:
    mapping(data, "", ("scores", "labels", "temperatures"))
    scores = vector(data["scores"], "scores", None)
    if not 2 <= len(scores) <= 12:
        raise DataProblem(f"`scores` has {len(scores)} numbers, expected 2 to 12")
    for k, label in enumerate(listed(data["labels"], "labels", len(scores), "labels")):
        text(label, path_at("labels", k))
    for k, t in enumerate(listed(data["temperatures"], "temperatures")):
        number(t, path_at("temperatures", k), low=1e-6)
    return data
