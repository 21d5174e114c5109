"""`::: handout`: shown in the handouts only (students' and lecturer's), never on the slides;
render records each so the slides' view is made without them."""

from __future__ import annotations

from deck.blocks.base import BlockKind, named, parse_div, render_plain
from deck.blocks.context import RenderContext
from deck.model.document import Group


def render(r: RenderContext, div: Group, notes: list[str]) -> str:
    markup = render_plain(r, div, notes)
    r.slide_state.handouts.append(markup)
    return markup


SEEN_BY = frozenset({"handout", "notes", "notebook", "solutions"})  # never on the slides
DOC = """`::: handout` … `:::` on a slide.

Text for the handouts only (the students' and the lecturer's) and the notebooks, never on the
slides: printed under the slide in place of its speaker notes."""
KIND = BlockKind("handout", named("handout"), parse_div, render, seen_by=SEEN_BY, doc=DOC)
