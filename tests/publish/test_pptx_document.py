"""Issue 30 for PowerPoint: slides.pptx is written from the typed document the deck was rendered
from, never from the deck's HTML. Every block kind has a "pptx" handler (a kind without one
stops the engine at start-up, naming it); the file holds what the document holds (the quizzes
in the slides' order with the answer values.json records, computed values as text even where
they read as Markdown or HTML, a cell's output on the slide `output-location: slide` adds);
made again with the deck's HTML blanked it is the same file, and an edit of the document alone
shows in it."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pptx import Presentation
from test_pptx import by_title, shapes_text, soffice_pdf

from catalogue import options_in, write_lesson
from deck.blocks import KINDS, NAMED, PLAIN, handler
from deck.blocks.base import (
    DOCUMENT_OUTPUTS,
    BlockKind,
    check_handlers,
    contents,
    named,
    parse_div,
    render_plain,
)
from deck.errors import Loc
from deck.model.document import Aside, Group, ShownQuiz, Text, Value
from fixture_build import ROOT, run_cli

HERE = Loc("01-a.md", 3)


def test_every_kind_has_a_pptx_handler_and_a_gap_is_an_error_naming_it():
    assert "pptx" in DOCUMENT_OUTPUTS
    for kind in (*KINDS, PLAIN):
        assert callable(kind.outputs["pptx"]), kind.name
    gap = BlockKind("gap", named("gap"), parse_div, render_plain, outputs={"ipynb": contents})
    with pytest.raises(RuntimeError, match="gap → pptx"):
        check_handlers((*KINDS, gap), DOCUMENT_OUTPUTS)


def test_the_engine_stops_at_start_up_when_a_kind_has_no_pptx_handler():
    """The registry is checked when `deck.blocks` is imported: `::: flow` given only a
    notebook handler, the import fails and names the gap."""
    script = (
        "import importlib, deck.blocks, deck.blocks.flow as flow\n"
        "from deck.blocks.base import BlockKind, contents, named, parse_div, render_plain\n"
        "flow.KINDS = (BlockKind('flow', named('flow'), parse_div, render_plain,"
        " {'ipynb': contents}),)\n"
        "importlib.reload(deck.blocks)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode != 0
    assert "block kinds without a handler: flow → pptx" in ran.stderr


def test_nodes_go_to_their_kinds_pptx_handler():
    quiz = ShownQuiz(Text(("q",), HERE), (Text(("a",), HERE), Text(("b",), HERE)), 1, None, HERE)
    assert handler("pptx", quiz) is NAMED["quiz"].outputs["pptx"]
    notes = Aside("notes", Text(("n",), HERE), HERE)
    assert handler("pptx", notes) is NAMED["notes"].outputs["pptx"]
    flow = Group("flow", ("flow", "vertical"), {}, (), HERE)
    assert handler("pptx", flow) is NAMED["flow"].outputs["pptx"]
    assert NAMED["flow"].outputs["pptx"] is not contents  # (boxes, not the list)
    for name in ("columns", "callout", "panel-tabset", "footer", "aside", "cards", "quiz"):
        assert NAMED[name].outputs["pptx"] is not contents, name


def test_a_value_is_text_never_markup():
    """A computed value reading as Markdown, HTML or TeX is a run of exactly its text."""
    from deck.model.document import DocSection, DocSlide, Document
    from deck.publish.pptx.prose import Prose
    from deck.publish.pptx.writer import SlidesWriter

    odd = "*a* <b>b</b> $c$ `d` [e](f)"
    text = Text(("Shown: ", Value("odd", odd, HERE), "; **bold**."), HERE)
    slide = DocSlide(1, Text(("Values",), HERE), 2, (), HERE, (text,))
    doc = Document(
        "t", "T", "en", None, None, None, None, (DocSection("01-a", "01-a.md", 0, (slide,)),)
    )
    (plan,) = SlidesWriter(doc, Prose(None, lambda src: None), "en").plans()
    (block,) = plan.blocks
    runs = block.paras[0].runs  # type: ignore[union-attr]
    assert "".join(r.text for r in runs) == f"Shown: {odd}; bold."
    (value,) = [r for r in runs if odd in r.text]
    assert not (value.bold or value.italic or value.code or value.link)
    assert [r.text for r in runs if r.bold] == ["bold"]


QUIZ = """## Quiz {k}

::: {{.quiz #q{k} answer="choices[{k}]"}}
Which is {k} squared?

- [ ] `{{python}} choices[0]`
- [ ] `{{python}} choices[1]`
- [ ] `{{python}} choices[2]`
- [ ] `{{python}} choices[3]`
:::

"""
SECTION = """## Values

```{python}
#| include: false
odd = "*not italic* <b>nor bold</b> [no](link)"
ratio = 22 / 7
choices = [str(k * k) for k in range(4)]
```

The odd value is `{python} odd`; the ratio is `{python} f"{ratio:.3f}"`.

::: content-hidden
$$\\newcommand{\\RR}{\\mathbb{R}}$$

```{python}
hidden = 5
```
:::

Vectors live in $\\RR^2$; the hidden cell computed `{python} hidden`.

::: {.notes minutes=1}
Say the ratio.
:::

QUIZZES## Output later

```{python}
#| echo: true
#| output-location: slide
print("printed on a slide of its own")
```

## Boxes

::: {.callout-tip}
## Mind the scale
Scores grow with the dimension.
:::

::: panel-tabset
### First tab
one
### Second tab
two
:::

Text with a footnote.^[The footnote's text.]

::: aside
An aside at the foot.
:::
"""
LESSON = {
    "lesson.yml": """
        title: From the document
        lang: en
        quiz:
          shuffle: true
        exec:
          seed: 5
    """,
    "01-a.md": SECTION.replace("QUIZZES", "".join(QUIZ.format(k=k) for k in range(4))),
}
TITLES = ["Values", "Quiz 0", "Quiz 1", "Quiz 2", "Quiz 3", "Output later", "Output later"]
TITLES.append("Boxes")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pptxdoc")
    write_lesson(root, LESSON, "doc")
    ran = run_cli(root, "doc", "--no-pdf", "--to", "html,pptx")
    assert ran.returncode == 0, ran.stderr + ran.stdout
    return root


def values_of(root: Path) -> dict:
    return json.loads((root / "dist/doc/values.json").read_text("utf-8"))


def notes_of(slide) -> str:  # noqa: ANN001
    return slide.notes_slide.notes_text_frame.text


def body_text(slide) -> str:  # noqa: ANN001
    """The text of the slide's body: its shapes' but the title's and the slide number's."""
    names = ("Title", "Slide Number")
    texts = [s.text_frame.text for s in slide.shapes if s.has_text_frame and s.name not in names]
    return "\n".join(t for t in texts if t)


def lettered(slide) -> list[str]:  # noqa: ANN001
    """The slide's lettered paragraphs (A., B., …), in order."""
    paras = [p for s in slide.shapes if s.has_text_frame for p in s.text_frame.paragraphs]
    return [p.text for p in paras if p._p.xpath("a:pPr/a:buAutoNum[@type='alphaUcPeriod']")]


def test_quizzes_in_the_slides_order_with_the_answers_values_json_records(built: Path):
    recorded = values_of(built)["quizzes"]
    assert len(recorded) == 4 and len({tuple(q["choices"]) for q in recorded}) > 1  # shuffled
    assert [q["answer_text"] for q in recorded] == ["0", "1", "4", "9"]  # (computed answers)
    slides = Presentation(built / "dist/doc/slides.pptx").slides
    for quiz in recorded:
        slide = slides[quiz["slide"] - 1]
        assert lettered(slide) == quiz["choices"]
        answer = f"Answer: {'ABCD'[quiz['answer']]}. {quiz['answer_text']}"
        assert notes_of(slide) == answer


def test_computed_values_are_text_and_notes_keep_their_minutes(built: Path):
    values = {v["expr"]: v["text"] for v in values_of(built)["values"]}
    slide = by_title(Presentation(built / "dist/doc/slides.pptx"))["Values"]
    text = shapes_text(slide)
    assert f"The odd value is {values['odd']}; the ratio is 3.143." in text
    runs = [
        r for s in slide.shapes if s.has_text_frame for p in s.text_frame.paragraphs for r in p.runs
    ]
    (odd,) = [r for r in runs if values["odd"] in r.text]
    assert not odd.font.bold and not odd.font.italic and odd.hyperlink.address is None
    assert notes_of(slide) == "1 min\nSay the ratio."
    # a block left out: its cell ran and its macro holds, but the slide shows neither
    assert "Vectors live in ℝ2; the hidden cell computed 5." in text
    assert [s for s in slide.shapes if s.shape_type == 13] == []  # (no picture of `\newcommand`)


def test_a_cells_output_on_the_slide_it_adds_and_the_kinds_shapes(built: Path, tmp_path: Path):
    prs = Presentation(built / "dist/doc/slides.pptx")
    values = values_of(built)
    assert len(prs.slides) == values["slides"] == len(TITLES)
    slides = list(prs.slides)
    titles = [
        next(s.text_frame.text for s in slide.shapes if s.name == "Title") for slide in slides
    ]
    assert titles == TITLES
    code, output = body_text(slides[5]), body_text(slides[6])
    assert code == 'print("printed on a slide of its own")'
    assert output == "printed on a slide of its own"
    (out,) = [o for o in values["outputs"] if "printed" in o["text"]]
    assert out["slide"] == 7  # (values.json counts it on the slide it adds)
    boxes = slides[7]
    names = [s.name for s in boxes.shapes]
    assert {"Callout", "Callout title", "Callout edge"} <= set(names)
    runs = {
        r.text: r
        for s in boxes.shapes
        if s.has_text_frame
        for p in s.text_frame.paragraphs
        for r in p.runs
    }
    for heading in ("Mind the scale", "First tab", "Second tab"):
        assert runs[heading].font.bold, heading
    text = shapes_text(boxes)
    assert "one" in text and "two" in text and "Scores grow with the dimension." in text
    assert runs["1"]._r.get_or_add_rPr().get("baseline") == "30000"  # the footnote's mark
    assert "1. The footnote's text." in text and "An aside at the foot." in text
    pdf = soffice_pdf(built / "dist/doc/slides.pptx", tmp_path)  # as a user opens it
    for quiz in values["quizzes"]:
        page = str(quiz["slide"])
        shown = subprocess.run(
            ["pdftotext", "-layout", "-f", page, "-l", page, str(pdf), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        letters = [shown[k + 1] for k, word in enumerate(shown) if word in ("A.", "B.", "C.", "D.")]
        assert letters == quiz["choices"]


def test_made_from_the_document_not_the_decks_html(built: Path):
    """Made again in this process: the same file; with every slide's HTML blanked, the same
    file; with one value's text changed in the document alone, that text on the slide."""
    from deck.execute.plan import execute
    from deck.pipeline import chosen_outputs
    from deck.progress import LogOnly
    from deck.publish.exporter import Built
    from deck.publish.pptx import Pptx
    from deck.render.deck import render_lesson
    from deck.source.folder import load_lesson

    with contextlib.chdir(built):
        lesson = load_lesson(built / "content/doc")
        options = chosen_outputs(options_in(built, outputs=("html", "pptx")), lesson)
        executed = execute(lesson, options, LogOnly(lambda line: None))
        deck = render_lesson(lesson, executed.results, options.cache)
        file = (built / "dist/doc/slides.pptx").read_bytes()
        made = Pptx().make(Built(lesson, deck, options, {}, executed.results))[0]
        assert made == file
        blank = [
            dataclasses.replace(s, title="", body="", notes="", handouts=()) for s in deck.slides
        ]
        no_html = dataclasses.replace(deck, html="", slides=tuple(blank), views={})
        assert Pptx().make(Built(lesson, no_html, options, {}, executed.results))[0] == file
        doc = deck.document
        assert doc is not None
        (section,) = doc.sections
        first, *rest = section.slides
        k, text = next((k, b) for k, b in enumerate(first.blocks) if isinstance(b, Text))
        parts = tuple(
            dataclasses.replace(p, text="DOCUMENT-ONLY")
            if isinstance(p, Value) and p.expr == "odd"
            else p
            for p in text.parts
        )
        blocks = list(first.blocks)
        blocks[k] = dataclasses.replace(text, parts=parts)
        edited = dataclasses.replace(first, blocks=tuple(blocks))
        doc = dataclasses.replace(
            doc, sections=(dataclasses.replace(section, slides=(edited, *rest)),)
        )
        other = dataclasses.replace(deck, document=doc)
        data = Pptx().make(Built(lesson, other, options, {}, executed.results))[0]
    slide = Presentation(io.BytesIO(data)).slides[0]
    assert "The odd value is DOCUMENT-ONLY;" in shapes_text(slide)
    assert "DOCUMENT-ONLY" not in deck.html
