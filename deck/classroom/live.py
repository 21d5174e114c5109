"""Live cells: a cell shown with its code (`echo: true`), edited on the slide by the presenter
and run again while presenting. The lesson is loaded as it is, with that cell's code replaced
in memory; its section runs in a worker with the usual limits (deck.execute: the other
sections come from the cache) and the deck is rendered again; the slides whose HTML changed
(its outputs and every value computed from it) are what the room is sent. Nothing is written
to the lesson or to `OUT/<lesson>/` until the presenter saves: then the cell's lines in its
`.md` file are replaced (atomically) and the preview's watcher rebuilds as for any save.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from deck.classroom import page
from deck.classroom.room import Refused
from deck.errors import DeckError
from deck.model import Cell, Lesson
from deck.model.lesson import Columns, Div
from deck.options import Options
from deck.progress import LogOnly
from deck.source.registry import Source
from deck.store.files import write_atomic

MOST_CODE = 64 * 1024  # characters of a cell's code


@dataclass(frozen=True)
class Ran:
    """What a live run changed: the slides' new HTML (by index), the figures made anew (the
    deck's path → the file), and the problems it met (the author's, as the build words them)."""

    slides: dict[int, str]
    figures: dict[str, Path]
    errors: list[str]


def with_code(blocks: tuple[Any, ...], loc: str, code: str) -> tuple[Any, ...]:
    """`blocks` with the cell at `loc` running `code` (in columns and divs too)."""
    out = []
    for block in blocks:
        if isinstance(block, Cell) and str(block.loc) == loc:
            block = replace(block, code=code)
        elif isinstance(block, Columns):
            columns = tuple(
                replace(c, blocks=with_code(c.blocks, loc, code)) for c in block.columns
            )
            block = replace(block, columns=columns)
        elif isinstance(block, Div):
            block = replace(block, blocks=with_code(block.blocks, loc, code))
        out.append(block)
    return tuple(out)


def find_cell(lesson: Lesson, loc: str) -> Cell:
    for section in lesson.sections:
        for cell in section.cells():
            if str(cell.loc) == loc and not cell.replay:
                return cell
    raise Refused(404, f"no cell at {loc}: the lesson changed? reload the page")


def edited(lesson: Lesson, loc: str, code: str) -> Lesson:
    sections = []
    for section in lesson.sections:
        if any(str(c.loc) == loc for c in section.cells()):
            slides = tuple(
                replace(s, blocks=with_code(s.blocks, loc, code)) for s in section.slides
            )
            section = replace(section, slides=slides)
        sections.append(section)
    return replace(lesson, sections=tuple(sections))


class LiveCells:
    """Runs edited cells of the lessons the preview serves, one run at a time."""

    def __init__(self, sources: list[Source], options: Options, log: Any) -> None:
        self.sources = {source.name: source for source in sources if source.owns_folder}
        self.options = options
        self.log = log

    def has(self, lesson: str) -> bool:
        return lesson in self.sources

    def source(self, lesson: str) -> Source:
        source = self.sources.get(lesson)
        if source is None:
            raise Refused(404, f"{lesson} has no live cells (a lesson folder's only)")
        return source

    def code(self, lesson: str, loc: str) -> str:
        return find_cell(self.source(lesson).load(), loc).code

    def run(self, lesson: str, loc: str, code: str, shown: str) -> Ran:
        """Run the cell at `loc` with `code`; `shown` is the page served now."""
        from deck.execute.plan import execute
        from deck.publish.journal import output_lock
        from deck.render.deck import render_lesson

        if len(code) > MOST_CODE:
            raise Refused(413, f"a cell of at most {MOST_CODE} characters")
        source = self.source(lesson)
        options = self.options
        try:
            loaded = source.load()
            find_cell(loaded, loc)
            changed = edited(loaded, loc, code)
            with output_lock([options.out, options.figures, options.cache], self.log):
                executed = execute(changed, options, LogOnly(self.log))
                deck = render_lesson(changed, executed.results, options.cache)
        except DeckError as exc:
            return Ran({}, {}, [str(d) for d in exc.diagnostics if d.severity == "error"])
        before, after = page.sections(shown), page.sections(deck.html)
        if len(before) != len(after):
            message = "the run made the deck another number of slides: save it to rebuild"
            return Ran({}, {}, [f"{loc}: {message}"])
        figures = self.new_figures(lesson, deck.figures)
        slides = {}
        for k, (old, new) in enumerate(zip(before, after, strict=True)):
            for name, path in figures.items():  # a figure drawn anew: a URL of its own
                stamp = hashlib.blake2b(path.read_bytes(), digest_size=6).hexdigest()
                new = new.replace(f'"{name}"', f'"{name}?live={stamp}"')
            if new != old:
                slides[k] = new
        return Ran(slides, figures, [])

    def new_figures(self, lesson: str, figures: tuple[Path, ...]) -> dict[str, Path]:
        served = self.options.out / lesson / "figures"
        found = {}
        for path in figures:
            old = served / path.name
            try:
                same = old.read_bytes() == path.read_bytes()
            except OSError:
                same = False
            if not same:
                found[f"figures/{path.name}"] = path
        return found

    def save(self, lesson: str, loc: str, code: str) -> str:
        """Write `code` over the cell's lines in its file; where (`file:first-last`)."""
        source = self.source(lesson)
        cell = find_cell(source.load(), loc)
        path = source.folder / Path(cell.loc.path).name
        if not path.is_file() or path.resolve().parent != source.folder.resolve():
            raise Refused(409, f"{cell.loc.path} is not a section file of {lesson}")
        text = path.read_text("utf-8")
        lines = text.split("\n")
        first = cell.code_line - 1
        old = cell.code.split("\n")
        if lines[first : first + len(old)] != old:
            raise Refused(409, f"{cell.loc.path} changed since it was read: run the cell again")
        new = code.rstrip("\n").split("\n")
        lines[first : first + len(old)] = new
        write_atomic(path, "\n".join(lines).encode("utf-8"))
        return f"{cell.loc.path}:{cell.code_line}-{cell.code_line + len(new) - 1}"
