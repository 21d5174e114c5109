"""Pandoc syntax that Python-Markdown lacks, as Quarto slides use it.

- an image alone in its paragraph becomes a `<figure>` with its caption (`![caption](file)`);
- image attributes: `{width=50%}` and `{width=300}`, `{fig-alt="…"}`, `{fig-align=center}`,
  `{.absolute top=10 left=0}` (numbers are pixels); other keys become `data-` attributes;
- local image files are handed to the renderer (`Media.image`), which records them for
  copying and says where they are published;
- `[text]{.class key=value}` bracketed spans (`.fragment`, `.smallcaps`, `.mark`, …);
- raw inline HTML `` `<b>`{=html} `` (other formats' raw text is dropped, as Pandoc drops it),
  a `\\` ending a line as a hard line break, grid tables (`+---+---+`, spans of columns);
- a figure's caption is Markdown (raw HTML in it stays HTML); attribute values may hold
  Pandoc's backslash escapes (`width="\\"50%"`).
"""

from __future__ import annotations

import html
import re
import textwrap
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from markdown import Extension, Markdown
from markdown.blockprocessors import BlockProcessor
from markdown.inlinepatterns import InlineProcessor
from markdown.treeprocessors import Treeprocessor

from deck.blocks.styles import NUMBER, position_style, style_join
from deck.source.attributes import parse_attrs

IMG_ATTRS = {
    "src",
    "alt",
    "title",
    "class",
    "id",
    "style",
    "width",
    "height",
    "loading",
    "controls",
}
VIDEO_FILES = (".mp4", ".webm", ".ogg", ".ogv", ".mov", ".m4v")
# Code spans first, so that brackets inside them are left alone.
SPAN = re.compile(
    r"(?P<code>`+).+?(?P=code)"
    r"|(?<![!\]\\])\[(?P<text>[^\[\]\n]*)\]\{(?P<attrs>[^{}\n]*)\}"
    r"|(?<=\))\{(?P<escaped>[^{}\n]*\\[^{}\n]*)\}"  # an image's attributes with an escape
)
RAW_INLINE = r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)\{=([\w-]+)\}"  # `<b>`{=html}
HTML_FORMATS = {"html", "html4", "html5", "revealjs"}  # raw text a reveal.js deck shows
GRID_RULE = re.compile(r"^\+(?:[-=:]+\+)+\s*$")  # +---+:==+
TAG = re.compile(r"</?[A-Za-z][^<>]*>")


@dataclass
class Media:
    """What the renderer does with images met while converting one text."""

    image: Callable[[str], str | None] = lambda src: None  # local file → src to publish
    alt: Callable[[str], str] = lambda text: text  # alt text with formulas as `$TeX$`


def bracketed_spans(text: str) -> str:
    """`[text]{.fragment .fade-up}` → `<span class="fragment fade-up">text</span>`; text
    that does not read as attributes stays as it is."""

    def sub(m: re.Match[str]) -> str:
        if m.group("code"):
            return m.group(0)
        if m.group("escaped") is not None:
            return _for_attr_list(m.group(0), m.group("escaped"))
        parsed = parse_attrs(m.group("attrs"))
        if parsed is None:
            return m.group(0)
        classes, attrs = parsed
        markup = "".join(
            f" {k if k in ('id', 'style', 'title') or k.startswith('data-') else 'data-' + k}"
            f'="{html.escape(v)}"'
            for k, v in attrs.items()
        )
        if classes:
            markup = f' class="{" ".join(classes)}"' + markup
        return f"<span{markup}>{m.group('text')}</span>"

    return SPAN.sub(sub, text)


def _for_attr_list(written: str, inner: str) -> str:
    """An image's `{…}` holding backslash escapes, as Pandoc reads it, written the way
    Python-Markdown's attr_list reads it (which knows no escapes)."""
    parsed = parse_attrs(inner)
    if parsed is None:
        return written
    classes, attrs = parsed
    words = [f".{c}" for c in classes]
    for key, value in attrs.items():
        quote = "'" if '"' in value else '"'
        words.append(
            f"#{value}" if key == "id" else f"{key}={quote}{value.replace(quote, '')}{quote}"
        )
    return "{" + " ".join(words) + "}"


class _Images(Treeprocessor):
    def __init__(self, md: Markdown, ext: PandocExtension):
        super().__init__(md)
        self.ext = ext

    def run(self, root: ET.Element) -> None:
        for parent in list(root.iter()):
            for k, child in enumerate(list(parent)):
                if child.tag == "p" and _lone_image(child):
                    parent[k] = _figure(child[0], self.md)
        for img in list(root.iter("img")):
            self.image(img)

    def image(self, img: ET.Element) -> None:
        attrs = dict(img.attrib)
        classes = attrs.get("class", "").split()
        style = attrs.pop("style", "")
        if "absolute" in classes:
            style = style_join(style, position_style(attrs))
        for key in ("width", "height"):
            if key in attrs and not NUMBER.match(attrs[key]):
                style = style_join(style, f"{key}: {attrs.pop(key)}")
        if "fig-alt" in attrs:
            attrs["alt"] = attrs.pop("fig-alt")
        attrs["alt"] = self.ext.media.alt(attrs.get("alt", ""))
        src = attrs.get("src", "")
        if src and _local(src):
            published = self.ext.media.image(src)
            if published is not None:
                attrs["src"] = published
        if style:
            attrs["style"] = style
        img.attrib.clear()
        if "video" in classes or src.lower().endswith(VIDEO_FILES):  # `{{< video clip.mp4 >}}`
            img.tag = "video"
            attrs["controls"] = ""
            title = attrs.pop("alt", "")
            if title:
                attrs["title"] = title
        for key, value in attrs.items():
            img.set(key if key in IMG_ATTRS or key.startswith("data-") else f"data-{key}", value)


def _figure(img: ET.Element, md: Markdown) -> ET.Element:
    """`<p><img alt="cap"></p>` → `<figure><img><figcaption>cap</figcaption></figure>`: the
    caption read as Markdown (its raw HTML, such as a link, stays HTML), the alt text its words
    without tags, as Pandoc writes them."""
    caption = img.get("alt", "")
    align = img.attrib.pop("fig-align", None)
    img.tail = None
    figure = ET.Element("figure")
    if align and align != "default":
        figure.set("class", f"fig-align-{align}")
    figure.append(img)
    ET.SubElement(figure, "figcaption").text = caption
    md.treeprocessors["inline"].run(figure)
    if TAG.search(caption):
        img.set("alt", TAG.sub("", caption))
    return figure


def _lone_image(p: ET.Element) -> bool:
    return (
        len(p) == 1
        and p[0].tag == "img"
        and not (p.text or "").strip()
        and not (p[0].tail or "").strip()
        and bool(p[0].get("alt"))
    )


def _local(src: str) -> bool:
    parts = urlsplit(src)
    return not parts.scheme and not parts.netloc and not src.startswith(("/", "#"))


class _RawInline(InlineProcessor):
    """`` `<b>`{=html} ``: the author's markup as written; another format's is dropped."""

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[str, int, int]:  # noqa: N802
        if m.group(3).lower() not in HTML_FORMATS:
            return "", m.start(0), m.end(0)
        return self.md.htmlStash.store(m.group(2)), m.start(0), m.end(0)


class _HardBreak(InlineProcessor):
    """A `\\` ending a line (or its paragraph) is a line break (`\\\\` is a backslash)."""

    def handleMatch(  # noqa: N802
        self, m: re.Match[str], data: str
    ) -> tuple[ET.Element | None, int | None, int | None]:
        if len(m.group(1)) % 2 == 0:
            return None, None, None
        return ET.Element("br"), m.end(1) - 1, m.end(0)


class PandocExtension(Extension):
    def __init__(self) -> None:
        super().__init__()
        self.media = Media()

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's name
        # After attr_list (priority 8) has set the images' attributes.
        md.treeprocessors.register(_Images(md, self), "pandoc_images", 5)
        # Before code spans (190), so `` `…`{=html} `` is not code; before escapes (180).
        md.inlinePatterns.register(_RawInline(RAW_INLINE, md), "pandoc_raw", 195)
        md.inlinePatterns.register(_HardBreak(r"(?<!\\)(\\+)(?:\n|$)", md), "pandoc_break", 185)
        md.parser.blockprocessors.register(_GridTables(md.parser), "pandoc_grid", 76)


# ---- grid tables ----------------------------------------------------------------------------
# Pandoc's `+---+---+` tables: `+===+` ends the head, colons in it (or the first rule) align the
# columns, a row without a `|` where a column starts spans the columns on both sides, and each
# cell is Markdown (lists too). Wide (CJK) characters count as two columns, as Pandoc counts them.


def _cells(line: str, bounds: list[int]) -> list[tuple[int, str]] | None:
    """The `|`-separated pieces of a row's line at the table's column bounds: (the bound each
    starts at, its text); None when the line does not open at the first bound. (Pandoc reads a
    line that stops short of the last `|` too.)"""
    col, cuts = 0, []
    for k, ch in enumerate(line):
        if ch == "|" and col in bounds:
            cuts.append((col, k))
        col += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    if not cuts or cuts[0][0] != bounds[0]:
        return None
    if cuts[-1][0] != bounds[-1]:
        cuts.append((bounds[-1], len(line)))
    return [(a, line[i + 1 : j]) for (a, i), (_, j) in zip(cuts, cuts[1:], strict=False)]


def grid_table(lines: list[str]) -> tuple[list[str], list[list[tuple[str, int]]], int] | None:
    """A grid table's column alignments, its rows (each cell's text and how many columns it
    spans) and how many rows are its head; None when the lines do not read as one."""
    bounds = [k for k, ch in enumerate(lines[0].rstrip()) if ch == "+"]
    rules = [k for k, line in enumerate(lines) if GRID_RULE.match(line)]
    if not rules or rules[0] != 0 or rules[-1] != len(lines) - 1:
        return None
    head = next((k for k in rules if "=" in lines[k]), None)
    spec = lines[head if head is not None else 0]
    aligns = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        part = spec[a + 1 : b]
        left, right = part.startswith(":"), part.endswith(":")
        aligns.append("center" if left and right else "right" if right else "left" if left else "")
    rows: list[list[tuple[str, int]]] = []
    head_rows = 0
    for top, bottom in zip(rules, rules[1:], strict=False):
        if [k for k, ch in enumerate(lines[top].rstrip()) if ch == "+"] != bounds:
            return None  # (a rule of other columns: a row spanning rows, not read here)
        pieces = [_cells(line, bounds) for line in lines[top + 1 : bottom]]
        if not pieces or any(p is None for p in pieces):
            return None
        starts = set.intersection(*({a for a, _ in p} for p in pieces if p))
        row = []
        for a, b in zip(sorted(starts), [*sorted(starts)[1:], bounds[-1]], strict=False):
            text = "\n".join("".join(t for s, t in p if a <= s < b) for p in pieces if p)
            text = "\n".join(t.rstrip() for t in textwrap.dedent(text).split("\n")).strip()
            row.append((text, bounds.index(b) - bounds.index(a)))
        rows.append(row)
        if bottom == head:
            head_rows = len(rows)
    return aligns, rows, head_rows


class _GridTables(BlockProcessor):
    def test(self, parent: ET.Element, block: str) -> bool:
        lines = block.split("\n")
        return (
            len(lines) >= 3
            and bool(GRID_RULE.match(lines[0]))
            and all(line.startswith(("+", "|")) for line in lines)
            and grid_table(lines) is not None
        )

    def run(self, parent: ET.Element, blocks: list[str]) -> None:
        found = grid_table(blocks.pop(0).split("\n"))
        assert found is not None
        aligns, rows, head_rows = found
        table = ET.SubElement(parent, "table")
        for k, row in enumerate(rows):
            part = "thead" if k < head_rows else "tbody"
            if not len(table) or table[-1].tag != part:
                ET.SubElement(table, part)
            tr = ET.SubElement(table[-1], "tr")
            column = 0
            for text, span in row:
                cell = ET.SubElement(tr, "th" if part == "thead" else "td")
                if span > 1:
                    cell.set("colspan", str(span))
                if aligns[column]:
                    cell.set("style", f"text-align: {aligns[column]};")
                column += span
                self.parser.parseChunk(cell, text)
                if len(cell) == 1 and cell[0].tag == "p":  # one paragraph: Pandoc's Plain
                    p = cell[0]
                    cell.remove(p)
                    cell.text, cell[:] = p.text, list(p)


# ---- footnotes ------------------------------------------------------------------------------
# `^[inline text]` and `[^id]` with `[^id]: text` (its following indented lines go on). The
# renderer numbers them per slide and lists them at the slide's foot, as Quarto does.

FOOTNOTE_TOKEN = re.compile("\u2063N(\\d+)\u2063")
DEFINITION = re.compile(r"^\[\^([^\]\s]+)\]:[ \t]?(.*)$")
REFERENCE = re.compile(r"\[\^([^\]\s]+)\](?!:)")
CODE_SPAN = re.compile(r"(`+).+?\1", re.S)


def footnote_placeholder(index: int) -> str:
    return f"\u2063N{index}\u2063"


def take_definitions(text: str) -> tuple[str, dict[str, tuple[str, int]]]:
    """Footnote definitions out of `text` (blank lines left in their place, so the text keeps
    its line structure): id → (body, line offset of the definition)."""
    lines = text.split("\n")
    out: list[str] = []
    found: dict[str, tuple[str, int]] = {}
    k = 0
    while k < len(lines):
        m = DEFINITION.match(lines[k])
        if not m:
            out.append(lines[k])
            k += 1
            continue
        start, body = k, [m.group(2)]
        k += 1
        while k < len(lines) and lines[k].startswith(("  ", "\t")) and lines[k].strip():
            body.append(lines[k].strip())
            k += 1
        found[m.group(1)] = ("\n".join(body), start)
        out.extend([""] * (k - start))
    return "\n".join(out), found


def mark_footnotes(text: str, add: Callable[[str, str, int], int]) -> str:
    """Replace `^[…]` and `[^id]` by placeholders; `add(kind, content, line offset)` records
    each ("inline" with its text, or "ref" with its id) and returns its placeholder number."""
    out: list[str] = []
    pos = 0
    while pos < len(text):
        code = CODE_SPAN.match(text, pos) if text[pos] == "`" else None
        if code:
            out.append(code.group(0))
            pos = code.end()
            continue
        if text.startswith("^[", pos):
            end = _closing_bracket(text, pos + 1)
            if end is not None:
                offset = text.count("\n", 0, pos)
                out.append(footnote_placeholder(add("inline", text[pos + 2 : end], offset)))
                pos = end + 1
                continue
        ref = REFERENCE.match(text, pos) if text[pos] == "[" else None
        if ref:
            offset = text.count("\n", 0, pos)
            out.append(footnote_placeholder(add("ref", ref.group(1), offset)))
            pos = ref.end()
            continue
        out.append(text[pos])
        pos += 1
    return "".join(out)


def _closing_bracket(text: str, start: int) -> int | None:
    depth = 0
    for k in range(start, len(text)):
        if text[k] == "[":
            depth += 1
        elif text[k] == "]":
            depth -= 1
            if depth == 0:
                return k
    return None
