"""Citations: `[@key]`, `@key`, `[-@key]`, `[see @a, p. 3; @b]` in the slides, formatted by
Pandoc's citeproc (the `pypandoc-binary` wheel's pandoc, the same processor Quarto ships) from
the `bibliography` (BibTeX, CSL-JSON or YAML) in the `csl` style, with the references where a
`::: {#refs}` block stands, else at the end of the last slide, as Quarto places them.

It runs on the whole deck's HTML after cross-references (`@fig-…` are theirs). One pandoc run
formats every citation of the deck; its result is cached by what went in.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from dataclasses import replace
from pathlib import Path

from deck.errors import Diagnostic, Loc
from deck.model import CitationConfig
from deck.render.crossref import _skipped
from deck.store.files import write_atomic
from deck.store.renders import RenderedSlide

KEY = r"[\w][\w:.#$%&+?<>~/-]*\w|\w"
BRACKETED = re.compile(r"\[(?:[^\[\]@]*?-?@(?:" + KEY + r")[^\[\]]*?)\]")
BARE = re.compile(r"(?<![\w@.\\])@(" + KEY + r")(?:\s*\[([^\]]*)\])?")
CROSSREF = ("fig-", "tbl-", "eq-", "sec-")
REFS = re.compile(r'<div id="refs"[^>]*>\s*</div>')
PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)


def pandoc() -> str | None:
    try:
        import pypandoc  # noqa: PLC0415 - only decks that cite need it

        return pypandoc.get_pandoc_path()
    except (ImportError, OSError):
        return None


def cite(
    slides: list[RenderedSlide],
    config: CitationConfig,
    folder: Path,
    lang: str,
    cache: Path | None,
) -> tuple[list[RenderedSlide], list[Diagnostic]]:
    """The slides with their citations formatted and the references placed."""
    if not config.bibliography:
        return slides, []
    found: list[tuple[int, str]] = []  # (slide index, citation as written)
    for k, slide in enumerate(slides):
        for start, end in _skipped(slide.body):
            found += [(k, c) for c in citations(slide.body[start:end])]
    formatted, references, problems = run([c for _, c in found], config, folder, lang, cache)
    loc = config.loc or (slides[0].loc if slides else Loc("?", 1))
    warnings = []
    for problem in problems:  # a key not found: at the slide citing it
        missing = re.search(r"citation (\S+) not found", problem)
        at = next((slides[k].loc for k, c in found if missing and f"@{missing.group(1)}" in c), loc)
        warnings.append(Diagnostic(at, "citation", problem, "warning"))
    shown = dict(zip([c for _, c in found], formatted, strict=False))
    out = []
    for slide in slides:
        body = slide.body
        pieces, pos = [], 0
        for start, end in _skipped(body):
            pieces.append(body[pos:start])
            pieces.append(_replace(body[start:end], shown))
            pos = end
        pieces.append(body[pos:])
        out.append(replace(slide, body="".join(pieces)))
    block = f'<div id="refs" class="references csl-bib-body">{references}</div>'
    placed = False
    for k, slide in enumerate(out):
        if REFS.search(slide.body):
            out[k] = replace(slide, body=REFS.sub(lambda m: block, slide.body, count=1))
            placed = True
            break
    if not placed and out and references:
        out[-1] = replace(out[-1], body=out[-1].body + block)
    return out, warnings


def citations(text: str) -> list[str]:
    """The citations written in a piece of text, in order, as written."""
    out = []
    taken: list[tuple[int, int]] = []
    for m in BRACKETED.finditer(text):
        keys = re.findall(r"-?@(" + KEY + ")", m.group(0))
        if keys and not all(k.startswith(CROSSREF) for k in keys):
            out.append((m.start(), m.group(0)))
            taken.append((m.start(), m.end()))
    for m in BARE.finditer(text):
        if any(a <= m.start() < b for a, b in taken) or m.group(1).startswith(CROSSREF):
            continue
        out.append((m.start(), m.group(0)))
    return [c for _, c in sorted(out)]


def _replace(text: str, shown: dict[str, str]) -> str:
    for written in sorted(shown, key=len, reverse=True):
        if written in text and shown[written]:
            text = text.replace(written, shown[written])
    return text


def run(
    written: list[str], config: CitationConfig, folder: Path, lang: str, cache: Path | None
) -> tuple[list[str], str, list[str]]:
    """(each citation's HTML, the references' HTML, warnings), from one pandoc run."""
    files = [folder / b for b in config.bibliography]
    csl = folder / config.csl if config.csl else None
    key = hashlib.sha256(json.dumps([written, config.nocite, lang]).encode())
    for path in [*files, *([csl] if csl else [])]:
        key.update(path.name.encode() + b"\0" + path.read_bytes())
    stored = _cached(cache, key.hexdigest())
    if stored is not None:
        return stored
    exe = pandoc()
    if exe is None:
        return [""] * len(written), "", ["citations need pandoc (pip package pypandoc-binary)"]
    meta = {"bibliography": [str(f) for f in files], "lang": lang, "suppress-bibliography": False}
    if csl:
        meta["csl"] = str(csl)
    if config.nocite:
        meta["nocite"] = config.nocite
    source = "---\n" + json.dumps(meta) + "\n---\n\n"
    source += "".join(f"{c}\n\n" for c in written) + "::: {#refs}\n:::\n"
    proc = subprocess.run(
        [exe, "-f", "markdown", "-t", "html", "--citeproc", "--wrap=none"],
        input=source,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    problems = [
        line.removeprefix("[WARNING] ").strip() for line in proc.stderr.splitlines() if line.strip()
    ]
    if proc.returncode != 0:
        return [""] * len(written), "", problems or ["pandoc failed"]
    body, _, refs = proc.stdout.partition('<div id="refs"')
    refs = refs[refs.find(">") + 1 : refs.rfind("</div>")] if refs else ""
    formatted = [m.group(1) for m in PARAGRAPH.finditer(body)]
    if len(formatted) != len(written):
        formatted = [""] * len(written)
        problems.append("the citations could not be matched with pandoc's output")
    result = (formatted, refs.strip(), problems)
    _store(cache, key.hexdigest(), result)
    return result


def _cached(cache: Path | None, key: str) -> tuple[list[str], str, list[str]] | None:
    if cache is None:
        return None
    try:
        entry = json.loads((cache / "citations.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    return entry["formatted"], entry["references"], entry["problems"]


def _store(cache: Path | None, key: str, result: tuple[list[str], str, list[str]]) -> None:
    if cache is None:
        return
    formatted, references, problems = result
    entry = {"key": key, "formatted": formatted, "references": references, "problems": problems}
    cache.mkdir(parents=True, exist_ok=True)
    write_atomic(cache / "citations.json", json.dumps(entry, ensure_ascii=False).encode())
