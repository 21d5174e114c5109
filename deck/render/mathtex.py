"""Math in prose: find `$…$` / `$$…$$`, render with KaTeX at build time (one Node process)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from deck.blocks.tex import deck_macros, definitions, extract, macros_digest
from deck.errors import Loc
from deck.model import Lesson, walk_blocks
from deck.store.files import write_atomic
from deck.theme import KATEX, STATIC

SCRIPT = STATIC / "katex_render.cjs"
# A line break inside a Chinese paragraph is not a space: join the lines.
CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
CJK_LINE_BREAK = re.compile(f"(?<=[{CJK}])\n(?=[{CJK}])")


@dataclass(frozen=True)
class Formula:
    """A formula met while rendering: TeX with values filled in, and where the author wrote it."""

    tex: str
    display: bool
    loc: Loc


def join_cjk_lines(text: str) -> str:
    return CJK_LINE_BREAK.sub("", text)


def katex_fingerprint() -> str:
    """The KaTeX version and the render script: a change in either re-renders every formula."""
    try:
        version = json.loads((KATEX / "package.json").read_text("utf-8")).get("version", "?")
    except (OSError, ValueError, AttributeError):
        version = "missing"
    script = hashlib.sha256(SCRIPT.read_bytes()).hexdigest()[:16]
    return f"katex {version}; script {script}"


class KaTeX:
    """Renders formulas, remembering results in a JSON file so unchanged builds skip Node.

    The file records the KaTeX version and render script it was made with; a file from another
    version, or one that cannot be read, is ignored and rewritten.
    """

    def __init__(self, cache_file: Path | None):
        self.cache_file = cache_file
        self.fingerprint = katex_fingerprint()
        self.known: dict[str, str] = self._read() if cache_file else {}
        self.errors: dict[str, str] = {}
        self.macros: dict[str, str] = {}  # the deck's own (`deck.blocks.tex`)
        self.salt = ""

    def _read(self) -> dict[str, str]:
        assert self.cache_file is not None
        try:
            data = json.loads(self.cache_file.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("katex") != self.fingerprint:
            return {}
        known = data.get("html")
        if not isinstance(known, dict):
            return {}
        return {k: v for k, v in known.items() if isinstance(k, str) and isinstance(v, str)}

    def _key(self, tex: str, display: bool) -> str:
        return self.salt + ("D|" if display else "I|") + tex

    def use_macros(self, macros: dict[str, str]) -> None:
        """The deck's macros (`deck.blocks.tex.lesson_macros`), for every formula."""
        self.macros = macros
        digest = macros_digest(macros)
        self.salt = f"M{digest}|" if digest else ""

    def prepare(self, formulas: set[tuple[str, bool]]) -> None:
        """Render every formula not yet known, all in one Node process, with the deck's
        macros (each formula without the definitions themselves)."""
        missing = [f for f in sorted(formulas) if self._key(*f) not in self.known]
        if not missing:
            return
        node = shutil.which("node")
        if node is None or not KATEX.is_dir():
            raise RuntimeError("KaTeX needs Node.js and `npm ci` (node_modules/katex is missing)")
        shown = [definitions(t)[1] if self.macros or "definecolor" in t else t for t, _ in missing]
        formulas_json = [{"tex": t, "display": d} for t, (_, d) in zip(shown, missing, strict=True)]
        payload = json.dumps({"macros": self.macros, "formulas": formulas_json})
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
        if self.cache_file is not None:
            data = {"katex": self.fingerprint, "html": self.known}
            write_atomic(self.cache_file, json.dumps(data, ensure_ascii=False).encode())

    def html(self, tex: str, display: bool) -> str | None:
        return self.known.get(self._key(tex, display))

    def error(self, tex: str, display: bool) -> str | None:
        return self.errors.get(self._key(tex, display))


def lesson_macros(lesson: Lesson) -> dict[str, str]:
    """The macros every formula of the lesson may use: those its formulas define (in prose,
    notes and other text blocks of any section, rendered this build or not)."""
    texts = []
    for section in lesson.sections:
        for slide in section.slides:
            for block in walk_blocks(slide.blocks):
                text = getattr(block, "text", None)
                if isinstance(text, str) and "\\" in text:
                    texts.append(text)
    found: set[tuple[str, bool]] = set()
    for text in texts:
        if "newcommand" in text or "\\def" in text or "DeclareMath" in text:
            found |= {(tex, display) for tex, display, _ in extract(text)[1]}
    return deck_macros(found)
