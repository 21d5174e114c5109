"""`::: {.callout-note}` (tip, warning, caution, important): a box with an icon and a title
(its first heading, `title="…"`, or the kind's name in the deck's language);
`appearance="simple"` or `"minimal"`, `icon=false`, as in Quarto."""

from __future__ import annotations

import re

from deck.blocks.base import (
    SUB_HEADING,
    BlockKind,
    Handler,
    Opening,
    ParseContext,
    SlidesWriter,
    attributes,
    contents,
    split_at_headings,
)
from deck.blocks.context import RenderContext
from deck.model import Block, Div, Prose
from deck.model.document import Group, Text
from deck.strings import strings

CALLOUT = re.compile(r"^callout-(note|tip|warning|caution|important)$")


def parse(p: ParseContext, opening: Opening) -> Div | None:
    """The title (its first heading, or `title="…"`) becomes the first block,
    `Div(("callout-title",))`; without one the renderer names the kind."""
    found, closed = p.body()
    if not closed:
        p.error(opening.start, "parse", opening.unclosed())
        return None
    loc = p.loc(opening.start)
    attrs = dict(opening.attrs)
    blocks: list[Block] = found
    title: Prose | None = None
    if "title" in attrs:
        title = Prose(p.inline(attrs.pop("title"), loc.line - 1), loc)
    elif blocks and isinstance(blocks[0], Prose):
        first, *rest = split_at_headings(blocks[0])
        heading = SUB_HEADING.match(first.text)
        if heading and "\n" not in first.text:
            title = Prose(heading.group(1), first.loc)
            blocks = [*rest, *blocks[1:]]
    if title is not None:
        blocks = [Div(("callout-title",), {}, (title,), title.loc), *blocks]
    return Div(opening.classes, attrs, tuple(blocks), loc)


def render(r: RenderContext, div: Group, notes: list[str]) -> str:
    kind = next(m.group(1) for c in div.classes if (m := CALLOUT.match(c)))
    blocks = div.blocks
    first = blocks[0] if blocks else None
    if isinstance(first, Group) and "callout-title" in first.classes:
        title_text = first.blocks[0]
        assert isinstance(title_text, Text)
        title = r.text(title_text, inline=True)
        blocks = blocks[1:]
    else:
        title = strings(r.lang, "callout")[kind]
    appearance = div.attrs.get("appearance", "default")
    classes = ["callout", f"callout-{kind}", f"callout-style-{appearance}"]
    classes += [c for c in div.classes if c not in classes]
    if div.attrs.get("icon", "true") != "false":
        classes.append("callout-titled-icon")
    rest = {k: v for k, v in div.attrs.items() if k not in ("appearance", "icon", "collapse")}
    head = (
        f'<div class="callout-header"><span class="callout-icon" aria-hidden="true"></span>'
        f'<span class="callout-title">{title}</span></div>'
    )
    body = f'<div class="callout-body">{r.blocks(blocks, notes)}</div>'
    box = Div(tuple(classes), rest, (), div.loc)
    return f"<div{attributes(box)}>{head}{body}</div>"


def slide(w: SlidesWriter, node: Group, exercise: bool) -> None:
    """A titled box of its kind: its own title, else the kind's name in the deck's language."""
    kind = next(m.group(1) for c in node.classes if (m := CALLOUT.match(c)))
    blocks = node.blocks
    first = blocks[0] if blocks else None
    if isinstance(first, Group) and "callout-title" in first.classes:
        title: Text | str = next((t for t in first.blocks if isinstance(t, Text)), "")
        blocks = blocks[1:]
    else:
        title = strings(w.lang, "callout")[kind]
    w.panel(kind, title, blocks)


# (a notebook writes its title as a line)
OUTPUTS: dict[str, Handler] = {"ipynb": contents, "pptx": slide}
DOC = """`::: {.callout-note}` (also `-tip`, `-warning`, `-caution`, `-important`) … `:::`.

A box with an icon and a title: its first heading, `title="…"`, or the kind's name in the
deck's language. `appearance="simple"` or `"minimal"` and `icon=false`, as in Quarto. The PPTX
draws it as a titled box in its colour."""
KIND = BlockKind("callout", lambda cls: bool(CALLOUT.match(cls)), parse, render, OUTPUTS, doc=DOC)
