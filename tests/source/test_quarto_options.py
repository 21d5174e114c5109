"""A `.qmd`'s deck options as Quarto applies them (issue 17, item 4): transitions and
navigation reach reveal.js, `slide-level`, `toc` and `title-slide-attributes` shape the slides."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from catalogue import write
from deck.errors import DeckError
from deck.model import Prose, walk_blocks
from deck.source.qmd import load_qmd
from fixture_build import run_cli

BODY = """
# Part one

## Alpha

a

## Beta

b

### Gamma

g

# Part two

## Delta

d
"""


def titles(path: Path) -> list[tuple[int, str]]:
    return [(s.level, s.title or "") for sec in load_qmd(path).sections for s in sec.slides]


def test_transitions_navigation_and_center_reach_reveal(tmp_path: Path):
    write(
        tmp_path,
        {
            "talk.qmd": """
                ---
                format:
                  revealjs:
                    transition: fade
                    background-transition: zoom
                    transition-speed: fast
                    navigation-mode: grid
                    center: true
                    hash-type: number
                ---

                ## A
                """
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist" / "talk" / "index.html").read_text()
    found = re.search(r"window\.deckOptions\s*=\s*(\{.*?\});?\s*</script>", page, re.S)
    assert found, "deckOptions not in the page"
    reveal = json.loads(found.group(1))["reveal"]
    assert reveal["transition"] == "fade" and reveal["backgroundTransition"] == "zoom"
    assert reveal["transitionSpeed"] == "fast" and reveal["navigationMode"] == "grid"
    assert reveal["center"] is True


def test_a_wrong_transition_is_an_error_at_its_line(tmp_path: Path):
    qmd = write(
        tmp_path,
        {"talk.qmd": "---\nformat:\n  revealjs:\n    transition: spin\n---\n\n## A\n"},
    )
    with pytest.raises(DeckError) as caught:
        load_qmd(qmd)
    (problem,) = [str(d) for d in caught.value.diagnostics]
    assert "talk.qmd:4:" in problem and "fade" in problem


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (1, [(1, "Part one"), (1, "Part two")]),
        (2, [(1, "Part one"), (2, "Alpha"), (2, "Beta"), (1, "Part two"), (2, "Delta")]),
        (
            3,
            [
                (1, "Part one"),
                (2, "Alpha"),
                (2, "Beta"),
                (3, "Gamma"),
                (1, "Part two"),
                (2, "Delta"),
            ],
        ),
    ],
)
def test_slide_level_decides_which_headings_start_slides(tmp_path: Path, level: int, expected):
    qmd = write(tmp_path, {"talk.qmd": f"---\nslide-level: {level}\n---\n{BODY}"})
    assert titles(qmd) == expected
    if level == 1:  # the `##` headings are the slide's own headings
        first = load_qmd(qmd).sections[0].slides[0]
        text = "\n".join(b.text for b in walk_blocks(first.blocks) if isinstance(b, Prose))
        assert "## Alpha" in text and "### Gamma" in text


def test_toc_lists_the_headings_and_links_each_slide(tmp_path: Path):
    qmd = write(
        tmp_path,
        {"talk.qmd": f"---\ntitle: Talk\ntoc: true\ntoc-depth: 1\n---\n{BODY}"},
    )
    slides = [s for sec in load_qmd(qmd).sections for s in sec.slides]
    assert [s.title for s in slides[:2]] == ["Talk", "Table of Contents"]
    (toc,) = slides[1].blocks
    links = re.findall(r"\[(.*?)\]\(#/(\d+)\)", toc.text)
    assert links == [("Part one", "2"), ("Part two", "5")]
    for title, index in links:  # each link goes to the slide of that title
        assert slides[int(index)].title == title
    qmd.write_text(qmd.read_text().replace("toc-depth: 1", "toc-title: Plan"))
    slides = [s for sec in load_qmd(qmd).sections for s in sec.slides]
    links = re.findall(r"\[(.*?)\]\(#/(\d+)\)", slides[1].blocks[0].text)
    assert slides[1].title == "Plan" and [t for t, _ in links][:3] == ["Part one", "Alpha", "Beta"]
    assert all(slides[int(i)].title == t for t, i in links)


def test_title_slide_attributes(tmp_path: Path):
    (tmp_path / "bg.png").write_bytes(
        bytes.fromhex(
            "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
            "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
        )
    )
    write(
        tmp_path,
        {
            "talk.qmd": """
                ---
                title: Talk
                title-slide-attributes:
                  data-background-image: bg.png
                  data-background-size: contain
                  class: dark-title
                ---

                ## A
                """
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist" / "talk" / "index.html").read_text()
    (opening,) = re.findall(r'<section\b[^>]*id="title-slide"[^>]*>', page)
    assert 'data-background-image="media/bg.png"' in opening
    assert 'data-background-size="contain"' in opening and "dark-title" in opening
    assert (tmp_path / "dist" / "talk" / "media" / "bg.png").is_file()


def test_layout_ncol_on_divs_and_cells_places_panels_side_by_side(tmp_path: Path):
    write(
        tmp_path,
        {
            "talk.qmd": """
                ## Panels

                ::: {layout-ncol=2}
                ![left](a.svg)

                ![right](b.svg)
                :::

                ::: {layout="[30,70]"}
                narrow

                wide
                :::

                ```{python}
                #| layout-ncol: 2
                #| echo: false
                import matplotlib.pyplot as plt
                for k in range(2):
                    plt.figure(figsize=(3, 2))
                    plt.plot([0, 1], [0, k])
                    plt.show()
                ```
                """,
            "a.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>',
            "b.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>',
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "layout" not in ran.stderr  # applied, so no "not applied" warning
    page = (tmp_path / "dist" / "talk" / "index.html").read_text()
    assert 'style="display: grid; grid-template-columns: repeat(2, minmax(0, 1fr))' in page
    assert "grid-template-columns: 30.0fr 70.0fr" in page
    (grid,) = re.findall(r'<div class="cell-output-layout" style="([^"]*)">', page)
    assert "repeat(2, minmax(0, 1fr))" in grid


def test_a_wrong_layout_is_an_error_at_its_line(tmp_path: Path):
    qmd = write(
        tmp_path,
        {"talk.qmd": "## A\n\n```{python}\n#| layout-ncol: two\nx = 1\n```\n"},
    )
    with pytest.raises(DeckError) as caught:
        load_qmd(qmd)
    (problem,) = [str(d) for d in caught.value.diagnostics]
    assert "talk.qmd:4:" in problem and "layout-ncol must be a whole number" in problem


def test_include_in_header_and_body_place_the_authors_html(tmp_path: Path):
    write(
        tmp_path,
        {
            "talk.qmd": """
                ---
                format:
                  revealjs:
                    include-in-header:
                      - text: <meta name="deck-test" content="head">
                      - head.html
                    include-before-body: before.html
                    include-after-body:
                      - file: after.html
                ---

                ## A
                """,
            "head.html": '<style id="from-head">.x{}</style>',
            "before.html": '<div id="from-before"></div>',
            "after.html": '<script id="from-after">window.afterRan = 1;</script>',
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist" / "talk" / "index.html").read_text()
    head, body = page.split("</head>")
    assert '<meta name="deck-test" content="head">' in head and 'id="from-head"' in head
    assert body.index('id="from-before"') < body.index('class="reveal"')
    assert body.index('id="from-after"') > body.index("assets/deck.js")
    # an edit of an included file rebuilds
    (tmp_path / "after.html").write_text('<script id="edited-after"></script>')
    assert run_cli(tmp_path, "talk.qmd", "--no-pdf").returncode == 0
    assert 'id="edited-after"' in (tmp_path / "dist" / "talk" / "index.html").read_text()


def test_an_include_outside_the_project_is_an_error(tmp_path: Path):
    (tmp_path / "secret.html").write_text("<b>secret</b>")
    qmd = write(
        tmp_path / "talk",
        {"talk.qmd": "---\ninclude-in-header: ../secret.html\n---\n\n## A\n"},
    )
    with pytest.raises(DeckError) as caught:
        load_qmd(qmd)
    (problem,) = [str(d) for d in caught.value.diagnostics]
    assert "talk.qmd:2:" in problem and "outside the project" in problem


def test_a_projects_quarto_yml_applies_under_the_file_and_metadata(tmp_path: Path):
    write(
        tmp_path,
        {
            "_quarto.yml": """
                project:
                  type: website
                website:
                  title: Course site
                format:
                  revealjs:
                    transition: zoom
                    footer: Project footer
                    slide-number: true
                """,
        },
    )
    talks = tmp_path / "talks"
    talks.mkdir()
    write(
        talks,
        {
            "_metadata.yml": "format:\n  revealjs:\n    footer: Folder footer\n",
            "talk.qmd": "---\ntitle: T\nformat:\n  revealjs:\n    slide-number: false\n"
            "---\n\n## A\n",
        },
    )
    lesson = load_qmd(talks / "talk.qmd")
    slides = lesson.config.slides
    assert dict(slides.reveal)["transition"] == "zoom"  # from the project
    assert slides.footer == "Folder footer"  # _metadata.yml over the project
    assert slides.slide_number is False  # the file over both
    assert not [w for w in lesson.warnings if "project" in str(w) or "website" in str(w)]
    # an edit of the project's file rebuilds
    ran = run_cli(talks, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    quarto = tmp_path / "_quarto.yml"
    quarto.write_text(quarto.read_text().replace("zoom", "fade"))
    assert run_cli(talks, "talk.qmd", "--no-pdf").returncode == 0
    page = (talks / "dist" / "talk" / "index.html").read_text()
    assert '"transition": "fade"' in page
