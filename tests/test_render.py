"""The rendered deck's structure: slides, notes, fragments, columns, math, quiz, offline assets."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from fixture_build import Built


class Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    c = Collector()
    c.feed(html)
    return c.tags


def test_one_section_per_slide_with_source_lines(mini: Built):
    html = (mini.out / "index.html").read_text()
    sections = [a for t, a in tags(html) if t == "section"]
    values = json.loads((mini.out / "values.json").read_text())
    assert len(sections) == values["slides"] == 6
    assert sections[0]["id"] == "intro"
    assert sections[0]["data-source"] == "content/mini/01-basics.md:1"
    assert "section-title" in sections[0]["class"]
    assert sections[2]["data-note"] == "x" and "small" in sections[2]["class"]


def test_every_slide_keeps_its_notes(mini: Built):
    html = (mini.out / "index.html").read_text()
    notes = re.findall(r'<aside class="notes">(.*?)</aside>', html, re.S)
    assert len(notes) == 6
    assert "这里讲平方：144。" in notes[1]


def test_inline_values_math_fragments_columns_and_quiz(mini: Built):
    html = (mini.out / "index.html").read_text()
    assert "平方的结果是 144" in html
    assert 'class="katex"' in html and 'class="katex-display"' in html
    assert '<div class="fragment"><p>第二步出现。</p></div>' in html
    assert '<div class="column" style="width:60%">' in html
    buttons = [a for t, a in tags(html) if t == "button"]
    assert [b["data-correct"] for b in buttons] == ["false", "true", "false"]
    assert "{python}" not in html and "\u2063" not in html


def test_figure_has_alt_and_caption(mini: Built):
    html = (mini.out / "index.html").read_text()
    (img,) = [a for t, a in tags(html) if t == "img"]
    assert img["src"] == "figures/parabola.svg"
    assert img["alt"] == "一条开口向上的抛物线"
    assert "<figcaption>抛物线" in html
    assert (mini.out / "figures/parabola.svg").read_bytes().startswith(b"<?xml")


def test_array_output_is_a_table(mini: Built):
    html = (mini.out / "index.html").read_text()
    assert '<table class="matrix">' in html
    assert "<td>0.250</td><td>0.750</td>" in html


def test_nothing_is_loaded_from_the_network(mini: Built):
    html = (mini.out / "index.html").read_text()
    refs = [v for _, a in tags(html) for k, v in a.items() if k in ("src", "href") and v]
    assert refs, "expected asset references"
    for ref in refs:
        assert not re.match(r"^(https?:)?//", ref), ref
        assert (mini.out / ref).is_file(), ref
    css = (mini.out / "assets/katex/katex.min.css").read_text()
    for font in re.findall(r"url\((fonts/[^)]+\.woff2)\)", css):
        assert (mini.out / "assets/katex" / font).is_file()


def test_values_record_every_inline_value_with_slide(mini: Built):
    values = json.loads((mini.out / "values.json").read_text())
    recorded = {(v["expr"], v["loc"], v["slide"]) for v in values["values"]}
    assert ("answer", "content/mini/01-basics.md:19", 2) in recorded
    assert ("answer", "content/mini/01-basics.md:26", 2) in recorded  # in the notes
    assert ("min(x * x for x in xs)", "content/mini/02-figure.md:24", 5) in recorded
    (quiz,) = values["quizzes"]
    assert quiz["choices"] == ["6", "9", "5"] and quiz["answer"] == 1
    assert quiz["explanation"] == "平方是自乘：9。"
