"""The deck page as a classroom serves it: what an audience device may see of it, and what the
server learns from it (each quiz's slide, choices, answer and explanation).

An audience page is the built deck without what only the lecturer sees: the speaker notes,
which choice is right (`data-correct`) and the explanations (sent once the lecturer reveals
the answer). The page is read with the standard library's HTML parser, element by element, so
markup inside a cell's output or a formula never confuses it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

CORRECT = re.compile(r'\sdata-correct="(?:true|false)"')


@dataclass(frozen=True)
class QuizInfo:
    """A quiz as the page shows it: its slide (0-based, the page's order), the number of its
    choices, the right one's index and the explanation's HTML (the build's own markup)."""

    index: int
    slide: int
    choices: int
    answer: int
    explain: str


@dataclass
class Element:
    tag: str
    classes: set[str]
    start: int  # where its start tag begins
    inner: int  # where its content begins
    depth: int = 1  # open elements of its tag, itself included
    attrs: dict[str, str | None] = field(default_factory=dict)


@dataclass
class Found:
    sections: list[tuple[int, int]] = field(default_factory=list)  # top-level slides
    notes: list[tuple[int, int]] = field(default_factory=list)
    explains: list[tuple[int, int, int]] = field(default_factory=list)  # quiz, inner range
    quizzes: list[int] = field(default_factory=list)  # the slide of each quiz
    choices: list[list[bool]] = field(default_factory=list)  # each quiz's, True: the right one


class Scanner(HTMLParser):
    """Finds the slides, notes, quizzes and explanations of a deck page, as offsets."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.text = text
        self.lines = [0] + [m.end() for m in re.finditer("\n", text)]
        self.open: list[Element] = []  # the elements being measured, innermost last
        self.found = Found()
        self.section_depth = 0

    def position(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self.position()
        raw = self.get_starttag_text() or ""
        inner = start + len(raw)
        for element in self.open:
            if element.tag == tag:
                element.depth += 1
        classes = set((dict(attrs).get("class") or "").split())
        if tag == "section":
            self.section_depth += 1
            if self.section_depth == 1:
                self.open.append(Element(tag, {"deck-slide"}, start, inner))
        elif tag == "aside" and "notes" in classes:
            self.open.append(Element(tag, classes, start, inner))
        elif tag == "div" and "quiz-explain" in classes:
            quiz = str(len(self.found.quizzes) - 1)
            self.open.append(Element(tag, classes, start, inner, attrs={"quiz": quiz}))
        elif tag == "div" and "quiz" in classes:
            self.found.quizzes.append(max(0, len(self.found.sections)))
            self.found.choices.append([])
        elif tag == "button" and "quiz-choice" in classes and self.found.choices:
            self.found.choices[-1].append(dict(attrs).get("data-correct") == "true")

    def handle_endtag(self, tag: str) -> None:
        at = self.position()
        end = self.text.find(">", at) + 1
        if tag == "section":
            self.section_depth = max(0, self.section_depth - 1)
        for element in list(self.open):
            if element.tag != tag:
                continue
            element.depth -= 1
            if element.depth:
                continue
            self.open.remove(element)
            if "deck-slide" in element.classes:
                self.found.sections.append((element.start, end))
            elif "notes" in element.classes:
                self.found.notes.append((element.start, end))
            else:
                quiz = int(element.attrs.get("quiz") or -1)
                self.found.explains.append((quiz, element.inner, at))


def scan(text: str) -> Found:
    scanner = Scanner(text)
    scanner.feed(text)
    scanner.close()
    return scanner.found


def quizzes(text: str) -> list[QuizInfo]:
    """Every quiz of the page in order, with its slide, choices, answer and explanation."""
    found = scan(text)
    explains = {quiz: text[a:b] for quiz, a, b in found.explains}
    return [
        QuizInfo(
            k, slide, len(marks), marks.index(True) if True in marks else -1, explains.get(k, "")
        )
        for k, (slide, marks) in enumerate(zip(found.quizzes, found.choices, strict=True))
    ]


def audience_page(text: str) -> str:
    """The page without the speaker notes, the right choices and the explanations."""
    found = scan(text)
    cuts = sorted([*found.notes, *((a, b) for _, a, b in found.explains)])
    kept, at = [], 0
    for a, b in cuts:
        if a < at:
            continue  # (an explanation inside notes went with them)
        kept.append(text[at:a])
        at = b
    kept.append(text[at:])
    return CORRECT.sub("", "".join(kept))


def sections(text: str) -> list[str]:
    """The HTML of each slide of the page, in order."""
    return [text[a:b] for a, b in scan(text).sections]


def language(text: str) -> str:
    """The page's `<html lang>` (en when it says none)."""
    start = text.find('<html lang="')
    return text[start + 12 : text.find('"', start + 12)] if start >= 0 else "en"


REVEAL_SCRIPT = '<script src="assets/reveal/reveal.js"'


def insert_client(text: str, snippet: str) -> str:
    """`snippet` after the slides, before reveal.js loads (a slide's own scripts, such as its
    values' sources, come earlier: a client there would go with the slide when it is
    replaced); before the body's end in a page without reveal.js."""
    at = text.find(REVEAL_SCRIPT)
    if at < 0:
        at = text.rfind("</body>")
    if at < 0:
        at = len(text)
    return text[:at] + snippet + text[at:]


def config_script(name: str, config: dict, script: str, style: str = "") -> str:
    """A script setting `window.<name>` and running `script` (and a style), for the page."""
    data = json.dumps(config, ensure_ascii=False).replace("</", "<\\/")
    css = f"<style>{style}</style>\n" if style else ""
    return f'{css}<script id="{name}">window.{name} = {data};\n{script}</script>\n'
