"""The deck-wide passes (`deck.render.transforms.TRANSFORMS`), each applied alone to slides
made here, and the list applied in order by `render_lesson`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from deck.model import Loc
from deck.render import transforms
from deck.render.frame import DeckSettings
from deck.render.store import RenderedSlide
from deck.render.transforms import TRANSFORMS, DeckPass, apply
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


def test_the_passes_run_in_their_order() -> None:
    names = [name for name, _ in TRANSFORMS]
    assert names == ["cross-references", "citations", "auto-stretch", "frame", "late pictures"]


def test_cross_references_alone(at: DeckPass) -> None:
    slides = [
        slide(1, '<figure id="fig-loss"><img src="a.svg"><figcaption>Loss</figcaption></figure>'),
        slide(2, "<p>As @fig-loss shows, and @fig-none.</p>"),
    ]
    out, warnings = transforms.cross_references(slides, at)
    assert '<a class="quarto-xref" href="#/0">Figure&nbsp;1</a> shows' in out[1].body
    assert '<span class="crossref-label">Figure 1: </span>Loss' in out[0].body
    assert [w.loc.line for w in warnings] == [20]  # @fig-none names nothing
    assert "fig-none" in warnings[0].message


def test_citations_alone_do_nothing_without_a_bibliography(at: DeckPass) -> None:
    slides = [slide(1, "<p>As [@knuth84] says.</p>")]
    out, warnings = transforms.citations(slides, at)
    assert out == slides and warnings == []


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


def test_the_document_transform_alone() -> None:
    from deck.model.document import DocSection, DocSlide, Document, Text, Value
    from deck.render.transforms import DOCUMENT_TRANSFORMS, resolved_references

    loc = Loc("01-a.md", 3)
    value = Value("n", "@fig-a*", loc)  # (a computed value is never read as a reference)
    text = Text(("See @fig-a and [-@fig-a], [@k]; `@fig-a` ", value), loc)
    slide = DocSlide(1, None, 2, (), loc, (text,))
    doc = Document(
        "t", "T", "en", None, None, None, None, (DocSection("a", "01-a.md", 0, (slide,)),)
    )
    found = {
        "references": {"fig-a": ("Figure\u00a02", "2")},
        "citations": {"citations": {"[@k]": "(K_2 2020)"}, "bibliography": ["K. 2020. *Book*."]},
    }
    out = resolved_references(doc, found)
    shown, refs = out.sections[0].slides[0].blocks
    assert shown.parts == ("See Figure\u00a02 and 2, (K\\_2 2020); `@fig-a` ", value)
    assert refs.attrs == {"id": "refs"} and refs.blocks[0].parts == ("K. 2020. \\*Book\\*.",)
    assert [name for name, _ in DOCUMENT_TRANSFORMS] == ["cross-references and citations"]
    assert resolved_references(doc, {}) is doc  # (nothing found: the same document)
