"""Finding formulas in prose, and KaTeX rendering at build time."""

from __future__ import annotations

from pathlib import Path

from deck.mathtex import KaTeX, extract, math_placeholder


def test_inline_and_display_math_are_extracted_with_line_offsets():
    text, found = extract("a $x^2$ b\n\n$$\n\\frac{1}{2}\n$$\nc")
    assert found == [("x^2", False, 0), ("\\frac{1}{2}", True, 2)]
    assert text == f"a {math_placeholder(0)} b\n\n{math_placeholder(1)}\nc"


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
