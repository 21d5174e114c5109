"""How a cell shows on its slide: its code (when echoed), its outputs and figures, placed
where `output-location` says (below, as a fragment, in a column beside the code, or on a
slide of their own after this one)."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

from deck.blocks.styles import layout_style
from deck.errors import Diagnostic
from deck.model import Cell, Figure, FigureRecord, Loc, OutputRecord
from deck.model.document import ShownCell, label_token
from deck.render.htmltext import highlight_code, plain

if TYPE_CHECKING:
    from deck.blocks.context import RenderContext


def option_line(cell: Cell, key: str) -> Loc:
    """The line of a cell's `#| key:` option: options are kept in the order of their lines,
    one a line, right after the fence."""
    return Loc(cell.loc.path, cell.loc.line + 1 + list(cell.options).index(key))


def render_cell(r: RenderContext, cell: ShownCell) -> str:
    """Code (when echoed) and what it showed, where `output-location` puts it."""
    code = ""
    if cell.echo:
        text = cell.code.strip("\n")
        if cell.fenced:
            text = f"```{{python}}\n{text}\n```"
        code = highlight_code(text, "python", r.numbers(cell.line_numbers))
    location = cell.location
    number = r.number
    if location == "slide":  # the output's slide comes right after this one
        r.number += len(r.slide_state.extra) + 1
    try:
        shown = outputs(r, cell)
    finally:
        r.number = number
    # an echoed cell names itself: the classroom's live cells run it again (deck/classroom)
    named = f' data-cell="{html.escape(str(cell.loc))}"' if cell.echo else ""
    if location == "slide":
        r.slide_state.extra.append(f'<div class="cell output-location-slide">{shown}</div>')
        return f'<div class="cell"{named}>{code}</div>' if code else ""
    if location == "fragment" and shown:
        shown = f'<div class="fragment">{shown}</div>'
    elif location in ("column", "column-fragment"):
        fragment = " fragment" if location == "column-fragment" else ""
        return (
            f'<div class="columns column-output-location"{named}>'
            f'<div class="column">{code}</div><div class="column{fragment}">{shown}</div></div>'
        )
    label = cell.label or ""
    if label.startswith("tbl-") and shown:  # a table `@tbl-…` points to, with its caption
        caption = cell.table_caption
        cap = r.text(caption, inline=True) if caption is not None else ""
        cap = f'<div class="table-caption">{label_token(label)}{cap}</div>' if cap else ""
        shown = f'<div id="{html.escape(label)}" class="cell-table">{cap}{shown}</div>'
    grid = layout_style(cell.layout)
    if grid and shown:  # `#| layout-ncol: 2`: the cell's figures and outputs side by side
        shown = f'<div class="cell-output-layout" style="{html.escape(grid)}">{shown}</div>'
    body = code + shown
    # an exercise's cell (`#| exercise: true`): the students' handout prints the in-class line
    kind = "cell exercise" if cell.exercise else "cell"
    return f'<div class="{kind}"{named}>{body}</div>' if body else ""


PLOTLY_JS = re.compile(r'^<div class="deck-plotly" data-plotly-js="(plotly-[\w.+-]+\.min\.js)">')


def outputs(r: RenderContext, cell: ShownCell) -> str:
    """What it printed and drew (warnings only where asked), each recorded."""
    if not cell.show_output:
        return ""
    parts = []
    for output in cell.outputs:
        text = plain(output.data) if output.kind == "html" else output.data
        r.records.outputs.append(
            OutputRecord(cell.label, str(cell.loc), r.number, output.kind, text)
        )
        if output.kind == "html":
            parts.append(f'<div class="output">{output.data}</div>')
            script = PLOTLY_JS.search(output.data)  # a plotly figure: its plotly.js ships too
            if script and script.group(1) not in r.figure_files:
                r.figure_files.append(script.group(1))
        elif cell.asis or output.kind == "markdown":  # Markdown, as Quarto reads it
            parts.append(r.markdown(output.data, cell.loc))
        elif output.kind in ("stdout", "warning", "error"):
            parts.append(f'<pre class="{output.kind}">{html.escape(output.data)}</pre>')
        else:
            parts.append(f'<pre class="output">{html.escape(output.data)}</pre>')
    for figure in cell.figures:
        parts.append(figure_html(r, cell, figure))
    return "\n".join(parts)


def figure_html(r: RenderContext, cell: ShownCell, figure: Figure) -> str:
    file, width, height = figure.file, figure.width_in, figure.height_in
    alt = r.fill(cell.alt)
    caption_html = ""
    if cell.caption is not None:
        caption_html = r.text(cell.caption, inline=True)
    if not alt and r.quarto:  # Quarto allows it: a warning, and the caption stands in
        alt = r.plain(caption_html)
        what = "its caption is used" if alt else "it has none"
        message = f"figure has no alt text (`#| fig-alt: …`): {what}"
        r.warnings.append(Diagnostic(cell.loc, "figure", message, "warning"))
    elif not alt:
        r.diagnostics.append(
            Diagnostic(cell.loc, "figure", "figure has no alt text: add `#| fig-alt: …`")
        )
    r.figure_files.append(file)
    caption = r.plain(caption_html)
    r.records.figures.append(
        FigureRecord(cell.label, f"figures/{file}", caption, alt, str(cell.loc), r.number)
    )
    img = (
        f'<img src="figures/{html.escape(file)}" alt="{html.escape(alt)}" '
        f'style="aspect-ratio:{width}/{height}"'
        + (f' data-text-pt="{figure.text_pt:g}">' if figure.text_pt else ">")
    )
    align = cell.align
    klass = f' class="fig-align-{align}"' if align != "default" else ""
    label = cell.label or ""
    numbered = ""
    if label.startswith("fig-") and label not in r.figure_ids:  # `@fig-…` points here
        r.figure_ids.add(label)
        klass += f' id="{html.escape(label)}"'
        numbered = label_token(label)  # (its caption opens with its number: crossref)
    cap = f"<figcaption>{numbered}{caption_html}</figcaption>" if caption_html else ""
    return f"<figure{klass}>{img}{cap}</figure>"
