"""How values appear on slides: numbers, tables, source code."""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys
import sysconfig

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


# ---- the build host ---------------------------------------------------------------------


def test_build_host_reports_this_machine_without_importing_the_libraries(tmp_path):
    code = (
        "import json, sys; from deck.show import build_host; from deck.host import "
        "kernels; h = build_host(); k = kernels(); "
        "print(json.dumps([h, k, sorted(m for m in ('torch', 'numpy', 'matplotlib') "
        "if m in sys.modules)]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    host, kernels, imported = json.loads(out.stdout)
    assert imported == []  # read from metadata, never imported
    assert kernels == {}  # the kernels of libraries not loaded: none, and none loaded to ask
    # independent references: the cpuinfo line by a regex, the dist-info folders' names
    cpuinfo = open("/proc/cpuinfo", encoding="utf-8").read()
    assert host["cpu"] == re.search(r"^model name\s*:\s*(.*?)\s*$", cpuinfo, re.M).group(1)
    assert host["cores"] == len(re.findall(r"^processor\s*:", cpuinfo, re.M))
    assert host["cores_usable"] == len(os.sched_getaffinity(0))
    assert host["python"] == "{}.{}.{}".format(*sys.version_info[:3])
    site = sysconfig.get_paths()["purelib"]
    for name in ("numpy", "torch", "matplotlib"):
        (info,) = glob.glob(f"{site}/{name}-*.dist-info")
        assert (
            host["libraries"][name] == info.rsplit("/", 1)[-1][len(name) + 1 : -len(".dist-info")]
        )


def test_only_deck_show_html_puts_markup_on_a_slide():
    class Sneaky:
        def _repr_html_(self) -> str:
            return "<img src=x onerror=alert(1)>"

        def __repr__(self) -> str:
            return "Sneaky()"

    shown = to_output(Sneaky())
    assert (shown.kind, shown.data) == ("text", "Sneaky()")
    from deck.show import HTML

    asked = to_output(HTML("<b>x</b>"))
    assert (asked.kind, asked.data) == ("html", "<b>x</b>")
    assert to_output("<s>").data == "'<s>'"
