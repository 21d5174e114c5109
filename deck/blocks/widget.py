"""`::: {.widget kind=… data=…}`: an interactive figure fed by a value the cells computed. Its
data is evaluated like an inline value, checked against the kind, and embedded with the
blocks inside as the printed fallback (see `deck.blocks.widgetembed`). The kinds are the lesson's
(`widgets:` in lesson.yml)."""

from __future__ import annotations

import dataclasses

from deck.blocks.base import (
    BlockKind,
    Opening,
    ParseContext,
    ResolveContext,
    named,
    parse_div,
    resolve_group,
)
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
from deck.model.document import EVERYONE, Group, Value


def parse(p: ParseContext, opening: Opening) -> Div | None:
    problem = directive_problem(opening.attrs, p.widgets)
    if problem:
        p.error(opening.start, "widget", problem)
    else:
        p.add_inline(data_expression(opening.attrs["data"]), p.loc(opening.start))
    return parse_div(p, opening)


def render(r: RenderContext, div: Group, notes: list[str]) -> str:
    kind = div.attrs["kind"]
    try:
        value = div.value.text if div.value is not None else None
        data = checked_data(r.widget_kinds[kind], value)
    except DataProblem as problem:
        message = f"widget `{kind}` (data={div.attrs['data']}): {problem}"
        r.diagnostics.append(Diagnostic(div.loc, "widget", message))
        return ""
    r.records.widgets.append(WidgetRecord(kind, div.attrs["data"], str(div.loc), r.number))
    fallback = r.blocks(div.blocks, notes)
    return widget_html(kind, data, fallback, div.loc, div.classes, div.attrs.get("id"))


def resolve(r: ResolveContext, div: Div) -> Group:
    """The widget fed its data (the value its `data=` computed, None when there is none)."""
    group = resolve_group(r, div, "widget", EVERYONE)
    expression = data_expression(div.attrs.get("data", ""))
    text = r.inline_value(expression)
    value = Value(expression, text, div.loc) if text is not None else None
    return dataclasses.replace(group, value=value)


DOC = """`::: {.widget kind="NAME" data="expr"}` … `:::` (the text inside is the fallback).

An interactive figure of one of the lesson's widget kinds (`widgets:` in lesson.yml), fed by
the value of `expr` evaluated after the section's cells ran, checked by the kind's `.py` and
drawn by its `.js`. Printed pages draw its default state; `.shows-answer` marks one whose
first state gives an exercise's answer away (the students' handout leaves it out)."""
KIND = BlockKind("widget", named("widget"), parse, render, resolve=resolve, doc=DOC)
