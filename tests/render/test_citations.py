"""Citations and bibliographies (issue 17, item 6), formatted by Pandoc's citeproc as Quarto
formats them (Chicago author-date unless a `csl` is given)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from catalogue import write
from deck.errors import DeckError
from deck.source.qmd import load_qmd
from fixture_build import run_cli

BIB = """
@article{vaswani2017,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam and Parmar, Niki},
  journal = {Advances in Neural Information Processing Systems},
  year = {2017}
}
@book{goodfellow2016,
  title = {Deep Learning},
  author = {Goodfellow, Ian and Bengio, Yoshua and Courville, Aaron},
  publisher = {MIT Press},
  year = {2016}
}
@misc{unused2020,
  title = {Never Cited},
  author = {Nobody, Anne},
  year = {2020}
}
"""


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def build(tmp_path: Path, front: str, body: str) -> tuple[str, str]:
    write(tmp_path, {"talk.qmd": f"---\n{front}\n---\n\n{body}", "refs.bib": BIB})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    return (tmp_path / "dist" / "talk" / "index.html").read_text(), ran.stderr


def test_citations_are_formatted_and_references_placed_where_refs_stands(tmp_path: Path):
    body = (
        "## Intro\n\nTransformers [@vaswani2017] build on @goodfellow2016 [p. 12], "
        "see also [-@vaswani2017]. Mail a@b.com stays; @nope is missing.\n\n"
        "## References\n\n::: {#refs}\n:::\n\n## After\n\nlast\n"
    )
    page, stderr = build(tmp_path, "bibliography: refs.bib", body)
    slides = re.findall(r"<section\b.*?</section>", page, re.S)
    intro = text(slides[0])
    assert "Transformers (Vaswani et al. 2017) build on Goodfellow et al. (2016, 12)" in intro
    assert "see also (2017)." in intro and "a@b.com" in intro
    refs = text(slides[1])
    assert "Goodfellow, Ian, Yoshua Bengio, and Aaron Courville. 2016. Deep Learning." in refs
    assert "Vaswani, Ashish, Noam Shazeer, and Niki Parmar. 2017." in refs
    assert refs.index("Goodfellow") < refs.index("Vaswani")  # sorted by author
    assert "Never Cited" not in page and "References" not in text(slides[2])
    assert "talk.qmd:7: warning [citation]" in stderr and "nope not found" in stderr  # (its line)


def test_without_a_refs_block_the_references_end_the_last_slide_and_nocite_adds(tmp_path: Path):
    page, _ = build(
        tmp_path,
        'bibliography: refs.bib\nnocite: "@unused2020"',
        "## One\n\nAs @vaswani2017 showed.\n\n## Two\n\nend\n",
    )
    slides = re.findall(r"<section\b.*?</section>", page, re.S)
    assert "Vaswani et al. (2017)" in text(slides[0])
    last = text(slides[-1])
    assert last.index("end") < last.index("Nobody, Anne. 2020. Never Cited")


def test_csl_json_bibliography(tmp_path: Path):
    items = [
        {
            "id": "knuth1984",
            "type": "article-journal",
            "title": "Literate Programming",
            "author": [{"family": "Knuth", "given": "Donald E."}],
            "issued": {"date-parts": [[1984]]},
            "container-title": "The Computer Journal",
        }
    ]
    (tmp_path / "refs.json").write_text(json.dumps(items))
    page, _ = build(tmp_path, "bibliography: refs.json", "## A\n\nSee [@knuth1984].\n")
    assert "See (Knuth 1984)." in text(page)
    assert "Knuth, Donald E. 1984. “Literate Programming.” The Computer Journal." in text(page)


def test_a_missing_or_outside_bibliography_is_an_error_at_its_line(tmp_path: Path):
    (tmp_path / "outside.bib").write_text(BIB)
    qmd = write(
        tmp_path / "talk",
        {"talk.qmd": "---\ntitle: T\nbibliography: [gone.bib, ../outside.bib]\n---\n\n## A\n"},
    )
    with pytest.raises(DeckError) as caught:
        load_qmd(qmd)
    problems = [str(d) for d in caught.value.diagnostics]
    assert any("talk.qmd:3:" in p and "gone.bib`: no such file" in p for p in problems)
    assert any("talk.qmd:3:" in p and "outside the project" in p for p in problems)


def test_an_edit_of_the_bibliography_rebuilds(tmp_path: Path):
    page, _ = build(tmp_path, "bibliography: refs.bib", "## A\n\nSee [@vaswani2017].\n")
    assert "(Vaswani et al. 2017)" in text(page)
    bib = tmp_path / "refs.bib"
    bib.write_text(bib.read_text().replace("year = {2017}", "year = {2018}"))
    assert run_cli(tmp_path, "talk.qmd", "--no-pdf").returncode == 0
    assert "(Vaswani et al. 2018)" in text((tmp_path / "dist" / "talk" / "index.html").read_text())
