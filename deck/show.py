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
from collections.abc import Callable, Mapping, Sequence
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


MAX_DECIMALS = 3  # the most decimals a table's default format shows


def table(
    data: Any,
    rows: Sequence[Any] | None = None,
    cols: Sequence[Any] | None = None,
    digits: int | None = None,
    caption: str | None = None,
    css: str = "matrix",
    formats: Mapping[Any, str | Callable[[Any], Any]] | None = None,
) -> HTML:
    """A 1-D or 2-D array (or list of rows) as an HTML table with optional row/column labels.

    Numbers show as the data gives them, one format per column (a 1-D array, shown as one
    row, is one column's worth): integers, and a column of floats that are all whole, without
    decimals; other floats with the fewest decimals, at most `MAX_DECIMALS` (3), that show
    each of the column's values as written (`2.8` and `0.25` → `2.80`, `0.25`; an integer
    among them as `1.00`), very small or large ones as `number` writes them. `digits=N` shows
    every float to N decimals instead, as before (integers stay exact; an array that is a
    cell's last value is shown so, with 3). `formats` gives a column its own format, by its
    label in `cols` (else its index): a format string (`{"rate": "{:.1%}", "n": "{:,}"}`) or a
    function returning the text; a key naming no column is an error. Strings show as they
    are; everything is shown as text, never as markup."""
    values = _to_list(data) if _is_array(data) else data
    one_row = bool(values) and not isinstance(values[0], list | tuple)
    if one_row:
        values = [values]
    texts = _cell_texts([list(row) for row in values], one_row, digits, _by_index(formats, cols))
    out = [f'<table class="{html.escape(css)}">']
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    if cols is not None:
        corner = "<th></th>" if rows is not None else ""
        heads = "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)
        out.append(f"<thead><tr>{corner}{heads}</tr></thead>")
    out.append("<tbody>")
    for r, row in enumerate(texts):
        head = f"<th>{html.escape(str(rows[r]))}</th>" if rows is not None else ""
        cells = "".join(f"<td>{html.escape(text)}</td>" for text in row)
        out.append(f"<tr>{head}{cells}</tr>")
    out.append("</tbody></table>")
    return HTML("".join(out))


def _by_index(
    formats: Mapping[Any, str | Callable[[Any], Any]] | None, cols: Sequence[Any] | None
) -> dict[int, str | Callable[[Any], Any]]:
    """`formats` keyed by column index; a key that names no column is an error."""
    found: dict[int, str | Callable[[Any], Any]] = {}
    labels = [str(c) for c in cols] if cols is not None else []
    for key, fmt in (formats or {}).items():
        if str(key) in labels:
            found[labels.index(str(key))] = fmt
        elif isinstance(key, int) and not isinstance(key, bool):
            found[key] = fmt
        else:
            raise ValueError(f"table(formats=…): no column {key!r} (columns: {labels})")
    return found


def _cell_texts(
    values: list[list[Any]],
    one_row: bool,
    digits: int | None,
    formats: dict[int, str | Callable[[Any], Any]],
) -> list[list[str]]:
    """Each cell's text (see `table`)."""
    width = max((len(row) for row in values), default=0)
    columns = [[row[k] for row in values if k < len(row)] for k in range(width)]
    groups = [[v for row in values for v in row]] * width if one_row else columns
    shown = [_column_format(k, group, digits, formats.get(k)) for k, group in enumerate(groups)]
    return [[shown[k](v) for k, v in enumerate(row)] for row in values]


def _column_format(
    k: int, group: list[Any], digits: int | None, fmt: str | Callable[[Any], Any] | None
) -> Callable[[Any], str]:
    """How column `k` writes a value, from the values it is formatted with (`group`)."""
    if fmt is not None:
        return lambda v: v if isinstance(v, str) else _formatted(fmt, v)
    if digits is not None:
        return lambda v: v if isinstance(v, str) else number(v, digits)
    floats = [x for x in map(_scalar, group) if isinstance(x, float) and math.isfinite(x)]
    decimals = max((_decimals(x) for x in floats), default=0)
    return lambda v: v if isinstance(v, str) else _fixed(_scalar(v), decimals)


def _formatted(fmt: str | Callable[[Any], Any], value: Any) -> str:
    if callable(fmt):
        return str(fmt(value))
    return fmt.format(_scalar(value))


def _decimals(x: float) -> int:
    """The fewest decimals (at most MAX_DECIMALS) that write `x` as it is."""
    return next((d for d in range(MAX_DECIMALS) if float(f"{x:.{d}f}") == x), MAX_DECIMALS)


def _fixed(x: Any, decimals: int) -> str:
    """A value to `decimals` decimals (0: a whole float as an integer; an integer among
    floats as they are written), very small or large floats as `number` writes them."""
    if decimals and isinstance(x, int) and not isinstance(x, bool) and abs(x) < 1e15:
        x = float(x)
    if not isinstance(x, float) or not math.isfinite(x):
        return number(x)
    if decimals == 0 and abs(x) < 1e15:
        return str(int(x))
    if abs(x) >= 1e6 or (x != 0 and abs(x) < 10 ** (-decimals)):
        return number(x, MAX_DECIMALS)
    return number(x, decimals)


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
        if value.ndim <= 2:  # (as before `table` followed the data: 3 decimals throughout)
            return Output("html", table(value, digits=3)._repr_html_())
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
