"""Quarto's cross-references (issue 17, item 6): `@fig-`, `@tbl-`, `@eq-` and `@sec-` are
numbered in deck order and link to the slide that shows what they name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from catalogue import write
from fixture_build import run_cli

SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"/>'


def build(tmp_path: Path, lang: str = "en") -> tuple[str, str]:
    write(
        tmp_path,
        {
            "talk.qmd": f"""
                ---
                title: Refs
                lang: {lang}
                ---

                ## Intro {{#sec-intro}}

                See @fig-line and [-@fig-line], also @tbl-nums, @eq-energy, @sec-intro
                and @fig-pic. Unknown @fig-nope. Mail a@b.com stays. `@fig-line` stays.

                ## Plot

                ![A box](a.svg){{#fig-pic}}

                ```{{python}}
                #| label: fig-line
                #| fig-cap: "A line"
                #| fig-alt: "a line"
                import matplotlib.pyplot as plt
                plt.figure(figsize=(3, 2)); plt.plot([0, 1]); plt.show()
                ```

                ## Math

                $$
                E = mc^2
                $$ {{#eq-energy}}

                ## Table

                ```{{python}}
                #| label: tbl-nums
                #| tbl-cap: "Numbers"
                print("1 2 3")
                ```
                """,
            "a.svg": SVG,
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    return (tmp_path / "dist" / "talk" / "index.html").read_text(), ran.stderr


def sections(page: str) -> list[str]:
    return re.findall(r"<section\b.*?</section>", page, re.S)


def test_references_are_numbered_in_deck_order_and_link_their_slide(tmp_path: Path):
    page, stderr = build(tmp_path)
    slides = sections(page)
    intro = slides[1]
    links = re.findall(r'<a class="quarto-xref" href="#/(\d+)">(.*?)</a>', intro)
    shown = [text.replace("&nbsp;", " ") for _, text in links]
    # the image comes before the cell's figure on its slide: it is Figure 1
    assert shown == ["Figure 2", "2", "Table 1", "Equation 1", "Section 1", "Figure 1"]
    targets = ["fig-line", "fig-line", "tbl-nums", "eq-energy", None, "fig-pic"]
    for (index, _), label in zip(links, targets, strict=True):
        slide = slides[int(index)]
        if label is None:
            assert 'id="sec-intro"' in slide
        else:
            assert f'id="{label}"' in slide  # the link goes to the slide that shows it
    assert "Unknown @fig-nope." in intro and "a@b.com" in intro
    assert "<code>@fig-line</code>" in intro
    assert "talk.qmd:9: warning [crossref]" in stderr and "@fig-nope" in stderr  # (its line)


def test_captions_carry_their_labels_and_equations_their_number(tmp_path: Path):
    page, _ = build(tmp_path)
    captions = re.findall(r"<figcaption>(.*?)</figcaption>", page)
    plain = [re.sub(r"<[^>]+>", "", c) for c in captions]
    assert plain == ["Figure 1: A box", "Figure 2: A line"]
    table = re.search(r'<div class="table-caption">(.*?)</div>', page).group(1)
    assert re.sub(r"<[^>]+>", "", table) == "Table 1: Numbers"
    assert '<span class="eq-number">(1)</span>' in page
    assert "{#eq-energy}" not in page


@pytest.mark.slow
def test_chinese_decks_name_them_in_chinese(tmp_path: Path):
    page, _ = build(tmp_path, lang="zh")
    assert ">图&nbsp;2</a>" in page and ">表&nbsp;1</a>" in page
    assert "图 1: " in page
