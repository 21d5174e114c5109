"""Two clean builds of the same lesson give the same bytes: index.html, values.json, figures,
and PDFs once their creation dates are set aside."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from catalogue import tree, write_lesson
from fixture_build import copy_fixture, run_build, run_cli

DATES = re.compile(rb"/(CreationDate|ModDate) \(D:[0-9+'Z-]+\)")

UNORDERED = {
    "01-order.md": """
        ## 顺序

        ```{python}
        #| label: line
        #| fig-alt: 一条线
        import matplotlib.pyplot as plt

        words = {"注意力", "位置", "多头", "编码器", "残差", "softmax", "query", "key"}
        shown = ", ".join(words)
        plt.figure(figsize=(3, 2))
        plt.plot([1, 2, 3])
        ```

        集合的顺序：`{python} shown`
        """
}


def normalised(path: Path) -> bytes:
    return DATES.sub(b"/\\1 (D:0)", path.read_bytes())


@pytest.mark.slow
@pytest.mark.browser
def test_two_clean_builds_are_byte_identical(tmp_path: Path):
    roots = [tmp_path / "a", tmp_path / "b"]
    for root in roots:
        copy_fixture("mini", root)
        write_lesson(root, UNORDERED, name="order")
        proc = run_build(root, "mini", "order")
        assert proc.returncode == 0, proc.stderr
    for lesson in ("mini", "order"):
        a, b = (root / "dist" / lesson for root in roots)
        files = tree(a)
        assert files.keys() == tree(b).keys()
        for name in files:
            if name.endswith(".pdf"):
                assert normalised(a / name) == normalised(b / name), name
            else:
                assert files[name] == tree(b)[name], name
        assert tree(roots[0] / "figures") == tree(roots[1] / "figures")


@pytest.mark.slow
def test_a_cell_ending_in_a_plot_call_shows_the_figure_not_an_artist_repr(tmp_path: Path):
    write_lesson(tmp_path, UNORDERED, name="order")
    # the cell's last line, `plt.plot([1, 2, 3])`, is an expression whose value is a list of
    # Line2D artists
    proc = run_cli(tmp_path, "order", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "dist/order/index.html").read_text()
    assert "Line2D" not in html and "figures/line.svg" in html
