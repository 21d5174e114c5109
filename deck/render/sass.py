"""A Quarto theme's own `.scss` files (`theme: [dark, custom.scss]`, or `theme: custom.scss`
over `default`), compiled with dart-sass (the npm `sass` package, run by Node at build time,
offline) into one stylesheet over the deck.

Layered as Quarto layers them: the base theme (`deck/static/quarto-themes/NAME.scss`, its
palette and fonts as quarto.css draws it) is the first layer, the author's files the next,
over Quarto's theme variables and the rules that draw the deck with them
(`deck/static/quarto-theme.scss`: `$body-bg`, `$text-muted`, `$link-color`,
`$presentation-heading-font`, `$code-block-bg`…). Each file's `/*-- scss:uses|functions|
defaults|mixins|rules --*/` sections are gathered by kind: the uses, functions, mixins and
rules base first, then each file in order; the defaults the other way (the last file's first,
the base theme's, then the variables' own `!default`s), so the author's values win and their
rules may read every variable. A font imported from the web cannot load offline: the import
is dropped; its fonts ship with the deck where this machine or a font package has them
(`deck.render.themefonts`), else a warning names what stands in. Its `@import`/`@use` load
only files inside the project folder (the importer of `sass_compile.cjs`), resolved as
dart-sass resolves them: relative to the importing file, then the theme files' folders
(Quarto's load paths), then the project folder; every error is at the author's file and line
(one in Quarto's variables at the author's line setting a value they read). Results are cached
by what went in: the text compiled (every layer), and each file the importer loaded (checked
by content on reuse) or looked for and did not find.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from deck.errors import Diagnostic, Loc
from deck.render.themefonts import available, imported_families, substitute
from deck.store.files import write_atomic
from deck.theme import DARK_CODE_STYLE, NODE_MODULES, STATIC, code_colours

SCRIPT = STATIC / "sass_compile.cjs"
SECTION = re.compile(r"^/\*--\s*scss:(\w+)\s*--\*/\s*$", re.M)
WEB_IMPORT = re.compile(r"""^\s*@import\s+url\(\s*["']?(https?:[^)"']+)["']?\s*\)\s*;?\s*$""", re.M)

# Quarto's revealjs theme variables and the rules that draw the deck with them (as Quarto's
# `quarto.scss`), and each base theme as a Quarto theme file (as Quarto's `themes/*.scss`).
VARIABLES = STATIC / "quarto-theme.scss"
BASES = STATIC / "quarto-themes"
KINDS = ("uses", "functions", "defaults", "mixins", "rules")


def sections(text: str) -> list[tuple[str, int, str]]:
    """A Quarto `.scss` cut at its `/*-- scss:… --*/` lines (text before the first: rules), as
    (section, line its text starts at, text)."""
    marks = list(SECTION.finditer(text))
    if not marks:
        return [("rules", 1, text)]
    found = [("rules", 1, text[: marks[0].start()])]
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        found.append((m.group(1), text.count("\n", 0, m.end()) + 1, text[m.end() : end]))
    return found


def decoded(data: bytes, shown: str) -> str | Diagnostic:
    """A theme file's text (UTF-8, a byte-order mark allowed), or the error at the line of its
    first byte that is not UTF-8 (`shown`: its path as messages name it)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        message = f"not UTF-8 (byte {data[exc.start : exc.end].hex(' ')}): save the file as UTF-8"
        return Diagnostic(Loc(shown, line), "encoding", message)


def web_import_note(url: str) -> str | None:
    """What becomes of a web `@import`: None when every font it asks for ships with the deck
    (installed here, or from its npm package); else the warning saying what stands in."""
    families = imported_families(url)
    missing = [f for f in families if not available(f)]
    if families and not missing:
        return None  # shipped (deck.publish.fonts subsets them into the deck)
    if not families:
        return f"`{url}` is on the web and is not loaded (the deck is offline)"
    said = "; ".join(
        f"`{f}` is not installed here nor in a font package: {substitute(f)} stands in"
        for f in missing
    )
    return f"`{url}` is on the web and is not loaded (the deck is offline): {said}"


def web_fonts(files: tuple[str, ...], folder: Path) -> list[str]:
    """The font families the author's theme files import from the web (Google Fonts)."""
    found: list[str] = []
    for name in files:
        try:
            text = (folder / name).read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for m in WEB_IMPORT.finditer(text):
            found += [f for f in imported_families(m.group(1)) if f not in found]
    return found


Piece = tuple[str | None, int, str]  # (the author's file, or None for the engine's; line; text)


Layer = tuple[str | None, list[tuple[str, int, str]]]  # (its file, or None; its sections)


def layered(base: str, layers: list[Layer]) -> list[Piece]:
    """The pieces compiled, as Quarto layers them: Quarto's theme variables (VARIABLES), the
    base theme (`base`: one of BASES, as `theme:` names it) and the author's `layers` (in
    `theme:`'s order). Uses, mixins and rules run in that order (functions too, the
    variables' own last); defaults the other way: the last file's first, then the earlier
    files', the base theme's and the variables' own, so that with `!default` the author's
    values win."""
    engine: list[Layer] = [(None, sections(VARIABLES.read_text("utf-8")))]
    if (BASES / f"{base}.scss").is_file():
        engine.append((None, sections((BASES / f"{base}.scss").read_text("utf-8"))))
    order = [*engine, *layers]

    def of(kind: str, order: list[Layer]) -> list[Piece]:
        return [(name, line, text) for name, cut in order for key, line, text in cut if key == kind]

    # (the variables' own functions after the others: an author's `@use` may open theirs)
    functions = of("functions", [*order[1:], order[0]])
    defaults = of("defaults", order[::-1])
    # code coloured for a dark page, as the built-in dark themes colour it (deck.theme)
    scope = ("html.deck-theme-custom .reveal .highlight",)
    dark = (None, 0, "@if $deck-dark {\n" + code_colours(scope, DARK_CODE_STYLE) + "}\n")
    rules = [*of("rules", order), dark]
    return [*of("uses", order), *functions, *defaults, *of("mixins", order), *rules]


def compile_theme(
    files: tuple[str, ...], folder: Path, loc: Loc, cache: Path | None, base: str = "default"
) -> tuple[str | None, list[Diagnostic]]:
    """The CSS of the author's theme files over the base theme `base` and the deck, or None
    with the errors (each at its file's line: `loc` is the folder as messages name it)."""
    problems: list[Diagnostic] = []
    layers: list[Layer] = []
    css = ""
    for name in files:
        shown = str(Path(loc.path) / name)
        text = decoded((folder / name).read_bytes(), shown)
        if isinstance(text, Diagnostic):
            problems.append(text)
            continue
        for m in WEB_IMPORT.finditer(text):
            at = Loc(shown, text.count("\n", 0, m.start()) + 1)
            message = web_import_note(m.group(1))
            if message:
                problems.append(Diagnostic(at, "theme", message, "warning"))
        text = WEB_IMPORT.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # lines kept
        if name.lower().endswith(".css"):
            css += text + "\n"
            continue
        for m in SECTION.finditer(text):
            if m.group(1) not in KINDS:
                message = (
                    f"`scss:{m.group(1)}` is not one of Quarto's sections "
                    f"({', '.join(KINDS)}): its text is not compiled"
                )
                at = Loc(shown, text.count("\n", 0, m.start()) + 1)
                problems.append(Diagnostic(at, "theme", message, "warning"))
        layers.append((name, sections(text)))
    if any(p.severity == "error" for p in problems):
        return None, problems
    pieces = layered(base, layers)
    scss = "".join(text + "\n" for _, _, text in pieces)
    # the load paths (as Quarto's): each .scss theme file's folder, in order
    paths = [str((folder / n).parent) for n in files if not n.lower().endswith(".css")]
    paths = list(dict.fromkeys(paths))
    where = [os.path.relpath(p, folder) for p in paths]
    inputs = [scss, css, where, str(folder.resolve()), sass_version(), _script_digest()]
    key = hashlib.sha256(json.dumps(inputs).encode()).hexdigest()
    stored = _cached(cache, key)  # (with every file it loaded as it was)
    if stored is not None:
        return stored + css, problems
    node = shutil.which("node")
    if node is None or not (NODE_MODULES / "sass").is_dir():
        problems.append(
            Diagnostic(loc, "theme", "a .scss theme needs Node.js and `npm ci` (the sass package)")
        )
        return None, problems
    proc = subprocess.run(
        [node, str(SCRIPT), str(NODE_MODULES / "sass")],
        input=json.dumps({"scss": scss, "root": str(folder), "paths": paths}),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    try:
        result = json.loads(proc.stdout)
    except ValueError:
        result = {"error": proc.stderr.strip() or "dart-sass failed"}
    if "css" not in result:
        problems.append(failure(result, pieces, folder, loc))
        return None, problems
    _store(cache, key, folder, result["css"], result.get("loaded") or {})
    return result["css"] + css, problems


def failure(result: dict, pieces: list[Piece], folder: Path, loc: Loc) -> Diagnostic:
    """sass_compile.cjs's error as a diagnostic at the author's file and line: the file it
    names (a partial imported from the folder), else the theme file whose piece of the text
    compiled holds the line."""

    def shown(path: str) -> str:
        return str(Path(loc.path) / os.path.relpath(path, folder.resolve()))

    if result.get("encoding"):
        path = Path(result["encoding"])
        text = decoded(path.read_bytes(), shown(str(path)))
        if isinstance(text, Diagnostic):
            return text
    line, note = int(result.get("line") or 0), ""
    if result.get("file"):
        at = Loc(shown(result["file"]), max(line, 1))
    else:
        at, engine = _holding(pieces, line, loc)
        if engine is not None:  # Quarto's variables failed (on a value the author set?)
            at, set_at = _setting(pieces, engine, at, loc)
            note = f" (in Quarto's theme variables: `{engine.strip()}`" + (
                f", with {set_at})" if set_at else ")"
            )
    written = f"`{result['text']}`" if result.get("text") else ""
    written = f"`{result['text']}`" if result.get("text") else ""
    if result.get("outside"):
        quoted = re.search(r"[\"']([^\"']*)[\"']", str(result.get("text") or ""))
        url = quoted.group(1) if quoted else str(result.get("text") or "")
        message = (
            f"import `{url}` loads `{result['outside']}`, outside the project folder {folder}: a "
            "theme imports only files inside it (copy the file into the folder)"
        )
        return Diagnostic(at, "path", message)
    said = f"{result.get('error') or 'failed'}" + (f": {written}" if written else "")
    return Diagnostic(at, "theme", f"dart-sass: {said}{note}")


def _holding(pieces: list[Piece], line: int, loc: Loc) -> tuple[Loc, str | None]:
    """Where line `line` of the text compiled was written: the author's file and line, or
    (for the engine's text) the first author file's first line and that line's text."""
    named = next((n for n, _, _ in pieces if n), None)
    fallback = Loc(str(Path(loc.path) / named), 1) if named else loc
    at, engine, start = fallback, None, 1
    for name, first, text in pieces:  # the piece holding the line (the last, at the end)
        if start <= line:
            lines = text.splitlines() or [""]
            local = min(line - start, len(lines) - 1)
            at = Loc(str(Path(loc.path) / name), first + local) if name else fallback
            engine = None if name else lines[local]
        start += text.count("\n") + 1
    return at, engine


def _setting(pieces: list[Piece], engine: str, at: Loc, loc: Loc) -> tuple[Loc, str]:
    """The author's line setting a variable the failing engine line `engine` reads (the first
    compiled: theirs win), and how the message names it; else `at` and ""."""
    assigned = re.match(r"\s*\$([\w-]+)\s*:", engine)
    read = [v for v in re.findall(r"\$([\w-]+)", engine) if not assigned or v != assigned[1]]
    for name, first, text in pieces:
        if name is None:
            continue
        for k, written in enumerate(text.splitlines()):
            m = re.match(r"\s*\$([\w-]+)\s*:", written)
            if m and m[1] in read:
                return Loc(str(Path(loc.path) / name), first + k), f"`${m[1]}` as set here"
    return at, ""


def sass_version() -> str:
    try:
        return json.loads((NODE_MODULES / "sass" / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return "?"


def _script_digest() -> str:
    """The importer's rules (what a URL loads) are an input too."""
    try:
        return hashlib.sha256(SCRIPT.read_bytes()).hexdigest()
    except OSError:
        return "?"


# `sass.json` in the cache: {"entries": {key: {"folder", "css", "loaded"}}}, the last KEPT
# compiles; "loaded" is sass_compile.cjs's: each file the importer read → the sha256 of what it
# read, or None for a place it looked at and found no file.
KEPT = 16


def _entries(cache: Path | None) -> dict[str, dict]:
    if cache is None:
        return {}
    try:
        data = json.loads((cache / "sass.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    found = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(v, dict)}


def _cached(cache: Path | None, key: str) -> str | None:
    """The CSS compiled for `key`, while every file it loaded holds what it held then (by
    content: a same-size edit with its mtime set back is seen) and none has appeared where the
    importer found none."""
    entry = _entries(cache).get(key)
    if entry is None or not isinstance(entry.get("css"), str):
        return None
    return entry["css"] if _holds(entry.get("loaded")) else None


def _holds(loaded: object) -> bool:
    if not isinstance(loaded, dict):
        return False
    for name, sha in loaded.items():
        path = Path(name)
        if sha is None:
            if path.is_file():
                return False
            continue
        try:
            if hashlib.sha256(path.read_bytes()).hexdigest() != sha:
                return False
        except OSError:
            return False
    return True


def _store(cache: Path | None, key: str, folder: Path, css: str, loaded: dict) -> None:
    if cache is None:
        return
    entries = _entries(cache)
    entries.pop(key, None)
    entries[key] = {"folder": str(folder.resolve()), "css": css, "loaded": loaded}
    kept = dict(list(entries.items())[-KEPT:])
    cache.mkdir(parents=True, exist_ok=True)
    write_atomic(cache / "sass.json", json.dumps({"entries": kept}).encode())


def theme_inputs(cache: Path, folder: Path) -> list[Path]:
    """The files the theme compiles of `folder` kept in `cache` loaded, and the places they
    looked at and found none ("missing" to a hasher): what a no-change check must hash besides
    the lesson's own inputs (a `.qmd`'s are not every file its folder holds)."""
    where = str(folder.resolve())
    found = {
        Path(name)
        for entry in _entries(cache).values()
        if entry.get("folder") == where and isinstance(entry.get("loaded"), dict)
        for name in entry["loaded"]
    }
    return sorted(found)
