"""Math in prose: find `$…$` / `$$…$$`, render with KaTeX at build time (one Node process)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from deck.cache import write_atomic

ROOT = Path(__file__).resolve().parent.parent
KATEX = ROOT / "node_modules" / "katex"
SCRIPT = Path(__file__).parent / "static" / "katex_render.cjs"

# Code spans are matched first so that `$` inside them is left alone.
MATH = re.compile(
    r"(?P<code>`+)(?:.+?)(?P=code)"
    r"|(?<!\\)\$\$(?P<display>.+?)\$\$"
    r"|(?<![\\$\w])\$(?P<inline>[^\s$](?:[^$\n]*?[^\s\\$])?)\$(?![\d$])",
    re.S,
)


def math_placeholder(index: int) -> str:
    return f"\u2063M{index}\u2063"


def extract(text: str) -> tuple[str, list[tuple[str, bool, int]]]:
    """Replace formulas by placeholders; return the text and (tex, display, line offset)."""
    found: list[tuple[str, bool, int]] = []

    def sub(m: re.Match[str]) -> str:
        if m.group("code"):
            return m.group(0)
        display = m.group("display") is not None
        tex = (m.group("display") if display else m.group("inline")).strip()
        found.append((tex, display, text.count("\n", 0, m.start())))
        return math_placeholder(len(found) - 1)

    return MATH.sub(sub, text), found


class KaTeX:
    """Renders formulas, remembering results in a JSON file so unchanged builds skip Node."""

    def __init__(self, cache_file: Path):
        self.cache_file = cache_file
        try:
            self.known: dict[str, str] = json.loads(cache_file.read_text("utf-8"))
        except (OSError, ValueError):
            self.known = {}
        self.errors: dict[str, str] = {}

    @staticmethod
    def _key(tex: str, display: bool) -> str:
        return ("D|" if display else "I|") + tex

    def prepare(self, formulas: set[tuple[str, bool]]) -> None:
        missing = [f for f in sorted(formulas) if self._key(*f) not in self.known]
        if not missing:
            return
        node = shutil.which("node")
        if node is None or not KATEX.is_dir():
            raise RuntimeError("KaTeX needs Node.js and `npm ci` (node_modules/katex is missing)")
        payload = json.dumps([{"tex": t, "display": d} for t, d in missing])
        proc = subprocess.run(
            [node, str(SCRIPT), str(KATEX)],
            input=payload,
            capture_output=True,
            text=True,
            check=True,
        )
        for (tex, display), out in zip(missing, json.loads(proc.stdout), strict=True):
            if "html" in out:
                self.known[self._key(tex, display)] = out["html"]
            else:
                self.errors[self._key(tex, display)] = out["error"]
        write_atomic(self.cache_file, json.dumps(self.known, ensure_ascii=False).encode())

    def html(self, tex: str, display: bool) -> str | None:
        return self.known.get(self._key(tex, display))

    def error(self, tex: str, display: bool) -> str | None:
        return self.errors.get(self._key(tex, display))
