"""How each kind of `::: {.name}` block renders: a table of small functions, one per kind.

A kind not in the table is a plain `<div class="name">` (`.fragment`, `.r-stack`,
`.r-fit-text`, `.columns`' children…), its other attributes as `data-` attributes.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from deck.model import Div, Prose
from deck.render.pandoc import position_style, style_join

if TYPE_CHECKING:
    from deck.render.deck import _SectionRenderer

CALLOUT = re.compile(r"^callout-(note|tip|warning|caution|important)$")
# Quarto's callout titles (its language files), by the deck's `lang`.
CALLOUT_TITLES = {
    "en": {
        "note": "Note",
        "tip": "Tip",
        "warning": "Warning",
        "caution": "Caution",
        "important": "Important",
    },
    "zh": {
        "note": "注意",
        "tip": "提示",
        "warning": "警告",
        "caution": "小心",
        "important": "重要",
    },
}
HTML_ATTRS = {"id", "style", "title", "role", "lang", "dir"}

Kind = Callable[["_SectionRenderer", Div, list[str]], str]


def attributes(div: Div, classes: list[str] | None = None) -> str:
    """` class="…" style="…" data-…="…"`: `.absolute` placement as a style, other keys as
    `data-` attributes (reveal.js reads `data-fragment-index`, `data-id`…)."""
    attrs = dict(div.attrs)
    names = list(div.classes) if classes is None else classes
    if "absolute" in names:
        attrs["style"] = style_join(attrs.get("style"), position_style(attrs))
    out = f' class="{html.escape(" ".join(names))}"' if names else ""
    for key, value in attrs.items():
        name = key if key in HTML_ATTRS or key.startswith("data-") else f"data-{key}"
        out += f' {name}="{html.escape(value)}"'
    return out


def plain(r: _SectionRenderer, div: Div, notes: list[str]) -> str:
    return f"<div{attributes(div)}>{r.blocks(div.blocks, notes)}</div>"


def incremental(on: bool) -> Kind:
    """`::: incremental` / `::: nonincremental`: list items inside appear one by one, or not."""

    def render(r: _SectionRenderer, div: Div, notes: list[str]) -> str:
        before, r.incremental = r.incremental, on
        try:
            return plain(r, div, notes)
        finally:
            r.incremental = before

    return render


def footer(r: _SectionRenderer, div: Div, notes: list[str]) -> str:
    """`::: footer` replaces the deck's footer on its slide."""
    r.slide_state.footer = r.blocks(div.blocks, notes)
    return ""


def aside(r: _SectionRenderer, div: Div, notes: list[str]) -> str:
    """`::: aside` goes to the bottom of the slide, above its footnotes (as in Quarto)."""
    r.slide_state.asides.append(r.blocks(div.blocks, notes))
    return ""


def tabset(r: _SectionRenderer, div: Div, notes: list[str]) -> str:
    """`::: panel-tabset`: a row of tab buttons and one panel per tab; the first is shown
    (quarto.js switches them; a printed page shows the first)."""
    before, buttons, panels = [], [], []
    for block in div.blocks:
        if isinstance(block, Div) and "tab" in block.classes:
            k = len(buttons)
            title = r.text(block.attrs.get("title", ""), block.loc, inline=True)
            selected = "true" if k == 0 else "false"
            active = " active" if k == 0 else ""
            buttons.append(  # buttons, not `href="#"` links: reveal.js follows those
                f'<li role="presentation"><button type="button" role="tab"'
                f' aria-selected="{selected}" data-tab="{k}" class="tab-link{active}">'
                f"{title}</button></li>"
            )
            panels.append(
                f'<div class="tab-pane{active}" role="tabpanel" data-tab="{k}">'
                f"{r.blocks(block.blocks, notes)}</div>"
            )
        else:
            before.append(r.block(block, notes))
    return (
        "".join(before)
        + f"<div{attributes(div)}>"
        + f'<ul class="panel-tabset-tabby" role="tablist">{"".join(buttons)}</ul>'
        + f'<div class="tab-content">{"".join(panels)}</div></div>'
    )


def callout(r: _SectionRenderer, div: Div, notes: list[str]) -> str:
    """`::: {.callout-note}` (tip, warning, caution, important): a box with an icon and a
    title (the block's first heading, `title="…"`, or the kind's name in the deck's language);
    `appearance="simple"` or `"minimal"`, `icon=false` as in Quarto."""
    kind = next(m.group(1) for c in div.classes if (m := CALLOUT.match(c)))
    blocks = div.blocks
    if blocks and isinstance(blocks[0], Div) and "callout-title" in blocks[0].classes:
        title_prose = blocks[0].blocks[0]
        assert isinstance(title_prose, Prose)
        title = r.text(title_prose.text, title_prose.loc, inline=True)
        blocks = blocks[1:]
    else:
        lang = str(r.section.meta.get("lang", "en")).split("-")[0].lower()
        title = CALLOUT_TITLES.get(lang, CALLOUT_TITLES["en"])[kind]
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


KINDS: dict[str, Kind] = {
    "incremental": incremental(True),
    "nonincremental": incremental(False),
    "footer": footer,
    "aside": aside,
    "panel-tabset": tabset,
}


def render_div(r: _SectionRenderer, div: Div, notes: list[str]) -> str:
    for name in div.classes:
        if name in KINDS:
            return KINDS[name](r, div, notes)
        if CALLOUT.match(name):
            return callout(r, div, notes)
    return plain(r, div, notes)
