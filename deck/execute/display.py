"""What a `.qmd` cell shows as Quarto shows it: `display(…)` and IPython's rich objects.

In a Quarto file (never in a lesson, where `deck.show.HTML` is the one way to place markup):
- `display(obj)` (a builtin in Jupyter, and `IPython.display.display` once imported) adds an
  output to the cell: `Markdown` and `Latex`/`Math` as Markdown, `HTML` as the markup the author
  wrote, `Image`/`SVG` as an image, anything else as its text;
- a trailing pandas DataFrame or Series is shown as pandas' own HTML table (pandas escapes
  every cell).
Other objects with a `_repr_html_` are shown as text, as in a lesson.
"""

from __future__ import annotations

import base64
import importlib.abc
import importlib.machinery
import sys
from typing import Any

from deck.model import Output

SHOWN: list[Output] = []  # what `display` added during the running cell
PANDAS_TABLES = {("pandas.core.frame", "DataFrame"), ("pandas.core.series", "Series")}
IPYTHON_MODULES = ("IPython.core.display_functions", "IPython.display")


def rich(obj: Any) -> Output:
    """One displayed object as an output."""
    kind = (type(obj).__module__, type(obj).__name__)
    if kind[0].startswith("IPython."):
        name = kind[1]
        if name == "Markdown":
            return Output("markdown", str(obj.data or ""))
        if name in ("Latex", "Math"):
            data = str(obj.data or "")
            return Output("markdown", data if name == "Latex" or "$" in data else f"$${data}$$")
        if name == "HTML":
            return Output("html", str(obj.data or ""))
        if name == "SVG":
            return Output("html", str(obj.data or ""))
        if name == "Image":
            fmt = getattr(obj, "format", "png") or "png"
            data = base64.b64encode(obj.data).decode() if obj.data else ""
            return Output("html", f'<img src="data:image/{fmt};base64,{data}" alt="">')
    table = pandas_table(obj)
    if table is not None:
        return table
    return Output("text", repr(obj))


def pandas_table(obj: Any) -> Output | None:
    """A pandas DataFrame or Series as pandas' own (escaped) HTML table."""
    if (type(obj).__module__, type(obj).__name__) not in PANDAS_TABLES:
        return None
    frame = obj.to_frame() if type(obj).__name__ == "Series" else obj
    return Output("html", frame.to_html(max_rows=60, escape=True, border=0))


def display(*objs: Any, **_: Any) -> None:
    """Jupyter's `display`, for the running cell."""
    for obj in objs:
        if obj is not None:
            SHOWN.append(rich(obj))


class DisplayOnImport(importlib.abc.MetaPathFinder):
    """Points IPython's `display` at this one when the author imports it."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in IPYTHON_MODULES:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.machinery.PathFinder.find_spec(name, path)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        original = loader.exec_module  # type: ignore[union-attr]

        def exec_module(module: Any) -> None:
            original(module)
            module.display = display

        loader.exec_module = exec_module  # type: ignore[union-attr,method-assign]
        return spec


def install(namespace: dict[str, Any]) -> None:
    """`display` for a Quarto file's cells: in their namespace, and IPython's when imported."""
    namespace["display"] = display
    for name in IPYTHON_MODULES:
        if name in sys.modules:
            sys.modules[name].display = display  # type: ignore[attr-defined]
    sys.meta_path.insert(0, DisplayOnImport())
