"""plotly figures and Altair charts in a `.qmd` (issue 17, item 7), as Quarto shows them: a
trailing figure and a `display()`ed one become plotly's own offline HTML, drawn by the
plotly.js of the author's plotly package, shipped with the deck (and inlined in the single
file), never fetched; an Altair chart becomes the SVG vl-convert-python draws.

The cells run with the author's interpreter: `QUARTO_PYTHON` when set (e.g. a venv holding
plotly alone), else this build's own (requirements.txt pins plotly). The tests skip only when
that interpreter lacks the package (Altair and vl-convert-python are not pinned here)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from catalogue import write
from fixture_build import run_cli

pytestmark = pytest.mark.browser

DECK = """---
title: Charts
---

## Trailing

```{python}
import plotly.graph_objects as go
fig = go.Figure(go.Bar(x=["a", "b", "c"], y=[3, 1, 2]))
fig
```

## Displayed

```{python}
display(go.Figure(go.Scatter(x=[1, 2, 3, 4], y=[4, 5, 6, 7], mode="markers")))
```
"""


def author_python() -> str:
    return os.environ.get("QUARTO_PYTHON") or sys.executable


def version_of(module: str) -> str | None:
    ran = subprocess.run(
        [author_python(), "-c", f"import {module}; print({module}.__version__)"],
        capture_output=True,
        text=True,
    )
    return ran.stdout.strip() if ran.returncode == 0 else None


def plotly_version() -> str | None:
    return version_of("plotly")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    version = plotly_version()
    if version is None:
        pytest.skip(f"plotly is not installed for the author's interpreter {author_python()}")
    root = tmp_path_factory.mktemp("plotly")
    write(root, {"talk.qmd": DECK})
    ran = run_cli(root, "talk.qmd", "--no-pdf", "--single-file")
    assert ran.returncode == 0, ran.stderr
    return root / "dist", version


def points(context, url: str) -> list[int]:  # noqa: ANN001
    """The bars and markers plotly drew on slides 1 and 2, with every request but the deck's
    own files refused (and none made)."""
    page = context.new_page()
    asked = []

    def only_local(route) -> None:  # noqa: ANN001
        asked.append(route.request.url)
        local = route.request.url.startswith(("file:", "data:"))
        route.continue_() if local else route.abort()

    page.route("**/*", only_local)
    found = []
    for n in (1, 2):
        page.goto(f"{url}#/{n}")
        page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
        page.wait_for_function(
            "document.querySelector('section.present .js-plotly-plot .main-svg') !== null"
        )
        found.append(
            page.evaluate(
                """document.querySelectorAll(
                     'section.present .js-plotly-plot .trace .point').length"""
            )
        )
    page.close()
    assert [u for u in asked if not u.startswith(("file:", "data:"))] == []
    return found


@pytest.mark.slow
def test_plotly_figures_draw_offline_with_the_authors_plotly_js(built, context):
    dist, version = built
    deck = dist / "talk"
    script = deck / "figures" / f"plotly-{version}.min.js"
    assert script.is_file() and script.stat().st_size > 1_000_000  # the library itself
    page = (deck / "index.html").read_text("utf-8")
    assert f'<script src="figures/plotly-{version}.min.js"></script>' in page
    assert "cdn.plot.ly" not in page.split("<body>")[0]
    assert points(context, (deck / "index.html").as_uri()) == [3, 4]  # 3 bars, 4 markers


@pytest.mark.slow
def test_the_single_file_carries_plotly_inline(built, context):
    dist, _ = built
    single = (dist / "talk.html").read_text("utf-8")
    assert 'src="figures/plotly' not in single
    assert points(context, (dist / "talk.html").as_uri()) == [3, 4]


def test_a_plotly_figure_is_the_same_markup_each_build(built, tmp_path):
    dist, _ = built
    write(tmp_path, {"talk.qmd": DECK})
    assert run_cli(tmp_path, "talk.qmd", "--no-pdf").returncode == 0
    again = (tmp_path / "dist" / "talk" / "index.html").read_text("utf-8")
    assert again == (dist / "talk" / "index.html").read_text("utf-8")


ALTAIR = """---
title: Altair
exec:
  memory: MEMORY
---

## Bars

```{python}
import altair as alt
data = alt.Data(values=[{"x": "a", "y": 3}, {"x": "b", "y": 1}, {"x": "c", "y": 2}])
alt.Chart(data).mark_bar().encode(x="x:N", y="y:Q")
```
"""


@pytest.fixture
def altair_here():
    for module in ("altair", "vl_convert"):
        if version_of(module) is None:
            pytest.skip(f"{module} is not installed for the author's interpreter {author_python()}")


def test_an_altair_chart_is_drawn_offline_as_svg(altair_here, tmp_path, context):
    write(tmp_path, {"talk.qmd": ALTAIR.replace("MEMORY", "131072")})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = context.new_page()
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    page.goto((tmp_path / "dist" / "talk" / "index.html").as_uri() + "#/1")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    bars = page.evaluate(
        """[...document.querySelectorAll('section.present svg [aria-roledescription="bar"]')]
             .map(b => b.getBoundingClientRect().height)"""
    )
    page.close()
    assert len(bars) == 3
    assert bars[0] == pytest.approx(3 * bars[1], rel=0.02)  # y = 3 and 1, drawn to scale
    assert bars[2] == pytest.approx(2 * bars[1], rel=0.02)


def test_altair_under_a_small_memory_limit_says_what_to_set(altair_here, tmp_path):
    write(tmp_path, {"talk.qmd": ALTAIR.replace("MEMORY", "4096")})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr  # never a crashed worker
    page = (tmp_path / "dist" / "talk" / "index.html").read_text("utf-8")
    assert "limit of 4096 MB: set `exec: memory: 131072` to draw it" in page
