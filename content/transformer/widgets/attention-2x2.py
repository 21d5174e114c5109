"""Widget kind `attention-2x2`: students type Q and K and see softmax(QKᵀ/√d_k). This module checks
its data; attention-2x2.js, beside it, draws it."""

from __future__ import annotations

from typing import Any

from deck.widgetdata import listed, mapping, number, path_at, vector

SUMMARY = 'data: {"Q": 2×2, "K": 2×2, "d_k"?}'


def check(data: Any) -> Any:
    """{"Q": [[q11, q12], [q21, q22]], "K": [[…], […]], optional "d_k" (> 0, default 2)}."""
    mapping(data, "", ("Q", "K"), ("d_k",))
    for name in ("Q", "K"):
        for k, row in enumerate(listed(data[name], name, 2, "rows")):
            vector(row, path_at(name, k), 2, "numbers")
    if "d_k" in data:
        number(data["d_k"], "d_k", low=1e-12)
    return data
