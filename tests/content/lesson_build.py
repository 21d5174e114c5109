"""Build the real transformer lesson once per test session and read back what slides show."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
NUMBER = re.compile(r"(?<![A-Za-z_\d.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def rounded(value: float, digits: int, slack: float = 1e-6) -> Any:
    """What a slide printing `value` with `digits` decimals may show: the value within half a
    unit of the last digit (plus `slack` for another CPU's last bits), never its exact digits."""
    return pytest.approx(value, abs=0.5 * 10**-digits + slack)


@dataclass(frozen=True)
class Built:
    out: Path  # dist/transformer of the test build
    values: dict[str, Any]
    html: str
    section: str = ""  # default section prefix for lookups, see `scoped`

    def scoped(self, section: str) -> Built:
        """The same build, looking up inline values in sections starting with `section`."""
        return replace(self, section=section)

    def inline(self, expr: str, section: str | None = None) -> str:
        """The text a slide shows for inline expression `expr` (exactly as written), in the
        sections whose name starts with `section` (e.g. "03")."""
        shown = {
            v["text"]
            for v in self.values["values"]
            if v["expr"] == expr
            and v["section"].startswith(self.section if section is None else section)
        }
        assert shown, f"no inline value `{expr}` in values.json"
        assert len(shown) == 1, f"`{expr}` shows {shown}: name the section"
        text = shown.pop()
        # math keeps its TeX source; other text is HTML-escaped ("->" is "-&gt;")
        assert text in self.html or html.escape(text, quote=False) in self.html, (
            f"`{text}` not on any slide"
        )
        return text

    def number(self, expr: str, section: str | None = None) -> float:
        return float(self.inline(expr, section).replace(",", "").rstrip("%"))

    def output(self, label: str) -> str:
        """The plain text of the output a labelled cell shows (e.g. a table)."""
        texts = [o["text"] for o in self.values["outputs"] if o["label"] == label]
        assert texts, f"no output of cell `{label}`"
        return "\n".join(texts)

    def output_numbers(self, label: str) -> list[float]:
        return [float(x) for x in NUMBER.findall(self.output(label))]

    def widgets(self, kind: str) -> list[dict[str, Any]]:
        """The data embedded in the page for each widget of `kind`, in slide order."""
        found = re.findall(
            rf'data-widget="{re.escape(kind)}"[^>]*>'
            r'<script type="application/json" class="widget-data">(.*?)</script>',
            self.html,
            flags=re.S,
        )
        return [json.loads(text) for text in found]

    def quiz(self, needle: str) -> dict[str, Any]:
        (quiz,) = [q for q in self.values["quizzes"] if needle in q["question"]]
        return quiz


def build_lesson(tmp: Path) -> Built:
    """Build content/transformer (or $DECK_TEST_CONTENT/transformer, with $DECK_TEST_CACHE)."""
    args = ["--out", str(tmp / "dist"), "--figures", str(tmp / "figures")]
    if os.environ.get("DECK_TEST_CONTENT"):
        args += ["--content", os.environ["DECK_TEST_CONTENT"]]
    if os.environ.get("DECK_TEST_CACHE"):
        args += ["--cache", os.environ["DECK_TEST_CACHE"]]
    proc = subprocess.run(
        [sys.executable, "build.py", "transformer", "--no-pdf", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    out = tmp / "dist" / "transformer"
    values = json.loads((out / "values.json").read_text("utf-8"))
    return Built(out, values, (out / "index.html").read_text("utf-8"))
