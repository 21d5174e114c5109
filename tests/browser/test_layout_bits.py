"""Layout details in real Chromium: a computed number never wraps inside itself, even in a
column too narrow for the sentence around it."""

from __future__ import annotations

import textwrap

import pytest

from fixture_build import Built, run_cli

pytestmark = pytest.mark.browser

# Each value once per column, with prose around it, so the line must wrap near the value.
VALUES = ["7.1e-15", "1e-02–4e-02", "-0.053", "1,050,624", "-12345678901234567890"]
LESSON = {
    "lesson.yml": "title: 数字\nlang: zh-CN\ntitle-slide: false\n",
    "01-a.md": textwrap.dedent(
        """
        ## 窄栏

        ```{python}
        vals = %r
        ```

        :::: columns
        ::: {.column width="12%%"}
        %s
        :::
        ::: column
        宽栏。
        :::
        ::::
        """
    )
    % (
        VALUES,
        "\n\n".join(f"误差约为 `{{python}} vals[{i}]` 左右，很小。" for i in range(len(VALUES))),
    ),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("layout")
    folder = root / "content" / "layout"
    folder.mkdir(parents=True)
    for name, text in LESSON.items():
        (folder / name).write_text(text.lstrip("\n"), "utf-8")
    proc = run_cli(root, "layout", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "layout", proc)


def test_a_computed_number_spans_one_line_in_a_narrow_column(context, built):
    page = context.new_page()
    page.goto((built.out / "index.html").as_uri())
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    found = page.evaluate(
        """() => [...document.querySelectorAll('section.present .column .value')].map(v => {
            const rects = [...v.getClientRects()];
            const top = Math.min(...rects.map(r => r.top));
            const bottom = Math.max(...rects.map(r => r.bottom));
            const p = v.closest('p').getBoundingClientRect();
            const line = parseFloat(getComputedStyle(v).lineHeight) ||
                parseFloat(getComputedStyle(v).fontSize) * 1.5;
            return {text: v.textContent, rects: rects.length, height: bottom - top,
                    line: line, pHeight: p.height};
        })"""
    )
    assert [f["text"] for f in found] == VALUES  # read (and copied) as computed
    for f in found:
        # the paragraph around it did wrap (the column is narrow) ...
        assert f["pHeight"] > 2.5 * f["line"], f
        # ... but the number is one box, one line high
        assert f["rects"] == 1, f
        assert f["height"] < 1.2 * f["line"], f
