"""Pandoc syntax that Python-Markdown lacks, as Quarto slides use it.

- an image alone in its paragraph becomes a `<figure>` with its caption (`![caption](file)`);
- image attributes: `{width=50%}` and `{width=300}`, `{fig-alt="…"}`, `{fig-align=center}`,
  `{.absolute top=10 left=0}` (numbers are pixels); other keys become `data-` attributes;
- local image files are handed to the renderer (`Media.image`), which records them for
  copying and says where they are published;
- `[text]{.class key=value}` bracketed spans (`.fragment`, `.smallcaps`, `.mark`, …);
- raw inline HTML `` `<b>`{=html} `` (other formats' raw text is dropped, as Pandoc drops it),
  a `\\` ending a line as a hard line break, grid tables (`+---+---+`, cells spanning columns
  and rows: `deck.render.gridtables`);
- a figure's caption is Markdown (raw HTML in it stays HTML); attribute values may hold
  Pandoc's backslash escapes (`width="\\"50%"`).
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from markdown import Extension, Markdown
from markdown.inlinepatterns import InlineProcessor
from markdown.treeprocessors import Treeprocessor

from deck.blocks.styles import NUMBER, position_style, style_join
from deck.model.document import label_token
from deck.render.gridtables import GridTables
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
    ident = img.get("id", "")
    numbered = label_token(ident) if ident.startswith(("fig-", "tbl-")) else ""  # (crossref)
    ET.SubElement(figure, "figcaption").text = numbered + caption
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
        md.parser.blockprocessors.register(GridTables(md.parser), "pandoc_grid", 76)


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
