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
- any other object (displayed or trailing) by its richest safe representation, in the order
  IPython's DisplayFormatter computes them (`_repr_mimebundle_` first, then html, markdown,
  svg, png, jpeg, latex) with HTML left out: SVG, PNG and JPEG become the cell's figures
  (files beside matplotlib's, shown as `<img>`, so nothing in them runs), Markdown is read as
  Markdown (raw HTML tags in it shown as text), LaTeX as math; else its text (`repr`).
HTML an object computes (`_repr_html_`, `text/html`) is never placed on a slide: the author
opts in by wrapping markup in IPython's `HTML(…)` (or `deck.show.HTML`); pandas' tables and
plotly's figures are the known, escaped exceptions above. This is decided in `RICH_ORDER`.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.abc
import importlib.machinery
import re
import sys
from pathlib import Path
from typing import Any

from deck.model import Output
from deck.show import to_output

SHOWN: list[Output] = []  # what `display` added during the running cell
IMAGES: list[tuple[str, bytes]] = []  # its pictures (MIME type, bytes): saved as its figures
# IPython's DisplayFormatter order (deck.execute.display's docstring), without `text/html`
RICH_ORDER = ("text/markdown", "image/svg+xml", "image/png", "image/jpeg", "text/latex")
REPR = {
    "text/markdown": "_repr_markdown_",
    "image/svg+xml": "_repr_svg_",
    "image/png": "_repr_png_",
    "image/jpeg": "_repr_jpeg_",
    "text/latex": "_repr_latex_",
}
CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)  # Markdown code (kept as written)
TAG = re.compile(r"<(?=[A-Za-z/!?])")  # where raw HTML would start
FIGURE = Output("figure", "")  # (a picture `richest` added to IMAGES)
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
        if name == "HTML":  # (the author's own markup: the opt-in)
            return Output("html", str(obj.data or ""))
    table = pandas_table(obj) or chart(obj)
    if table is not None:
        return table
    return richest(obj) or Output("text", repr(obj))


def bundle(obj: Any) -> dict[str, Any]:
    """What IPython's DisplayFormatter computes for `obj` (the types of `RICH_ORDER`):
    `_repr_mimebundle_`'s data first, then each `_repr_*_` for the types it lacks. A method
    that fails or returns None gives nothing, as in IPython."""
    found: dict[str, Any] = {}
    method = getattr(obj, "_repr_mimebundle_", None)
    if callable(method) and not isinstance(obj, type):
        try:
            data = method(include=None, exclude=None)
        except Exception:  # noqa: BLE001 - IPython shows the other formats then
            data = None
        data = data[0] if isinstance(data, tuple) else data
        if isinstance(data, dict):
            found.update((k, v) for k, v in data.items() if k in RICH_ORDER and v is not None)
    for mime in RICH_ORDER:
        method = getattr(obj, REPR[mime], None)
        if mime in found or not callable(method) or isinstance(obj, type):
            continue
        try:
            data = method()
        except Exception:  # noqa: BLE001
            continue
        data = data[0] if isinstance(data, tuple) else data  # (data, metadata)
        if data is not None:
            found[mime] = data
    return found


def richest(obj: Any) -> Output | None:
    """`obj` by its richest safe representation: an image is added to `IMAGES` (`FIGURE` is
    returned), Markdown and LaTeX are outputs read as Markdown; None: it has none."""
    if type(obj).__module__.startswith(("matplotlib", "mpl_toolkits")):
        return None  # (its figure is saved as matplotlib's)
    found = bundle(obj)
    for mime in RICH_ORDER:
        if mime not in found:
            continue
        data = found[mime]
        if mime.startswith("image/"):
            if isinstance(data, str):  # a bundle's PNG and JPEG are base64, SVG is text
                data = data.encode() if mime == "image/svg+xml" else base64.b64decode(data)
            IMAGES.append((mime, bytes(data)))
            return FIGURE
        text = data.decode() if isinstance(data, bytes) else str(data)
        if mime == "text/latex":
            text = text if text.strip().startswith("$") else f"$${text}$$"
        return Output("markdown", as_text_tags(text))
    return None


def as_text_tags(markdown: str) -> str:
    """Computed Markdown with its raw HTML tags shown as text (code kept as written)."""
    parts = CODE.split(markdown)
    return "".join(p if k % 2 else TAG.sub("&lt;", p) for k, p in enumerate(parts))


def last_value(value: Any) -> Output | None:
    """A `.qmd` cell's last value: as `display` shows it, arrays and `deck.show` values as a
    lesson's are, nothing for None or an image (one of the cell's figures)."""
    if value is None:
        return None
    shown = pandas_table(value) or chart(value)
    if shown is None and (shown := to_output(value)) is not None and shown.kind == "text":
        shown = richest(value) or shown
    return None if shown is FIGURE else shown


def pandas_table(obj: Any) -> Output | None:
    """A pandas DataFrame or Series as pandas' own (escaped) HTML table."""
    if (type(obj).__module__, type(obj).__name__) not in PANDAS_TABLES:
        return None
    frame = obj.to_frame() if type(obj).__name__ == "Series" else obj
    return Output("html", frame.to_html(max_rows=60, escape=True, border=0))


def take_images() -> list[tuple[str, bytes]]:
    """The running cell's pictures, in the order shown (the list is emptied)."""
    taken = IMAGES[:]
    IMAGES.clear()
    return taken


def display(*objs: Any, **_: Any) -> None:
    """Jupyter's `display`, for the running cell."""
    for obj in objs:
        if obj is not None and (shown := rich(obj)) is not FIGURE:
            SHOWN.append(shown)


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
