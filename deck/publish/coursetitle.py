"""A lesson's title as the course page shows it: rendered as its deck's title slide renders
it (Markdown, formulas by KaTeX), then kept to text-safe markup: phrasing tags and MathML, no
link, script or picture (the page's heading is the link)."""

from __future__ import annotations

import contextlib
import html
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deck.model import Lesson

# A title on the page: its phrasing markup and formulas as MathML (the page carries no KaTeX
# stylesheet: KaTeX's drawn copy goes); no script, picture or link (the heading is one)
PHRASING = set("b i u s q em strong del ins mark small sub sup code kbd samp var abbr span".split())
MATHML = set(
    "math semantics annotation mrow mi mn mo ms mtext mspace msup msub msubsup mfrac msqrt "
    "mroot mover munder munderover mtable mtr mtd mstyle mpadded mphantom menclose".split()
)
DROPPED = {"script", "style", "template", "iframe", "object", "svg", "textarea", "title"}
VOID = {"br", "wbr", "img", "hr", "input", "area", "col", "embed", "source", "track", "meta"}


class TitleMarkup(HTMLParser):
    """A rendered title as the course page shows it (`shown_title`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.text: list[str] = []  # what it reads as, where only text may stand
        self.open: list[tuple[str, bool]] = []  # (tag, written)
        self.skip = 0  # depth inside what goes with its content

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = set((dict(attrs).get("class") or "").split())
        if tag in VOID:
            if tag == "br" and not self.skip:  # (a line break reads as a space)
                self.out.append(" ")
                self.text.append(" ")
            return
        if self.skip or tag in DROPPED or "katex-html" in classes:
            self.skip += 1
            return
        safe = {k for k, _ in attrs if k.isalpha() and k[:2] != "on"} - {"href", "style"}
        keys = safe if tag in MATHML else {"class", "lang", "dir"}
        kept = tag in MATHML or tag in PHRASING and not {"katex", "katex-mathml"} & classes
        self.open.append((tag, kept))
        if kept:
            shown = "".join(f' {k}="{html.escape(v or "")}"' for k, v in attrs if k in keys)
            self.out.append(f"<{tag}{shown}>")

    def handle_endtag(self, tag: str) -> None:
        if self.skip:
            self.skip -= tag not in VOID
            return
        while tag in [t for t, _ in self.open]:
            name, kept = self.open.pop()
            self.out.append(f"</{name}>" if kept else "")
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        tags = [t for t, _ in self.open]
        self.out += [] if self.skip else [html.escape(data, quote=False)]
        if not self.skip and ("math" not in tags or tags[-1] == "annotation"):
            self.text.append(f"${data}$" if "math" in tags else data)  # (a formula: its TeX)


def shown_title(rendered: str) -> dict[str, str]:
    """A title rendered as the deck renders it, as the course page shows it: text-safe HTML
    (`TitleMarkup`), and its text (formulas as $TeX$) for where only text may stand."""
    parser = TitleMarkup()
    parser.feed(rendered)
    parser.close()
    parser.out += [f"</{t}>" for t, kept in reversed(parser.open) if kept]
    text = " ".join("".join(parser.text).split())
    return {"title_html": "".join(parser.out), "title_text": text}


def rendered_title(title: str, cache: Path | None, lesson: Lesson | None = None) -> str:
    """A title rendered as a title slide renders it (the deck's Markdown, formulas by KaTeX
    with the lesson's macros), for a deck without one; a formula KaTeX cannot draw (or
    without Node) stays its TeX."""
    from deck.blocks.tex import MATH_TOKEN, extract
    from deck.render.deck import new_markdown
    from deck.render.mathtex import KaTeX, lesson_macros
    from deck.render.pandoc import bracketed_spans

    marked, found = extract(title)
    out = new_markdown().convert(bracketed_spans(marked))
    if out.startswith("<p>") and out.endswith("</p>") and out.count("<p>") == 1:
        out = out[3:-4]
    shown: list[str] = []
    if found:  # (the formulas the deck drew are in KaTeX's cache)
        katex = KaTeX(cache / "katex.json" if cache is not None else None)
        katex.use_macros(lesson_macros(lesson) if lesson is not None else {})
        with contextlib.suppress(OSError, RuntimeError, ValueError, subprocess.SubprocessError):
            katex.prepare({(tex, display) for tex, display, _ in found})
        shown = [katex.html(t, d) or html.escape(f"${t}$") for t, d, _ in found]
    return MATH_TOKEN.sub(lambda m: shown[int(m.group(1))], out)
