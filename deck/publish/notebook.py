"""The notebook exporter: `<lesson>.ipynb` for students (exercises blanked), with
`<lesson>-solutions.ipynb` when the lesson has exercises, and `code/`, the lesson's own modules
and the data files its cells read, so the notebook also runs (see `deck.publish.nbcells`).
Each file is made from its own content: a notes edit keeps them all, a prose edit remakes the
notebooks only."""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any

from deck.options import Options
from deck.progress import Progress
from deck.publish.exporter import DECK, Built, Exported, file_digest
from deck.store.files import content_hash
from deck.theme import ENGINE

CODE = "code"  # dist/<lesson>/code/: the notebook's first cell makes it the working directory
IMPORTS_DECK = re.compile(r"^\s*(from|import)\s+deck\b", re.M)  # cells using `deck.show`
SKIPPED = {"__pycache__", ".ipynb_checkpoints"}


def lesson_folder(built: Built) -> Path:
    path = built.lesson.path
    return path if path.is_dir() else path.parent


def engine_modules(start: str = "deck.show") -> list[str]:
    """The engine's modules a cell's `from deck.show import …` needs (paths inside deck/),
    found by following `deck` imports from `start`: the notebook ships them in code/deck/."""
    import ast

    seen: set[str] = set()
    todo = [start, "deck"]
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
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            todo += [n for n in names if n == "deck" or n.startswith("deck.")]
    return sorted(files)


def code_files(built: Built) -> dict[str, Path]:
    """`code/<path>` → the file it copies: the lesson folder's Python modules and every file
    inside the lesson folder a section read while it ran (data, weights, subpackages), but not
    its section files and settings; the engine's `deck.show` and what it imports when a cell
    uses it."""
    folder = lesson_folder(built)
    sections = {Path(s.path).resolve() for s in built.lesson.sections}
    found: dict[str, Path] = {}
    if built.lesson.path.is_dir():
        for path in folder.glob("*.py"):
            found[path.name] = path
    uses_engine = any(
        IMPORTS_DECK.search(cell.code) for s in built.lesson.sections for cell in s.cells()
    )
    for result in built.results.values():
        for dep in result.deps:
            if dep.kind != "file" or not dep.sha256 or Path(dep.path).is_absolute():
                continue
            path = folder / dep.path
            parts = Path(dep.path).parts
            if ".." in parts or any(p in SKIPPED or p.startswith(".") for p in parts):
                continue
            if path.resolve() in sections or path.name == "lesson.yml" or not path.is_file():
                continue
            found[Path(dep.path).as_posix()] = path
    if uses_engine:
        for rel in engine_modules():
            found[rel] = ENGINE.parent / rel
    return {f"{CODE}/{rel}": found[rel] for rel in sorted(found)}


class Notebooks:
    name = "ipynb"
    why_not = "ask for ipynb (`--to`, `outputs:` in lesson.yml) to make them again"

    def __init__(self) -> None:
        self._made: tuple[Built, dict[str, bytes]] | None = None  # this build's notebooks

    def wanted(self, options: Options) -> bool:
        return options.wants("ipynb")

    def places(self, name: str, options: Options) -> dict[str, Path]:
        return {DECK: options.out / name}

    def notebook_names(self, built: Built) -> tuple[str, ...]:
        from deck.publish.nbcells import has_exercises

        name = built.lesson.name
        if has_exercises(built.lesson):
            return (f"{name}.ipynb", f"{name}-solutions.ipynb")
        return (f"{name}.ipynb",)

    def files(self, built: Built) -> tuple[str, ...]:
        return (*self.notebook_names(built), *code_files(built))

    def notebooks(self, built: Built) -> dict[str, bytes]:
        """Each notebook's bytes, made once a build (its hash is what it is made from)."""
        if self._made is not None and self._made[0] is built:
            return self._made[1]
        from deck.publish.nbcells import notebook

        made = {}
        for n, name in enumerate(self.notebook_names(built)):
            data = notebook(built.lesson, built.results, solutions=n == 1)
            made[name] = (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode()
        self._made = (built, made)
        return made

    def made_from(self, built: Built) -> dict[str, str] | None:
        if not built.results:
            return None
        made = {k: hashlib.sha256(v).hexdigest() for k, v in self.notebooks(built).items()}
        # Not wanted, an earlier build's files are kept while current: code/ with its notebook.
        with_notebook = "" if self.wanted(built.options) else "".join(made.values())
        for rel, source in code_files(built).items():
            made[rel] = content_hash(source) + with_notebook
        return made

    def digest(self, path: Path) -> str:
        return file_digest(path)

    def export(self, built: Built, todo: list[str], progress: Progress) -> Exported:
        t0 = time.perf_counter()
        staging = built.staging[DECK]
        notebooks: dict[str, Any] = self.notebooks(built)
        sources = code_files(built)
        for name in todo:
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if name in notebooks:
                target.write_bytes(notebooks[name])
            else:
                target.write_bytes(sources[name].read_bytes())
        self._made = None
        return Exported({}, time.perf_counter() - t0)
