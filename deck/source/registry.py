"""The kinds of input a build reads, one `Source` each: how a name on the command line is
claimed, what it is built as, which files it reads, and how it is loaded.

Adding an input kind is one class here and one entry in `SOURCES`. Loading imports the parser
only when called, so the no-change check (which asks only for `inputs`) stays light.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from deck.options import UsageError
from deck.theme import FREEZE_FOLDER

if TYPE_CHECKING:
    from deck.model import Lesson

LESSON_NAME = re.compile(r"[^\W][\w.-]*")
SKIP_PARTS = {"__pycache__", ".pytest_cache", ".ruff_cache"}
PROJECT_FILES = ("_quarto.yml", "_quarto.yaml")  # read beside a lesson (deck.source.lessonyml)
# A .qmd's inputs besides itself and `_metadata.yml`: files of these kinds in its folder (and
# its Python packages' modules), and any such file it names in a subfolder.
QMD_INPUTS = {".py", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".css", ".scss", ".sass"}
NAMED_FILE = re.compile(
    r"[\w./@%-]+\.(?:png|jpe?g|gif|svg|webp|s?css|py|qmd|md|html?|bib|csl|json|ya?ml|mp4|webm|ogv|mov|m4v|ipynb)\b",
    re.I,
)
INCLUDED = (".qmd", ".md")  # named files that are read as text: what they name counts too


JUPYTER_KEY = re.compile(
    r"^jupyter:\s*(?:\n\s+kernelspec:\s*\n(?:\s+\w+:.*\n)*?\s+name:)?\s*[\"']?([\w.-]+)", re.M
)


def interpreter_input(text: str) -> str:
    """Which interpreter runs the cells (`deck.interpreter`), and that file's identity:
    choosing another one (QUARTO_PYTHON, a kernel, an activated environment) rebuilds."""
    from deck.interpreter import author_python

    found = JUPYTER_KEY.search(text)
    python = author_python(found.group(1) if found else None).path
    try:
        st = os.stat(python)
        ident = f"{os.path.realpath(python)}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"
    except OSError:
        ident = "missing"
    return hashlib.sha256(f"{python}\0{ident}".encode()).hexdigest()


def environment_inputs(texts: list[str]) -> dict[str, str]:
    """`$NAME` → a digest of the variable's value, for each `{{< env NAME >}}` the texts read:
    the no-change check sees a changed (or unset) variable as a changed input."""
    from deck.source.shortcodes import env_names

    names = sorted({n for text in texts for n in env_names(text)})
    return {f"${n}": hashlib.sha256(repr(os.environ.get(n)).encode()).hexdigest() for n in names}


class FileHasher(Protocol):
    def file(self, path: Path) -> str: ...

    def tree(self, folder: Path) -> dict[str, str]: ...


class Source(Protocol):
    """One input of a build (its sources are frozen dataclasses: read-only members)."""

    @property
    def name(self) -> str:
        """What it is built as: dist/<name>/."""
        ...

    @property
    def path(self) -> Path:
        """The lesson folder, or the file."""
        ...

    @property
    def owns_folder(self) -> bool:
        """All of `folder` is its source (else output folders may lie inside it)."""
        ...

    @property
    def in_content(self) -> bool:
        """Named by its folder in the content folder (else by its own path)."""
        ...

    def load(self) -> Lesson:
        """The lesson, parsed; raises DeckError with every problem found."""
        ...

    def inputs(self, hasher: FileHasher) -> dict[str, str]:
        """Every file a build of it reads (relative path → hash), its cache entries apart."""
        ...

    def is_input(self, path: Path) -> bool:
        """Whether a change of `path` calls for a rebuild (the preview's watcher asks)."""
        ...

    @property
    def folder(self) -> Path:
        """The folder holding it: watched by the preview, never an output folder."""
        ...


def hidden(parts: tuple[str, ...]) -> bool:
    return any(p.startswith((".", "#")) or p == "__pycache__" or p.endswith("~") for p in parts)


@dataclass(frozen=True)
class LessonFolder:
    """`content/<name>/`: `lesson.yml`, section files `NN-name.md`, the lesson's modules."""

    name: str
    path: Path
    owns_folder: bool = True
    in_content: bool = True

    @staticmethod
    def claims(name: str) -> bool:
        return True  # the default: a plain name is a lesson folder's

    @staticmethod
    def named(name: str, content: Path) -> LessonFolder:
        if not LESSON_NAME.fullmatch(name) or name in (".", ".."):
            raise UsageError(
                f"lesson name {name!r} must be a plain folder name inside the content folder "
                "(letters, digits, -, _, .; no /, no ..)"
            )
        return LessonFolder(name, content / name)

    @property
    def folder(self) -> Path:
        return self.path

    def load(self) -> Lesson:
        from deck.source.folder import load_lesson

        return load_lesson(self.path)

    def inputs(self, hasher: FileHasher) -> dict[str, str]:
        """The folder's files but its frozen results (a section taken from them depends on
        its own file: deck.store.frozen), and a `_quarto.yml` in `content/` (its options
        apply)."""
        texts = [p.read_text("utf-8", "replace") for p in sorted(self.path.glob("*.md"))]
        tree = hasher.tree(self.path)
        files = {k: v for k, v in tree.items() if not k.startswith(f"{FREEZE_FOLDER}/")}
        files.update(environment_inputs(texts))
        for name in PROJECT_FILES:
            files["$project:" + name] = hasher.file(self.path.parent / name)
        return files

    def is_input(self, path: Path) -> bool:
        if path.parent == self.path.parent and path.name in PROJECT_FILES:
            return True  # `content/_quarto.yml`
        try:
            parts = path.relative_to(self.path).parts
        except ValueError:
            return False
        return not hidden(parts) and parts[:1] != (FREEZE_FOLDER,)


@dataclass(frozen=True)
class QmdFile:
    """A Quarto file, `path/to/talk.qmd` → `dist/talk/`, read as Quarto reads it."""

    name: str
    path: Path
    owns_folder: bool = False  # (as Quarto's _site/, a dist/ may lie beside the .qmd)
    in_content: bool = False

    @staticmethod
    def claims(name: str) -> bool:
        return name.endswith(".qmd")

    @staticmethod
    def named(name: str, content: Path) -> QmdFile:
        stem = Path(name).stem
        if not LESSON_NAME.fullmatch(stem):
            raise UsageError(
                f"{name}: the file name must be a plain name (letters, digits, -, _, .): "
                f"it names the output folder"
            )
        return QmdFile(stem, Path(name))

    @property
    def folder(self) -> Path:
        return self.path.parent

    def load(self) -> Lesson:
        from deck.source.qmd import load_qmd

        return load_qmd(self.path)

    def inputs(self, hasher: FileHasher) -> dict[str, str]:
        """The file, `_metadata.yml`, the `.py` modules, images and stylesheets in its folder,
        and those it names in subfolders; not the rest of the folder (it may hold anything,
        its own dist/ too)."""
        qmd, folder = self.path, self.path.parent
        files = {
            qmd.name: hasher.file(qmd),
            "_metadata.yml": hasher.file(folder / "_metadata.yml"),
            "_variables.yml": hasher.file(folder / "_variables.yml"),
        }
        from deck.source.projectfind import find_project  # (light: no settings read)

        project = find_project(qmd)
        if project is not None:  # the project's options apply to the file, and its files
            files["$project:" + str(project)] = hasher.file(project)
            for path in project_files(project):
                files[Path(os.path.relpath(path, folder)).as_posix()] = hasher.file(path)

        def add(path: Path) -> None:
            files[path.relative_to(folder).as_posix()] = hasher.file(path)

        def modules(package: Path) -> None:
            for path in sorted(package.iterdir()):
                if path.name.startswith(".") or path.name in SKIP_PARTS:
                    continue
                if path.is_dir() and (path / "__init__.py").is_file():
                    modules(path)
                elif path.suffix == ".py" and path.is_file():
                    add(path)

        modules(folder)
        for path in sorted(folder.iterdir()):
            if path.suffix.lower() in QMD_INPUTS and path.is_file():
                add(path)
        for name in sorted(self.named_files()):
            files.setdefault(name, hasher.file(folder / name))  # "missing" when not there
        texts = [t for _, t in self.texts()]
        return {**files, **environment_inputs(texts), "$python": interpreter_input(texts[0])}

    def texts(self) -> list[tuple[Path, str]]:
        """The file and the files it includes (`.qmd`, `.md` it names), with their text."""
        found, seen = [self.path], {self.path.resolve()}
        out: list[tuple[Path, str]] = []
        while found and len(out) < 200:
            path = found.pop()
            try:
                text = path.read_text("utf-8", errors="replace")
            except OSError:
                continue
            out.append((path, text))
            for name in NAMED_FILE.findall(text):
                nested = path.parent / name
                if nested.suffix.lower() in INCLUDED and nested.is_file():
                    if nested.resolve() not in seen:
                        seen.add(nested.resolve())
                        found.append(nested)
        return out

    def named_files(self) -> set[str]:
        """Files the .qmd (and the files it includes) name, relative to its folder."""
        folder = self.path.parent
        return {
            Path(os.path.relpath(path.parent / name, folder)).as_posix()
            for path, text in self.texts()
            for name in NAMED_FILE.findall(text)
        }

    def is_input(self, path: Path) -> bool:
        """The .qmd itself, `_metadata.yml`, and beside it the modules, images and
        stylesheets; in subfolders, its packages' modules and the files it names; its
        project's `_quarto.yml` and the files that names."""
        from deck.source.projectfind import find_project

        folder = self.path.parent
        project = find_project(self.path)
        if project is not None:
            there = Path(os.path.abspath(path))
            if there in (Path(os.path.abspath(project)), *project_files(project)):
                return True
        try:
            parts = path.relative_to(folder).parts
        except ValueError:
            return False
        if hidden(parts):
            return False
        if path == self.path or parts == ("_metadata.yml",):
            return True
        if len(parts) == 1:
            return path.suffix.lower() in QMD_INPUTS or parts[0] in self.named_files()
        if path.suffix == ".py":  # inside packages: every folder on the way has __init__.py
            return all(
                (folder.joinpath(*parts[:k]) / "__init__.py").exists() for k in range(1, len(parts))
            )
        return "/".join(parts) in self.named_files()


def project_files(project: Path) -> list[Path]:
    """The files a project's `_quarto.yml` names (its `bibliography`, `css`, `include-*`
    files, a theme's `.scss`, the logo…), read from its folder as Quarto reads them (`/x`: the
    project's `x`), absolute; not the pages a website's navigation names (`.qmd`, `.md`,
    `.ipynb`: the project's other documents), nor a file that would leave the project (loading
    reports it)."""
    try:
        text = project.read_text("utf-8", errors="replace")
    except OSError:
        return []
    root = Path(os.path.abspath(project.parent))
    found: dict[Path, None] = {}
    for name in NAMED_FILE.findall(text):
        path = Path(os.path.normpath(root / name.lstrip("/")))
        if path.suffix.lower() in (*INCLUDED, ".ipynb"):
            continue
        if path != Path(os.path.abspath(project)) and path.is_relative_to(root):
            found[path] = None
    return list(found)


# The input kinds, asked in order: the first that claims a name reads it.
SOURCES: tuple[type[QmdFile] | type[LessonFolder], ...] = (QmdFile, LessonFolder)


def source_for(name: str, content: Path) -> Source:
    """The source a command-line name means; UsageError when it cannot be one."""
    kind = next(k for k in SOURCES if k.claims(name))
    return kind.named(name, content)


def sources_for(names: list[str], content: Path) -> list[Source]:
    sources = [source_for(name, content) for name in names]
    built = [s.name for s in sources]
    twice = sorted({n for n in built if built.count(n) > 1})
    if twice:
        raise UsageError(f"two inputs would both be built into {', '.join(twice)}")
    return sources
