"""The deck's own slide HTML as a small element tree (read with the standard library's HTML
parser), and KaTeX's MathML as text runs: identifiers in italics, scripts raised or lowered."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser

MATH_SCRIPTS = {"msub", "msup", "msubsup"}


@dataclass
class Run:
    text: str
    bold: bool = False
    italic: bool = False
    code: bool = False
    script: int = 0  # -1 subscript, +1 superscript (inline math)
    link: str | None = None


class Node:
    """An element as parsed: tag, attributes, children (nodes or text)."""

    __slots__ = ("tag", "attrs", "children")

    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag = tag
        self.attrs = attrs
        self.children: list[Node | str] = []

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def find(self, tag: str | None = None, cls: str | None = None) -> Node | None:
        for child in self.children:
            if isinstance(child, Node):
                if (tag is None or child.tag == tag) and (cls is None or cls in child.classes):
                    return child
                found = child.find(tag, cls)
                if found is not None:
                    return found
        return None

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)


VOID = {"br", "img", "hr", "input", "meta", "link", "source", "col", "wbr", "mspace"}


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        for k in range(len(self.stack) - 1, 0, -1):
            if self.stack[k].tag == tag:
                del self.stack[k:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def tree(html: str) -> Node:
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


def tex_of(node: Node) -> str:
    """A `.katex` span's TeX (its MathML annotation)."""
    annotation = node.find("annotation")
    return annotation.text().strip() if annotation is not None else node.text()


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
        if n.tag in MATH_SCRIPTS and kids:
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
            for kid in n.children:
                walk(kid, script)
            add("" if simple else ")", False, script)
        elif n.tag == "mi":
            text = n.text().strip()
            italic = len(text) == 1 and n.attrs.get("mathvariant") != "normal"
            add(text, italic, script)
        elif n.tag == "mspace":
            add(" ", False, script)
        else:
            for kid in n.children:
                walk(kid, script)

    math = node.find("math")
    walk(math if math is not None else node, 0)
    return runs
