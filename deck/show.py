"""How computed values appear on a slide: tables for arrays, highlighted source, inline text.

Lesson cells may use `table`, `source`, `Code`, `HTML` and `build_host` directly; the worker
uses `to_output` for a cell's last value and `inline_text` for inline expressions. NumPy and
torch are only recognised, never imported here.
"""

from __future__ import annotations

import html
import inspect
import math
import textwrap
from collections.abc import Sequence
from typing import Any

from deck.host import build_host
from deck.model import Output

__all__ = ["HTML", "Code", "build_host", "inline_text", "number", "source", "table", "to_output"]


def _is_array(value: Any) -> bool:
    kind = type(value)
    return (kind.__module__, kind.__name__) in {("numpy", "ndarray"), ("torch", "Tensor")} or (
        kind.__module__ == "torch.nn.parameter"
    )


def _to_list(value: Any) -> Any:
    if type(value).__module__.startswith("torch"):
        value = value.detach().cpu().numpy()
    return value.tolist()


def _scalar(value: Any) -> Any:
    """numpy/torch scalars (and 1-element arrays) as plain Python numbers."""
    if _is_array(value) and math.prod(value.shape) == 1:
        return _to_list(value.reshape(()) if hasattr(value, "reshape") else value)
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    return value


def number(x: Any, digits: int = 3) -> str:
    """A number as a slide shows it: integers exact, floats to `digits` decimals."""
    x = _scalar(x)
    if isinstance(x, bool) or isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x) or math.isinf(x):
            return str(x)
        if x != 0 and (abs(x) >= 1e6 or abs(x) < 10 ** (-digits)):
            return f"{x:.{digits}g}".replace("e-0", "e-").replace("e+0", "e+")
        text = f"{x:.{digits}f}"
        return "0." + "0" * digits if text == "-0." + "0" * digits else text
    return str(x)


class HTML:
    """Raw HTML to place on the slide as it is: the one way a cell puts markup on a slide.
    Every other value is shown as text (its `repr`), even one with a `_repr_html_`."""

    def __init__(self, markup: str):
        self.markup = markup

    def _repr_html_(self) -> str:
        return self.markup


def table(
    data: Any,
    rows: Sequence[Any] | None = None,
    cols: Sequence[Any] | None = None,
    digits: int = 3,
    caption: str | None = None,
    css: str = "matrix",
) -> HTML:
    """A 1-D or 2-D array (or list of rows) as an HTML table with optional row/column labels."""
    values = _to_list(data) if _is_array(data) else data
    if values and not isinstance(values[0], list | tuple):
        values = [values]
    out = [f'<table class="{html.escape(css)}">']
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    if cols is not None:
        corner = "<th></th>" if rows is not None else ""
        heads = "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)
        out.append(f"<thead><tr>{corner}{heads}</tr></thead>")
    out.append("<tbody>")
    for r, row in enumerate(values):
        head = f"<th>{html.escape(str(rows[r]))}</th>" if rows is not None else ""
        cells = "".join(
            f"<td>{html.escape(number(v, digits) if not isinstance(v, str) else v)}</td>"
            for v in row
        )
        out.append(f"<tr>{head}{cells}</tr>")
    out.append("</tbody></table>")
    return HTML("".join(out))


class Code:
    """Source code highlighted by Pygments, e.g. the lesson's own functions on a slide."""

    def __init__(self, text: str, lang: str = "python"):
        self.text = textwrap.dedent(text).strip("\n")
        self.lang = lang

    def _repr_html_(self) -> str:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name

        return highlight(
            self.text, get_lexer_by_name(self.lang), HtmlFormatter(cssclass="highlight")
        )


def source(obj: Any) -> Code:
    """The real source of a function or class: the very lines the lesson runs."""
    return Code(inspect.getsource(obj))


def to_output(value: Any) -> Output | None:
    """A cell's last value as slide output; None shows nothing."""
    if value is None:
        return None
    if _is_artists(value):
        return None  # figures are saved as files; `plt.plot(…)` returns [<Line2D at 0x…>]
    if isinstance(value, HTML | Code):  # the only way HTML reaches a slide: asked for here
        return Output("html", value._repr_html_())
    if _is_array(value):
        if value.ndim == 0:
            return Output("text", number(value))
        if value.ndim <= 2:
            return Output("html", table(value)._repr_html_())
    return Output("text", repr(value))


def _is_artists(value: Any) -> bool:
    """A matplotlib object, or a non-empty list/tuple of them (what plotting calls return)."""
    items = value if isinstance(value, list | tuple) else [value]
    return bool(items) and all(
        type(item).__module__.startswith(("matplotlib", "mpl_toolkits")) for item in items
    )


def inline_text(value: Any) -> str:
    """The text an inline expression shows: strings as they are, numbers via `number`."""
    if isinstance(value, str):
        return value
    value = _scalar(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
