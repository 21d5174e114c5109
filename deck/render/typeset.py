"""A section's formulas typeset: each formula placeholder of its rendered slides replaced by
KaTeX's HTML (one batch for the build, `deck.render.mathtex.KaTeX`), a labelled display
formula (`$$…$$ {#eq-x}`) marked with its id and its number's place; a formula KaTeX rejects
is an error at its line."""

from __future__ import annotations

import html
from dataclasses import replace

from deck.blocks.tex import MATH_TOKEN
from deck.errors import Diagnostic
from deck.render.crossref import labelled_equation
from deck.render.mathtex import KaTeX
from deck.render.section import SectionRenderer
from deck.render.store import RenderedSlide, SectionRender


def typeset(r: SectionRenderer, slides: list[RenderedSlide], katex: KaTeX | None) -> SectionRender:
    """Replace the formula placeholders by KaTeX's HTML; a formula KaTeX rejects is an
    error at its line."""
    rendered = []
    for k, formula in enumerate(r.formulas):
        assert katex is not None, "formulas need KaTeX"
        markup = katex.html(formula.tex, formula.display)
        if markup is None:
            problem = katex.error(formula.tex, formula.display) or "not rendered"
            r.diagnostics.append(Diagnostic(formula.loc, "math", f"KaTeX: {problem}"))
            markup = html.escape(formula.tex)
        elif k in r.equations:
            markup = labelled_equation(markup, r.equations[k])
        rendered.append(markup)

    def sub(text: str) -> str:
        return MATH_TOKEN.sub(lambda m: rendered[int(m.group(1))], text)

    done = tuple(
        replace(
            s,
            title=sub(s.title) if s.title is not None else None,
            body=sub(s.body),
            notes=sub(s.notes),
            handouts=tuple(map(sub, s.handouts)),
        )
        for s in slides
    )
    return SectionRender(
        done,
        r.records,
        tuple(r.figure_files),
        tuple(r.media),
        tuple(r.warnings),
        tuple(r.resolver.made),
    )
