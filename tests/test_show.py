"""How values appear on slides: numbers, tables, source code."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from deck.show import inline_text, number, source, table, to_output


@pytest.mark.parametrize(
    "value,digits,text",
    [(3, 3, "3"), (0.12345, 3, "0.123"), (-0.0001, 3, "-0.0001"), (-0.0, 2, "0.00"),
     (2.5e7, 3, "2.5e+7"), (np.float32(0.5), 2, "0.50"), (torch.tensor(1.25), 1, "1.2")],
)  # fmt: skip
def test_number(value, digits, text):
    assert number(value, digits) == text


def test_table_with_labels_escapes_and_rounds():
    html = table(
        [[1.0, 0.5], [0.25, 2]], rows=["a<b", "c"], cols=["x", "y"], digits=2
    )._repr_html_()
    assert html.startswith('<table class="matrix">')
    assert "<th>a&lt;b</th><td>1.00</td><td>0.50</td>" in html
    assert "<td>0.25</td><td>2</td>" in html
    assert "<thead><tr><th></th><th>x</th><th>y</th></tr></thead>" in html


def test_arrays_and_tensors_display_as_tables():
    assert "<table" in to_output(np.eye(2)).data
    assert "<table" in to_output(torch.ones(3)).data
    assert to_output(torch.tensor(2.0)).data == "2.000"
    assert to_output(None) is None
    assert to_output({"a": 1}).data == "{'a': 1}"


def test_inline_text():
    assert inline_text(np.float64(1 / 3)) == "0.3333"
    assert inline_text(torch.tensor([7])) == "7"
    assert inline_text("文字") == "文字"


def test_source_shows_the_real_function():
    html = source(number)._repr_html_()
    assert 'class="highlight"' in html and '<span class="nf">number</span>' in html
