"""Citations: `[@key]`, `@key`, `[-@key]`, `[see @a, p. 3; @b]` in the slides, formatted by
Pandoc's citeproc (the `pypandoc-binary` wheel's pandoc, the same processor Quarto ships) from
the `bibliography` (BibTeX, CSL-JSON or YAML) in the `csl` style, with the references where a
`::: {#refs}` block stands, else at the end of the last slide, as Quarto places them.

Citations are read as the document is resolved (`deck.render.crossref.split`: outside code, math
and tags; `@fig-…` are cross-references), and formatted by one of the document's transforms
(`citations_transform`): one pandoc run formats every citation of the deck; its result is cached
by what went in. The HTML deck writes them from the document (`deck.render.crossref.fill`).
A bibliography or style it cannot read is an error at that file's line; pandoc missing, not
runnable, or not done within `TIMEOUT` seconds is an error at the line of `bibliography`: the
deck is not published.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

from deck.errors import DeckError, Diagnostic, Loc
from deck.model import CitationConfig
from deck.model.document import Cite, Document, Group, Text, map_nodes, texts
from deck.source.folder import display_path
from deck.store.files import write_atomic

KEY = r"[\w][\w:.#$%&+?<>~/-]*\w|\w"
BRACKETED = re.compile(r"\[(?:[^\[\]@]*?-?@(?:" + KEY + r")[^\[\]]*?)\](?![(\[])")  # (not a link)
BARE = re.compile(r"(?<![\w@.\\])@(" + KEY + r")(?:\s*\[([^\]]*)\])?")
CROSSREF = ("fig-", "tbl-", "eq-", "sec-")
ENTRY = re.compile(r'<div class="csl-entry"[^>]*>')  # (where each reference opens)
PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
# How pandoc says it cannot read a bibliography or the style (it exits non-zero)
READING = re.compile(r"Error reading bibliography file (.+?):[ \t]*$", re.M)
PARSEC_AT = re.compile(r"^\(line (\d+), column (\d+)\):[ \t]*$", re.M)
UTF8 = re.compile(r"UTF-8 decoding error in (.+?) at byte offset (\d+) \((\w+)\)")
YAML_AT = re.compile(r"YAML parse exception at line (\d+), column (\d+)[,:]?")
XML_AT = re.compile(r"CiteprocXMLError: (\d+):\d+ \(\d+\)-\S+ \(\d+\): (.*)", re.S)
CSL_PARSE = re.compile(r"CiteprocParseError: (.*)", re.S)
QUOTED = r'"((?:[^"\\]|\\.)*)"'  # a Haskell string literal
TIMEOUT = 120  # seconds for the one pandoc run of a deck


def pandoc() -> str:
    """The pandoc to run (the `pypandoc-binary` wheel's, or a newer one on PATH); OSError
    saying why there is none."""
    try:
        import pypandoc  # noqa: PLC0415 - only decks that cite need it
    except ImportError:
        raise OSError(
            "the pypandoc-binary package is not installed (pip install pypandoc-binary)"
        ) from None
    try:
        return pypandoc.get_pandoc_path()
    except OSError:
        chosen = os.environ.get("PYPANDOC_PANDOC")
        if chosen:
            raise OSError(f"PYPANDOC_PANDOC names `{chosen}`, which does not run") from None
        raise OSError(
            "none on PATH nor in the pypandoc-binary wheel (pip install pypandoc-binary)"
        ) from None


def citations_transform(
    document: Document, config: CitationConfig, folder: Path, cache: Path | None
) -> tuple[Document, list[Diagnostic]]:
    """The document with every citation formatted (`Cite.text`, `Cite.html`), in one pandoc run
    for the deck, and the references' list (`Document.bibliography`, and its entries as text
    where a `::: {#refs}` group stands, else after the last slide's blocks); a warning at the
    line of a citation whose key the bibliography lacks."""
    if not config.bibliography:
        return document, []
    found = [p for t in texts(document) for p in t.parts if isinstance(p, Cite)]
    written = [c.written for c in found]
    formatted, references, problems = run(written, config, folder, document.lang, cache)
    first = document.slides()[0].loc if document.slides() else Loc("?", 1)
    loc = config.loc or first
    warnings = []
    for problem in problems:  # a key not found: at the line citing it
        missing = re.search(r"citation (\S+) not found", problem)
        at = next((c.loc for c in found if missing and f"@{missing.group(1)}" in c.written), loc)
        warnings.append(Diagnostic(at, "citation", problem, "warning"))
    shown = {w: f for w, f in zip(written, formatted, strict=False) if f}  # (a later one wins)

    def change(node: Any) -> Any:
        if isinstance(node, Cite) and node.written in shown:
            return replace(node, text=html_text(shown[node.written]), html=shown[node.written])
        return node

    out: Document = map_nodes(document, change) if shown else document
    entries = [html_text(e) for e in ENTRY.split(references)[1:]]
    entries = entries or ([html_text(references)] if references else [])
    if entries:
        out = _with_bibliography(out, entries)
    return replace(out, bibliography=references), warnings


CODE_SPAN = re.compile(r"(`+).*?\1", re.S)
MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def _escaped(text: str) -> str:
    return MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _with_bibliography(document: Document, entries: list[str]) -> Document:
    """The references' entries as text where a `::: {#refs}` group stands, else after the last
    slide's blocks (as the slides place them), for the outputs made from the document."""
    slides = [
        (k, j, s) for k, sec in enumerate(document.sections) for j, s in enumerate(sec.slides)
    ]
    if not slides:
        return document

    def listed(loc: Loc) -> tuple[Text, ...]:
        return tuple(Text((_escaped(e),), loc) for e in entries)

    def placed(node: Any) -> Any:
        if isinstance(node, Group) and node.attrs.get("id") == "refs" and not node.blocks:
            return replace(node, blocks=listed(node.loc))
        if isinstance(node, Group):
            return replace(node, blocks=tuple(placed(b) for b in node.blocks))
        return node

    sections = list(document.sections)
    found = False
    for k, section in enumerate(sections):
        new = []
        for slide in section.slides:
            blocks = tuple(placed(b) for b in slide.blocks)
            found = found or blocks != slide.blocks
            new.append(replace(slide, blocks=blocks))
        sections[k] = replace(section, slides=tuple(new))
    if not found:
        k, j, last = slides[-1]
        refs = Group("div", (), {"id": "refs"}, listed(last.loc), last.loc)
        section = sections[k]
        slide = replace(section.slides[j], blocks=(*section.slides[j].blocks, refs))
        sections[k] = replace(
            section, slides=(*section.slides[:j], slide, *section.slides[j + 1 :])
        )
    return replace(document, sections=tuple(sections))


def html_text(fragment: str) -> str:
    """A piece of pandoc's HTML as the text it shows (tags dropped, entities decoded, spaces
    joined)."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", "", fragment)).split())


def citations(text: str) -> list[tuple[int, int, str]]:
    """The citations written in a piece of text, in order: (start, end, as written)."""
    out = []
    taken: list[tuple[int, int]] = []
    for m in BRACKETED.finditer(text):
        keys = re.findall(r"-?@(" + KEY + ")", m.group(0))
        if keys and not all(k.startswith(CROSSREF) for k in keys):
            out.append((m.start(), m.end(), m.group(0)))
            taken.append((m.start(), m.end()))
    for m in BARE.finditer(text):
        if any(a <= m.start() < b for a, b in taken) or m.group(1).startswith(CROSSREF):
            continue
        out.append((m.start(), m.end(), m.group(0)))
    return sorted(out)


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
    loc = config.loc or Loc(display_path(folder), 1)  # where `bibliography` is written
    meta = {"bibliography": [str(f) for f in files], "lang": lang, "suppress-bibliography": False}
    if csl:
        meta["csl"] = str(csl)
    if config.nocite:
        meta["nocite"] = config.nocite
    source = "---\n" + json.dumps(meta) + "\n---\n\n"
    source += "".join(f"{c}\n\n" for c in written) + "::: {#refs}\n:::\n"
    proc = _run_pandoc(source, loc)
    problems = [
        line.removeprefix("[WARNING] ").strip() for line in proc.stderr.splitlines() if line.strip()
    ]
    if proc.returncode != 0:  # never a deck with its citations as written: an error
        raise DeckError([unreadable(proc.stderr, files, csl, loc)])
    body, _, refs = proc.stdout.partition('<div id="refs"')
    refs = refs[refs.find(">") + 1 : refs.rfind("</div>")] if refs else ""
    formatted = [m.group(1) for m in PARAGRAPH.finditer(body)]
    if len(formatted) != len(written):
        formatted = [""] * len(written)
        problems.append("the citations could not be matched with pandoc's output")
    result = (formatted, refs.strip(), problems)
    _store(cache, key.hexdigest(), result)
    return result


def _run_pandoc(source: str, loc: Loc) -> subprocess.CompletedProcess[str]:
    """Pandoc's run on `source`; pandoc missing, not runnable or too slow is an error at `loc`
    naming the cause (never a deck with its citations as written)."""
    try:
        exe = pandoc()
    except OSError as exc:
        raise DeckError([Diagnostic(loc, "citation", f"citations need pandoc: {exc}")]) from None
    try:
        proc = subprocess.run(
            [exe, "-f", "markdown", "-t", "html", "--citeproc", "--wrap=none"],
            input=source,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        if proc.returncode >= 0:
            return proc
        said = f"pandoc was killed by signal {-proc.returncode} while formatting the citations"
    except subprocess.TimeoutExpired:
        said = f"pandoc did not finish formatting the citations within {TIMEOUT:g} s (stopped)"
    except OSError as exc:
        said = f"cannot run pandoc `{exe}`: {exc.strerror or exc}"
    raise DeckError([Diagnostic(loc, "citation", said)])


def unreadable(stderr: str, files: list[Path], csl: Path | None, loc: Loc) -> Diagnostic:
    """Pandoc's error reading a bibliography or the style, in one line at that file's line (the
    line pandoc names, else 1); `loc` (where `bibliography` is written) when it names none."""
    text = stderr.strip()
    named = {str(p): p for p in [*files, *([csl] if csl else [])]}

    def at(path: Path | None, line: int, message: str, code: str = "citation") -> Diagnostic:
        return Diagnostic(Loc(display_path(path), max(line, 1)) if path else loc, code, message)

    if m := UTF8.search(text):
        path = named.get(m.group(1))
        line = path.read_bytes().count(b"\n", 0, int(m.group(2))) + 1 if path else 1
        return at(path, line, f"not UTF-8 (byte {m.group(3)}): save the file as UTF-8", "encoding")
    if m := XML_AT.search(text):
        return at(csl, int(m.group(1)), f"not a CSL style: malformed XML: {_unhaskell(m.group(2))}")
    if m := CSL_PARSE.search(text):
        return at(csl, 1, f"not a CSL style: {_one_line(m.group(1))}")
    if m := YAML_AT.search(text):  # 0-based lines; the file is not named
        yamls = [p for p in files if p.suffix.lower() in (".yaml", ".yml")] or files
        path = next((p for p in yamls if not _reads_as_yaml(p)), yamls[0])
        said = f"{_one_line(text[m.end() :])} (column {int(m.group(2)) + 1})"
        return at(path, int(m.group(1)) + 1, f"Pandoc cannot read this YAML bibliography: {said}")
    if m := READING.search(text):
        path, rest = named.get(m.group(1)), text[m.end() :]
        if p := PARSEC_AT.search(rest):  # BibTeX
            said = f"{_one_line(rest[p.end() :])} (column {p.group(2)})"
            return at(path, int(p.group(1)), f"Pandoc cannot read this bibliography: {said}")
        said = _one_line(rest)  # CSL JSON: the line of the input pandoc quotes as not read
        return at(path, _json_line(path, rest), f"Pandoc cannot read this bibliography: {said}")
    path = next((p for name, p in named.items() if name in text), None)
    return at(path, 1, f"pandoc cannot format the citations: {_one_line(text) or 'it failed'}")


def _one_line(text: str) -> str:
    said = "; ".join(line.strip() for line in text.splitlines() if line.strip())
    return said if len(said) <= 300 else said[:299] + "…"


def _unhaskell(text: str) -> str:
    """An XML error of citeproc's as readable text: its `Name {…}` and events as XML, cut
    where a Haskell value would still show."""
    text = re.sub(r'Name \{nameLocalName = "([^"]*)"[^}]*\}', r"<\1>", text)
    text = re.sub(r"EventEndElement \(<([^>]*)>\)", r"</\1>", text)
    text = re.sub(r"EventBeginElement \(<([^>]*)>\)", r"<\1>", text)
    text = re.sub(r"EventContent \(Content\w+ " + QUOTED + r"\)", r'text "\1"', text)
    text = _one_line(text)
    cut = re.search(r"[{}\[\]]| = |\b(?:Event|Content)[A-Z]\w*|\bJust\b|\bNothing\b", text)
    return (text[: cut.start()].rstrip(" :,(") if cut else text) or "not well-formed"


def _json_line(path: Path | None, said: str) -> int:
    """The line of the input pandoc quotes as `Unexpected "…"` (the rest it could not read)."""
    m = re.search(r"Unexpected " + QUOTED, said)
    if path is None or m is None or set(re.findall(r"\\(.)", m.group(1))) - set('nt"\\'):
        return 1  # (no quote, or one with escapes not worth decoding)
    rest = re.sub(r"\\(.)", lambda e: {"n": "\n", "t": "\t"}.get(e[1], e[1]), m.group(1))
    text = path.read_text("utf-8", "replace")
    if not rest or (text.count(rest) != 1 and not text.endswith(rest)):
        return 1
    at = len(text) - len(rest) if text.endswith(rest) else text.find(rest)
    return text.count("\n", 0, at) + 1


def _reads_as_yaml(path: Path) -> bool:
    import yaml  # noqa: PLC0415 - only a broken bibliography needs it

    try:
        yaml.safe_load(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return True


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
