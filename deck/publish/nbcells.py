"""A lesson as Jupyter notebook cells (nbformat 4 as plain dicts): its prose as Markdown with
the computed values filled in as text and the math left for Jupyter, its cells in order with
the outputs the build made, exercises blanked for students or kept whole for the solutions."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

from deck.model import (
    Cell,
    CellResult,
    Code,
    Columns,
    Div,
    Lesson,
    Notes,
    Pause,
    Prose,
    Quiz,
    Section,
    SectionResult,
)
from deck.render.htmltext import plain

PLACEHOLDER = re.compile("\u2063V(\\d+)\u2063")
# Markdown would read these in a computed value as markup: each is escaped, so it reads as text.
MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]|~$<>])")
SPAN = re.compile(r"\[([^\]\n]*)\]\{[^}\n]*\}")  # `[text]{.fragment}` → text
ATTRS = re.compile(r"(?<=[)\w])\{[.#][^}\n]*\}")  # `![a](x.png){width=50%}` → no attributes
EXERCISE = "exercise"  # `#| exercise: true`, `::: exercise`
STUB = {
    "zh": "# 练习：在这里写你的代码（答案见 {solutions}）\n...",
    "en": "# Exercise: write your code here (the solution is in {solutions})\n...",
}
QUIZ_ANSWER = {"zh": "答案", "en": "Answer"}
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


def language(lesson: Lesson) -> str:
    return "en" if lesson.config.lang.lower().startswith("en") else "zh"


def is_exercise(block: Any) -> bool:
    if isinstance(block, Cell):
        return block.options.get(EXERCISE) is True
    return isinstance(block, Div) and EXERCISE in block.classes


def has_exercises(lesson: Lesson) -> bool:
    return any(is_exercise(b) for s in lesson.sections for b in walk(s))


def walk(section: Section):
    from deck.model import walk_blocks

    for slide in section.slides:
        yield from walk_blocks(slide.blocks)


def escape_value(text: str) -> str:
    """A computed value as Markdown that reads exactly as the text (never as markup)."""
    return MARKDOWN_SPECIALS.sub(r"\\\1", text).replace("\n", " ")


class SectionCells:
    """The notebook cells of one section (`solutions`: exercises whole, answers shown)."""

    def __init__(self, lesson: Lesson, section: Section, result: SectionResult, solutions: bool):
        self.lesson, self.section, self.result = lesson, section, result
        self.solutions = solutions
        self.lang = language(lesson)
        self.cells: list[dict[str, Any]] = []
        self.markdown: list[str] = []
        by_cell = zip(section.cells(), result.cells, strict=True)
        self.results: dict[int, CellResult] = {id(c): r for c, r in by_cell}
        self.defaults = {"echo": section.settings.quarto, **section.settings.execute}

    # ---- text -------------------------------------------------------------------------
    def fill(self, text: str) -> str:
        def value(m: re.Match[str]) -> str:
            expr = self.section.inlines[int(m.group(1))].expr
            return escape_value(self.result.inline.get(expr, ""))

        return PLACEHOLDER.sub(value, text)

    def prose(self, text: str) -> None:
        text = ATTRS.sub("", SPAN.sub(r"\1", self.fill(text))).strip("\n")
        if text.strip():
            self.markdown.append(text)

    def flush(self) -> None:
        if self.markdown:
            self.cells.append(markdown_cell("\n\n".join(self.markdown)))
            self.markdown = []

    # ---- blocks -----------------------------------------------------------------------
    def build(self) -> list[dict[str, Any]]:
        seed = self.section.settings.seed
        self.cells.append(code_cell(f"seed_section({seed})", {"deck": {"setup": True}}, True))
        for slide in self.section.slides:
            if slide.title:
                self.markdown.append("#" * slide.level + " " + self.fill(slide.title))
            self.blocks(slide.blocks, exercise=False)
            self.flush()
        return self.cells

    def blocks(self, blocks: tuple[Any, ...], exercise: bool) -> None:
        for block in blocks:
            if isinstance(block, Prose):
                self.prose(block.text)
            elif isinstance(block, Cell):
                self.cell(block, exercise or is_exercise(block))
            elif isinstance(block, Code):
                if block.attrs.get("cell") != "true" or block.text.strip():
                    self.markdown.append(f"```{block.lang}\n{block.text}\n```")
            elif isinstance(block, Columns):
                for column in block.columns:
                    self.blocks(column.blocks, exercise)
            elif isinstance(block, Quiz):
                self.quiz(block)
            elif isinstance(block, Div):
                if "answer" in block.classes and not self.solutions:
                    continue
                self.blocks(block.blocks, exercise or is_exercise(block))
            elif isinstance(block, Notes | Pause):
                continue  # the lecturer's notes and the slides' steps stay on the slides

    def quiz(self, quiz: Quiz) -> None:
        self.prose(quiz.question)
        letters = "ABCDEFGHIJ"
        lines = [f"- {letters[k]}. {self.fill(c.text).strip()}" for k, c in enumerate(quiz.choices)]
        self.markdown.append("\n".join(lines))
        if self.solutions:
            right = [letters[k] for k, c in enumerate(quiz.choices) if c.correct]
            answer = f"**{QUIZ_ANSWER[self.lang]}: {', '.join(right) or '—'}**"
            self.markdown.append(answer)
            self.prose(quiz.explanation)

    def option(self, cell: Cell, key: str) -> Any:
        return cell.options.get(key, self.defaults.get(key))

    def cell(self, cell: Cell, exercise: bool) -> None:
        result = self.results.get(id(cell))
        if cell.replay or result is None:
            return  # (a `.qmd` part's replay of earlier cells: the notebook ran them already)
        self.flush()
        hidden = not self.option(cell, "echo") or self.option(cell, "include") is False
        meta: dict[str, Any] = {"deck": {"line": cell.loc.line, "file": cell.loc.path}}
        if hidden:  # its code is not shown on the slides
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
            if not self.solutions:
                code = stub(code, self.lang, self.lesson.name)
        if not exercise or self.solutions:
            if self.option(cell, "output") is not False:
                outputs = cell_outputs(self, cell, result)
        self.cells.append(code_cell(code, meta, False, outputs))
        caption = cell.options.get("fig-cap")
        if caption and result.figures and outputs:
            self.markdown.append(f"*{self.fill(str(caption)).strip()}*")


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
    blank = STUB[lang].format(solutions=f"{name}-solutions.ipynb")
    return f"{instructions}\n{blank}" if instructions else blank


def cell_outputs(sc: SectionCells, cell: Cell, result: CellResult) -> list[dict[str, Any]]:
    """What the build showed of the cell, as Jupyter outputs: printed text as streams, the last
    value as `text/plain` (or `text/html` where the build made HTML), figures as PNG (twice
    their size, shown at their own) and SVG."""
    outputs: list[dict[str, Any]] = []
    for output in result.outputs:
        if output.kind == "warning" and not sc.option(cell, "warning"):
            continue
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
    alt = cell.options.get("fig-alt") or cell.options.get("fig-cap") or ""
    for figure in result.figures:
        folder = Path(sc.result.figure_dir)
        width = round(figure.width_in * 96)  # CSS px, as the deck shows it
        data = {"image/svg+xml": (folder / figure.file).read_text("utf-8")}
        meta = {"image/svg+xml": {"width": width}}
        if figure.png:
            data["image/png"] = base64.b64encode((folder / figure.png).read_bytes()).decode()
            meta["image/png"] = {"width": width}
        data["text/plain"] = sc.fill(str(alt)) or figure.file
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


def notebook(lesson: Lesson, results: dict[str, SectionResult], solutions: bool) -> dict[str, Any]:
    """The whole notebook (nbformat 4.5), cells numbered with stable ids."""
    title = [f"# {lesson.title}"]
    for extra in (lesson.config.subtitle, lesson.config.author, lesson.config.date):
        if extra:
            title.append(escape_value(extra))
    cells = [markdown_cell("\n\n".join(title)), code_cell(SETUP, {"deck": {"setup": True}}, True)]
    for section in lesson.sections:
        cells += SectionCells(lesson, section, results[section.name], solutions).build()
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
            "deck": {"lesson": lesson.name, "lang": lesson.config.lang, "solutions": solutions},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def lines_of(text: str) -> list[str]:
    return text.splitlines(keepends=True)
