"""Widgets: interactive figures declared in Markdown and fed by values the cells computed.

    ::: {.widget kind="softmax-scaling" data="scaling_data"}
    Optional fallback, shown only where the widget cannot be drawn.
    :::

`data` is a Python expression evaluated in the section's namespace after its cells ran, like
an inline value; the worker turns its value into JSON (`data_expression`). Rendering checks
that JSON against the kind's format (a problem is an error at the directive's line), and the
widget's markup embeds it; `deck/static/widgets.js` draws it: live with keyboard-usable
controls on screen, as a static figure in `?print-pdf` (slides and handouts).

`KINDS` is the table of kinds: a name → the check that validates its data and returns what
is embedded. Adding a kind touches this table and one entry of widgets.js.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from deck.model import Loc

ATTRIBUTES = {"kind", "data", "id"}  # what a `::: {.widget}` directive may set


class DataProblem(Exception):
    """Widget data not in its kind's format; the message names the JSON path."""


@dataclass(frozen=True)
class Kind:
    name: str
    check: Callable[[Any], Any]  # data → what to embed; raises DataProblem
    summary: str  # the data format in one line, quoted in errors


# ---- the directive ---------------------------------------------------------------------------


def data_expression(expr: str) -> str:
    """The inline expression the worker evaluates for a widget's `data`: its value as JSON.

    Standard library only, so the section's cache key (which covers inline expressions as
    written) covers it whole. Arrays and tensors become lists; NaN and infinity are refused
    (JavaScript's JSON.parse would reject them)."""
    return (
        f'__import__("json").dumps(({expr}), default=lambda o: o.tolist(), '
        "allow_nan=False, ensure_ascii=False)"
    )


def directive_problem(attrs: dict[str, str]) -> str | None:
    """What is wrong with a `::: {.widget …}` line, or None (checked while parsing)."""
    kind = attrs.get("kind")
    known = ", ".join(sorted(KINDS))
    if kind is None:
        return f'a widget needs kind="…" (known kinds: {known})'
    if kind not in KINDS:
        return f"unknown widget kind `{kind}` (known kinds: {known})"
    if not attrs.get("data", "").strip():
        return f'widget `{kind}` needs data="<Python expression>" ({KINDS[kind].summary})'
    unknown = sorted(set(attrs) - ATTRIBUTES)
    if unknown:
        allowed = ", ".join(sorted(ATTRIBUTES))
        return f"unknown widget attribute `{unknown[0]}` (a widget takes {allowed})"
    return None


def checked_data(kind: str, text: str | None) -> Any:
    """The data to embed for a widget of `kind`, from the JSON text the worker made."""
    try:
        data = json.loads(text or "")
    except ValueError:
        raise DataProblem(f"data is not JSON: {(text or '')[:80]!r}") from None
    return KINDS[kind].check(data)


def widget_html(
    kind: str, data: Any, fallback: str, loc: Loc, classes: tuple[str, ...], ident: str | None
) -> str:
    """The widget's element: its data as JSON beside it, the fallback for when it cannot be
    drawn. widgets.js builds the controls and the drawing inside."""
    payload = script_json(data)
    names = " ".join(["widget", f"widget-{kind}", *(c for c in classes if c != "widget")])
    id_attr = f' id="{html.escape(ident)}"' if ident else ""
    back = f'<div class="widget-fallback">{fallback}</div>' if fallback.strip() else ""
    return (
        f'<div class="{html.escape(names)}"{id_attr} data-widget="{kind}" '
        f'data-source="{html.escape(str(loc))}">'
        f'<script type="application/json" class="widget-data">{payload}</script>{back}</div>'
    )


def script_json(data: Any) -> str:
    """JSON to place inside a <script> element. There `</script` or `<!--` would end or
    derail the element: `<` only occurs inside JSON strings, where \\u003c reads the same."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# ---- checks ---------------------------------------------------------------------------------


def _at(path: str, key: str | int) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else key)


def _name(path: str) -> str:
    return f"`{path}`" if path else "the data"


def _mapping(
    value: Any,
    path: str,
    required: tuple[str, ...],
    optional: tuple[str, ...] = (),
    ignored: tuple[str, ...] = (),
) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DataProblem(f"{_name(path)} must be an object with keys {', '.join(required)}")
    missing = [k for k in required if k not in value]
    if missing:
        raise DataProblem(f"{_name(path)} has no key `{missing[0]}`")
    unknown = sorted(set(value) - set(required) - set(optional) - set(ignored))
    if unknown:
        allowed = ", ".join([*required, *optional])
        raise DataProblem(f"{_name(path)} has an unknown key `{unknown[0]}` (allowed: {allowed})")
    return value


def _number(value: Any, path: str, low: float | None = None, high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise DataProblem(f"{_name(path)} must be a number, not {json.dumps(value)[:40]}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise DataProblem(f"{_name(path)} is {value}, outside [{low}, {high}]")
    return value


def _index(value: Any, path: str, count: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
        raise DataProblem(f"{_name(path)} must be an index from 0 to {count - 1}, not {value!r}")
    return value


def _text(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise DataProblem(f"{_name(path)} must be text, not {json.dumps(value)[:40]}")
    return value


def _list(value: Any, path: str, length: int | None = None, what: str = "items") -> list[Any]:
    if not isinstance(value, list):
        raise DataProblem(f"{_name(path)} must be a list")
    if length is not None and len(value) != length:
        raise DataProblem(f"{_name(path)} has {len(value)} {what}, expected {length}")
    return value


def _vector(value: Any, path: str, length: int | None, what: str = "numbers", **bounds) -> list:
    items = _list(value, path, length, what)
    for k, x in enumerate(items):
        _number(x, _at(path, k), **bounds)
    return items


def _distribution(value: Any, path: str, length: int, what: str, tolerance: float) -> list:
    """Weights: `length` numbers ≥ 0 adding up to 1."""
    items = _vector(value, path, length, what, low=0.0)
    total = math.fsum(items)
    if abs(total - 1) > tolerance:
        raise DataProblem(f"{_name(path)} adds up to {total:.6g}, not 1 (softmax weights)")
    return items


def _depth(value: Any, path: str, sizes: tuple[int, ...], names: tuple[str, ...]) -> None:
    """`value` nests lists of the given sizes (the last level holds anything)."""
    items = _list(value, path, sizes[0], names[0])
    if len(sizes) > 1:
        for k, item in enumerate(items):
            _depth(item, _at(path, k), sizes[1:], names[1:])


# ---- the kinds ------------------------------------------------------------------------------


def check_softmax_scaling(data: Any) -> Any:
    """{"d_k": [d…], "unscaled": [[w…] per d_k], "scaled": [[w…] per d_k], optional
    "stats": [{"label", "unscaled": [x per d_k], "scaled": [x per d_k]}], "keys": [label per
    weight], "initial": one of d_k}."""
    _mapping(data, "", ("d_k", "unscaled", "scaled"), ("stats", "keys", "initial"))
    d_ks = _vector(data["d_k"], "d_k", None, "values", low=1e-12)
    if not d_ks:
        raise DataProblem("`d_k` is empty")
    first = _list(data["unscaled"], "unscaled", len(d_ks), "rows (one per d_k)")
    n = len(_list(first[0], "unscaled[0]"))
    if not 2 <= n <= 64:
        raise DataProblem(f"`unscaled[0]` has {n} weights: give 2 to 64 keys")
    for name in ("unscaled", "scaled"):
        rows = _list(data[name], name, len(d_ks), "rows (one per d_k)")
        for k, row in enumerate(rows):
            _distribution(row, _at(name, k), n, "weights", 1e-6)
    for k, stat in enumerate(_list(data.get("stats", []), "stats")):
        path = _at("stats", k)
        _mapping(stat, path, ("label", "unscaled", "scaled"))
        _text(stat["label"], _at(path, "label"))
        for name in ("unscaled", "scaled"):
            _vector(stat[name], _at(path, name), len(d_ks), "values (one per d_k)")
    if "keys" in data:
        for k, key in enumerate(_list(data["keys"], "keys", n, "labels (one per weight)")):
            _text(key, _at("keys", k))
    if "initial" in data and data["initial"] not in d_ks:
        raise DataProblem(f"`initial` is {data['initial']!r}, not one of `d_k` {d_ks}")
    return data


def check_attention_explorer(data: Any) -> Any:
    """{"sentences": [{"name", "tokens": [t…], "attention": [layer][head][query][key]}…],
    optional "sentence", "layer", "head", "query": initial indices}; every sentence has the
    same layers and heads. Weights are embedded to 4 decimals."""
    _mapping(data, "", ("sentences",), ("sentence", "layer", "head", "query"))
    sentences = _list(data["sentences"], "sentences")
    if not sentences:
        raise DataProblem("`sentences` is empty")
    shape: tuple[int, int] | None = None
    embedded = []
    for s, sentence in enumerate(sentences):
        path = _at("sentences", s)
        _mapping(sentence, path, ("name", "tokens", "attention"))
        _text(sentence["name"], _at(path, "name"))
        tokens = _list(sentence["tokens"], _at(path, "tokens"))
        if not 1 <= len(tokens) <= 40:
            raise DataProblem(f"`{_at(path, 'tokens')}` has {len(tokens)} tokens: give 1 to 40")
        for k, token in enumerate(tokens):
            _text(token, _at(_at(path, "tokens"), k))
        attention = _list(sentence["attention"], _at(path, "attention"))
        layers = len(attention)
        heads = len(_list(attention[0], _at(_at(path, "attention"), 0))) if layers else 0
        if not layers or not heads:
            raise DataProblem(f"`{_at(path, 'attention')}` must be [layer][head][query][key]")
        if shape is not None and (layers, heads) != shape:
            raise DataProblem(
                f"`{_at(path, 'attention')}` has {layers} layers × {heads} heads, but "
                f"`sentences[0]` has {shape[0]} × {shape[1]}: every sentence needs the same"
            )
        shape = (layers, heads)
        n = len(tokens)
        at = _at(path, "attention")
        _depth(attention, at, (layers, heads, n), ("layers", "heads", "rows (one per token)"))
        for layer, per_layer in enumerate(attention):
            for head, rows in enumerate(per_layer):
                for q, row in enumerate(rows):
                    where = f"{at}[{layer}][{head}][{q}]"
                    _distribution(row, where, n, "weights (one per token)", 1e-3)
        rounded = [[[[round(w, 4) for w in row] for row in m] for m in per] for per in attention]
        embedded.append({**sentence, "attention": rounded})
    assert shape is not None
    for key, count in (("sentence", len(sentences)), ("layer", shape[0]), ("head", shape[1])):
        if key in data:
            _index(data[key], key, count)
    if data.get("query") is not None:
        _index(data["query"], "query", len(sentences[data.get("sentence", 0)]["tokens"]))
    return {**data, "sentences": embedded}


def check_attention_2x2(data: Any) -> Any:
    """{"Q": [[q11, q12], [q21, q22]], "K": [[…], […]], optional "d_k" (> 0, default 2)}."""
    _mapping(data, "", ("Q", "K"), ("d_k",))
    for name in ("Q", "K"):
        for k, row in enumerate(_list(data[name], name, 2, "rows")):
            _vector(row, _at(name, k), 2, "numbers")
    if "d_k" in data:
        _number(data["d_k"], "d_k", low=1e-12)
    return data


def check_head_ablation(data: Any) -> Any:
    """`head_ablation()`'s result: {"relations": [r…], "num_heads": H, "full_accuracy": [R],
    "ablated_accuracy": H×R, optional "head_focus": [H × {relation: weight}],
    "relation_names": {relation: label}, "threshold": drop shown as harm (default 0.05)}."""
    ignored = ("losses", "drop", "specialist")  # in head_ablation()'s result, not drawn
    _mapping(
        data,
        "",
        ("relations", "num_heads", "full_accuracy", "ablated_accuracy"),
        ("head_focus", "relation_names", "threshold"),
        ignored,
    )
    relations = _list(data["relations"], "relations")
    if not relations:
        raise DataProblem("`relations` is empty")
    for k, name in enumerate(relations):
        _text(name, _at("relations", k))
    heads = data["num_heads"]
    if isinstance(heads, bool) or not isinstance(heads, int) or not 1 <= heads <= 32:
        raise DataProblem(f"`num_heads` must be a whole number from 1 to 32, not {heads!r}")
    r = len(relations)
    _vector(data["full_accuracy"], "full_accuracy", r, "values (one per relation)", low=0, high=1)
    rows = _list(data["ablated_accuracy"], "ablated_accuracy", heads, "rows (one per head)")
    for h, row in enumerate(rows):
        at = _at("ablated_accuracy", h)
        _vector(row, at, r, "values (one per relation)", low=0, high=1)
    if "head_focus" in data:
        focus = _list(data["head_focus"], "head_focus", heads, "entries (one per head)")
        for h, entry in enumerate(focus):
            _mapping(entry, _at("head_focus", h), tuple(relations))
            for name in relations:
                _number(entry[name], _at(_at("head_focus", h), name))
    if "relation_names" in data:
        names = _mapping(data["relation_names"], "relation_names", tuple(relations))
        for name in relations:
            _text(names[name], _at("relation_names", name))
    if "threshold" in data:
        _number(data["threshold"], "threshold", low=0, high=1)
    return {k: v for k, v in data.items() if k not in ignored}


KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind(
            "softmax-scaling",
            check_softmax_scaling,
            'data: {"d_k": [...], "unscaled": [[weights] per d_k], "scaled": [[weights] per d_k]}',
        ),
        Kind(
            "attention-explorer",
            check_attention_explorer,
            'data: {"sentences": [{"name", "tokens", "attention": [layer][head][query][key]}]}',
        ),
        Kind("attention-2x2", check_attention_2x2, 'data: {"Q": 2×2, "K": 2×2, "d_k"?}'),
        Kind(
            "head-ablation",
            check_head_ablation,
            "data: head_ablation()'s result (relations, num_heads, full_accuracy, "
            "ablated_accuracy)",
        ),
    )
}
