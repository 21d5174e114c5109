"""Raw HTML the document holds as markup (an author's `<table>` in prose or a `{=html}` block, a
cell's `deck.show.HTML`/`table`/`source` output): read by libxml2's HTML parser into the same
element tree Markdown makes, so that `prose.Reader` walks it as it walks prose (by tag:
tables, lists, paragraphs, pictures, code; never by the deck's CSS classes)."""

from __future__ import annotations

from typing import Any
from xml.etree.ElementTree import Element

SKIPPED = {"script", "style", "svg", "template", "noscript", "head", "title", "button"}


def element_tree(markup: str) -> Element:
    """The markup's elements as `xml.etree` elements under one `<div>` (comments, scripts
    and styles left out, their tails kept)."""
    from lxml import html as lxml_html

    root = Element("div")
    if not markup.strip():
        return root
    parsed = lxml_html.fragment_fromstring(markup, create_parent="div")

    def convert(source: Any, target: Element) -> None:
        target.text = source.text
        for child in source:
            tail = child.tail
            if isinstance(child.tag, str) and child.tag not in SKIPPED:
                element = Element(child.tag, {k: str(v) for k, v in child.attrib.items()})
                convert(child, element)
                element.tail = tail
                target.append(element)
            elif tail:  # (a comment's or a script's tail is text)
                if len(target):
                    target[-1].tail = (target[-1].tail or "") + tail
                else:
                    target.text = (target.text or "") + tail

    convert(parsed, root)
    return root
