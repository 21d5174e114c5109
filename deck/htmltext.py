"""HTML helpers for rendering: highlighted code, and the plain text a reader would quote."""

from __future__ import annotations

import re
from html.parser import HTMLParser


class _PlainText(HTMLParser):
    """Text of rendered HTML: formulas as `$TeX$`, table cells and blocks apart by spaces."""

    BLOCKS = {"td", "th", "tr", "p", "li", "div", "caption", "pre", "br"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0  # depth inside KaTeX's visual copy of a formula
        self.tex = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if self.skip or "katex-html" in classes or tag == "math":
            self.skip += 1
        if tag == "annotation":
            self.tex = True
        if tag in self.BLOCKS:
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "annotation":
            self.tex = False
        elif self.skip:
            self.skip -= 1
        if tag in self.BLOCKS:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if self.tex:
            self.parts.append(f"${data}$")
        elif not self.skip:
            self.parts.append(data)


def plain(markup: str) -> str:
    """Text of HTML as a reader would quote it (formulas as `$TeX$`)."""
    parser = _PlainText()
    parser.feed(markup)
    parser.close()
    return re.sub(r"\s+", " ", "".join(parser.parts)).strip()


def highlight_code(text: str, lang: str) -> str:
    # Imported here: a build whose slides all come from the render cache never needs Pygments.
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    return highlight(text, lexer, HtmlFormatter(cssclass="highlight"))
