"""The words the engine puts on pages come from one place (issue 30, item 4): the tables of
deck/static/strings.json, read by `deck.strings.strings` in Python and by `deckStrings` in the
page (its assets/strings.js carries the page's parts). English has every key; a language tag
reads its first subtag's table and English for what that table lacks; a language added to the
data alone speaks on the slides (contents title, cross-references) and in the page's scripts."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import deck.strings as ui
from catalogue import write_lesson
from fixture_build import run_cli

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node runs the page's strings.js")


def kind(value: Any) -> str:
    if ui.is_message(value):
        return "message"
    return "table" if isinstance(value, dict) else type(value).__name__


def key_faults(english: dict[str, Any], own: dict[str, Any], at: str) -> list[str]:
    """Each key of `own` English lacks, or that is another kind of string than English's."""
    faults = []
    for key, value in own.items():
        where = f"{at}.{key}"
        if key not in english:
            faults.append(f"{where}: not in English")
        elif kind(english[key]) == "table":
            if kind(value) != "table":
                faults.append(f"{where}: a {kind(value)}, English has a table")
            else:
                faults += key_faults(english[key], value, where)
        elif kind(english[key]) == "message":
            if not isinstance(value, (dict, str)):
                faults.append(f"{where}: a {kind(value)}, English has a message")
                continue
            message = value if isinstance(value, dict) else {"text": value}
            args = english[key]["args"]
            texts = [t for k, t in message.items() if k not in ("args", "count")]
            names = {n for text in texts for n in re.findall(r"\{(\w+)\}", text)}
            if not names <= set(args) or message.get("count", args[0]) not in args:
                faults.append(f"{where}: names an argument English's {args} has not")
        elif kind(value) != kind(english[key]):
            faults.append(f"{where}: a {kind(value)}, English has a {kind(english[key])}")
    return faults


def test_every_key_of_every_language_is_in_english() -> None:
    tables = ui.tables()
    assert {"en", "zh", "fr", "de"} <= set(tables)
    english = tables["en"]
    assert set(ui.PAGE_PARTS) <= set(english)
    for lang, table in tables.items():
        assert key_faults(english, table, lang) == [], lang
    # ... and the check sees a key English lacks, or a string where English has a table
    broken = {"toc": {"title": "x", "subtitle": "y"}, "course": {"links": "z"}}
    assert key_faults(english, broken, "xx") == [
        "xx.toc.subtitle: not in English",
        "xx.course.links: a str, English has a table",
    ]


def test_a_language_tag_reads_its_table_and_english_for_the_rest() -> None:
    assert ui.table_language("zh-CN") == "zh"
    assert ui.table_language("de-AT") == "de"
    assert ui.table_language("ZH_tw") == "zh"
    assert ui.table_language("it") == "en"
    assert ui.table_language(None) == "en"
    assert ui.strings("zh-CN", "toc")["title"] == "目录"
    assert ui.strings("de-AT", "crossref")["fig"] == "Abbildung"
    assert ui.strings("de-AT", "callout")["note"] == "Note"  # no German callout titles yet
    assert ui.strings("it", "answer")["label"] == "Answer"
    assert ui.strings("zh", "course")["links"]["pptx"] == "PowerPoint 幻灯片（PPTX）"


# The page's messages: a function of English's arguments, a count picking the form.
PAGE_CHECK = """
const fs = require("fs");
const [file, lang] = process.argv.slice(1);
global.window = {};
global.document = {documentElement: {lang}};
eval(fs.readFileSync(file, "utf-8"));
const deck = window.deckStrings("deck"), pop = window.deckStrings("popover");
console.log(JSON.stringify({
  lang: window.deckStrings.lang, parts: Object.keys(window.deckStrings.tables.en),
  wrong: deck.wrong, right: deck.right, votes: [0, 1, 2].map(deck.votes),
  plan: [deck.plan(10, 0), deck.plan(10.5, 2)], unplanned: [deck.unplanned([2]),
  deck.unplanned([2, 3])], lines: pop.lines(3, 7),
  layouts: window.deckStrings("speaker").layouts,
}));
"""


def page_strings(script: Path, lang: str) -> dict[str, Any]:
    assert NODE is not None
    ran = subprocess.run(
        [NODE, "-e", PAGE_CHECK, str(script), lang], capture_output=True, text=True, check=True
    )
    answer: dict[str, Any] = json.loads(ran.stdout)
    return answer


def page_script(folder: Path) -> Path:
    """The deck's assets/strings.js as copy_assets writes it (the data, then strings.js)."""
    from deck.publish.assets import ASSEMBLED, assembled
    from deck.theme import STATIC

    path = folder / "strings.js"
    path.write_bytes(assembled([STATIC / part for part in ASSEMBLED["strings.js"]]))
    return path


@needs_node
def test_the_page_speaks_each_language_of_the_data(tmp_path: Path) -> None:
    script = page_script(tmp_path)
    en, zh, fr, de = (page_strings(script, lang) for lang in ("en", "zh-CN", "fr", "de-CH"))
    assert en["parts"] == list(ui.PAGE_PARTS)  # the page's parts, not the engine's
    assert en["votes"] == ["0 votes", "1 vote", "2 votes"]
    assert fr["votes"] == ["0 vote", "1 vote", "2 votes"]  # French: 0 is singular
    assert zh["votes"] == ["0 票", "1 票", "2 票"]
    assert en["plan"] == ["Planned 10 min", "Planned 10.5 min (optional slides add 2 min)"]
    assert en["unplanned"] == [
        "no minutes in the notes of slide 2",
        "no minutes in the notes of slides 2, 3",
    ]
    assert zh["unplanned"][1] == "第 2、3 页的备注没写分钟"  # (Chinese lists with 、)
    assert de["lines"] == "(Zeilen 3–7)" and de["layouts"]["wide"] == "Breit"
    italian = page_strings(script, "it")
    assert italian["lang"] == "en" and italian["wrong"] == "✗ Try again"


# Esperanto, in the data only: a contents title, one cross-reference name, two page strings.
ESPERANTO = {
    "toc": {"title": "Enhavo"},
    "crossref": {"fig": "Figuro"},
    "deck": {
        "wrong": "✗ Provu denove",
        "votes": {"count": "n", "one": "{n} voĉdono", "other": "{n} voĉdonoj"},
    },
}
SLIDES = """
## Eins {#sec-eins}

See @fig-box, @eq-e and @sec-eins.

![A box](a.svg){#fig-box}

::: {.callout-note}
Text.
:::

## Zwei

$$
E = mc^2
$$ {#eq-e}
"""
SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"/>'


@pytest.fixture
def with_esperanto(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    data = {**ui.tables(), "eo": ESPERANTO}
    ui._part.cache_clear()
    monkeypatch.setattr(ui, "tables", lambda: data)
    yield
    ui._part.cache_clear()


def build(tmp_path: Path, lang: str) -> str:
    lesson = f"title: T\nlang: {lang}\nslides: {{toc: true}}\n"
    write_lesson(tmp_path, {"lesson.yml": lesson, "01-a.md": SLIDES, "a.svg": SVG}, "talk")
    ran = run_cli(tmp_path, "talk", "--no-pdf", "--to", "html")
    assert ran.returncode == 0, ran.stderr
    return (tmp_path / "dist" / "talk" / "index.html").read_text("utf-8")


def shown(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page)).replace("\xa0", " ")


def test_a_german_deck_has_german_where_the_data_has_it_and_english_elsewhere(tmp_path):
    page = build(tmp_path, "de-AT")
    text = shown(page)
    assert "Inhaltsverzeichnis" in text and "Table of Contents" not in text
    assert "See Abbildung 1, Gleichung 1 and Abschnitt 1." in text
    assert 'callout-title">Note<' in page  # no German callout titles: English


@needs_node
def test_a_language_added_to_the_data_only_speaks_in_python_and_the_page(tmp_path, with_esperanto):
    page = build(tmp_path, "eo")
    text = shown(page)
    assert "Enhavo" in text and "Table of Contents" not in text
    assert "See Figuro 1, Equation 1 and Section 1." in text  # English where Esperanto lacks
    assert 'callout-title">Note<' in page
    assets = tmp_path / "dist" / "talk" / "assets" / "strings.js"
    eo = page_strings(assets, "eo")
    assert eo["lang"] == "eo"
    assert eo["wrong"] == "✗ Provu denove" and eo["right"] == "✓ Correct"
    assert eo["votes"] == ["0 voĉdonoj", "1 voĉdono", "2 voĉdonoj"]
    assert eo["lines"] == "(lines 3–7)"


def test_the_course_page_counts_slides_in_each_languages_forms(tmp_path):
    """Issue 32: "1 slides". A message picks its form by count as the page's scripts do."""
    from deck.publish.course import lesson_item
    from deck.strings import message, strings

    slides = strings("en", "course")["slides"]
    assert [message("en", slides, n=n) for n in (1, 2, 0)] == ["1 slide", "2 slides", "0 slides"]
    assert message("zh-CN", strings("zh-CN", "course")["slides"], n=1) == "1 页幻灯片"
    assert message("fr", {"args": ["n"], "count": "n", "one": "{n} a", "other": "{n} b"}, n=0) == (
        "0 a"  # French counts 0 as one, as Intl.PluralRules('fr') does
    )
    entry = {"name": "a", "title": "A", "slides": 1}
    assert "1 slide<" in lesson_item(entry, "en", tmp_path, False).replace("</p>", "<")
    entry["slides"] = 3
    assert "3 slides" in lesson_item(entry, "en", tmp_path, False)
