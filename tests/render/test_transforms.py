"""The transforms after every section is rendered (`deck.render.transforms`): the document's
(`DOCUMENT_TRANSFORMS`, on a document made here) and the HTML deck's (`TRANSFORMS`, on slides
made here), each applied alone, and each list applied in order by `render_lesson`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from deck.model import CitationConfig, Figure, Loc
from deck.model.document import (
    Cite,
    DocSection,
    DocSlide,
    Document,
    Group,
    Ref,
    ShownCell,
    Text,
    Value,
    cite_token,
    label_token,
    ref_token,
    references_token,
)
from deck.render import cite, crossref, transforms
from deck.render.frame import DeckSettings
from deck.render.store import RenderedSlide
from deck.render.transforms import DOCUMENT_TRANSFORMS, TRANSFORMS, DeckPass, apply
from deck.source.folder import load_lesson


def slide(number: int, body: str, **attrs: str) -> RenderedSlide:
    return RenderedSlide(
        number, "01-a", f"S{number}", 2, Loc("01-a.md", number * 10), (), attrs, body, ""
    )


@pytest.fixture
def at(tmp_path: Path) -> DeckPass:
    folder = tmp_path / "talk"
    folder.mkdir()
    (folder / "lesson.yml").write_text("title: T\nlang: en\n", "utf-8")
    (folder / "01-a.md").write_text("## A\n\nText.\n", "utf-8")
    return DeckPass(load_lesson(folder), DeckSettings(footer="Course · 2026"), None)


def text(source: str, line: int, cites: bool = False, *values: Value) -> Text:
    loc = Loc("01-a.md", line)
    return Text(crossref.split(source, loc, lambda k: values[k], cites), loc)


def doc(*slides: DocSlide) -> Document:
    section = DocSection("a", "01-a.md", 0, slides)
    return Document("t", "T", "en", None, None, None, None, (section,))


def test_the_passes_run_in_their_order() -> None:
    assert [name for name, _ in DOCUMENT_TRANSFORMS] == ["cross-references", "citations"]
    names = [name for name, _ in TRANSFORMS]
    assert names == ["references", "auto-stretch", "frame", "late pictures"]


def test_a_text_reads_its_references_and_citations_outside_code_math_and_tags() -> None:
    value = Value("n", "@fig-a [@k]", Loc("01-a.md", 2))  # (a computed value is never read)
    source = (
        "See @fig-a and [-@fig-a],\n[@k]; `@fig-a` $x@fig-a$ <b title='@fig-a'>b</b> "
        "\\@fig-a \u2063V0\u2063 [see @k](u) 见@fig-a"
    )
    parts = text(source, 3, True, value).parts
    refs = [p for p in parts if isinstance(p, Ref)]
    assert [(r.written, r.loc.line) for r in refs] == [
        ("@fig-a", 3),
        ("[-@fig-a]", 3),
        ("@fig-a", 4),
    ]
    cites = [p for p in parts if isinstance(p, Cite)]
    assert [(c.written, c.loc.line) for c in cites] == [("[@k]", 4), ("@k", 4)]  # (a link's text)
    assert value in parts and "".join(p for p in parts if isinstance(p, str)).count("@fig-a") == 4
    without = text("As [@k] says.", 1).parts  # (no bibliography: no citation)
    assert without == ("As [@k] says.",)


def test_cross_references_alone_number_what_the_slides_show() -> None:
    loc = Loc("01-a.md", 5)
    figure = Figure("fig-loss.svg", 3, 2)
    cell = ShownCell(
        "plot()", loc, "fig-loss", False, False, True, (), (figure,), "f", None,
        text("Loss", 6), location="slide",
    )  # fmt: skip
    first = DocSlide(1, None, 2, (), loc, (text("![Box](b.svg){#fig-box}", 4), cell))
    second = DocSlide(3, None, 2, (), Loc("01-a.md", 10), (text("As @fig-loss, @fig-none.", 11),))
    out, warnings = DOCUMENT_TRANSFORMS[0][1](doc(first, second), None)  # type: ignore[arg-type]
    assert {k: (t.number, t.slide) for k, t in out.targets.items()} == {
        "fig-box": (1, 1),
        "fig-loss": (2, 2),  # (its outputs are on a slide of their own, the next)
    }
    ref = out.sections[0].slides[1].blocks[0].parts[1]
    assert (ref.text, ref.slide) == ("Figure\u00a02", 2)
    shown = out.sections[0].slides[0].blocks[1]
    assert shown.caption.parts == ("Figure\u00a02: ", "Loss")  # (for the notebook, the PPTX)
    assert [(w.loc.line, w.code) for w in warnings] == [(11, "crossref")]
    assert "fig-none" in warnings[0].message


def test_citations_alone(at: DeckPass, monkeypatch: pytest.MonkeyPatch) -> None:
    document = doc(DocSlide(1, None, 2, (), Loc("01-a.md", 1), (text("As [@k].", 2, True),)))
    unchanged, warnings = transforms.citations(document, at)  # (no bibliography: nothing)
    assert unchanged is document and warnings == []

    def formatted(written, config, folder, lang, cache):
        assert written == ["[@k]"]
        entry = '<div class="csl-entry">K_2. 2020. <em>Book</em>.</div>'
        return ['<span class="citation">(K_2 2020)</span>'], entry, ["citation q not found"]

    monkeypatch.setattr(cite, "run", formatted)
    config = replace(at.lesson.config, citations=CitationConfig(("refs.bib",)))
    at = replace(at, lesson=replace(at.lesson, config=config))
    out, warnings = transforms.citations(document, at)
    said, refs = out.sections[0].slides[0].blocks
    assert said.parts[1].text == "(K_2 2020)" and "<span" in said.parts[1].html
    assert refs.attrs == {"id": "refs"} and refs.blocks[0].parts == ("K\\_2. 2020. Book.",)
    assert out.bibliography.startswith('<div class="csl-entry">') and len(warnings) == 1


def test_references_alone_write_the_tokens_from_the_document(at: DeckPass) -> None:
    loc = Loc("01-a.md", 3)
    ref, unknown = Ref("fig-loss", "", loc), Ref("fig-none", "[-", loc)
    quoted = Cite("[@k]", loc, "(K 2020)", '<span class="citation">(K 2020)</span>')
    document = replace(
        doc(),
        targets=crossref.targets(
            doc(DocSlide(1, None, 2, (), loc, (text("![L](l.svg){#fig-loss}", 3),)))
        ),
        bibliography='<div class="csl-entry">K. 2020.</div>',
        sections=(DocSection("a", "01-a.md", 0, (DocSlide(2, None, 2, (), loc, (
            Text((quoted,), loc),)),)),),
    )  # fmt: skip
    slides = [
        slide(1, f"<figure id='fig-loss'><figcaption>{label_token('fig-loss')}L</figcaption>"),
        slide(
            2, f"<p>{ref_token(ref, True)} {ref_token(unknown, True)} {cite_token(quoted, True)}"
        ),
    ]
    out, _ = transforms.references(slides, replace(at, document=document))
    assert '<span class="crossref-label">Figure 1: </span>L' in out[0].body
    link = '<a class="quarto-xref" href="#/0">Figure&nbsp;1</a>'
    assert out[1].body == f'<p>{link} [-@fig-none] <span class="citation">(K 2020)</span>' + (
        '<div id="refs" class="references csl-bib-body"><div class="csl-entry">K. 2020.</div></div>'
    )  # (no `::: {#refs}`: the references end the last slide)
    placed = [slide(1, references_token('<div id="refs"></div>')), slide(2, "<p>end</p>")]
    out, _ = transforms.references(placed, replace(at, document=document))
    assert (
        out[0].body.startswith('<div id="refs" class="references') and out[1].body == "<p>end</p>"
    )
    empty = replace(document, bibliography="")  # (no references: the block as written)
    out, _ = transforms.references(placed, replace(at, document=empty))
    assert out[0].body == '<div id="refs"></div>'


def test_frame_alone_puts_the_footer_on_every_slide_without_its_own(at: DeckPass) -> None:
    own = '<div class="footer slide-footer">Mine</div>'
    out, warnings = transforms.frame([slide(1, "<p>a</p>"), slide(2, own)], at)
    assert out[0].body.endswith('<div class="footer footer-default">Course · 2026</div>')
    assert out[1].body == own and warnings == []


def test_late_pictures_alone_leave_the_first_slide_as_it_is(at: DeckPass) -> None:
    body = '<img alt="x" src="figures/a.svg">'
    out, _ = transforms.late_pictures([slide(1, body), slide(2, body)], at)
    assert out[0].body == body
    assert out[1].body == '<img alt="x" data-src="figures/a.svg">'


def test_apply_is_every_pass_in_order(at: DeckPass, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def marking(name: str):
        def run(slides, _at):
            seen.append(name)
            return [replace(s, body=s.body + name) for s in slides], []

        return run

    monkeypatch.setattr(transforms, "TRANSFORMS", (("a", marking("a")), ("b", marking("b"))))
    out, _ = apply([slide(1, "")], at)
    assert seen == ["a", "b"] and out[0].body == "ab"


def test_apply_to_document_is_every_transform_in_order(
    at: DeckPass, monkeypatch: pytest.MonkeyPatch
) -> None:
    def titled(name: str):
        return lambda d, _at: (replace(d, title=d.title + name), [name])

    monkeypatch.setattr(transforms, "DOCUMENT_TRANSFORMS", (("a", titled("a")), ("b", titled("b"))))
    out, warnings = transforms.apply_to_document(doc(), at)
    assert out.title == "Tab" and warnings == ["a", "b"]


def test_a_group_names_a_target_and_one_in_raw_html_counts() -> None:
    loc = Loc("01-a.md", 1)
    group = Group("div", (), {"id": "fig-panel"}, (), loc)
    raw = text('<figure id="fig-raw"><img src="r.png"></figure> $$a$$ {#eq-one}', 2)
    found = crossref.targets(doc(DocSlide(4, None, 2, (), loc, (group, raw), {"id": "sec-x"})))
    assert [(k, t.kind, t.number, t.slide) for k, t in found.items()] == [
        ("sec-x", "sec", 1, 4),
        ("fig-panel", "fig", 1, 4),
        ("fig-raw", "fig", 2, 4),
        ("eq-one", "eq", 1, 4),
    ]
