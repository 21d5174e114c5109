"""Widget kind `attention-explorer`: a model's attention, by sentence, layer and head. This module
checks its data; attention-explorer.js, beside it, draws it."""

from __future__ import annotations

from typing import Any

from deck.widgetdata import (
    DataProblem,
    distribution,
    index,
    listed,
    mapping,
    nested,
    path_at,
    text,
)

SUMMARY = 'data: {"sentences": [{"name", "tokens", "attention": [layer][head][query][key]}]}'


def check(data: Any) -> Any:
    """{"sentences": [{"name", "tokens": [t…], "attention": [layer][head][query][key]}…],
    optional "sentence", "layer", "head", "query": initial indices}; every sentence has the
    same layers and heads. Weights are embedded to 4 decimals."""
    mapping(data, "", ("sentences",), ("sentence", "layer", "head", "query"))
    sentences = listed(data["sentences"], "sentences")
    if not sentences:
        raise DataProblem("`sentences` is empty")
    shape: tuple[int, int] | None = None
    embedded = []
    for s, sentence in enumerate(sentences):
        path = path_at("sentences", s)
        mapping(sentence, path, ("name", "tokens", "attention"))
        text(sentence["name"], path_at(path, "name"))
        tokens = listed(sentence["tokens"], path_at(path, "tokens"))
        if not 1 <= len(tokens) <= 40:
            raise DataProblem(f"`{path_at(path, 'tokens')}` has {len(tokens)} tokens: give 1 to 40")
        for k, token in enumerate(tokens):
            text(token, path_at(path_at(path, "tokens"), k))
        attention = listed(sentence["attention"], path_at(path, "attention"))
        layers = len(attention)
        heads = len(listed(attention[0], path_at(path_at(path, "attention"), 0))) if layers else 0
        if not layers or not heads:
            raise DataProblem(f"`{path_at(path, 'attention')}` must be [layer][head][query][key]")
        if shape is not None and (layers, heads) != shape:
            raise DataProblem(
                f"`{path_at(path, 'attention')}` has {layers} layers × {heads} heads, but "
                f"`sentences[0]` has {shape[0]} × {shape[1]}: every sentence needs the same"
            )
        shape = (layers, heads)
        n = len(tokens)
        at = path_at(path, "attention")
        nested(attention, at, (layers, heads, n), ("layers", "heads", "rows (one per token)"))
        for layer, per_layer in enumerate(attention):
            for head, rows in enumerate(per_layer):
                for q, row in enumerate(rows):
                    where = f"{at}[{layer}][{head}][{q}]"
                    distribution(row, where, n, "weights (one per token)", 1e-3)
        rounded = [[[[round(w, 4) for w in row] for row in m] for m in per] for per in attention]
        embedded.append({**sentence, "attention": rounded})
    assert shape is not None
    for key, count in (("sentence", len(sentences)), ("layer", shape[0]), ("head", shape[1])):
        if key in data:
            index(data[key], key, count)
    if data.get("query") is not None:
        index(data["query"], "query", len(sentences[data.get("sentence", 0)]["tokens"]))
    return {**data, "sentences": embedded}
