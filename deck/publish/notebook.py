"""The notebook exporter: `<lesson>.ipynb` for students (exercises blanked), with
`<lesson>-solutions.ipynb` when the lesson has exercises, and `code/`, the lesson's own modules
and the data files its cells read, so the notebook also runs (see `deck.publish.nbcells`).
Each file is made from its own content: a notes edit keeps them all, a prose edit remakes the
notebooks only."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from deck.errors import Diagnostic, Loc, display_path
from deck.options import Options
from deck.progress import Progress
from deck.publish.exporter import DECK, Built, Exported, file_digest
from deck.store.files import content_hash
from deck.theme import ENGINE, FREEZE_FOLDER, STATIC

if TYPE_CHECKING:
    from deck.model.document import Document
    from deck.publish.ahead import Ahead

CODE = "code"  # dist/<lesson>/code/: the notebook's first cell makes it the working directory
SKIPPED = {"__pycache__", ".ipynb_checkpoints", FREEZE_FOLDER}  # (frozen results: no input)
# `from deck.x import …` / `import deck.x, deck.y` at a line's start (a string that looks so
# only ships one module more)
DECK_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(deck[\w.]*)[ \t]+import|import[ \t]+(deck[^#\n]*))", re.M
)
RC_FILE = "matplotlibrc"  # (deck.publish.nbcells: the set-up cell applies it)


def lesson_folder(built: Built) -> Path:
    path = built.lesson.path
    return path if path.is_dir() else path.parent


def deck_imports(text: str) -> list[str]:
    """The engine's modules `text` imports (`from deck.show import …` → deck.show)."""
    found = []
    for m in DECK_IMPORT.finditer(text):  # (a line scan, not a parse: 1 ms, not 40)
        names = [m.group(1)] if m.group(1) else m.group(2).split(",")
        names = [n.strip().split(" ")[0] for n in names]
        found += [n for n in names if n == "deck" or n.startswith("deck.")]
    return found


def engine_modules(*starts: str) -> list[str]:
    """The engine's modules that cells importing `starts` (`deck.show` when none is named:
    `from deck.show import …`, `from deck.jobs import each`) need (paths inside deck/), found
    by following `deck` imports from them: the notebook ships them in code/deck/."""
    seen: set[str] = set()
    todo = [*(starts or ("deck.show",)), "deck"]
    files = []
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        rel = Path(*module.split(".")[1:])
        path = ENGINE / rel.with_suffix(".py") if rel.parts else ENGINE / "__init__.py"
        if not path.is_file():
            path = ENGINE / rel / "__init__.py"
        if not path.is_file():
            continue
        files.append(path.relative_to(ENGINE.parent).as_posix())
        parts = module.split(".")
        for k in range(2, len(parts)):  # the packages on the way
            todo.append(".".join(parts[:k]))
        todo += deck_imports(path.read_text("utf-8"))
    return sorted(files)


def links_out(folder: Path, apart: set[Path]) -> dict[str, Path]:
    """Each symlink in `folder` (its subfolders too, but not those in `apart`, the build's
    own; links not followed) pointing out of it: its path from the folder → its target."""
    root = folder.resolve()
    found = {}
    for top, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in SKIPPED and not d.startswith(".")]
        dirs[:] = [d for d in dirs if Path(top, d).resolve() not in apart]
        for name in (*dirs, *files):
            path = Path(top, name)
            if not path.is_symlink():
                continue
            try:
                target = path.resolve()
            except (OSError, RuntimeError):  # a link loop
                continue
            if target != root and root not in target.parents:
                found[path.relative_to(folder).as_posix()] = target
    return found


_SHIPPED: list[tuple[Built, tuple[dict[str, Path], list[str]]]] = []  # (this build's)


def shipped(built: Built) -> tuple[dict[str, Path], list[str]]:
    """`shipped_now`, worked out once a build (the write stage asks for it three times)."""
    if _SHIPPED and _SHIPPED[0][0] is built:
        return _SHIPPED[0][1]
    found = shipped_now(built)
    _SHIPPED[:] = [(built, found)]
    return found


def shipped_now(built: Built) -> tuple[dict[str, Path], list[str]]:
    """`code/<path>` → the file it copies: the lesson folder's Python modules and every file
    inside the lesson folder a section read while it ran (data, weights, subpackages), but not
    its section files and settings; the engine's `deck.show` and what it imports when a cell
    uses it. And the warnings: nothing from outside the lesson folder is copied, so a module
    or a file a section read through a symlink pointing out is left out, said at the link."""
    from deck.source.contain import outside  # (not on a no-change build's path)

    folder = lesson_folder(built)
    sections = {Path(s.path).resolve() for s in built.lesson.sections}
    options = built.options  # (a .qmd's folder may hold them)
    links = links_out(folder, {p.resolve() for p in (options.out, options.figures, options.cache)})
    found: dict[str, Path] = {}
    refused: dict[str, tuple[Path, set[str]]] = {}  # link → (its target, who read it)
    if built.lesson.path.is_dir():
        for path in folder.glob("*.py"):
            if path.name in links:
                refused[path.name] = (links[path.name], set())
            else:
                found[path.name] = path
    texts = [cell.code for s in built.lesson.sections for cell in s.cells()]
    texts += [path.read_text("utf-8", "replace") for path in found.values()]  # (its modules)
    imported = sorted({name for text in texts for name in deck_imports(text)})
    rel_of = {s.name: display_path(Path(s.path)) for s in built.lesson.sections}
    for name, result in built.results.items():
        for dep in result.deps:
            if dep.kind != "file" or not dep.sha256:
                continue
            if Path(dep.path).is_absolute():  # read through a link pointing out? (a link to
                read = Path(dep.path)  # the file itself, else one to a folder holding it)
                through = [k for k, t in links.items() if t == read]
                through = through or [k for k, t in links.items() if t in read.parents]
                for link in through:
                    shown = Path(link, read.relative_to(links[link])).as_posix()
                    refused.setdefault(shown, (read, set()))[1].add(rel_of.get(name, name))
                continue
            path = folder / dep.path
            parts = Path(dep.path).parts
            if ".." in parts or any(p in SKIPPED or p.startswith(".") for p in parts):
                continue
            if path.resolve() in sections or path.name == "lesson.yml" or not path.is_file():
                continue
            if not outside(folder, quote(Path(dep.path).as_posix())):
                found[Path(dep.path).as_posix()] = path
    if imported:
        for rel in engine_modules(*imported):
            found[rel] = ENGINE.parent / rel
    if draws_figures(built):
        found[RC_FILE] = STATIC / "matplotlibrc"
    warnings = []
    for link, (target, readers) in sorted(refused.items()):
        by = f", read by {', '.join(sorted(readers))}" if readers else ""
        message = (
            f"a symlink pointing out of the lesson folder (to {target}){by}: not copied into "
            "the notebook's code/ (nothing from outside goes into an output)"
        )
        at = Loc(f"{display_path(folder)}/{link}", 1)  # (the link's path, not its target's)
        warnings.append(str(Diagnostic(at, "path", message, "warning")))
    return {f"{CODE}/{rel}": found[rel] for rel in sorted(found)}, warnings


def document_of(built: Built) -> Document:
    if built.deck.document is None:
        raise ValueError("the notebook is made from the rendered deck's document")
    return built.deck.document


def draws_figures(built: Built) -> bool:
    """Whether a cell drew a figure or uses matplotlib: then code/ holds the deck's figure
    settings (`matplotlibrc`: the fonts that draw Chinese), applied by the notebook's set-up."""
    if any(c.figures for r in built.results.values() for c in r.cells):
        return True
    return any("matplotlib" in c.code for s in built.lesson.sections for c in s.cells())


def code_files(built: Built) -> dict[str, Path]:
    """What `code/` holds (`shipped`)."""
    return shipped(built)[0]


REQUIREMENTS = f"{CODE}/requirements.txt"
_REQUIRED: list[tuple[Built, str]] = []  # (this build's)


def required(built: Built) -> str:
    """`code/requirements.txt`'s text ("": none), worked out once a build; an author's own
    requirements.txt that a section read is shipped as it is instead."""
    if _REQUIRED and _REQUIRED[0][0] is built:
        return _REQUIRED[0][1]
    from deck.publish.nbrequirements import requirements

    text = "" if REQUIREMENTS in code_files(built) else requirements(built)
    _REQUIRED[:] = [(built, text)]
    return text


# the notebooks' bytes by name; what code/ copies (`shipped`); requirements.txt's text
Made = tuple[dict[str, bytes], tuple[dict[str, Path], list[str]], str]


class Notebooks:
    name = "ipynb"
    why_not = "ask for ipynb (`--to`, `outputs:` in lesson.yml) to make them again"

    def __init__(self) -> None:
        self._made: tuple[Built, dict[str, bytes]] | None = None  # this build's notebooks
        self._ahead: tuple[Built, Ahead[Made]] | None = None  # (being made beside)

    def wanted(self, options: Options) -> bool:
        return options.wants("ipynb")

    def places(self, name: str, options: Options) -> dict[str, Path]:
        return {DECK: options.out / name}

    def notebook_names(self, built: Built) -> tuple[str, ...]:
        from deck.publish.nbcells import has_exercises

        name = built.lesson.name
        if has_exercises(document_of(built)):
            return (f"{name}.ipynb", f"{name}-solutions.ipynb")
        return (f"{name}.ipynb",)

    def files(self, built: Built) -> tuple[str, ...]:
        self._take(built)
        made = (REQUIREMENTS,) if required(built) else ()
        return (*self.notebook_names(built), *code_files(built), *made)

    def ahead(self, built: Built) -> None:
        """Starts making the notebooks beside the build (`deck.publish.ahead`), while the deck
        is staged: `notebooks` takes them."""
        if self.wanted(built.options) and built.results:
            from deck.publish.ahead import Ahead
            from deck.publish.nbcells import notebook  # noqa: F401 (imported here, not there)

            started = Ahead(lambda: (self._make(built), shipped(built), required(built)))
            built.beside.append(started)
            self._ahead = (built, started)

    def _take(self, built: Built) -> None:
        """What was made beside the build, once it is asked for: the notebooks, and what
        code/ and its requirements.txt hold."""
        if self._ahead is None or self._ahead[0] is not built:
            return
        made, found, text = self._ahead[1].result()
        self._ahead = None
        self._made = (built, made)
        _SHIPPED[:] = [(built, found)]
        _REQUIRED[:] = [(built, text)]

    def notebooks(self, built: Built) -> dict[str, bytes]:
        """Each notebook's bytes, made once a build (its hash is what it is made from)."""
        self._take(built)
        if self._made is not None and self._made[0] is built:
            return self._made[1]
        made = self._make(built)
        self._made = (built, made)
        return made

    def _make(self, built: Built) -> dict[str, bytes]:
        from deck.publish.nbcells import notebook

        made = {}
        for n, name in enumerate(self.notebook_names(built)):
            data = notebook(document_of(built), solutions=n == 1)
            made[name] = (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode()
        return made

    def made_from(self, built: Built) -> dict[str, str] | None:
        if not built.results:
            return None
        made = {k: hashlib.sha256(v).hexdigest() for k, v in self.notebooks(built).items()}
        sources, warnings = shipped(built)
        if warnings:  # (said with the notebook: made again when they change)
            first = self.notebook_names(built)[0]
            made[first] += hashlib.sha256("\n".join(warnings).encode()).hexdigest()
        # Not wanted, an earlier build's files are kept while current: code/ with its notebook.
        with_notebook = "" if self.wanted(built.options) else "".join(made.values())
        for rel, source in sources.items():
            made[rel] = content_hash(source) + with_notebook
        if required(built):
            made[REQUIREMENTS] = hashlib.sha256(required(built).encode()).hexdigest()
            made[REQUIREMENTS] += with_notebook  # (kept with its notebook, as code/ is)
        return made

    def digest(self, path: Path) -> str:
        return file_digest(path)

    def export(self, built: Built, todo: list[str], progress: Progress) -> Exported:
        t0 = time.perf_counter()
        staging = built.staging[DECK]
        notebooks: dict[str, Any] = self.notebooks(built)
        sources, warnings = shipped(built)
        for name in todo:
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if name in notebooks:
                target.write_bytes(notebooks[name])
            elif name == REQUIREMENTS and name not in sources:
                target.write_text(required(built), "utf-8")
            else:
                target.write_bytes(sources[name].read_bytes())
        self._made = None
        said = {self.notebook_names(built)[0]: warnings} if warnings else {}
        return Exported(said, time.perf_counter() - t0)
