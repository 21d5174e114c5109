"""A rendered slide's body as the blocks a PowerPoint slide is made of: paragraphs of styled
runs (computed values and inline formulas as text), tables, pictures (figures, display
formulas with their TeX), code, columns and quizzes. The body is the deck's own HTML (made by
`deck.render` from known templates), read with the standard library's HTML parser."""

from __future__ import annotations

from dataclasses import dataclass, field

from deck.publish.pptx.htmltree import Node, Run, math_runs, tex_of, tree

BLOCK_TAGS = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption", "dt", "dd"}


@dataclass
class Para:
    runs: list[Run] = field(default_factory=list)
    level: int = 0  # list nesting (0: not a list item)
    bullet: str = ""  # "•" or "1." … for list items
    style: str = ""  # "quote", "caption", "small", "heading"

    @property
    def text(self) -> str:
        return "".join(r.text for r in self.runs)


@dataclass
class Text:
    paras: list[Para]


@dataclass
class Cell:
    runs: list[Run]  # as a paragraph's: formulas' scripts raised or lowered
    header: bool = False  # a `<th>`

    @property
    def text(self) -> str:
        return "".join(r.text for r in self.runs)


@dataclass
class Table:
    rows: list[list[Cell]]
    header: bool = False  # its first row is a header row (`<thead>`, or all `<th>`)


@dataclass
class Picture:
    kind: str  # "figure" (a file), "formula" (TeX)
    source: str  # the figure's src, or the formula's TeX
    alt: str = ""


@dataclass
class CodeBlock:
    text: str


@dataclass
class ColumnsBlock:
    columns: list[list[Block]]
    widths: list[float | None]


@dataclass
class QuizBlock:
    question: list[Para]
    choices: list[str]
    answer: int  # index of the right choice, -1 when unknown
    explanation: str


@dataclass
class Flow:
    """`::: flow`: its list's items as boxes joined by arrows, side by side (`.vertical`:
    stacked), each box's text one paragraph (a `**bold**` part on a line of its own)."""

    boxes: list[Para]
    vertical: bool = False


Block = Text | Table | Picture | CodeBlock | ColumnsBlock | QuizBlock | Flow


def _width(attrs: dict[str, str | None]) -> float | None:
    style = attrs.get("style") or ""
    for part in style.split(";"):
        key, _, value = part.partition(":")
        if key.strip() == "width" and value.strip().endswith("%"):
            try:
                return float(value.strip()[:-1]) / 100
            except ValueError:
                return None
    return None


class _Reader:
    """Walks the tree into blocks."""

    def blocks(self, node: Node) -> list[Block]:
        out: list[Block] = []
        pending: list[Para] = []

        def flush() -> None:
            if pending:
                out.append(Text(list(pending)))
                pending.clear()

        for child in node.children:
            if isinstance(child, str):
                if child.strip():
                    pending.append(Para(self.inline_runs([child])))
                continue
            cls = child.classes
            if child.tag in ("script", "style", "aside", "svg") or "quiz-feedback" in cls:
                continue
            if "slide-footer" in cls or "footer" in cls or "slide-logo" in cls:
                continue
            if "deck-optional-mark" in cls or "value-sources" in cls:
                continue
            if child.tag == "table":
                flush()
                out.append(self.table(child))
            elif child.tag == "img":
                flush()
                # (a slide but the first loads its pictures late: data-src, see lazy_images)
                src = child.attrs.get("src") or child.attrs.get("data-src") or ""
                out.append(Picture("figure", src, child.attrs.get("alt") or ""))
            elif child.tag == "pre":
                flush()
                out.append(CodeBlock(child.text().rstrip("\n")))
            elif "katex-display" in cls:
                flush()
                katex = child.find(cls="katex") or child
                tex = tex_of(katex)
                out.append(Picture("formula", tex, tex))
            elif "flow" in cls and child.tag == "div" and child.find("ul") is not None:
                flush()
                out.append(self.flow(child))
            elif "columns" in cls:
                flush()
                columns = [c for c in child.children if isinstance(c, Node)]
                out.append(
                    ColumnsBlock(
                        [self.blocks(c) for c in columns], [_width(c.attrs) for c in columns]
                    )
                )
            elif "quiz" in cls and child.tag == "div":
                flush()
                out.append(self.quiz(child))
            elif child.tag in ("ul", "ol"):
                pending.extend(self.list_items(child, 1))
            elif child.tag == "p" and self.only_display_math(child):
                flush()
                out.extend(self.blocks(child))
            elif child.tag in BLOCK_TAGS:
                style = "caption" if child.tag == "figcaption" else ""
                if "small" in cls:
                    style = "small"
                pending.append(Para(self.inline_runs(child.children), style=style))
            elif child.tag == "blockquote":
                for block in self.blocks(child):
                    if isinstance(block, Text):
                        for para in block.paras:
                            para.style = para.style or "quote"
                        pending.extend(block.paras)
                    else:
                        flush()
                        out.append(block)
            elif child.tag in ("div", "figure", "section", "details", "summary", "dl"):
                inner = self.blocks(child)
                for block in inner:
                    if isinstance(block, Text):
                        pending.extend(block.paras)
                    else:
                        flush()
                        out.append(block)
            else:  # inline content standing alone
                runs = self.inline_runs([child])
                if "".join(r.text for r in runs).strip():
                    pending.append(Para(runs))
        flush()
        return out

    def only_display_math(self, p: Node) -> bool:
        kids = [c for c in p.children if isinstance(c, Node) or c.strip()]
        return bool(kids) and all(
            isinstance(k, Node) and "katex-display" in k.classes for k in kids
        )

    def list_items(self, node: Node, level: int) -> list[Para]:
        paras: list[Para] = []
        number = int(node.attrs.get("start") or 1)
        for item in node.children:
            if not isinstance(item, Node) or item.tag != "li":
                continue
            inline = [
                c for c in item.children if not (isinstance(c, Node) and c.tag in ("ul", "ol"))
            ]
            bullet = f"{number}." if node.tag == "ol" else "•"
            number += 1
            paras.append(Para(self.inline_runs(inline), level, bullet))
            for sub in item.children:
                if isinstance(sub, Node) and sub.tag in ("ul", "ol"):
                    paras.extend(self.list_items(sub, level + 1))
        return paras

    def inline_runs(self, children: list[Node | str], style: Run | None = None) -> list[Run]:
        style = style or Run("")
        runs: list[Run] = []
        for child in children:
            if isinstance(child, str):
                text = " ".join(child.split()) if not style.code else child
                if child[:1].isspace() and text:
                    text = " " + text
                if child[-1:].isspace() and text and not text.endswith(" "):
                    text += " "
                if text:
                    runs.append(Run(text, style.bold, style.italic, style.code, 0, style.link))
                continue
            cls = child.classes
            if child.tag in ("script", "style", "svg", "aside") or "katex-html" in cls:
                continue
            if child.tag == "br":
                runs.append(Run("\v", style.bold, style.italic))
                continue
            if "katex" in cls:
                runs.extend(math_runs(child, style))
                continue
            if child.tag == "img":
                continue
            inner = Run(
                "",
                style.bold or child.tag in ("strong", "b"),
                style.italic or child.tag in ("em", "i"),
                style.code or child.tag in ("code", "kbd", "samp"),
                0,
                child.attrs.get("href") if child.tag == "a" else style.link,
            )
            runs.extend(self.inline_runs(child.children, inner))
        return _merge(runs)

    def table(self, node: Node) -> Table:
        """A table's cells as runs; its header row only where the deck shows one: the rows
        of its `<thead>` (an empty one, a header-less Markdown table's, left out), else a
        first row of `<th>` only."""
        rows: list[list[Cell]] = []
        head = 0  # how many of the rows are header rows

        def walk(n: Node, in_head: bool) -> None:
            nonlocal head
            for child in n.children:
                if not isinstance(child, Node) or child.tag in ("caption", "colgroup"):
                    continue
                if child.tag == "tr":
                    row = [
                        Cell(_cell_runs(c), c.tag == "th")
                        for c in child.children
                        if isinstance(c, Node) and c.tag in ("td", "th")
                    ]
                    if in_head and not any(cell.text.strip() for cell in row):
                        continue  # (an empty header: the deck draws no heading there)
                    rows.append(row)
                    head += in_head
                else:
                    walk(child, in_head or child.tag == "thead")

        walk(node, False)
        width = max((len(r) for r in rows), default=0)
        header = head > 0 or bool(rows and rows[0] and all(c.header for c in rows[0]))
        return Table([r + [Cell([])] * (width - len(r)) for r in rows], header)

    def flow(self, node: Node) -> Flow:
        """A flow's boxes: each item's runs, a `<strong>` on its own line (the deck's CSS
        shows it as a block)."""
        listing = node.find("ul")
        boxes: list[Para] = []
        for item in listing.children if listing is not None else []:
            if not isinstance(item, Node) or item.tag != "li":
                continue
            lines: list[list[Run]] = [[]]
            for part in item.children:
                alone = isinstance(part, Node) and part.tag in ("strong", "b")
                if alone:
                    lines.append([])
                lines[-1] += self.inline_runs([part])
                if alone:
                    lines.append([])
            runs: list[Run] = []
            for line in lines:
                text = "".join(r.text for r in line)
                if not text.strip():
                    continue
                if runs:
                    runs.append(Run("\v"))
                line[0].text = line[0].text.lstrip()
                line[-1].text = line[-1].text.rstrip()
                runs += line
            boxes.append(Para(_merge(runs)))
        return Flow(boxes, "vertical" in node.classes)

    def quiz(self, node: Node) -> QuizBlock:
        question = node.find(cls="quiz-question")
        paras: list[Para] = []
        for block in self.blocks(question) if question is not None else []:
            if isinstance(block, Text):
                paras.extend(block.paras)
        choices: list[str] = []
        answer = -1
        listing = node.find(cls="quiz-choices")
        for item in listing.children if listing is not None else []:
            if isinstance(item, Node) and item.tag == "li":
                button = item.find("button") or item
                if button.attrs.get("data-correct") == "true":
                    answer = len(choices)
                choices.append("".join(r.text for r in self.inline_runs(button.children)).strip())
        explain = node.find(cls="quiz-explain")
        explanation = ""
        if explain is not None:
            explanation = " ".join(
                "".join(r.text for r in self.inline_runs(explain.children)).split()
            )
        return QuizBlock(paras, choices, answer, explanation)


def _cell_runs(node: Node) -> list[Run]:
    """A cell's runs, its white space (line breaks too) collapsed to single spaces and
    trimmed: a cell is one paragraph."""
    runs: list[Run] = []
    spaced = True  # (the text so far ends with a space, or there is none)
    for run in _Reader().inline_runs(node.children):
        text = " ".join(run.text.split())
        if run.text[:1].isspace() and not spaced:
            text = " " + text
        if run.text[-1:].isspace() and text.strip():
            text += " "
        if text:
            runs.append(Run(text, run.bold, run.italic, run.code, run.script, run.link))
            spaced = text.endswith(" ")
    while runs and not runs[-1].text.strip():
        runs.pop()
    if runs:
        runs[-1].text = runs[-1].text.rstrip()
    return runs


def _merge(runs: list[Run]) -> list[Run]:
    merged: list[Run] = []
    for run in runs:
        last = merged[-1] if merged else None
        if last is not None and (last.bold, last.italic, last.code, last.script, last.link) == (
            run.bold,
            run.italic,
            run.code,
            run.script,
            run.link,
        ):
            last.text += run.text
        else:
            merged.append(Run(run.text, run.bold, run.italic, run.code, run.script, run.link))
    return merged


def slide_blocks(body: str) -> list[Block]:
    """The blocks of a slide's body, in reading order."""
    root = tree(body)
    inner = root.find(cls="slide-body") or root
    return _Reader().blocks(inner)


def slide_footer(body: str) -> list[Para]:
    """The footer the deck shows at the slide's foot (the slide's own `::: footer`, else the
    deck's `footer:`), as paragraphs: none when it has none."""
    root = tree(body)
    found = root.find(cls="slide-footer") or root.find(cls="footer")
    if found is None:
        return []
    reader = _Reader()
    paras: list[Para] = []
    inline: list[Node | str] = []  # (a footer's text stands in it, or in its `<p>`s)
    for child in [*found.children, None]:
        if child is None or (isinstance(child, Node) and child.tag in (*BLOCK_TAGS, "div")):
            paras.append(Para(reader.inline_runs(inline)))
            inline = []
            holder = Node("div", {})
            holder.children = [child] if child is not None else []
            paras += [p for b in reader.blocks(holder) if isinstance(b, Text) for p in b.paras]
        else:
            inline.append(child)
    return [p for p in paras if p.text.strip()]


def title_runs(title_html: str) -> list[Run]:
    """A slide title (HTML: it may hold values and formulas) as runs."""
    return _Reader().inline_runs(tree(title_html).children)
