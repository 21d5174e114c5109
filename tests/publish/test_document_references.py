"""Cross-references and citations reach the outputs made from the document (the notebook and
the PPTX) as the slides show them: `@fig-x` → "Figure 1", `[-@fig-x]` → "1", `[@key]` as
Pandoc's citeproc formats it, and the references' entries where `::: {#refs}` stands (a
transform on the document, deck.render.transforms.DOCUMENT_TRANSFORMS)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from catalogue import write
from fixture_build import run_cli

BIB = """
@article{vaswani2017,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam and Parmar, Niki},
  journal = {Advances in Neural Information Processing Systems},
  year = {2017}
}
"""
TALK = """---
title: Refs
lang: en
bibliography: refs.bib
---

## A figure

```{python}
#| label: fig-line
#| fig-cap: "A line"
import matplotlib.pyplot as plt
plt.plot([0, 1], [0, 1])
```

## Reading it

As @fig-line shows (panel [-@fig-line]), attention [@vaswani2017] is all; `@fig-line` in
code stays.

## References

::: {#refs}
:::
"""


def pptx_text(path: Path) -> str:
    from pptx import Presentation

    shown = []
    for slide in Presentation(str(path)).slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                shown.append(shape.text_frame.text)
    return "\n".join(shown)


def test_references_and_citations_read_as_on_the_slides(tmp_path: Path) -> None:
    write(tmp_path, {"talk.qmd": TALK, "refs.bib": BIB})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf", "--to", "html,ipynb,pptx")
    assert ran.returncode == 0, ran.stderr
    out = tmp_path / "dist" / "talk"
    page = re.sub(r"<[^>]+>", "", (out / "index.html").read_text("utf-8"))
    assert "As Figure&nbsp;1 shows (panel 1), attention (Vaswani et al. 2017)" in page

    notebook = json.loads((out / "talk.ipynb").read_text("utf-8"))
    markdown = "\n".join(
        "".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"
    )
    assert "As Figure\u00a01 shows (panel 1), attention (Vaswani et al. 2017) is all" in markdown
    assert "*Figure\u00a01: A line*" in markdown  # (its caption labelled)
    assert "`@fig-line` in" in markdown  # (code is not text)
    assert "Vaswani, Ashish, Noam Shazeer, and Niki Parmar" in markdown  # (the entry)

    slides = pptx_text(out / "slides.pptx").replace("\u00a0", " ")
    assert "As Figure 1 shows (panel 1), attention (Vaswani et al. 2017) is all" in slides
    assert "Attention Is All You Need" in slides and "Figure 1: A line" in slides
