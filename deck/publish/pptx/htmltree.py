"""One formula as KaTeX typeset it (the deck's KaTeX, `deck.render.mathtex`), read as a small
element tree without KaTeX's visual spans: its MathML becomes text runs (identifiers in
italics, scripts raised or lowered, accents as combining marks on their base). The deck's
slide HTML is never read (raw HTML an author or a cell wrote is `rawhtml.py`'s)."""

from __future__ import annotations

import unicodedata
from typing import Any

from deck.publish.pptx.shapes import Run

MATH_SCRIPTS = {"msub", "msup", "msubsup"}
# KaTeX's accent characters (`<mover accent="true">`'s `<mo>`: \hat \bar \tilde \vec
# \dot \overline …) → the combining mark typeset on each character of the base
ACCENTS_OVER = {
    "^": "\u0302", "ˆ": "\u0302", "ˉ": "\u0304", "¯": "\u0304", "~": "\u0303", "˜": "\u0303",
    "⃗": "\u20d7", "→": "\u20d7", "←": "\u20d6", "↔": "\u20e1", "˙": "\u0307", "¨": "\u0308",
    "‾": "\u0305", "ˇ": "\u030c", "˘": "\u0306", "ˊ": "\u0301", "´": "\u0301", "ˋ": "\u0300",
    "`": "\u0300", "˚": "\u030a", "⃛": "\u20db",
}  # fmt: skip
# operators KaTeX sets with space either side (relations; `+`, `×`, `±` between terms), as
# text: a space either side on the baseline (not in scripts, not a minus: a number's sign)
SPACED = {"=", "<", ">", "≤", "≥", "≈", "≠", "≡", "∼", "≃", "∝", "→", "←", "↦", "⇒", "∈"}
SPACED |= {"+", "×", "±"}
ACCENTS_UNDER = {"‾": "\u0332", "_": "\u0332", "~": "\u0330", "→": "\u20ef", "←": "\u20ee"}


class Node:
    """An element as parsed: tag, attributes, children (nodes or text)."""

    __slots__ = ("tag", "attrs", "children")

    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag = tag
        self.attrs = attrs
        self.children: list[Node | str] = []

    def find(self, tag: str) -> Node | None:
        """The first element `tag` inside, depth first."""
        for child in self.children:
            if isinstance(child, Node):
                if child.tag == tag:
                    return child
                found = child.find(tag)
                if found is not None:
                    return found
        return None

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)


SKIP_INSIDE = {"script", "style", "svg"}  # kept as elements, their content not read


def _convert(element: Any) -> Node:
    node = Node(str(element.tag), dict(element.attrib))
    if element.text and node.tag not in SKIP_INSIDE:
        node.children.append(element.text)
    for child in element:
        if isinstance(child.tag, str) and node.tag not in SKIP_INSIDE:
            classes = (child.get("class") or "").split()
            if "katex-html" not in classes:  # (the MathML twin beside it is what is read)
                node.children.append(_convert(child))
        if child.tail:
            node.children.append(child.tail)
    return node


def tree(html: str) -> Node:
    """The element tree of KaTeX's typeset formula, read by libxml2's HTML parser (lxml)."""
    from lxml import html as lxml_html

    root = Node("root", {})
    if not html.strip():
        return root
    parsed = lxml_html.fragment_fromstring(html, create_parent="div")
    root.children = _convert(parsed).children
    return root


# KaTeX's letter styles (`mathvariant`) as Unicode's mathematical letters: (capitals, small
# letters) from their block, with the letters Unicode has elsewhere (ℝ ℒ ℜ …)
STYLED = {
    "double-struck": (0x1D538, 0x1D552, dict(zip("CHNPQRZ", "ℂℍℕℙℚℝℤ", strict=True))),
    "script": (0x1D49C, 0x1D4B6, dict(zip("BEFHILMRego", "ℬℰℱℋℐℒℳℛℯℊℴ", strict=True))),
    "fraktur": (0x1D504, 0x1D51E, dict(zip("CHIRZ", "ℭℌℑℜℨ", strict=True))),
}


def lettered(text: str, variant: str) -> str:
    r"""`text` in a letter style (`\mathbb{R}` → ℝ, `\mathcal{L}` → ℒ); other styles as they are."""
    if variant not in STYLED:
        return text
    capitals, smalls, own = STYLED[variant]

    def letter(c: str) -> str:
        if c in own:
            return own[c]
        if "A" <= c <= "Z":
            return chr(capitals + ord(c) - ord("A"))
        if "a" <= c <= "z":
            return chr(smalls + ord(c) - ord("a"))
        return c

    return "".join(letter(c) for c in text)


def accent_of(node: Node, mark: Node) -> str:
    """The combining mark an accent `<mover>`/`<munder>` puts on its base ("" if not one)."""
    if node.tag == "mover" and node.attrs.get("accent") == "true":
        return ACCENTS_OVER.get(mark.text().strip(), "")
    if node.tag == "munder" and node.attrs.get("accentunder") == "true":
        return ACCENTS_UNDER.get(mark.text().strip(), "")
    return ""


def accented(text: str, mark: str) -> str:
    """`mark` after each character of `text` (a letter and its marks, as Unicode combines
    them: the slide's font for marks places them, see `compose.MARKS_FONT`)."""
    return "".join(
        c + mark if not c.isspace() and not unicodedata.combining(c) else c for c in text
    )


def math_runs(node: Node, style: Run) -> list[Run]:
    """Inline math as text runs from KaTeX's MathML: identifiers in italics, scripts raised or
    lowered, roots and fractions spelled out."""
    runs: list[Run] = []

    def add(text: str, italic: bool = False, script: int = 0) -> None:
        if text:
            runs.append(Run(text, style.bold, italic, False, script, style.link))

    def walk(n: Node | str, script: int) -> None:
        if isinstance(n, str):
            add(n.strip(), False, script)
            return
        if n.tag == "annotation":
            return
        kids = [c for c in n.children if isinstance(c, Node)]
        if n.tag in ("mover", "munder") and len(kids) == 2 and accent_of(n, kids[1]):
            start = len(runs)
            walk(kids[0], script)
            base = [r for r in runs[start:] if r.text.strip()]
            level = [r for r in base if r.script == script]  # (`\hat{x_i}`: over x, not i)
            for run in level or base:
                run.text = accented(run.text, accent_of(n, kids[1]))
            if not base:  # (`\hat{}`: the accent alone)
                add(kids[1].text().strip(), False, script)
        elif n.tag in MATH_SCRIPTS and kids:
            walk(kids[0], script)
            for k, kid in enumerate(kids[1:], start=1):
                walk(kid, -1 if k == 1 and n.tag != "msup" else 1)
        elif n.tag == "mfrac" and len(kids) == 2:
            for k, kid in enumerate(kids):
                add("(" if len(kid.text()) > 1 else "", False, script)
                walk(kid, script)
                add(")" if len(kid.text()) > 1 else "", False, script)
                if k == 0:
                    add("/", False, script)
        elif n.tag == "msqrt":
            simple = len(kids) == 1 and kids[0].tag in ("mi", "mn", "msub", "msup")
            add("√" if simple else "√(", False, script)
            for child in n.children:
                walk(child, script)
            add("" if simple else ")", False, script)
        elif n.tag == "mo" and script == 0 and n.text().strip() in SPACED:
            text = n.text().strip()  # (KaTeX spaces a relation, a sum, a product)
            before = (
                " " if runs and runs[-1].text.strip() and not runs[-1].text.endswith(" ") else ""
            )
            add(before + text + " ", False, script)
        elif n.tag == "mi":
            text = n.text().strip()
            variant = n.attrs.get("mathvariant") or ""
            italic = len(text) == 1 and variant in ("", "italic", "bold-italic")
            start = len(runs)
            add(lettered(text, variant), italic, script)
            for run in runs[start:]:  # (`\mathbf`, `\boldsymbol`: bold letters)
                run.bold = run.bold or variant.startswith("bold")
        elif n.tag == "mspace":  # (the HTML parser may put what follows it inside it)
            add(" ", False, script)
            for child in n.children:
                walk(child, script)
        else:
            for child in n.children:
                walk(child, script)

    math = node.find("math")
    walk(math if math is not None else node, 0)
    return runs
