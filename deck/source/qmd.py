"""Loading a Quarto file: `talk.qmd` → a `Lesson`, as `load_lesson` makes one of a folder.

- Its front matter, with `_metadata.yml` beside it merged under it (as Quarto does), checked
  against Quarto's reveal.js options (`deck.source.qmdconfig`); a title makes the title slide.
- The file is cut into parts, the build's cache sections: at each `#` heading, or every
  `SLIDES_PER_PART` slides when it has none. Each part is parsed from the file's own lines, so
  every `Loc` is a real line of the `.qmd`.
- One Python session runs a Quarto file top to bottom; here each part runs in its own
  process, after running again the earlier cells it depends on (`deck.source.replay`).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import yaml

from deck.blocks import kind_for
from deck.blocks.base import Opening
from deck.blocks.visibility import KIND as VISIBILITY
from deck.blocks.visibility import drop_hidden_slides, shown
from deck.errors import DeckError, Diagnostic
from deck.interpreter import author_python
from deck.model import (
    Block,
    Cell,
    Column,
    Columns,
    Div,
    InlineExpr,
    Lesson,
    LessonConfig,
    Loc,
    Section,
    SectionSettings,
    Slide,
    walk_blocks,
)
from deck.source.attributes import parse_attrs
from deck.source.contain import escapes
from deck.source.deckwide import read_includes, title_slide
from deck.source.fences import FENCE_OPEN
from deck.source.folder import display_path, read_text
from deck.source.prepass import Context, expand, project_variables
from deck.source.project import project_config
from deck.source.qmdconfig import deck_option, merge, parse_quarto_config, quarto_config
from deck.source.replay import replayed
from deck.source.scanner import DIV_CLOSE, DIV_OPEN, GLUED_CLOSE, Dialect, Scanner, Spans
from deck.source.toc import toc_title, with_toc

SLIDES_PER_PART = 6
METADATA = "_metadata.yml"
FRONT_MATTER_END = ("---", "...")


def load_qmd(path: Path) -> Lesson:
    """Read a `.qmd` (and `_metadata.yml` beside it); raise with every problem found."""
    rel = display_path(path)
    diagnostics: list[Diagnostic] = []
    text = read_text(path)
    if isinstance(text, Diagnostic):
        raise DeckError([text])
    lines = text.replace("\r\n", "\n").split("\n")
    body, values, locs = front_matter(lines, rel, diagnostics)
    meta_path = path.parent / METADATA
    if meta_path.is_file():
        meta_text = read_text(meta_path)
        if isinstance(meta_text, Diagnostic):
            diagnostics.append(meta_text)
        else:
            found, meta_locs, problems = parse_quarto_config(meta_text, display_path(meta_path))
            diagnostics.extend(problems)
            values = merge(found, values)
            locs = {**meta_locs, **locs}
    project, project_locs = project_config(path, diagnostics)  # `_quarto.yml`: under both
    values = merge(project, values)
    locs = {**project_locs, **locs}
    config = quarto_config(values)
    config = read_includes(config, path.parent, locs, rel, diagnostics)
    python = author_python(config.kernel)  # the author's interpreter runs the cells
    config = dataclasses.replace(config, python=python.path, python_why=python.why)
    meta = raw_meta(lines, body, meta_path)
    context = Context(path.parent, meta, project_variables(path.parent, diagnostics))
    expanded = expand(lines[body:], rel, path, context, first=body)
    diagnostics.extend(expanded.diagnostics)
    origins = [Loc(rel, k + 1) for k in range(body)] + expanded.origins
    lines = lines[:body] + expanded.lines
    sections = parts(path, rel, (lines, origins), body, config, locs, diagnostics, meta, values)
    if not any(s.slides for s in sections):
        diagnostics.append(Diagnostic(Loc(rel, 1), "lesson", "the file has no slides"))
    lesson = Lesson(path.stem, path.parent, tuple(sections), config)
    diagnostics.extend(escapes(lesson, locs))
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        raise DeckError(errors)
    warnings = tuple(d for d in diagnostics if d.severity != "error")
    return dataclasses.replace(lesson, warnings=warnings)


def front_matter(
    lines: list[str], rel: str, diagnostics: list[Diagnostic]
) -> tuple[int, dict[str, Any], dict[str, Loc]]:
    """(index of the first body line, checked values, where each key was written)."""
    if not lines or lines[0].strip() != "---":
        return 0, {}, {}
    end = next((k for k in range(1, len(lines)) if lines[k].strip() in FRONT_MATTER_END), None)
    if end is None:
        diagnostics.append(Diagnostic(Loc(rel, 1), "config", "front matter `---` is never closed"))
        return len(lines), {}, {}
    values, locs, problems = parse_quarto_config("\n".join(lines[1:end]), rel, first_line=2)
    diagnostics.extend(problems)
    return end + 1, values, locs


def raw_meta(lines: list[str], body: int, meta_path: Path) -> dict[str, Any]:
    """The front matter as written, over `_metadata.yml`: what `{{< meta >}}` reads (any key,
    not only the options this build knows)."""
    found: dict[str, Any] = {}
    texts = [meta_path.read_text("utf-8", "replace")] if meta_path.is_file() else []
    texts.append("\n".join(lines[1 : body - 1]) if body else "")
    for text in texts:
        try:
            values = yaml.safe_load(text)
        except yaml.YAMLError:
            continue  # (reported where the options are checked)
        if isinstance(values, dict):
            found = merge(found, values)
    return found


def parts(
    path: Path,
    rel: str,
    text: tuple[list[str], list[Loc]],
    body: int,
    config: LessonConfig,
    locs: dict[str, Loc],
    diagnostics: list[Diagnostic],
    meta: dict[str, Any] | None = None,
    values: dict[str, Any] | None = None,
) -> list[Section]:
    """The file's slides as sections: cut at `#` headings, else every `SLIDES_PER_PART`.
    `text` is the file's lines after `deck.source.prepass`, with where each was written."""
    lines = text[0]
    dialect = Dialect(
        quarto=True,
        defaults=config.execute,
        meta=meta or {},
        slide_level=deck_option(values or {}, "slide-level", 2),
    )
    spans = spanning(rel, text, body, dialect, diagnostics)
    outline, _, _, at = parse_part(path, rel, text, body, len(lines), dialect, spans)
    starts = [i for s, i in zip(outline, at, strict=True) if not hidden_start(s, lines[i], dialect)]
    if any(s.level == 1 for s in outline):
        cuts = [i for s, i in zip(outline, at, strict=True) if s.level == 1]
    else:  # about SLIDES_PER_PART each, the same size
        count = max(1, round(len(starts) / SLIDES_PER_PART))
        cuts = [starts[len(starts) * k // count] for k in range(1, count)]
    if cuts and not any(s < cuts[0] for s in starts):
        cuts = cuts[1:]  # only hidden setup cells before the first `#`: they go with it
    bounds = [body, *(c for c in cuts if c > body), len(lines)]
    settings = SectionSettings(
        lang=config.lang,
        quarto=True,
        execute={k: v for k, v in config.execute.items() if k != "eval"},
        incremental=config.slides.incremental,
        code_line_numbers=config.slides.code_line_numbers,
    )
    sections: list[Section] = []
    earlier: list[Cell] = []
    names: set[str] = set()
    for k, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False)):
        slides, inlines, problems, at = parse_part(path, rel, text, start, end, dialect, spans)
        diagnostics.extend(problems)
        first_lines = [lines[i] for i in at]
        slides = [deck_wide(s, config) for s in merge_hidden(slides, first_lines, dialect)]
        slides = drop_hidden_slides(slides)
        if k == 0:
            title = title_slide(
                config, locs, rel, deck_option(values or {}, "title-slide-attributes")
            )
            slides = [title, *slides] if title else slides
        own = [b for s in slides for b in walk_blocks(s.blocks) if isinstance(b, Cell)]
        again = replayed(earlier, own, [e.expr for e in inlines])
        earlier += own
        if again and slides:
            first = slides[0]
            copies = tuple(Cell(c.code, _kept(c.options), c.loc, c.code_line, True) for c in again)
            slides[0] = dataclasses.replace(first, blocks=(*copies, *first.blocks))
        name = part_name(slides, k, names)
        sections.append(Section(path, name, rel, settings, tuple(slides), tuple(inlines)))
    if deck_option(values or {}, "toc", False):
        heading = deck_option(values or {}, "toc-title") or toc_title(config.lang)
        sections = with_toc(sections, heading, deck_option(values or {}, "toc-depth", 2))
    return sections


def _kept(options: dict[str, Any]) -> dict[str, Any]:
    """What a replayed cell keeps of its options: what changes how it runs."""
    return {k: v for k, v in options.items() if k in ("timeout", "error")}


def hidden_start(slide: Slide, first_line: str, dialect: Dialect) -> bool:
    """Content before the first slide break that shows nothing (setup cells with
    `include: false`): Quarto makes no slide of it."""
    line = first_line.strip()
    opens = line.startswith("#") or line == "---"
    return (
        slide.title is None and not opens and all(shows_nothing(b, dialect) for b in slide.blocks)
    )


def shows_nothing(block: Block, dialect: Dialect) -> bool:
    if not isinstance(block, Cell):
        return False
    option = {**dialect.defaults, **block.options}
    return option.get("include") is False or (
        option.get("echo") is False and option.get("output") is False
    )


def merge_hidden(slides: list[Slide], first_lines: list[str], dialect: Dialect) -> list[Slide]:
    """A hidden start goes with the next slide (its cells still run, first)."""
    if len(slides) > 1 and hidden_start(slides[0], first_lines[0], dialect):
        first, second = slides[0], slides[1]
        return [dataclasses.replace(second, blocks=first.blocks + second.blocks), *slides[2:]]
    return slides


def deck_wide(slide: Slide, config: LessonConfig) -> Slide:
    """`smaller: true` / `scrollable: true`: every slide gets the class. Cells take the
    file's `execute: error:` (it changes what running them gives, so it is part of the
    cell's options and of its cache key)."""
    extra = [c for c in ("smaller", "scrollable") if getattr(config.slides, c)]
    classes = (*slide.classes, *(c for c in extra if c not in slide.classes))
    error = config.execute.get("error")
    blocks = _with_error(slide.blocks, error) if error is not None else slide.blocks
    return dataclasses.replace(slide, classes=classes, blocks=blocks)


def _with_error(blocks: tuple[Block, ...], error: bool) -> tuple[Block, ...]:
    out: list[Block] = []
    for block in blocks:
        if isinstance(block, Cell) and "error" not in block.options:
            block = dataclasses.replace(block, options={**block.options, "error": error})
        elif isinstance(block, Div):
            block = dataclasses.replace(block, blocks=_with_error(block.blocks, error))
        elif isinstance(block, Columns):
            columns = tuple(
                Column(c.width, _with_error(c.blocks, error), c.loc) for c in block.columns
            )
            block = Columns(columns, block.loc)
        out.append(block)
    return tuple(out)


def part_name(slides: list[Slide], k: int, taken: set[str]) -> str:
    """A part is named after its `#` heading (ASCII letters and digits, as a file name), else
    `part-N`; names stay when parts are added before it."""
    heading = next(
        (s.title for s in slides if s.level == 1 and s.title and "title-slide" not in s.classes),
        None,
    )
    words = re.findall(r"[A-Za-z0-9]+", heading or "")
    name = "-".join(words).lower()[:40] or f"part-{k + 1}"
    base, n = name, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name)
    return name


def parse_part(
    path: Path,
    rel: str,
    text: tuple[list[str], list[Loc]],
    start: int,
    end: int,
    dialect: Dialect,
    spans: Spans | None = None,
) -> tuple[list[Slide], list[InlineExpr], list[Diagnostic], list[int]]:
    """Lines `start:end` (0-based) of a longer text, which must begin at a slide break: its
    slides, inline expressions (numbered from 0), problems at the lines where they were
    written, and the line index each slide starts at."""
    lines, origins = text
    scanner = Scanner(rel, lines[:end], dialect, pos=start, origins=origins, spans=spans or Spans())
    slides = scanner.slides()
    return slides, scanner.inlines, scanner.diagnostics, scanner.starts


def spanning(
    rel: str, text: tuple[list[str], list[Loc]], body: int, dialect: Dialect, out: list[Diagnostic]
) -> Spans:
    """The `.content-visible`/`.content-hidden` blocks that hold slide breaks (a `##` heading
    inside a div at the top of a slide), read over the whole file since a part may begin inside
    one. Quarto keeps a shown one's content as it stands, so its headings make slides (its
    `:::` lines are skipped); a left-out one goes whole (its cells still run, showing nothing)."""
    lines, origins = text
    reader = Scanner(rel, lines, dialect, origins=origins)
    pairs: dict[int, int] = {}  # each `:::` opener → its closing line
    stack: list[int] = []
    k = body
    while k < len(lines):
        if FENCE_OPEN.match(lines[k]):  # past the code (its closing line: the same marker)
            marker = re.escape(lines[k].lstrip()[0]) + "{3,}"
            k = next((j for j in range(k + 1, len(lines)) if re.match(marker, lines[j])), k)
        elif DIV_CLOSE.match(lines[k]) or (stack and GLUED_CLOSE.match(lines[k])):
            if stack:
                pairs[stack.pop()] = k
        elif DIV_OPEN.match(lines[k]):
            stack.append(k)
        k += 1
    skip: set[int] = set()
    hidden: set[int] = set()

    def breaks(start: int, end: int) -> bool:
        k = start + 1
        while k < end:
            if reader.heading(lines[k]) or reader.is_rule(k):
                return True
            k = pairs.get(k, k) + 1
        return False

    def walk(start: int, end: int) -> None:
        k = start
        while k < end:
            close = pairs.get(k)
            if close is None:
                k += 1
                continue
            m = DIV_OPEN.match(lines[k])
            assert m
            spec = m.group(2)
            parsed = parse_attrs(spec[1:-1]) if spec.startswith("{") else ((spec,), {})
            if parsed is not None and kind_for(parsed[0]) is VISIBILITY and breaks(k, close):
                opening = Opening(k, m.group(1), spec, *parsed)
                if shown(reader, opening):
                    skip.update((k, close))
                    walk(k + 1, close)
                else:
                    hidden.add(k)
            k = close + 1

    walk(body, len(lines))
    out.extend(d for d in reader.diagnostics if d.loc in {reader.loc(k) for k in skip})
    return Spans(frozenset(skip), frozenset(hidden))
