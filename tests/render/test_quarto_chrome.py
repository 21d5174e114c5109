"""Issue 32, item 7: the title slide and the chrome of real Quarto decks. Authors given as
mappings with `affiliation`/`affiliations` (and `institute:`) are shown with their
affiliations, as Quarto's title block shows them; a raw `<img>` in the front matter's `footer:`
is published with the deck; an extension's format (`clean-revealjs:`) keeps its options, with
one warning that the extension itself is not applied."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from catalogue import line_of, write
from deck.source.qmd import load_qmd
from fixture_build import run_cli

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
AUTHORS = """\
---
title: 报告
author:
  - name: Ada Lovelace
    affiliation: Analytical Society
  - name: Alan Turing
    affiliations:
      - name: Bletchley Park
      - ref: cam
  - Grace Hopper
affiliations:
  - id: cam
    name: University of Cambridge
institute: [Royal Society, Navy]
---

## 一页

正文
"""


def title_block(page: str) -> str:
    found = re.search(r'<section[^>]*id="title-slide".*?</section>', page, re.S)
    assert found, page
    return found.group(0)


def people(block: str) -> list[tuple[str, list[str]]]:
    """(name, affiliations) of each `.quarto-title-author`, in order."""
    out = []
    for author in block.split('class="quarto-title-author"')[1:]:
        name = re.search(r'quarto-title-author-name"><p>(.*?)</p>', author)
        shown = re.findall(r'quarto-title-affiliation"><p>(.*?)</p>', author)
        out.append((name.group(1) if name else "", shown))
    return out


@pytest.mark.slow
def test_authors_are_shown_with_their_affiliations_as_quarto_attaches_them(tmp_path: Path):
    write(tmp_path, {"talk.qmd": AUTHORS})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "institute" not in ran.stderr and "affiliations" not in ran.stderr, ran.stderr
    block = title_block((tmp_path / "dist/talk/index.html").read_text())
    # Quarto's authors filter: names and {name:} entries, {ref:} into `affiliations:`, then
    # `institute:` in order, one to each author from the first
    assert people(block) == [
        ("Ada Lovelace", ["Analytical Society", "Royal Society"]),
        ("Alan Turing", ["Bletchley Park", "University of Cambridge", "Navy"]),
        ("Grace Hopper", []),
    ]
    assert 'class="quarto-title-authors"' in block
    # the names as one text still (the PDFs' /Author, the course page)
    assert (
        load_qmd(tmp_path / "talk.qmd").config.author == "Ada Lovelace, Alan Turing, Grace Hopper"
    )


def test_more_institutes_than_authors_go_to_the_last_author(tmp_path: Path):
    text = "---\ntitle: T\nauthor: Ada\ninstitute: [One, Two]\n---\n\n## A\n\nx\n"
    write(tmp_path, {"talk.qmd": text})
    (author,) = load_qmd(tmp_path / "talk.qmd").config.author.people
    assert author.affiliations == ("One", "Two")


def test_authors_without_affiliations_stay_one_line(tmp_path: Path):
    write(tmp_path, {"talk.qmd": "---\ntitle: T\nauthor: [Ada, Alan]\n---\n\n## A\n\nx\n"})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    block = title_block((tmp_path / "dist/talk/index.html").read_text())
    assert '<div class="author"><p>Ada, Alan</p></div>' in block
    assert "quarto-title-author" not in block


FOOTER = """\
---
title: T
format:
  revealjs:
    footer: 'Course <img src="logo.png" alt="the logo" height="24" class="lg">'
---

## A

x
"""


def test_a_raw_img_in_the_footer_is_published_with_the_deck(tmp_path: Path):
    write(tmp_path, {"talk.qmd": FOOTER})
    (tmp_path / "logo.png").write_bytes(PNG)
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist/talk/index.html").read_text()
    footers = re.findall(r'<div class="footer footer-default">(.*?)</div>', page)
    assert footers, page
    for footer in footers:  # (the first slide's src, the later ones' data-src: loaded late)
        img = re.search(r"<img [^>]*>", footer)
        assert img and re.search(r'\b(data-)?src="media/logo.png"', img.group(0)), footer
        for attribute in ('alt="the logo"', 'height="24"', 'class="lg"'):
            assert attribute in img.group(0), footer
        assert "<figure" not in footer and footer.startswith("Course "), footer
    assert (tmp_path / "dist/talk/media/logo.png").read_bytes() == PNG


def test_a_footer_img_outside_the_project_is_an_error_at_the_footers_line(tmp_path: Path):
    write(tmp_path / "p", {"talk.qmd": FOOTER.replace("logo.png", "../secret.png")})
    (tmp_path / "secret.png").write_bytes(PNG)
    ran = run_cli(tmp_path, "p/talk.qmd", "--no-pdf")
    assert ran.returncode == 1
    errors = [line for line in ran.stderr.splitlines() if ": error" in line]
    assert len(errors) == 1, ran.stderr
    assert errors[0].startswith(f"p/talk.qmd:{line_of(FOOTER, 'footer:')}: error"), ran.stderr
    assert "../secret.png" in errors[0] and "outside the project folder" in errors[0]
    assert not (tmp_path / "dist/talk/media").exists()


EXTENSION = """\
---
title: T
format:
  clean-revealjs:
    slide-number: c/t
    footer: 页脚
    transition: fade
---

## A

x
"""


@pytest.mark.slow
def test_an_extension_format_keeps_its_options_with_one_warning(tmp_path: Path):
    write(tmp_path, {"talk.qmd": EXTENSION})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    warnings = [line for line in ran.stderr.splitlines() if ": warning" in line]
    assert len(warnings) == 1, ran.stderr
    at = line_of(EXTENSION, "clean-revealjs:")
    assert warnings[0].startswith(f"talk.qmd:{at}: warning"), ran.stderr
    assert "`clean-revealjs`" in warnings[0] and "not applied" in warnings[0]
    page = (tmp_path / "dist/talk/index.html").read_text()
    found = re.search(r"window\.deckOptions\s*=\s*(\{.*?\});?\s*</script>", page, re.S)
    assert found, page
    reveal = json.loads(found.group(1))["reveal"]
    assert reveal["slideNumber"] == "c/t" and reveal["transition"] == "fade"
    assert '<div class="footer footer-default">页脚</div>' in page


def test_a_revealjs_format_beside_an_extension_wins(tmp_path: Path):
    both = EXTENSION.replace("---\n\n## A", "  revealjs:\n    slide-number: c\n---\n\n## A")
    write(tmp_path, {"talk.qmd": both})
    lesson = load_qmd(tmp_path / "talk.qmd")
    assert lesson.config.slides.slide_number == "c"
    assert [w.loc.line for w in lesson.warnings] == [line_of(both, "clean-revealjs:")]
    assert "is not built here" in lesson.warnings[0].message
