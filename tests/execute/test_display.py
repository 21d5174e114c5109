"""What a `.qmd` cell shows, as Quarto shows it (issue 17, item 7): `display()` of IPython's
Markdown, HTML, LaTeX and plain objects, and a trailing pandas table as pandas' own HTML. A
lesson keeps its stricter rule (only `deck.show.HTML` places markup)."""

from __future__ import annotations

import re
from pathlib import Path

from catalogue import write
from fixture_build import run_cli

CELLS = """
## Shown

```{python}
from IPython.display import HTML, Markdown, Math, display
print("printed first")
display(Markdown("Some **bold** words"), HTML("<b class='asked'>asked</b>"))
display(Math(r"x^2 + 1"), 6 * 7)
```

```{python}
display("<i>a string stays text</i>")
```

```{python}
import pandas
pandas.DataFrame([["<b>", 1.5]])
```
"""
FAKE_PANDAS = {  # a stand-in with pandas' own module path and `to_html`
    "pandas/__init__.py": "from pandas.core.frame import DataFrame\n",
    "pandas/core/__init__.py": "",
    "pandas/core/frame.py": (
        "import html\n"
        "class DataFrame:\n"
        "    def __init__(self, rows):\n"
        "        self.rows = rows\n"
        "    def to_html(self, max_rows=None, escape=True, border=0):\n"
        "        cells = ''.join('<td>%s</td>' % html.escape(str(v)) for v in self.rows[0])\n"
        "        return '<table class=\"dataframe\"><tr>%s</tr></table>' % cells\n"
    ),
}


def test_display_and_pandas_tables_in_a_qmd(tmp_path: Path):
    for name in ("pandas", "pandas/core"):
        (tmp_path / name).mkdir(parents=True, exist_ok=True)
    write(tmp_path, {"talk.qmd": "---\ntitle: T\n---\n" + CELLS, **FAKE_PANDAS})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist" / "talk" / "index.html").read_text()
    body = page[page.index("<h2>Shown</h2>") :]
    assert body.index("printed first") < body.index("<strong>bold</strong>")
    assert "<b class='asked'>asked</b>" in body or '<b class="asked">asked</b>' in body
    assert 'class="katex' in body  # the formula typeset
    assert '<pre class="output">42</pre>' in body
    assert "&lt;i&gt;a string stays text&lt;/i&gt;" in body  # repr, as text
    table = re.search(r'<table class="dataframe">.*?</table>', body).group(0)
    assert "<td>&lt;b&gt;</td><td>1.5</td>" in table  # pandas escaped the cell


def test_a_lesson_keeps_display_out(tmp_path: Path):
    folder = tmp_path / "content" / "l"
    folder.mkdir(parents=True)
    write(
        folder,
        {
            "lesson.yml": "title: L\nlang: en\n",
            "01-a.md": "## A\n\n```{python}\ndisplay('x')\n```\n",
        },
    )
    ran = run_cli(tmp_path, "l", "--no-pdf")
    assert ran.returncode == 1 and "NameError: name 'display' is not defined" in ran.stderr
