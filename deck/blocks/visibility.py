"""`.content-visible` / `.content-hidden` (with `when-format`, `unless-format`, `when-meta`,
`unless-meta`) and `.hidden` blocks: shown or left out as Quarto does for a reveal.js deck.

A deck is the `revealjs` format, which Quarto also counts as `html`. Content left out is
dropped from the page (search, handouts and PDFs never see it), but its cells still run, as
Quarto runs them, showing nothing.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from deck.blocks.base import (
    BlockKind,
    Opening,
    ParseContext,
    ResolveContext,
    render_plain,
    resolve_group,
)
from deck.blocks.tex import definitions, extract
from deck.model import Block, Cell, Div, Prose, Slide, walk_blocks
from deck.model.document import EVERYONE, Group

FORMATS = {"revealjs", "html", "html:js", "html5"}  # what this output counts as
KNOWN_FORMATS = FORMATS | {
    "latex", "pdf", "beamer", "docx", "pptx", "odt", "epub", "ipynb", "markdown", "gfm",
    "typst", "commonmark", "asciidoc", "rtf", "jats", "man", "dashboard", "email",
    "confluence-html", "docusaurus-md", "hugo-md", "html4", "slidy", "s5", "dzslides",
}  # fmt: skip
CLASSES = ("content-visible", "content-hidden", "hidden")
LEFT_OUT = "deck-left-out"
NOTEBOOK = frozenset({"notebook", "solutions"})


def _truthy(meta: dict[str, Any], key: str) -> bool:
    found: Any = meta
    for part in key.split("."):
        if not isinstance(found, dict) or part not in found:
            return False
        found = found[part]
    return bool(found)


def shown(p: ParseContext, opening: Opening) -> bool:
    """Whether the block's content appears in this deck."""
    if "hidden" in opening.classes:
        return False
    attrs = opening.attrs
    conditions: list[bool] = []
    for key in ("when-format", "unless-format"):
        if key in attrs:
            names = {n.strip() for n in attrs[key].split(",") if n.strip()}
            unknown = sorted(n for n in names if n not in KNOWN_FORMATS)
            if unknown:
                p.warn(opening.start, "attr", f"{key}: unknown format `{unknown[0]}`")
            hit = bool(names & FORMATS)
            conditions.append(hit if key == "when-format" else not hit)
    for key in ("when-meta", "unless-meta"):
        if key in attrs:
            hit = _truthy(p.meta, attrs[key])
            conditions.append(hit if key == "when-meta" else not hit)
    visible = all(conditions)  # no condition: a content-visible block shows, a hidden one hides
    return visible if "content-visible" in opening.classes else not visible


def parse(p: ParseContext, opening: Opening) -> Block | None:
    blocks, closed = p.body()
    if not closed:
        p.error(opening.start, "parse", opening.unclosed())
        return None
    loc = p.loc(opening.start)
    if shown(p, opening):
        return Div((), {}, tuple(blocks), loc)
    # left out: its cells still run, showing nothing; TeX macros it defines (a hidden
    # `{{< include preamble.qmd >}}` of `\newcommand`s) still hold in the deck's formulas
    kept: list[Block] = [
        dataclasses.replace(b, options={**b.options, "include": False})
        for b in walk_blocks(tuple(blocks))
        if isinstance(b, Cell)
    ]
    for block in walk_blocks(tuple(blocks)):
        if isinstance(block, Prose):
            defining = [t for t, _, _ in extract(block.text)[1] if definitions(t)[0]]
            if defining:
                text = "\n\n".join(f"$${t}$$" for t in defining)
                kept.append(Prose(text, block.loc))
    return Div((LEFT_OUT,), {}, tuple(kept), loc) if kept else None


def resolve(r: ResolveContext, div: Div) -> Group:
    """What a left-out block keeps (cells that show nothing, macro definitions) is the
    notebook's, whose cells need what they compute; no slide, handout or notes shows it."""
    return resolve_group(r, div, "visibility", NOTEBOOK if LEFT_OUT in div.classes else EVERYONE)


# (`deck-left-out`: what `parse` keeps of a block left out, hidden by the deck's CSS)
DOC = """`::: {.content-visible when-format="revealjs"}`, `.content-hidden` (with `when-format`,
`unless-format`, `when-meta`, `unless-meta`), or `::: hidden`.

Content shown or left out as Quarto does for a reveal.js deck (the `revealjs` format, which
Quarto also counts as `html`). What is left out is dropped from every output (search, handouts
and PDFs never see it), but its cells still run, showing nothing."""
KIND = BlockKind(
    "visibility",
    lambda c: c in CLASSES or c == LEFT_OUT,
    parse,
    render_plain,
    resolve=resolve,
    doc=DOC,
)


def drop_hidden_slides(slides: list[Slide]) -> list[Slide]:
    """Slides with `visibility="hidden"` are left out of the deck; their cells still run
    (showing nothing) at the start of the next slide, or the end of the previous one."""
    out: list[Slide] = []
    carried: tuple[Block, ...] = ()
    for slide in slides:
        cells = tuple(
            dataclasses.replace(b, options={**b.options, "include": False})
            for b in walk_blocks(slide.blocks)
            if isinstance(b, Cell)
        )
        if slide.attrs.get("visibility") == "hidden":
            carried += cells
            continue
        if carried:
            slide = dataclasses.replace(slide, blocks=(*carried, *slide.blocks))
            carried = ()
        out.append(slide)
    if carried and out:
        out[-1] = dataclasses.replace(out[-1], blocks=(*out[-1].blocks, *carried))
    return out
