"""The document's texts (Markdown as written, each computed value a `Value`) as slide blocks:
parsed by the deck's own Markdown setup (`deck.render.deck.new_markdown`, Python-Markdown
with the deck's Pandoc syntax) into its element tree, which `reader.Reader` walks; formulas
typeset by the deck's KaTeX (one formula's MathML read as text runs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from deck.model.document import Text
from deck.publish.pptx.htmltree import math_runs, tree
from deck.publish.pptx.rawhtml import element_tree
from deck.publish.pptx.reader import Prepared, Reader, prepare
from deck.publish.pptx.shapes import Block, CodeBlock, Paras, Picture, Run, Table, merge


class Prose:
    """Converts texts with the deck's Markdown; formulas typeset by `katex` (prepared with every
    formula of the deck), pictures' files found by `media` (a src as written → its file)."""

    def __init__(self, katex: Any, media: Callable[[str], Path | None]) -> None:
        from deck.render.deck import new_markdown

        self.md = new_markdown()
        self.katex = katex
        self.media = media
        # (kind, content, prepared) → the number the slide shows; set by the writer per slide
        self.footnote: Callable[[str, str, Prepared], int] = lambda kind, content, p: 0
        self.labels: dict[str, str] = {}  # (set by the writer from the document's targets)

    def parse(self, marked: str) -> tuple[Element, list[str]]:
        """The Markdown's element tree (as Python-Markdown's `convert` makes it before it
        serializes) and its stash of raw HTML."""
        md = self.md.reset()
        lines = marked.split("\n")
        for step in md.preprocessors:
            lines = step.run(lines)
        root = md.parser.parseDocument(lines).getroot()
        for processor in md.treeprocessors:
            found = processor.run(root)
            if found is not None:
                root = found
        return root, [str(raw) for raw in md.htmlStash.rawHtmlBlocks]

    def blocks(self, text: Text) -> list[Block]:
        prepared = prepare(text)
        return self.blocks_of(prepared.marked, prepared)

    def blocks_of(self, marked: str, prepared: Prepared) -> list[Block]:
        if not marked.strip():
            return []
        root, stash = self.parse(marked)
        return Reader(self, prepared, stash).read(root)

    def html(self, markup: str) -> list[Block]:
        """HTML a cell displayed (or a `{=html}` block), read by tag."""
        return Reader(self, Prepared("", [], []), []).read(element_tree(markup))

    def runs(self, text: Text) -> list[Run]:
        """A text as one line of runs (a title, a choice), formulas as text."""
        runs: list[Run] = []
        for block in self.blocks(text):
            for para in block.paras if isinstance(block, Paras) else []:
                if runs and para.runs:
                    runs.append(Run(" "))
                runs += para.runs
            if isinstance(block, Picture) and block.kind == "formula":
                runs += self.math(block.source, Run(""), True)
        return merge(runs)

    def lines(self, text: Text) -> list[str]:
        """A text as plain lines (the notes pane): bullets as characters, formulas as text
        (a display formula as its TeX), tables a row a line."""
        return lines_of(self.blocks(text))

    def math(self, tex: str, style: Run, display: bool = False) -> list[Run]:
        markup = self.katex.html(tex, display) if self.katex is not None else None
        if markup is None:
            return [Run(tex, style.bold, style.italic, False, 0, style.link)]
        return math_runs(tree(markup), style)


def lines_of(blocks: list[Block]) -> list[str]:
    out: list[str] = []
    for block in blocks:
        if isinstance(block, Paras):
            for para in block.paras:
                prefix = "  " * max(para.level - 1, 0) + (para.bullet + " " if para.bullet else "")
                out.append(prefix + para.text.replace("\v", "\n").strip())
        elif isinstance(block, Picture):
            out.append(block.source if block.kind == "formula" else block.alt)
        elif isinstance(block, CodeBlock):
            out.append(block.text)
        elif isinstance(block, Table):
            out += [" | ".join(c.text for c in row) for row in block.rows]
        else:
            out += lines_of(getattr(block, "blocks", []))
    return [line for line in out if line.strip()]
