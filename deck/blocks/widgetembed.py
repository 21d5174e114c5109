"""Widgets: interactive figures declared in Markdown and fed by values the cells computed.

    ::: {.widget kind="softmax-scaling" data="scaling_data"}
    Optional fallback, shown only where the widget cannot be drawn.
    :::

`data` is a Python expression evaluated in the section's namespace after its cells ran, like
an inline value; the worker turns its value into JSON (`data_expression`). Rendering checks
that JSON against the kind's format (a problem is an error at the directive's line), and the
widget's markup embeds it; `deck/static/widgets/` draws it: live with keyboard-usable
controls on screen, as a static figure in `?print-pdf` (slides and handouts).

The engine knows no kind: a lesson defines its own (`widgets:` in lesson.yml, a data check in
`<path>.py` using `deck.widgetdata`, a script in `<path>.js`; see README, Widgets).
"""

from __future__ import annotations

import html
import json
import re
import sys
from typing import Any

from deck.model import Loc, WidgetKind
from deck.widgetdata import DataProblem, path_at

ATTRIBUTES = {"kind", "data", "id"}  # what a `::: {.widget}` directive may set
# the note the worker puts after a value cut at `exec.output` characters (execute.capture)
CUT = re.compile(r"\n… output truncated: ([\d,]+) characters, showing the first ([\d,]+)$")


# ---- the directive ---------------------------------------------------------------------------


# The wrapper the worker evaluates a widget's `data=` in (kept as it is: it is in the section
# cache keys, which cover inline expressions as written)
DATA_HEAD = '__import__("json").dumps(('
DATA_TAIL = "), default=lambda o: o.tolist(), allow_nan=False, ensure_ascii=False)"


def data_expression(expr: str) -> str:
    """The inline expression the worker evaluates for a widget's `data`: its value as JSON.

    Standard library only, so the section's cache key (which covers inline expressions as
    written) covers it whole. Arrays and tensors become lists; NaN and infinity are refused
    (JavaScript's JSON.parse would reject them)."""
    return f"{DATA_HEAD}{expr}{DATA_TAIL}"


def shown_expression(expr: str) -> str:
    """An evaluated expression as a message quotes it: a widget's data as the author wrote
    it in `data=` (``widget data `…` ``), not the wrapper above; any other as it is."""
    if expr.startswith(DATA_HEAD) and expr.endswith(DATA_TAIL):
        return f"widget data `{expr[len(DATA_HEAD) : -len(DATA_TAIL)]}`"
    return f"`{expr}`"


# Widget kinds built into deck until 2026-12-01, now the Transformer lesson's own (CHANGELOG.md).
FORMER_KINDS = ("softmax-scaling", "attention-explorer", "attention-2x2", "head-ablation")


def former(kind: str) -> str:
    """For a kind deck once had built in: what to do instead."""
    if kind not in FORMER_KINDS:
        return ""
    return (
        f"; `{kind}` was built into deck until 2026-12-01 and is now the example lesson's own:"
        f" copy content/transformer/widgets/{kind}.py and {kind}.js into this lesson's"
        f" widgets/ folder and list `widgets/{kind}` under `widgets:` in its lesson.yml"
        " (CHANGELOG.md)"
    )


def directive_problem(attrs: dict[str, str], kinds: dict[str, str]) -> str | None:
    """What is wrong with a `::: {.widget …}` line, or None (checked while parsing); `kinds`
    are the lesson's widget kinds, each with its data's format."""
    kind = attrs.get("kind")
    known = ", ".join(sorted(kinds)) or "none: a lesson names its kinds under `widgets:`"
    if kind is None:
        return f'a widget needs kind="…" (known kinds: {known})'
    if kind not in kinds:
        return f"unknown widget kind `{kind}` (known kinds: {known}){former(kind)}"
    if not attrs.get("data", "").strip():
        summary = f" ({kinds[kind]})" if kinds[kind] else ""
        return f'widget `{kind}` needs data="<Python expression>"{summary}'
    unknown = sorted(set(attrs) - ATTRIBUTES)
    if unknown:
        allowed = ", ".join(sorted(ATTRIBUTES))
        return f"unknown widget attribute `{unknown[0]}` (a widget takes {allowed})"
    return None


def checked_data(kind: WidgetKind, text: str | None) -> Any:
    """The data to embed for a widget of `kind`, from the JSON text the worker made. The
    kind's check raises DataProblem; anything else it raises is reported as its own bug."""
    cut = CUT.search(text or "")
    if cut:
        total, limit = cut.groups()
        raise DataProblem(
            f"its JSON is {total} characters, over the limit of {limit} characters of output "
            "(raise `exec.output` in the lesson's settings, or embed less)"
        )
    wide: list[int] = []  # whole numbers beyond a double's range, seen as they are read

    def whole(digits: str) -> int:
        number = int(digits)
        if abs(number) > sys.float_info.max:
            wide.append(number)
        return number

    try:
        data = json.loads(text or "", parse_int=whole)
    except ValueError:
        raise DataProblem(f"data is not JSON: {(text or '')[:80]!r}") from None
    huge = too_large(data, "") if wide else None  # (its path: looked for only when there is one)
    if huge is not None:
        raise DataProblem(f"{huge} is a whole number too large for JavaScript (over 1.8e308)")
    try:
        return kind.check(data)
    except DataProblem:
        raise
    except Exception as exc:
        where = kind.source.name
        raise DataProblem(f"{where}'s check raised {type(exc).__name__}: {exc}") from None


def too_large(value: Any, path: str) -> str | None:
    """The JSON path of the first whole number beyond a double's range (JavaScript reads it
    as Infinity), or None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return None if abs(value) <= sys.float_info.max else f"`{path}`" if path else "the data"
    if isinstance(value, dict | list):
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            found = too_large(item, path_at(path, key))
            if found is not None:
                return found
    return None


def widget_html(
    kind: str, data: Any, fallback: str, loc: Loc, classes: tuple[str, ...], ident: str | None
) -> str:
    """The widget's element: its data as JSON beside it, the fallback for when it cannot be
    drawn. The kind's script builds the controls and the drawing inside."""
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
