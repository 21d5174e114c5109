"""HTML helpers for rendering: highlighted code, the plain text a reader would quote, images
that load when their slide comes near, and the files tags name (`file_attributes`)."""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from html.parser import HTMLParser

from deck.source.attributes import line_steps


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


def highlight_code(text: str, lang: str, line_numbers: bool | str = False) -> str:
    """Highlighted code. `line_numbers`: True numbers the lines; steps such as `"1-3|5"`
    (as reveal.js's highlight plugin reads `data-line-numbers`) number them and highlight
    lines 1-3, then line 5 at the next step: each later step is a fragment laid over the
    first, so a printed page shows the last."""
    if line_numbers is False:
        return _pygments(text, lang, wrap=True)
    lines = _pygments(text, lang, wrap=False).rstrip("\n").split("\n")
    steps = line_steps(line_numbers) if isinstance(line_numbers, str) else None
    if not steps:
        return _numbered(lines, set())
    if len(steps) == 1:
        return _numbered(lines, steps[0])
    layers = [_numbered(lines, steps[0])]
    layers += [_numbered(lines, step, " fragment code-step") for step in steps[1:]]
    return '<div class="code-steps">' + "".join(layers) + "</div>"


def _numbered(lines: list[str], marked: set[int], extra: str = "") -> str:
    classes = "highlight has-line-numbers" + (" has-highlights" if marked else "") + extra
    body = "\n".join(
        f'<span class="code-line{" highlight-line" if n in marked else ""}">{line}</span>'
        for n, line in enumerate(lines, start=1)
    )
    return f'<div class="{classes}"><pre><code>{body}</code></pre></div>'


def _pygments(text: str, lang: str, wrap: bool) -> str:
    # Imported here: a build whose slides all come from the render cache never needs Pygments.
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    formatter = HtmlFormatter(cssclass="highlight") if wrap else HtmlFormatter(nowrap=True)
    return highlight(text, lexer, formatter)


# An <img>'s src attribute (not one already lazy), found by walking its attributes in turn,
# so `src=` inside another attribute's value or in text is never taken for it.
_ATTR = r"""\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+))?"""
IMG_SRC = re.compile(
    rf"""(<img\b(?![^>]*\bdata-src\s*=)(?:(?!\s+src\s*=){_ATTR})*\s+)src(\s*=)""", re.I
)


def lazy_images(body: str) -> str:
    """`<img src>` → `<img data-src>`: reveal.js loads it when its slide is within the view
    distance (and every one in the print view). The deck's first slide paints without waiting
    for the figures of all the others: Chromium parses every SVG on the main thread
    (bench/first_paint.py measured it)."""
    return IMG_SRC.sub(r"\1data-src\2", body)


# A tag that shows a file (a picture, a video and its poster, their sources), its attributes
# walked in turn; comments and the text of scripts, styles and text areas are not markup.
FILE_TAGS = ("img", "source", "video", "audio")
_VALUE = r"""(?:"[^"]*"|'[^']*'|[^\s>"']+)"""
FILE_ATTR = re.compile(rf"([\s/]+)([^\s=>/]+)(?:(\s*=\s*)({_VALUE}))?")
UNQUOTED = re.compile(r"""[^\s"'=<>`&]+""")  # a value that may stand without quotes as it is


@functools.cache
def _file_tag(tags: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(
        r"<!--.*?-->|<(script|style|textarea)\b.*?</\1\s*>"
        rf"|<({'|'.join(tags)})\b((?:[\s/]+[^\s=>/]+(?:\s*=\s*{_VALUE})?)*)([\s/]*>)",
        re.I | re.S,
    )


def file_attributes(
    markup: str,
    names: tuple[str, ...],
    change: Callable[[str, int], str | None],
    tags: tuple[str, ...] = FILE_TAGS,
) -> str:
    """`markup` with each of the attributes `names` (`src`, `poster`…) of its `tags` (the
    `<img>`, `<source>`, `<video>` and `<audio>` tags), quoted or not as HTML allows, set to
    `change(value, offset)`: the value as a browser reads it (entities decoded) and where its
    tag starts in `markup`; None keeps it. A new value keeps its quotes (double where the old
    had none and it cannot go without)."""
    wanted = {n.lower() for n in names}

    def attribute(m: re.Match[str], at: int) -> str:
        space, name, equals, written = m.groups()
        if name.lower() not in wanted or written is None:
            return m.group(0)
        quote = written[0] if written[0] in "\"'" else ""
        value = html.unescape(written[1:-1] if quote else written)
        new = change(value, at)
        if new is None:
            return m.group(0)
        if not quote and not UNQUOTED.fullmatch(new):
            quote = '"'
        shown = html.escape(new, quote=bool(quote)) if quote else new
        return f"{space}{name}{equals}{quote}{shown}{quote}"

    def tag(m: re.Match[str]) -> str:
        if m.group(2) is None:  # a comment, a script's text
            return m.group(0)
        attrs = FILE_ATTR.sub(lambda a: attribute(a, m.start()), m.group(3))
        return f"<{m.group(2)}{attrs}{m.group(4)}"

    return _file_tag(tags).sub(tag, markup)
