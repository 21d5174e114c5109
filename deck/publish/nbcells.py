"""A lesson as Jupyter notebook cells (nbformat 4 as plain dicts): its prose as Markdown with
the computed values filled in as text and the math left for Jupyter, its cells in order with
the outputs the build made, exercises blanked for students or kept whole for the solutions."""

from __future__ import annotations

import ast
import base64
import re
from pathlib import Path
from typing import Any

from deck.blocks import handler
from deck.model.document import (
    Document,
    Group,
    Inline,
    Listing,
    Node,
    ShownCell,
    Text,
    walk,
)
from deck.render.htmltext import plain
from deck.strings import strings, table_language

PLACEHOLDER = re.compile("\u2063V(\\d+)\u2063")
# Markdown would read these in a computed value as markup: each is escaped, so it reads as text.
MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]|~$<>])")
SPAN = re.compile(r"\[([^\]\n]*)\]\{[^}\n]*\}")  # `[text]{.fragment}` → text
ATTRS = re.compile(r"(?<=[)\w])\{[.#][^}\n]*\}")  # `![a](x.png){width=50%}` → no attributes
EXERCISE = "exercise"  # `#| exercise: true`, `::: exercise`
RC_FILE = "matplotlibrc"  # the deck's figure settings (fonts that draw Chinese), in code/
SETUP = '''\
# Run the cells as the build ran them: in the lesson's folder (code/ beside this notebook),
# its modules importable, and random generators seeded at each section's start (exec.seed).
import os
import sys

if os.path.isdir("code") and not globals().get("_deck_folder"):
    os.chdir("code")
_deck_folder = os.getcwd()
if _deck_folder not in sys.path:
    sys.path.insert(0, _deck_folder)
if os.path.isfile("matplotlibrc"):  # the figures' settings the deck drew with (its fonts)
    import matplotlib

    _rc = matplotlib.rc_params_from_file("matplotlibrc", use_default_template=False)
    matplotlib.rcParams.update({k: v for k, v in _rc.items() if k != "backend"})


def seed_section(seed):
    """Seed random, numpy and torch as each section's worker does: now if imported, else
    right after their first import."""
    import importlib.abc
    import importlib.machinery
    import random

    random.seed(seed)
    seeders = {
        "numpy": lambda module: module.random.seed(seed),
        "torch": lambda module: module.manual_seed(seed),
    }
    for name, seeder in list(seeders.items()):
        if name in sys.modules:
            seeder(sys.modules[name])
            del seeders[name]
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "SeedOnImport"]

    class SeedOnImport(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name not in seeders:
                return None
            seeder = seeders.pop(name)
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is None or spec.loader is None:
                return spec
            loader = spec.loader

            class Seeding(importlib.abc.Loader):
                def create_module(self, spec):
                    return loader.create_module(spec)

                def exec_module(self, module):
                    loader.exec_module(module)
                    seeder(module)

            spec.loader = Seeding()
            return spec

    if seeders:
        sys.meta_path.insert(0, SeedOnImport())
'''


def has_exercises(doc: Document) -> bool:
    return any(
        (isinstance(n, ShownCell) and n.exercise)
        or (isinstance(n, Group) and "exercise" in n.classes)
        for slide in doc.slides()
        for n in walk(slide.blocks)
    )


def escape_value(text: str) -> str:
    """A computed value as Markdown that reads exactly as the text (never as markup)."""
    return MARKDOWN_SPECIALS.sub(r"\\\1", text).replace("\n", " ")


def _value(value: Inline) -> str:
    return escape_value(value.text)


class NotebookCells:
    """The notebook's cells, written from the document (`audience`: "notebook" for students,
    exercises blanked; "solutions": exercises whole, answers shown). Each block kind writes its
    own node (`deck.blocks.handler`); prose, listings and cells are written here."""

    def __init__(self, doc: Document, solutions: bool):
        self.doc = doc
        self.audience = "solutions" if solutions else "notebook"
        self.lang = table_language(doc.lang)  # (its own words: deck/strings.py)
        self.cells: list[dict[str, Any]] = []
        self.pending: list[str] = []

    # ---- text -------------------------------------------------------------------------
    def text(self, text: Text) -> str:
        return ATTRS.sub("", SPAN.sub(r"\1", text.markdown(_value)))

    def prose(self, text: Text) -> None:
        self.markdown(self.text(text).strip("\n"))

    def markdown(self, markdown: str) -> None:
        if markdown.strip():
            self.pending.append(markdown)

    def flush(self) -> None:
        if self.pending:
            self.cells.append(markdown_cell("\n\n".join(self.pending)))
            self.pending = []

    # ---- blocks -----------------------------------------------------------------------
    def section(self, seed: int, slides: Any, setup: str = "") -> None:
        code = f"seed_section({seed})" + (f"\nfrom {setup} import *" if setup else "")
        self.cells.append(code_cell(code, {"deck": {"setup": True}}, True))
        for slide in slides:
            if slide.title is not None:
                self.markdown("#" * slide.level + " " + self.text(slide.title))
            self.nodes(slide.blocks, exercise=False)
            self.flush()

    def nodes(self, nodes: tuple[Node, ...], exercise: bool) -> None:
        for node in nodes:
            if self.audience not in getattr(node, "seen_by", (self.audience,)):
                continue  # (the lecturer's notes; an answer, in the students' notebook)
            if isinstance(node, Text):
                self.prose(node)
            elif isinstance(node, ShownCell):
                self.cell(node, exercise or node.exercise)
            elif isinstance(node, Listing):
                if not node.empty_cell:
                    self.markdown(f"```{node.lang}\n{node.text}\n```")
            else:
                handler("ipynb", node)(self, node, exercise)

    def cell(self, cell: ShownCell, exercise: bool) -> None:
        self.flush()
        meta: dict[str, Any] = {"deck": {"line": cell.loc.line, "file": cell.loc.path}}
        if not cell.echo:  # its code is not shown on the slides
            meta["deck"]["hidden"] = True
            meta["jupyter"] = {"source_hidden": True}
        if cell.label:
            meta["deck"]["label"] = cell.label
        code = cell.code.strip("\n")
        outputs: list[dict[str, Any]] = []
        if exercise:
            meta["deck"]["exercise"] = True
            meta["tags"] = [EXERCISE]
            meta.pop("jupyter", None)  # an exercise's code is the point
            if self.audience != "solutions":
                code = stub(code, self.lang, self.doc.name)
        if (not exercise or self.audience == "solutions") and cell.show_output:
            outputs = cell_outputs(self, cell)
        if code == cell.code.strip("\n"):
            code = quiet_last_value(code, cell)
        self.cells.append(code_cell(code, meta, False, outputs))
        if cell.caption is not None and cell.figures and outputs:
            self.markdown(f"*{self.text(cell.caption).strip()}*")

    def title(self) -> None:
        """The lesson's title cell, unless its first slide is its own title slide."""
        slides = self.doc.slides()
        first = slides[0] if slides else None
        own = first is not None and (
            "title-slide" in first.classes
            or (first.title is not None and self.text(first.title).strip() == self.doc.title)
        )
        if own:
            return
        title = [f"# {self.doc.title}"]
        for extra in (self.doc.subtitle, self.doc.author, self.doc.date):
            if extra:
                title.append(escape_value(extra))
        self.cells.append(markdown_cell("\n\n".join(title)))


def quiet_last_value(code: str, cell: ShownCell) -> str:
    """A cell that ends with a call the slide showed no value of (a matplotlib call's
    `<Legend at 0x…>`, which the deck hides; `print` and `display` aside) ends with `;`, so
    Jupyter hides it too."""
    if any(o.kind not in ("stdout", "warning", "error") for o in cell.outputs):
        return code
    tail = code.rstrip()
    if not tail.endswith(")") and "#" not in tail.rpartition("\n")[2]:
        return code  # (a call ends with `)`, or a comment follows it; no need to parse)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    last = tree.body[-1] if tree.body else None
    if not isinstance(last, ast.Expr) or last.end_lineno is None:
        return code
    call = last.value
    if not isinstance(call, ast.Call) or (
        isinstance(call.func, ast.Name) and call.func.id in ("print", "display")
    ):
        return code  # (a name, a literal: the slide would have shown its value)
    lines = code.split("\n")
    row, col = last.end_lineno - 1, last.end_col_offset or 0
    line = lines[row].encode()  # (ast's columns count UTF-8 bytes)
    lines[row] = (line[:col] + b";" + line[col:]).decode()
    return "\n".join(lines)


def stub(code: str, lang: str, name: str) -> str:
    """An exercise for students: its leading comments (the instructions) and a place to write."""
    lines = code.split("\n")
    head = []
    for line in lines:
        if line.startswith("#") or not line.strip():
            head.append(line)
        else:
            break
    instructions = "\n".join(head).strip("\n")
    # an exercise's place to write: a comment alone (a `...` would print `Ellipsis`)
    blank = strings(lang, "notebook")["stub"].format(solutions=f"{name}-solutions.ipynb")
    return f"{instructions}\n{blank}" if instructions else blank


def cell_outputs(nb: NotebookCells, cell: ShownCell) -> list[dict[str, Any]]:
    """What the build showed of the cell, as Jupyter outputs: printed text as streams, the last
    value as `text/plain` (or `text/html` where the build made HTML), figures as PNG (twice
    their size, shown at their own) and SVG."""
    outputs: list[dict[str, Any]] = []
    for output in cell.outputs:
        if output.kind == "stdout":
            outputs.append({"output_type": "stream", "name": "stdout", "text": output.data})
        elif output.kind in ("warning", "error"):
            outputs.append({"output_type": "stream", "name": "stderr", "text": output.data})
        elif output.kind == "html":
            data = {"text/html": output.data, "text/plain": plain(output.data)}
            outputs.append({"output_type": "display_data", "data": data, "metadata": {}})
        else:
            data = {"text/plain": output.data}
            outputs.append({"output_type": "display_data", "data": data, "metadata": {}})
    alt = cell.description.markdown(lambda v: v.text) if cell.description is not None else ""
    for figure in cell.figures:
        folder = Path(cell.figure_dir)
        width = round(figure.width_in * 96)  # CSS px, as the deck shows it
        data = {"image/svg+xml": (folder / figure.file).read_text("utf-8")}
        meta = {"image/svg+xml": {"width": width}}
        if figure.png:
            data["image/png"] = base64.b64encode((folder / figure.png).read_bytes()).decode()
            meta["image/png"] = {"width": width}
        data["text/plain"] = alt or figure.file
        outputs.append({"output_type": "display_data", "data": data, "metadata": meta})
    return outputs


def markdown_cell(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def code_cell(
    code: str, meta: dict[str, Any], setup: bool, outputs: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    if setup:
        meta = {**meta, "jupyter": {"source_hidden": True}, "tags": ["deck-setup"]}
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": meta,
        "outputs": outputs or [],
        "source": code,
    }


def notebook(doc: Document, solutions: bool) -> dict[str, Any]:
    """The whole notebook (nbformat 4.5), cells numbered with stable ids."""
    nb = NotebookCells(doc, solutions)
    nb.title()
    nb.cells.append(code_cell(SETUP, {"deck": {"setup": True}}, True))
    for section in doc.sections:
        nb.section(section.seed, section.slides, section.setup)
    cells = nb.cells
    for n, cell in enumerate(cells):
        cell["id"] = f"c{n:04d}"
        cell["source"] = lines_of(cell["source"])
        for output in cell.get("outputs", ()):
            if "text" in output:
                output["text"] = lines_of(output["text"])
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "deck": {"lesson": doc.name, "lang": doc.lang, "solutions": solutions},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def lines_of(text: str) -> list[str]:
    return text.splitlines(keepends=True)
