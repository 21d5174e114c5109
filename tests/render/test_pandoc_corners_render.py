"""Pandoc syntax corners as the slides show them (issue 32 items 2 and 6): grid tables, raw
inline HTML, figure captions holding HTML, hard line breaks, escaped attribute values. Each
compares the deck's HTML with Pandoc's reading of the same text (`pandoc -t json`), and one
real build of a small `.qmd` (tests/fixtures/quarto/corners/) checks them all together."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pypandoc

from deck.model import SectionResult
from deck.render.deck import new_markdown, render_lesson
from deck.render.pandoc import bracketed_spans
from deck.source.qmd import load_qmd

ROOT = Path(__file__).resolve().parents[2]
CORNERS = ROOT / "tests" / "fixtures" / "quarto" / "corners"


def pandoc(text: str) -> list[dict[str, Any]]:
    return json.loads(pypandoc.convert_text(text, "json", format="markdown"))["blocks"]


def html(text: str) -> str:
    """The deck's Markdown renderer on `text` (as a slide's prose goes through it)."""
    return str(new_markdown().convert(bracketed_spans(text)))


def stringify(node: Any) -> str:
    if isinstance(node, list):
        return "".join(stringify(n) for n in node)
    if isinstance(node, dict):
        kind = node["t"]
        if kind in ("Space", "SoftBreak"):
            return " "
        if kind == "Str":
            return str(node["c"])
        return stringify(node.get("c", []))
    return ""


class Cells(HTMLParser):
    """A table's cells: (tag, colspan, rowspan, text-align, its text without spaces) per row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, int, int, str, str]]] = []
        self.cell: list[Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            align = re.search(r"text-align: (\w+)", a.get("style") or "")
            spans = [int(a.get("colspan") or 1), int(a.get("rowspan") or 1)]
            self.cell = [tag, *spans, align.group(1) if align else "", ""]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            tag, span, down, align, text = self.cell
            self.rows[-1].append((tag, span, down, align, "".join(text.split())))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell[4] += data + " "


def table_cells(markup: str) -> list[list[tuple[str, int, int, str, str]]]:
    parser = Cells()
    parser.feed(markup)
    return parser.rows


def pandoc_cells(block: dict[str, Any]) -> list[list[tuple[str, int, int, str, str]]]:
    """Pandoc's Table as the same rows: head cells `th`, body cells `td` (a cell's alignment
    is its column's: the one it starts at, after the cells spanning down from above)."""
    _, _, specs, head, bodies, _ = block["c"]
    aligns = [{"AlignDefault": ""}.get(s[0]["t"], s[0]["t"][5:].lower()) for s in specs]
    rows: list[list[tuple[str, int, int, str, str]]] = []
    taken: dict[int, set[int]] = {}  # row → the columns cells from above span down into
    parts = [("th", head[1])] + [("td", b[3]) for b in bodies]
    for tag, part in parts:
        for row in part:
            out, column = [], 0
            for cell in row[1]:
                _, _, down, span, content = cell
                while column in taken.get(len(rows), set()):
                    column += 1
                text = "".join(stringify(content).split())
                out.append((tag, span, down, aligns[column], text))
                for below in range(len(rows), len(rows) + down):
                    taken.setdefault(below, set()).update(range(column, column + span))
                column += span
            rows.append(out)
    return rows


# ---- item 2: grid tables ----------------------------------------------------------------------

GRID = """\
+---------------+---------------+--------------------+
| Fruit         | Price         | Advantages         |
+===============+==============:+:==================:+
| Bananas       | 1.34          | - built-in wrapper |
|               |               | - bright color     |
+---------------+---------------+--------------------+
| Oranges       | 2.10          | cures scurvy,      |
| *sweet*       |               | tasty              |
+---------------+---------------+--------------------+
| spans two columns             | x                  |
+---------------+---------------+--------------------+
"""
HEADLESS = "+------+-----+\n| 中文 | b   |\n+------+-----+\n| c    | d   |\n+------+-----+\n"
ROWSPAN = """\
+---------+-------+----------+
| Head    | Two   | Three    |
+=========+======:+:========:+
| tall    | b     | c        |
| 中文    +-------+----------+
|         | wide cell        |
+---------+-------+----------+
| x       | y     | deep     |
+---------+-------+          |
| *last*  | z     | cell     |
+---------+-------+----------+
"""


def test_grid_tables_have_pandocs_cells_spans_and_alignment():
    for text in (GRID, HEADLESS, ROWSPAN):
        (table,) = pandoc(text)
        assert table["t"] == "Table"
        assert table_cells(html(text)) == pandoc_cells(table)
    assert [c[1:3] for row in table_cells(html(ROWSPAN)) for c in row if c[1:3] != (1, 1)] == [
        (1, 2),
        (2, 1),
        (1, 2),
    ]  # (the spans are there: Pandoc agreeing with no spans would not say much)
    out = html(GRID)
    assert "<ul>\n<li>built-in wrapper</li>" in out and "<em>sweet</em>" in out
    assert "+---" not in out


def test_what_only_looks_like_a_grid_table_stays_text():
    text = "+---+---+\na | b |\n+---+---+\n"  # a row not opening with `|`
    assert pandoc(text)[0]["t"] == "Para"
    assert "<table" not in html(text)
    pipes = "| a | b |\n|---|---:|\n| 1 | 2 |\n"  # a pipe table is still one
    assert table_cells(html(pipes)) == pandoc_cells(pandoc(pipes)[0])


# ---- item 4: raw inline HTML --------------------------------------------------------------------

RAW = "A `<b>bold</b>`{=html} word, `<i>`{=latex}dropped, `<b>` code.\n"
CAPTION = '![See <a href="https://x.org">the site</a> *here*](pic.png)\n'


def test_raw_inline_html_is_markup_and_other_formats_are_dropped():
    (para,) = pandoc(RAW)
    raws = [i["c"] for i in para["c"] if i["t"] == "RawInline"]
    assert raws == [["html", "<b>bold</b>"], ["latex", "<i>"]]
    out = html(RAW)
    assert "A <b>bold</b> word, dropped, <code>&lt;b&gt;</code> code." in out


def test_html_in_a_figure_caption_is_markup_and_the_alt_text_its_words():
    (figure,) = pandoc(CAPTION)
    caption = figure["c"][1][1][0]["c"]
    assert [i["c"] for i in caption if i["t"] == "RawInline"] == [
        ["html", '<a href="https://x.org">'],
        ["html", "</a>"],
    ]
    out = html(CAPTION)
    assert '<figcaption>See <a href="https://x.org">the site</a> <em>here</em></figcaption>' in out
    assert 'alt="See the site *here*"' in out  # no tags in the alt text


def test_computed_values_in_a_caption_or_beside_raw_html_stay_text(tmp_path: Path):
    path = tmp_path / "talk.qmd"
    (tmp_path / "pic.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>', "utf-8")
    path.write_text(
        "---\nformat: revealjs\n---\n\n## V\n\n"
        "![Made by `{python} who` and <b>me</b>](pic.svg)\n\n`<u>`{=html}`{python} who`\n",
        "utf-8",
    )
    lesson = load_qmd(path)
    results = {
        s.name: SectionResult(f"k-{s.name}", (), {"who": "<i>x</i>"}, 0.0, str(tmp_path))
        for s in lesson.sections
    }
    body = render_lesson(lesson, results).slides[-1].body
    assert "<b>me</b>" in body and "<u>" in body
    assert "<i>x</i>" not in body and "&lt;i&gt;x&lt;/i&gt;" in body


# ---- item 5: a backslash ending a line is a hard line break -------------------------------------

BREAKS = "one\\\ntwo \\\\\nthree\\\nfour `code\\`\nlast\\\n"


def test_a_backslash_ending_a_line_is_a_line_break_as_in_pandoc():
    (para,) = pandoc(BREAKS)
    assert sum(i["t"] == "LineBreak" for i in para["c"]) == 3  # the paragraph's last too
    out = html(BREAKS)
    assert out.count("<br") == 3
    assert "one<br>\ntwo \\\nthree<br>\nfour <code>code\\</code>\nlast<br>\n</p>" in out


# ---- item 6: escaped quotes in an image's attributes -------------------------------------------


def test_an_escaped_quote_in_an_image_attribute_is_read_as_pandoc_reads_it():
    text = '![pic](pic.png){.wide width="\\"50%" fig-alt="a \\"quoted\\" word"}\n'
    (figure,) = pandoc(text)
    image = figure["c"][2][0]["c"][0]
    assert dict(image["c"][0][2]) == {"width": '"50%', "fig-alt": 'a "quoted" word'}
    out = html(text)
    assert 'alt="a &quot;quoted&quot; word"' in out and "width: &quot;50%" in out
    assert 'class="wide"' in out and "data-50" not in out


# ---- all of them in one real build ----------------------------------------------------------


def test_a_deck_of_every_corner_builds_as_quarto_shows_it(tmp_path: Path):
    ran = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), str(CORNERS / "corners.qmd"), "--no-pdf"]
        + ["--out", str(tmp_path / "out"), "--figures", str(tmp_path / "fig")]
        + ["--cache", str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    page = (tmp_path / "out" / "corners" / "index.html").read_text("utf-8")
    sections = re.findall(r"<section\b.*?</section>", page, re.S)
    text = (CORNERS / "corners.qmd").read_text("utf-8")
    body = text.split("---\n", 2)[2]
    expected = len([h for h in pandoc_headers(body)]) + 1  # and the title slide
    assert len(sections) == expected
    assert "<table>" in page and "+---" not in page
    assert "<b>raw</b>" in page and '<a href="https://quarto.org">' in page
    assert "line one<br>" in page
    assert "{{&lt; meta title &gt;}}" in page and "{{{" not in page
    assert "{.big}" not in page and 'class="section-title big' in page


def pandoc_headers(body: str) -> list[str]:
    """Slide headings Quarto shows: Pandoc's level 1-2 headers, hidden blocks left out."""
    found = []

    def walk(blocks: list[dict[str, Any]]) -> None:
        for b in blocks:
            if b["t"] == "Header" and b["c"][0] <= 2:
                found.append(stringify(b["c"][2]))
            elif b["t"] == "Div" and "content-hidden" not in b["c"][0][1]:
                walk(b["c"][1])

    walk(pandoc(body))
    return found
