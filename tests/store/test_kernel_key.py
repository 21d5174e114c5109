"""What chooses the math kernels is in the cache keys: a section computed under another
`ATEN_CPU_CAPABILITY` (or on another CPU) runs again, and the no-change build does not say
"up to date" for it; `--jobs`' own thread counts do not re-run anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogue import write_lesson
from deck.host import kernel_selectors
from report_build import build_report

SECTION = "## 一\n\n```{python}\nn = 6 * 7\n```\n\n`{python} n`\n"


def test_another_cpu_capability_reruns_the_sections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    write_lesson(tmp_path, {"01-a.md": SECTION})
    assert build_report(tmp_path, "cat")["ok"]
    again = build_report(tmp_path, "cat")
    assert again["executed"] == [] and again["up_to_date"]
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
    report = build_report(tmp_path, "cat")
    assert not report["up_to_date"]
    assert report["executed"] == ["cat/01-a"]
    assert "ATEN_CPU_CAPABILITY changed" in report["reasons"]["cat/01-a"]
    monkeypatch.delenv("ATEN_CPU_CAPABILITY")
    report = build_report(tmp_path, "cat")
    assert report["executed"] == ["cat/01-a"]


def test_the_selectors_name_the_cpu_and_the_variables(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MKL_CBWR", "COMPATIBLE")
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    found = kernel_selectors()
    assert found["MKL_CBWR"] == "COMPATIBLE" and found["OMP_NUM_THREADS"] is None
    assert found["cpu"] and found["cpu_flags"]  # /proc/cpuinfo on Linux
