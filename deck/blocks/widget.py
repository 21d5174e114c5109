"""`::: {.widget kind=… data=…}`: an interactive figure fed by a value the cells computed. Its
data is evaluated like an inline value, checked against the kind, and embedded with the
blocks inside as the printed fallback (see `deck.blocks.widgetembed`). The kinds are the lesson's
(`widgets:` in lesson.yml)."""

from __future__ import annotations

from deck.blocks.base import BlockKind, Opening, ParseContext, named, parse_div
from deck.blocks.context import RenderContext
from deck.blocks.widgetembed import (
    DataProblem,
    checked_data,
    data_expression,
    directive_problem,
    widget_html,
)
from deck.errors import Diagnostic
from deck.model import Div, WidgetRecord


def parse(p: ParseContext, opening: Opening) -> Div | None:
    problem = directive_problem(opening.attrs, p.widgets)
    if problem:
        p.error(opening.start, "widget", problem)
    else:
        p.add_inline(data_expression(opening.attrs["data"]), p.loc(opening.start))
    return parse_div(p, opening)


def render(r: RenderContext, div: Div, notes: list[str]) -> str:
    kind = div.attrs["kind"]
    try:
        expression = data_expression(div.attrs["data"])
        data = checked_data(r.widget_kinds[kind], r.inline_value(expression))
    except DataProblem as problem:
        message = f"widget `{kind}` (data={div.attrs['data']}): {problem}"
        r.diagnostics.append(Diagnostic(div.loc, "widget", message))
        return ""
    r.records.widgets.append(WidgetRecord(kind, div.attrs["data"], str(div.loc), r.number))
    fallback = r.blocks(div.blocks, notes)
    return widget_html(kind, data, fallback, div.loc, div.classes, div.attrs.get("id"))


KIND = BlockKind("widget", named("widget"), parse, render)
