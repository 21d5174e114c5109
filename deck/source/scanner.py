"""Line scanner: lesson folder and section files → `Lesson` with every block's file:line.

Parsing never executes anything. Problems are collected as diagnostics so that one build
reports all of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deck.blocks import kind_for
from deck.blocks.base import Opening
from deck.blocks.visibility import drop_hidden_slides
from deck.errors import Diagnostic
from deck.model import (
    Block,
    Code,
    InlineExpr,
    Loc,
    Pause,
    Prose,
    Section,
    SectionSettings,
    Slide,
    placeholder,
)
from deck.source.attributes import (
    front_matter_end,
    front_matter_note,
    parse_attrs,
)
from deck.source.fences import FENCE_OPEN, CodeReader
from deck.source.prepass import Context, expand

DIV_OPEN = re.compile(r"^(:{3,})\s*(\S.*?)\s*$")
DIV_CLOSE = re.compile(r"^:{3,}\s*$")
BARE_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})\s*$")  # a code fence's closing line
DIV_CLOSE_RUN = re.compile(r"^(:{3,})\s*$")
GLUED_CLOSE = re.compile(r"^(?!:)(.*?\S)\s*:{3,}\s*$")  # `text :::` in a Quarto file
# A slide's when its level ≤ the slide level; a bare `##` too (Pandoc: an untitled slide)
HEADING = re.compile(r"^(#{1,6})(?:[ \t]+(.*?))?\s*$")
# `## Title {.a}`, `## {.a}` (no title) and `# Title{.a}` (glued, as Pandoc also reads it)
HEADING_ATTRS = re.compile(r"^(.*?)(\s*)\{([^{}]*)\}$")
UNCLOSED_ATTRS = re.compile(r"\s\{[^{}$]*$")
INLINE = re.compile(r"`\{python\}\s+([^`]+?)\s*`")
PAUSE = re.compile(r"^\.\s\.\s\.\s*$")
MAX_NESTING = 100  # `:::` blocks inside one another (deeper would exhaust Python's stack)
MARK = "\u2063"  # the invisible separator: the engine's own placeholders are made of it


@dataclass(frozen=True)
class Dialect:
    """How a file is read. A lesson section is strict (an unknown cell option is an error); a
    Quarto file is read as Quarto reads it: options it knows but this build does not apply
    are warnings, and `execute:` settings are the cells' defaults."""

    quarto: bool = False
    defaults: dict[str, Any] = field(default_factory=dict)  # execute: echo, eval, include…
    widgets: dict[str, str] = field(default_factory=dict)  # widget kind → its data's format
    meta: dict[str, Any] = field(default_factory=dict)  # the front matter as written
    slide_level: int = 2  # headings up to this level start slides


LESSON = Dialect()


@dataclass(frozen=True)
class Spans:
    """`.content-visible`/`.content-hidden` blocks holding slide breaks, in a Quarto file
    (`deck.source.qmd.spanning`): a shown one's `:::` lines are read as absent (its headings
    make slides); a left-out one's headings are its text, not slides (the opener's index)."""

    skip: frozenset[int] = frozenset()
    hidden: frozenset[int] = frozenset()


@dataclass
class Scanner(CodeReader):
    """Walks one section file's lines. Holds only parse state; the result is immutable."""

    rel: str
    lines: list[str]
    dialect: Dialect = LESSON
    diagnostics: list[Diagnostic] = field(default_factory=list)
    inlines: list[InlineExpr] = field(default_factory=list)
    pos: int = 0
    depth: int = 0  # `:::` blocks open around the line being read
    origins: list[Loc] | None = None  # where each line was written (includes: another file)
    open: list[Opening] = field(default_factory=list)  # the `:::` blocks being read
    closed_by: dict[int, int] = field(default_factory=dict)  # opener → the line closing it
    starts: list[int] = field(default_factory=list)  # the line index each slide began at
    spans: Spans = Spans()

    def loc(self, index: int) -> Loc:
        if self.origins is not None and index < len(self.origins):
            return self.origins[index]
        return Loc(self.rel, index + 1)

    def error(self, index: int, code: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.loc(index), code, message))

    def warn(self, index: int, code: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.loc(index), code, message, "warning"))

    def inline(self, text: str, index: int) -> str:
        """Replace `{python} expr` spans by placeholders and record the expressions."""
        if MARK in text:
            text = text.replace(MARK, "")
            self.error(index, "parse", "U+2063 (invisible separator) is reserved by the build")

        def sub(m: re.Match[str]) -> str:
            expr = InlineExpr(len(self.inlines), m.group(1), self.loc(index))
            self.inlines.append(expr)
            return placeholder(expr.index)

        return INLINE.sub(sub, text)

    # ---- blocks -------------------------------------------------------------------------

    def blocks(self, top: bool) -> tuple[list[Block], bool]:
        """Read blocks until a slide break (top level) or the closing `:::` (inside a div).

        Returns the blocks and whether a closing `:::` ended them.
        """
        out: list[Block] = []
        prose: list[tuple[int, str]] = []

        def flush() -> None:
            while prose and not prose[-1][1].strip():
                prose.pop()
            first = next((k for k, (_, t) in enumerate(prose) if t.strip()), None)
            if first is not None:
                start = prose[first][0]
                text = "\n".join(self.inline(t, i) for i, t in prose[first:])
                out.append(Prose(text, self.loc(start)))
            prose.clear()

        while self.pos < len(self.lines):
            i, line = self.pos, self.lines[self.pos]
            if (top or self.ends_slide(line)) and (self.heading(line) or self.is_rule(i)):
                break
            if i in self.spans.skip:
                self.pos += 1
                continue
            glued = not top and self.dialect.quarto and GLUED_CLOSE.match(line)
            if glued:  # `text :::` closes the block (Pandoc's reading)
                prose.append((i, glued.group(1)))
                flush()
                self.pos += 1
                return out, True
            if DIV_CLOSE.match(line):
                if top:
                    self.error(i, "parse", "`:::` closes no open block")
                    self.pos += 1
                    continue
                flush()
                self.pos += 1
                return out, True
            if FENCE_OPEN.match(line):
                flush()
                block = self.fence()
                if block is not None:
                    out.append(block)
                continue
            if DIV_OPEN.match(line):
                flush()
                block = self.div()
                if block is not None:
                    out.append(block)
                continue
            if PAUSE.match(line):
                flush()
                out.append(Pause(self.loc(i)))
                self.pos += 1
                continue
            prose.append((i, line))
            self.pos += 1
        flush()
        return out, False

    def heading(self, line: str) -> re.Match[str] | None:
        """A heading that starts a slide: `#` or `##` (a `.qmd`'s `slide-level` 1 to 3)."""
        m = HEADING.match(line)
        return m if m and len(m.group(1)) <= self.dialect.slide_level else None

    def ends_slide(self, line: str) -> bool:
        """Inside a block, a `#`/`##` heading starts the next slide, unless the innermost
        block takes headings (a callout's title, a tabset's tabs)."""
        inner = self.open[-1].classes if self.open else ()
        if any(o.start in self.spans.hidden for o in self.open):
            return False
        return not any(c.startswith(("callout", "panel-tabset")) for c in inner)

    def is_rule(self, i: int) -> bool:
        """A `---` line after a blank line, a closing code fence (or at the start) starts an
        untitled slide (after a line of text it would underline a heading)."""
        if self.lines[i].strip() != "---":
            return False
        return i == 0 or not self.lines[i - 1].strip() or bool(BARE_FENCE.match(self.lines[i - 1]))

    def div(self) -> Block | None:
        start = self.pos
        m = DIV_OPEN.match(self.lines[start])
        assert m
        spec = m.group(2)
        if spec.startswith("{") and spec.endswith("}"):
            parsed = parse_attrs(spec[1:-1])
        elif re.fullmatch(r"[\w-]+", spec):
            parsed = ((spec,), {})
        else:
            parsed = None
        self.pos += 1
        if parsed is None:
            self.error(start, "attr", f"cannot read block attributes `{spec}`")
            classes: tuple[str, ...] = ()
            attrs: dict[str, str] = {}
        else:
            classes, attrs = parsed
        if self.depth >= MAX_NESTING:
            self.error(start, "parse", f"`:::` blocks nest more than {MAX_NESTING} deep")
            self.skip_div()
            return None
        opening = Opening(start, m.group(1), spec, tuple(classes), attrs)
        self.depth += 1
        self.open.append(opening)
        try:
            return kind_for(opening.classes).parse(self, opening)
        finally:
            self.depth -= 1
            self.open.pop()

    def skip_div(self) -> None:
        """Past the `:::` closing the block just opened, counting (not parsing) those inside."""
        level = 1
        while self.pos < len(self.lines) and level:
            line = self.lines[self.pos]
            level += 1 if DIV_OPEN.match(line) else -1 if DIV_CLOSE.match(line) else 0
            self.pos += 1

    def body(self) -> tuple[list[Block], bool]:
        """The blocks up to the closing `:::` of the block being read, and whether it came.

        A block still open at the end of its slide (the next slide's heading) or file is
        closed there: in a Quarto file with a warning, as Pandoc reads it; in a lesson it
        stays an error, for the kind to report at its opener."""
        opening = self.open[-1]
        blocks, closed = self.blocks(top=False)
        if closed:
            self.closed_by[opening.start] = self.pos - 1
        elif self.dialect.quarto:
            where = "its slide" if self.pos < len(self.lines) else "the file"
            self.warn(opening.start, "parse", f"{opening.unclosed()}: closed at the end of {where}")
            return blocks, True
        else:
            self.hint_unclosed(opening)
        return blocks, closed

    def hint_unclosed(self, opening: Opening) -> None:
        """When a block inside this one was closed by a fence of another length, that fence
        was probably meant for this block: say so (the error itself is the kind's)."""
        for inner, end in self.closed_by.items():
            fence = DIV_CLOSE_RUN.match(self.lines[end])
            inner_fence = DIV_OPEN.match(self.lines[inner])
            if inner > opening.start and fence and inner_fence:
                if len(fence.group(1)) != len(inner_fence.group(1)):
                    self.error(
                        inner,
                        "parse",
                        f"`{inner_fence.group(1)}` opened here was closed by "
                        f"`{fence.group(1)}` at line {self.loc(end).line}, which leaves "
                        f"`{opening.fence} {opening.spec}` (line {self.loc(opening.start).line}) "
                        "open: close the inner block with its own `:::` first",
                    )
                    return

    @property
    def meta(self) -> dict[str, Any]:
        return self.dialect.meta

    @property
    def tolerant(self) -> bool:
        """Whether the file is read as Pandoc reads it (a Quarto file)."""
        return self.dialect.quarto

    @property
    def widgets(self) -> dict[str, str]:
        return self.dialect.widgets

    def add_inline(self, expr: str, loc: Loc) -> InlineExpr:
        """An expression evaluated like an inline value (a quiz's answer, a widget's data)."""
        found = InlineExpr(len(self.inlines), expr, loc)
        self.inlines.append(found)
        return found

    def block_text(self, blocks: list[Block], start: int) -> str:
        """Notes and explanations hold Markdown prose only.

        The text keeps the file's line structure: its line k is line `start + k` (0-based) of
        the file, so a formula's line offset in it is its distance from the block's `Loc`.
        """
        text, at = "", start
        for block in blocks:
            if isinstance(block, Prose):
                piece = block.text
            elif isinstance(block, Code):
                runs = [len(r) for r in re.findall("`+", block.text)]
                fence = "`" * max(3, max(runs, default=0) + 1)
                piece = f"{fence}{block.lang}\n{block.text}\n{fence}"
            else:
                self.error(block.loc.line - 1, "parse", "only prose may stand in notes")
                continue
            gap = block.loc.line - 1 - at
            text += "\n" * gap + piece
            at += gap + piece.count("\n")
        return text

    # ---- slides -------------------------------------------------------------------------

    def slides(self) -> list[Slide]:
        slides: list[Slide] = []
        while self.pos < len(self.lines):
            i, line = self.pos, self.lines[self.pos]
            heading = self.heading(line)
            title, level = None, 2
            classes: tuple[str, ...] = ()
            attrs: dict[str, str] = {}
            if heading:
                level = len(heading.group(1))
                title = heading.group(2) or ""
                attr_text = HEADING_ATTRS.match(title)
                if attr_text:
                    parsed = parse_attrs(attr_text.group(3))
                    glued = attr_text.group(1) and not attr_text.group(2)  # `f{x}`: text
                    if parsed is not None:
                        title, (classes, attrs) = attr_text.group(1), parsed
                    elif not glued:
                        self.error(i, "attr", f"cannot read slide attributes in `{line.strip()}`")
                elif UNCLOSED_ATTRS.search(title):
                    self.error(i, "attr", f"slide attributes not closed in `{line.strip()}`")
                title = self.inline(title, i) or None
                self.pos += 1
            rule = not heading and self.is_rule(i)
            if rule:
                self.pos += 1
            blocks, _ = self.blocks(top=True)
            if (
                rule
                and not blocks
                and self.pos < len(self.lines)
                and self.heading(self.lines[self.pos])
            ):
                continue  # `---` just before a heading: Pandoc drops the rule, no empty slide
            if heading or rule or blocks:  # an explicit `---` makes a slide even when empty
                slides.append(Slide(title, level, classes, attrs, tuple(blocks), self.loc(i)))
                self.starts.append(i)
        return slides


def parse_section(
    path: Path,
    rel: str,
    text: str,
    dialect: Dialect = LESSON,
    context: Context | None = None,
    included: list[Path] | None = None,
) -> tuple[Section, list[Diagnostic]]:
    """Section file text → its slides, and every problem found (errors and warnings).

    A section file has no front matter: a `---` in its first line starts an untitled slide, as
    it does after any blank line, so nothing at the top of a file is silently dropped. When the
    top looks like front matter, a warning says so. Comments are skipped and shortcodes
    expanded first (`deck.source.prepass`); the files it includes are added to `included`.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    expanded = expand(lines, rel, path, context or Context(path.parent))
    if included is not None:
        included += expanded.files
    scanner = Scanner(rel, expanded.lines, dialect, origins=expanded.origins)
    scanner.diagnostics.extend(expanded.diagnostics)
    if front_matter_end(lines) is not None:
        scanner.warn(0, "parse", front_matter_note(lines))
    slides = drop_hidden_slides(scanner.slides())
    section = Section(
        path=path,
        name=path.stem,
        rel=rel,
        settings=SectionSettings(),
        slides=tuple(slides),
        inlines=tuple(scanner.inlines),
    )
    return section, scanner.diagnostics
