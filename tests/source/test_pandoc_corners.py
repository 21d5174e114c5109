"""Pandoc syntax corners in `.qmd` files (issue 32 items 2 and 6), read as Pandoc reads them.

Each expectation is taken from Pandoc's own reading of the same text (`pandoc -f markdown -t
json`, the pypandoc-binary Quarto ships), except where Quarto adds to Pandoc (the visibility
blocks and escaped shortcodes): those say what Quarto's filters do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pypandoc
import pytest

from deck.errors import DeckError
from deck.model import Cell, Code, Prose, Slide, walk_blocks
from deck.source.attributes import parse_attrs
from deck.source.qmd import load_qmd
from deck.source.scanner import parse_section


def pandoc(text: str) -> list[dict[str, Any]]:
    """Pandoc's blocks for Markdown `text`."""
    return json.loads(pypandoc.convert_text(text, "json", format="markdown"))["blocks"]


def headers(blocks: list[dict[str, Any]], level: int = 2) -> list[dict[str, Any]]:
    """Pandoc's slide headings (level ≤ `level`), Divs walked into, as Quarto shows them:
    `.content-hidden` dropped, `.content-visible` kept (this deck is html)."""
    found = []
    for block in blocks:
        if block["t"] == "Header" and block["c"][0] <= level:
            found.append(block)
        elif block["t"] == "Div":
            (_, classes, _), inner = block["c"]
            if "content-hidden" not in classes:
                found += headers(inner, level)
    return found


def words(inlines: list[dict[str, Any]]) -> str:
    return "".join(" " if i["t"] == "Space" else i.get("c", "") for i in inlines)


def qmd(tmp_path: Path, body: str) -> list[Slide]:
    path = tmp_path / "talk.qmd"
    path.write_text("---\nformat: revealjs\n---\n\n" + body, "utf-8")
    return [s for sec in load_qmd(path).sections for s in sec.slides]


def lesson(tmp_path: Path, body: str) -> list[Slide]:
    section, problems = parse_section(tmp_path / "01-a.md", "01-a.md", body)
    assert [d for d in problems if d.severity == "error"] == []
    return list(section.slides)


# ---- item 1: a bare `##` starts an untitled slide ---------------------------------------------

BARE = "## First\n\none\n\n##\n\ntwo\n\n## {.center}\n\nthree\n\n#\n\nfour\n\n## Last\n\nfive\n"


def test_a_bare_heading_starts_an_untitled_slide_as_pandoc_reads_it(tmp_path: Path):
    expected = [(h["c"][0], words(h["c"][2]) or None) for h in headers(pandoc(BARE))]
    assert expected == [(2, "First"), (2, None), (2, None), (1, None), (2, "Last")]
    for slides in (qmd(tmp_path, BARE), lesson(tmp_path, BARE)):  # both dialects alike
        assert [(s.level, s.title) for s in slides] == expected
        assert [b.text for s in slides for b in s.blocks if isinstance(b, Prose)] == [
            "one",
            "two",
            "three",
            "four",
            "five",
        ]


# ---- item 3: `# Title{.class}`, attributes glued to the title ---------------------------------

GLUED = [
    "# Title{.big}",
    "# Title{.big}   ",
    "## Title{#t .a k=v}",
    "## Title{ .a }",
    "## Set{a,b}",  # not attributes: the title's text
    "## f{x}",
    "## Spaced {.a}",
]


@pytest.mark.parametrize("line", GLUED)
def test_attributes_glued_to_a_title_are_read_as_pandoc_reads_them(tmp_path: Path, line: str):
    (header,) = headers(pandoc(line + "\n\ntext\n"))
    _, (ident, classes, pairs), inlines = header["c"]
    (slide,) = qmd(tmp_path, line + "\n\ntext\n")
    assert slide.title == words(inlines)
    assert slide.classes == tuple(classes)
    written = {k: v for k, v in slide.attrs.items()}
    expected = dict(pairs) | ({"id": ident} if "{#" in line else {})
    assert written == expected


# ---- item 6: escaped quotes in attribute values ----------------------------------------------

ESCAPED = r"""k="a\"b" j="a\\b" n="a\nb" s='it\'s' u=x\"y w="\"50%" p=C:\dir"""


def test_escapes_in_attribute_values_are_read_as_pandoc_reads_them(tmp_path: Path):
    (header,) = pandoc(f"## T {{{ESCAPED}}}\n")
    expected = dict(header["c"][1][2])
    assert expected["w"] == '"50%' and expected["n"] == "a\\nb"
    assert parse_attrs(ESCAPED) == ((), expected)
    body = (
        f"## T {{{ESCAPED}}}\n\n"
        '::: {.column width="\\"50%"}\nin a column\n:::\n\n'
        '```{.python k="c\\"d"}\nx = 1\n```\n'
    )
    (slide,) = qmd(tmp_path, body)  # no error
    assert slide.attrs == expected
    blocks = pandoc(body)
    assert parse_attrs('.column width="\\"50%"') == (("column",), dict(blocks[1]["c"][0][2]))
    code = next(b for b in walk_blocks(slide.blocks) if isinstance(b, Code))
    assert code.attrs == dict(blocks[2]["c"][0][2]) == {"k": 'c"d'}


def test_an_unclosed_escaped_value_is_still_an_error_at_its_line(tmp_path: Path):
    with pytest.raises(DeckError) as err:
        qmd(tmp_path, '## T\n\n::: {.column width="50%\\"}\nx\n:::\n')
    assert [(d.loc.line, d.code) for d in err.value.diagnostics] == [(7, "attr")]


# ---- item 7: a visibility block around slide headings ----------------------------------------

SPANNING = """\
## A

a text

::: {.content-visible when-format="html"}

## Inside

visible

## Inside two

more

:::

## Hidden follows

::: {.content-hidden when-format="html"}

## Gone

```{python}
x = 1
```

:::

after the hidden block

## Last

end
"""


def test_headings_inside_a_visibility_block_make_slides_as_quarto_shows_them(tmp_path: Path):
    expected = [words(h["c"][2]) for h in headers(pandoc(SPANNING))]
    assert expected == ["A", "Inside", "Inside two", "Hidden follows", "Last"]
    slides = qmd(tmp_path, SPANNING)  # no "`:::` closes no open block"
    assert [s.title for s in slides] == expected
    texts = {s.title: [b.text for b in s.blocks if isinstance(b, Prose)] for s in slides}
    assert texts["Inside"] == ["visible"] and texts["Inside two"] == ["more"]
    # the left-out block goes whole, its heading too; its cell still runs, showing nothing;
    # what follows its `:::` stays on the slide it is on
    hidden = slides[3]
    cells = [b for b in walk_blocks(hidden.blocks) if isinstance(b, Cell)]
    assert [c.options.get("include") for c in cells] == [False]
    assert texts["Hidden follows"] == ["after the hidden block"]


def test_a_part_may_begin_inside_a_visibility_block(tmp_path: Path):
    body = "# One\n\n## A\n\n::: {.content-visible}\n\n# Two\n\n## B\n\nb\n\n:::\n\n## C\n\nc\n"
    path = tmp_path / "talk.qmd"
    path.write_text("---\nformat: revealjs\n---\n\n" + body, "utf-8")
    sections = load_qmd(path).sections
    assert [[s.title for s in sec.slides] for sec in sections] == [["One", "A"], ["Two", "B", "C"]]
    assert [words(h["c"][2]) for h in headers(pandoc(body))] == ["One", "A", "Two", "B", "C"]


# ---- item 8: an escaped shortcode shows the shortcode --------------------------------------


def test_an_escaped_shortcode_shows_as_the_shortcode_in_prose_and_code(tmp_path: Path):
    body = (
        "## Shortcodes\n\nWrite {{{< meta title >}}} or `{{{< var v >}}}`.\n\n"
        "```markdown\n{{{< include other.qmd >}}}\n```\n\n"
        "```{python}\ns = '{{{< kept >}}}'\n```\n"
    )
    (slide,) = qmd(tmp_path, body)
    prose = next(b for b in slide.blocks if isinstance(b, Prose))
    code = next(b for b in slide.blocks if isinstance(b, Code))
    assert prose.text == "Write {{< meta title >}} or `{{< var v >}}`."
    assert code.text == "{{< include other.qmd >}}"  # shown, never expanded
    cell = next(b for b in slide.blocks if isinstance(b, Cell))
    assert cell.code == "s = '{{{< kept >}}}'"  # code that runs is kept as written
