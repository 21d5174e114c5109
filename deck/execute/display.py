"""What a `.qmd` cell shows as Quarto shows it: `display(…)` and IPython's rich objects.

In a Quarto file (never in a lesson, where `deck.show.HTML` is the one way to place markup):
- `display(obj)` (a builtin in Jupyter, and `IPython.display.display` once imported) adds an
  output to the cell: `Markdown` and `Latex`/`Math` as Markdown, `HTML` as the markup the author
  wrote, `Image`/`SVG` as an image, anything else as its text;
- a trailing pandas DataFrame or Series is shown as pandas' own HTML table (pandas escapes
  every cell);
- a plotly figure (displayed or trailing) as plotly's own offline HTML: its JavaScript comes
  from the plotly package of the interpreter running the cells
  (`plotly.offline.get_plotlyjs()`), written once beside the figures and shipped with the
  deck, never from a CDN; an Altair chart as the SVG vl-convert-python draws offline (a
  warning says so where that package is missing).
Other objects with a `_repr_html_` are shown as text, as in a lesson.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.abc
import importlib.machinery
import sys
from pathlib import Path
from typing import Any

from deck.model import Output

SHOWN: list[Output] = []  # what `display` added during the running cell
PANDAS_TABLES = {("pandas.core.frame", "DataFrame"), ("pandas.core.series", "Series")}
IPYTHON_MODULES = ("IPython.core.display_functions", "IPython.display")
FIGURES: list[Path] = []  # the job's figure folder (plotly's JavaScript is written there)
ALTAIR_SPACE_MB = 131072  # address space vl-convert needs (measured: 64 GB is too little)
PLOTLY_MARK = "data-plotly-js"  # on a plotly figure's markup: the script file it needs


def plotly_figure(obj: Any) -> Output | None:
    """A plotly figure as plotly's offline HTML (a `<div>` and its `Plotly.newPlot` call),
    marked with the name of the plotly.js file written beside the figures."""
    if not type(obj).__module__.startswith("plotly.") or not hasattr(obj, "to_plotly_json"):
        return None
    import plotly
    import plotly.offline

    name = f"plotly-{plotly.__version__}.min.js"
    if FIGURES and not (FIGURES[0] / name).is_file():
        FIGURES[0].mkdir(parents=True, exist_ok=True)
        (FIGURES[0] / name).write_text(plotly.offline.get_plotlyjs(), "utf-8")
    spec = obj.to_json()
    div = "plotly-" + hashlib.sha256(spec.encode()).hexdigest()[:16]  # (the same each build)
    markup = obj.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=div,
        config={"displaylogo": False, "responsive": True},
    )
    return Output("html", f'<div class="deck-plotly" {PLOTLY_MARK}="{name}">{markup}</div>')


def altair_chart(obj: Any) -> Output | None:
    """An Altair chart as the SVG vl-convert-python draws (offline), if it is installed."""
    if not type(obj).__module__.startswith("altair.") or not hasattr(obj, "to_json"):
        return None
    try:
        import vl_convert
    except ImportError:
        return Output(
            "warning",
            f"an Altair chart is drawn offline by vl-convert-python, which {sys.executable} "
            "lacks (pip install vl-convert-python): not drawn",
        )
    import resource

    space, _ = resource.getrlimit(resource.RLIMIT_AS)
    if space != resource.RLIM_INFINITY and space < ALTAIR_SPACE_MB * 2**20:
        # (vl-convert's JavaScript engine reserves that much address space, using little:
        # under a smaller limit it is killed, so it is not started)
        return Output(
            "warning",
            f"an Altair chart is drawn by vl-convert-python, whose JavaScript engine reserves "
            f"{ALTAIR_SPACE_MB // 1024} GB of address space, more than this cell's limit of "
            f"{space // 2**20} MB: set `exec: memory: {ALTAIR_SPACE_MB}` to draw it; not drawn",
        )
    return Output("html", vl_convert.vegalite_to_svg(obj.to_json()))


def chart(obj: Any) -> Output | None:
    """A plotly figure or an Altair chart, as Quarto shows them (None: neither)."""
    return plotly_figure(obj) or altair_chart(obj)


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
    table = pandas_table(obj) or chart(obj)
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
        original = loader.exec_module

        def exec_module(module: Any) -> None:
            original(module)
            module.display = display

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install(namespace: dict[str, Any], figures: Path | None = None) -> None:
    """`display` for a Quarto file's cells: in their namespace, and IPython's when imported;
    `figures`: where a plotly figure's JavaScript goes."""
    namespace["display"] = display
    FIGURES[:] = [figures] if figures is not None else []
    for name in IPYTHON_MODULES:
        if name in sys.modules:
            sys.modules[name].display = display  # type: ignore[attr-defined]
    sys.meta_path.insert(0, DisplayOnImport())
