"""Issue 32, item 4: a `.qmd` cell's value (trailing or `display`ed) is shown by its richest
safe representation, in IPython's DisplayFormatter order with HTML left out: SVG, PNG and JPEG
as the cell's figures, Markdown as Markdown (its raw tags as text), LaTeX as math. Real objects
where installed (PIL, sympy), small classes of this file's own for the rest."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import pytest

from catalogue import write
from deck.execute.figures import raster_size, svg_size
from fixture_build import run_cli

PIL = pytest.importorskip("PIL.Image")
sympy = pytest.importorskip("sympy")

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="120pt" height="60pt"><rect/></svg>'
SVG_2 = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 10"><circle r="3"/></svg>'
KINDS = f'''
SVG = {SVG!r}
SVG_2 = {SVG_2!r}

class Drawing:
    def _repr_svg_(self):
        return SVG

class Notes:
    def _repr_markdown_(self):
        return "Some **bold** words <script>alert(1)</script> and `<b>code</b>`"

class Formula:
    def _repr_latex_(self):
        return r"\\frac{{a}}{{b}}"

class HtmlAndPng:
    """HTML is not placed unasked: its PNG is the richest safe one."""
    def __init__(self, png):
        self.png = png
    def _repr_html_(self):
        return "<b>computed</b>"
    def _repr_png_(self):
        return self.png

class HtmlOnly:
    def _repr_html_(self):
        return "<b>computed</b>"
    def __repr__(self):
        return "HtmlOnly()"

class Bundled:
    """`_repr_mimebundle_` first: its SVG over the PNG method."""
    def _repr_mimebundle_(self, include=None, exclude=None):
        return {{"image/svg+xml": SVG_2, "text/plain": "bundled"}}, {{}}
    def _repr_png_(self):
        raise AssertionError("not asked: the bundle has a richer type")

class Failing:
    def _repr_svg_(self):
        raise RuntimeError("no drawing")
    def _repr_latex_(self):
        return "$y$"

class Jpeg:
    def __init__(self, data):
        self.data = data
    def _repr_jpeg_(self):
        return self.data
'''
QMD = """---
title: T
---

## Pictures

```{python}
#| label: pil
#| fig-alt: a red square
from PIL import Image
square = Image.new("RGB", (40, 20), (255, 0, 0))
square
```

```{python}
#| label: drawn
#| fig-alt: drawings
from kinds import Bundled, Drawing
display(Drawing())
Bundled()
```

```{python}
#| label: jpeg
#| fig-alt: a blue square
import io
from kinds import HtmlAndPng, Jpeg
buffer = io.BytesIO()
Image.new("RGB", (16, 8), (0, 0, 255)).save(buffer, "JPEG")
display(Jpeg(buffer.getvalue()))
HtmlAndPng(square._repr_png_())
```

## Words

```{python}
import sympy
from kinds import Failing, Formula, HtmlOnly, Notes
display(Notes(), Formula(), HtmlOnly(), Failing())
x = sympy.Symbol("x")
x**2 + 1
```
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("rich")
    write(root, {"talk.qmd": QMD, "kinds.py": KINDS})
    ran = run_cli(root, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    return root / "dist" / "talk", (root / "dist" / "talk" / "index.html").read_text()


def slide(page: str, title: str) -> str:
    start = page.index(f"<h2>{title}</h2>")
    return page[start : page.find("</section>", start)]


def figures(out: Path, body: str) -> list[str]:
    return re.findall(r'<img (?:data-)?src="figures/([^"]+)"', body)


def embedded(svg: str) -> tuple[str, bytes]:
    mime, data = re.search(r'xlink:href="data:(image/\w+);base64,([^"]+)"', svg).groups()
    return mime, base64.b64decode(data)


def test_pictures_are_figures_with_their_own_bytes(built: tuple[Path, str]):
    out, page = built
    body = slide(page, "Pictures")
    names = figures(out, body)
    assert names == ["pil.svg", "drawn.svg", "drawn-2.svg", "jpeg.svg", "jpeg-2.svg"], names
    square = PIL.new("RGB", (40, 20), (255, 0, 0))
    # a PIL image: its PNG (IPython's order: png before jpeg), inside the SVG and beside it
    assert embedded((out / "figures/pil.svg").read_text()) == ("image/png", square._repr_png_())
    notebook = json.loads((out / "talk.ipynb").read_text())
    pngs = [
        o["data"]["image/png"]
        for c in notebook["cells"]
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    ]
    assert base64.b64decode(pngs[0]) == square._repr_png_()  # the notebook's figure too
    assert 'alt="a red square"' in body and "aspect-ratio:0.417/0.208" in body  # 40×20 px
    # `_repr_svg_` as written; the bundle's SVG over a `_repr_png_`
    assert (out / "figures/drawn.svg").read_text() == SVG
    assert (out / "figures/drawn-2.svg").read_text() == SVG_2
    buffer = io.BytesIO()
    PIL.new("RGB", (16, 8), (0, 0, 255)).save(buffer, "JPEG")
    assert embedded((out / "figures/jpeg.svg").read_text()) == ("image/jpeg", buffer.getvalue())
    # an object with `_repr_html_` and `_repr_png_`: the PNG, its HTML nowhere
    assert embedded((out / "figures/jpeg-2.svg").read_text())[1] == square._repr_png_()
    assert "computed" not in body and "object" not in body


def test_markdown_and_latex_are_read_as_markdown_and_math(built: tuple[Path, str]):
    _, page = built
    body = slide(page, "Words")
    assert "Some <strong>bold</strong> words" in body
    assert "&lt;script&gt;alert(1)" in body and "<script>alert" not in body  # tags as text
    assert "<code>&lt;b&gt;code&lt;/b&gt;</code>" in body  # code as written
    tex = re.findall(r'<annotation encoding="application/x-tex">(.*?)</annotation>', body)
    assert tex == [r"\frac{a}{b}", "y", r"\displaystyle x^{2} + 1"], tex  # sympy's own TeX
    assert '<pre class="output">HtmlOnly()</pre>' in body  # computed HTML stays text
    assert "&lt;b&gt;computed" not in body and "<b>computed" not in body


def test_sizes_are_read_from_the_pictures():
    assert svg_size(SVG) == (160.0, 80.0)  # 120 pt × 60 pt in CSS px
    assert svg_size(SVG_2) == (30.0, 10.0)
    assert svg_size('<svg width="300" viewBox="0 0 30 10">') == (300.0, 100.0)
    buffer = io.BytesIO()
    PIL.new("RGB", (16, 8)).save(buffer, "JPEG")
    assert raster_size("image/jpeg", buffer.getvalue()) == (16, 8)
    assert raster_size("image/png", PIL.new("RGB", (7, 3))._repr_png_()) == (7, 3)
