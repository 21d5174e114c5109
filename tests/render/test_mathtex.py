"""Finding formulas in prose, and KaTeX rendering at build time with its cache."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from catalogue import write
from deck.blocks.tex import extract, math_placeholder
from deck.render import mathtex
from deck.render.mathtex import KaTeX, katex_fingerprint
from fixture_build import run_cli


def test_inline_and_display_math_are_extracted_with_line_offsets():
    text, found = extract("a $x^2$ b\n\n$$\n\\frac{1}{2}\n$$\nc")
    assert found == [("x^2", False, 0), ("\\frac{1}{2}", True, 2)]
    assert text == f"a {math_placeholder(0)} b\n\n{math_placeholder(1)}\nc"


def test_placeholders_are_numbered_from_the_given_start():
    text, found = extract("$a$ and $b$", first=7)
    assert text == f"{math_placeholder(7)} and {math_placeholder(8)}"
    assert [tex for tex, _, _ in found] == ["a", "b"]


def test_dollars_in_code_prices_and_escapes_are_not_math():
    for source in ("`echo $HOME` and `$x$`", "costs $5 and $6", "a \\$ b \\$", "$ x $"):
        assert extract(source)[1] == [], source


def test_katex_renders_once_and_remembers(tmp_path: Path):
    cache = tmp_path / "katex.json"
    katex = KaTeX(cache)
    katex.prepare({("x^2", False), ("\\frac{", True)})
    assert 'class="katex"' in katex.html("x^2", False)
    assert katex.html("\\frac{", True) is None and "KaTeX" in katex.error("\\frac{", True)
    again = KaTeX(cache)
    assert again.html("x^2", False) == katex.html("x^2", False)


def cache_with(path: Path, fingerprint: str, html: str) -> Path:
    path.write_text(json.dumps({"katex": fingerprint, "html": {"I|x^2": html}}), "utf-8")
    return path


def test_the_cache_is_used_only_for_the_katex_and_script_it_was_made_with(tmp_path: Path):
    current = cache_with(tmp_path / "current.json", katex_fingerprint(), "REMEMBERED")
    assert KaTeX(current).html("x^2", False) == "REMEMBERED"
    older = cache_with(tmp_path / "older.json", "katex 0.16.0; script 0", "STALE")
    katex = KaTeX(older)
    assert katex.html("x^2", False) is None
    katex.prepare({("x^2", False)})
    assert 'class="katex"' in katex.html("x^2", False)
    assert json.loads(older.read_text("utf-8"))["katex"] == katex_fingerprint()


def test_the_fingerprint_follows_the_katex_version_and_the_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    before = katex_fingerprint()
    assert "katex 0.19.1" in before  # the version pinned in package.json
    package = tmp_path / "katex"
    package.mkdir()
    info = json.loads((mathtex.KATEX / "package.json").read_text("utf-8"))
    (package / "package.json").write_text(json.dumps({**info, "version": "0.20.0"}), "utf-8")
    monkeypatch.setattr(mathtex, "KATEX", package)
    upgraded = katex_fingerprint()
    assert upgraded != before and "katex 0.20.0" in upgraded
    monkeypatch.undo()
    script = tmp_path / "katex_render.cjs"
    shutil.copyfile(mathtex.SCRIPT, script)
    with script.open("a") as f:
        f.write("// changed\n")
    monkeypatch.setattr(mathtex, "SCRIPT", script)
    assert katex_fingerprint() != before


@pytest.mark.parametrize(
    "damage",
    [b"{not json", b"[]", b"\xff\xfe", b'{"katex": "%s", "html": []}', b'{"katex": "%s"}'],
    ids=["not json", "a list", "not utf-8", "html a list", "no html"],
)
def test_a_damaged_cache_is_ignored_and_rewritten(tmp_path: Path, damage: bytes):
    cache = tmp_path / "katex.json"
    cache.write_bytes(damage.replace(b"%s", katex_fingerprint().encode()))
    katex = KaTeX(cache)
    katex.prepare({("x^2", False)})
    assert 'class="katex"' in katex.html("x^2", False)
    assert KaTeX(cache).html("x^2", False) == katex.html("x^2", False)


def test_entries_of_the_wrong_type_are_dropped(tmp_path: Path):
    cache = tmp_path / "katex.json"
    data = {"katex": katex_fingerprint(), "html": {"I|x^2": 5, "I|y": "<span>y</span>"}}
    cache.write_text(json.dumps(data), "utf-8")
    katex = KaTeX(cache)
    assert katex.html("x^2", False) is None
    assert katex.html("y", False) == "<span>y</span>"


def test_math_right_after_a_word_is_math_as_pandoc_reads_it():
    text, found = extract("the value$x_i$ and 2$y$, but US$5 and US$10 are money")
    assert [tex for tex, _, _ in found] == ["x_i", "y"]
    assert "US$5 and US$10" in text


@pytest.mark.slow
def test_macros_defined_in_one_formula_hold_in_every_formula(tmp_path: Path):
    """As MathJax in a Quarto page: `\\newcommand` in one formula serves the deck's others
    (this reference: the definitions' own expansion typeset by KaTeX)."""
    write(
        tmp_path,
        {
            "t.qmd": "## A\n\n$$\\newcommand{\\RR}{\\mathbb{R}}"
            "\\DeclareMathOperator*{\\am}{arg\\,max}$$\n\n"
            "## B\n\n$x \\in \\RR^d$ and $\\am_x f$\n\n$x \\in \\mathbb{R}^d$\n",
        },
    )
    ran = run_cli(tmp_path, "t.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist" / "t" / "index.html").read_text()
    slide_b = page[page.index("<h2>B</h2>") :]
    mathml = re.findall(r"<math.*?</math>", slide_b, re.S)
    strip = [re.sub(r"<annotation.*?</annotation>", "", m, flags=re.S) for m in mathml]
    assert strip[0] == strip[2]  # \RR typeset exactly as \mathbb{R}
    assert "arg" in strip[1] and "max" in strip[1]


@pytest.mark.slow
def test_macros_in_a_hidden_preamble_hold_and_definecolor_is_dropped(tmp_path: Path):
    write(
        tmp_path,
        {
            "t.qmd": "## A\n\n::: {.hidden}\n{{< include preamble.qmd >}}\n:::\n\n"
            "$\\bfx \\in \\RR$\n",
            "preamble.qmd": "$$\n\\definecolor{pennred}{rgb}{0.6,0,0}\n"
            "\\newcommand{\\macrobf}[1]{\\mathbf{#1}}\n\\newcommand{\\bfx}{\\macrobf{x}}\n"
            "\\newcommand{\\RR}{\\mathbb{R}}\n$$\n\nText that stays hidden.\n",
        },
    )
    ran = run_cli(tmp_path, "t.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist" / "t" / "index.html").read_text()
    assert "Text that stays hidden" not in page
    assert '<mi mathvariant="bold">x</mi><mo>∈</mo><mi mathvariant="double-struck">R</mi>' in page
