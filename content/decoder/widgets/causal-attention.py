"""Widget kind `causal-attention`: one head's attention weights over a few tokens, the causal
mask switched on and off, one query's row read out. This module checks its data;
causal-attention.js, beside it, draws it (softmax of the scores, masked or not)."""

from __future__ import annotations

from typing import Any

from deck.widgetdata import DataProblem, index, listed, mapping, path_at, text, vector

SUMMARY = 'data: {"tokens": [n words], "scores": n×n, "query"?, "masked"?, "caption"?}'
MAX_TOKENS = 12  # the heat map's cells stay readable on a slide


def check(data: Any) -> Any:
    """{"tokens": 2–12 texts, "scores": n rows of n numbers (QKᵀ/√d_k before the mask),
    optional "query" (the row read out first, 0-based), "masked" (true or false, default
    true) and "caption" (text)}."""
    mapping(data, "", ("tokens", "scores"), ("query", "masked", "caption"))
    tokens = listed(data["tokens"], "tokens", what="tokens")
    if not 2 <= len(tokens) <= MAX_TOKENS:
        raise DataProblem(
            f"`tokens` has {len(tokens)} tokens, expected 2 to {MAX_TOKENS}"
        )
    for k, token in enumerate(tokens):
        text(token, path_at("tokens", k))
    n = len(tokens)
    for k, row in enumerate(listed(data["scores"], "scores", n, "rows")):
        vector(row, path_at("scores", k), n, "scores")
    if "query" in data:
        index(data["query"], "query", n)
    if "masked" in data and not isinstance(data["masked"], bool):
        raise DataProblem("`masked` must be true or false")
    if "caption" in data:
        text(data["caption"], "caption")
    return data
