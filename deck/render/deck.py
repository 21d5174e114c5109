"""Rendering: parsed lesson + execution results → reveal.js HTML and the values record.

Prose goes through Python-Markdown, code through Pygments, the page through Jinja2 templates,
and math through KaTeX in one traversal: while a section renders, each formula becomes a
placeholder that remembers its TeX and its real `file:line`; then every formula of the build
goes to KaTeX in one batch (one Node process, see `mathtex`) and the placeholders are replaced.

A section's rendered slides are cached (`RenderStore`) under a key of its parsed text, its
results and the renderer itself, so a prose edit re-renders only the section it touched; the
page is the same, byte for byte, as a full render.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import jinja2

from deck.errors import DeckError, Diagnostic
from deck.model import (
    Block,
    Cell,
    Code,
    Columns,
    Div,
    Lesson,
    Loc,
    Notes,
    Pause,
    Prose,
    Quiz,
    Section,
    SectionResult,
    Slide,
    walk_blocks,
)
from deck.render.blocks import render_div
from deck.render.cells import render_cell
from deck.render.frame import deck_settings, is_local, media_path, missing_media
from deck.render.htmltext import highlight_code, plain
from deck.render.mathtex import MATH_TOKEN, KaTeX, extract
from deck.render.pandoc import (
    FOOTNOTE_TOKEN,
    Media,
    PandocExtension,
    bracketed_spans,
    mark_footnotes,
    take_definitions,
)
from deck.render.provenance import (
    VALUE,
    Bindings,
    Producer,
    shown_producers,
    sources_script,
    substitute_values,
    value_span,
)
from deck.render.widgets import DataProblem, checked_data, data_expression, widget_html
from deck.store.renders import MediaFile, RenderedSlide, RenderStore, SectionRender
from deck.theme import TEMPLATES

# A line break inside a Chinese paragraph is not a space: join the lines.
CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
CJK_LINE_BREAK = re.compile(f"(?<=[{CJK}])\n(?=[{CJK}])")
SLIDE_ATTRS = {"id"}  # everything else becomes data-<key>, which reveal.js reads
# Python-Markdown's `tables`, `sane_lists`, `attr_list` and pymdown-extensions' `betterem`,
# built from their classes (names would make Markdown scan every installed package's entry
# points first: 40 ms a build).
MARKDOWN_EXTENSIONS = (
    ("markdown.extensions.tables", "TableExtension"),
    ("markdown.extensions.sane_lists", "SaneListExtension"),
    ("markdown.extensions.attr_list", "AttrListExtension"),
    ("pymdownx.betterem", "BetterEmExtension"),
)
LIST_ITEM = re.compile(r"<li>")
MEDIA_ATTRS = ("background-image", "background-video")  # slide attributes naming local files
# A cell's options default to the file's `execute:` settings, else to these (a lesson shows
# no code and no warnings unless asked; Quarto shows both).
CELL_DEFAULTS = {"echo": False, "output": True, "include": True, "warning": False}
QUARTO_CELL_DEFAULTS = {"echo": True, "output": True, "include": True, "warning": True}


@dataclass(frozen=True)
class RenderedDeck:
    html: str
    slides: tuple[RenderedSlide, ...]
    values: dict[str, Any]
    figures: tuple[Path, ...]  # figure files to publish under figures/
    rendered: tuple[str, ...] = ()  # sections rendered by this build (the rest were cached)
    media: tuple[tuple[str, Path], ...] = ()  # (path inside the deck folder, source file)
    warnings: tuple[Diagnostic, ...] = ()


@dataclass
class SlideState:
    """What a slide collects while its blocks render, placed when the slide is done."""

    footnotes: list[tuple[str, str, Loc]] = field(default_factory=list)  # kind, content, loc
    footer: str | None = None
    asides: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)  # bodies of `output-location: slide` slides


@dataclass(frozen=True)
class Formula:
    """A formula met while rendering: TeX with values filled in, and where the author wrote it."""

    tex: str
    display: bool
    loc: Loc


def fill_values(tex: str, section: Section, result: SectionResult) -> str:
    """Inline values inside a formula are substituted before KaTeX sees it."""
    return VALUE.sub(lambda m: result.inline.get(section.inlines[int(m.group(1))].expr, ""), tex)


def join_cjk_lines(text: str) -> str:
    return CJK_LINE_BREAK.sub("", text)


def new_markdown() -> Any:
    """One Markdown converter per build: creating one compiles many regular expressions."""
    import importlib

    import markdown

    pandoc = PandocExtension()
    builtin = [getattr(importlib.import_module(m), c)() for m, c in MARKDOWN_EXTENSIONS]
    md = markdown.Markdown(extensions=[*builtin, pandoc], output_format="html")
    md.pandoc = pandoc
    return md


@dataclass
class _SectionRenderer:
    """Renders one section's slides with formula placeholders; collects formulas, diagnostics
    and the values record."""

    section: Section
    result: SectionResult
    md: Any
    quiz_template: jinja2.Template
    diagnostics: list[Diagnostic] = field(default_factory=list)
    formulas: list[Formula] = field(default_factory=list)
    records: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {"values": [], "figures": [], "quizzes": [], "outputs": []}
    )
    figure_files: list[str] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    media: list[MediaFile] = field(default_factory=list)
    number: int = 0
    incremental: bool = False
    slide_state: SlideState = field(default_factory=SlideState)
    sources: list[Producer] = field(default_factory=list)  # of the current slide's values

    def __post_init__(self) -> None:
        self.cells = dict(zip(map(id, self.section.cells()), self.result.cells, strict=True))
        self.bindings = Bindings(self.section)
        self.quarto = bool(self.section.meta.get("quarto"))
        defaults = QUARTO_CELL_DEFAULTS if self.quarto else CELL_DEFAULTS
        self.cell_defaults = {**defaults, **self.section.meta.get("execute", {})}
        self.line_numbers = self.section.meta.get("code-line-numbers", False)
        # Footnote definitions (`[^id]: text`) anywhere in the section, as Pandoc reads them.
        self.definitions: dict[str, tuple[str, Loc]] = {}
        for slide in self.section.slides:
            for block in walk_blocks(slide.blocks):
                if isinstance(block, Prose):
                    _, found = take_definitions(block.text)
                    for key, (body, offset) in found.items():
                        loc = Loc(block.loc.path, block.loc.line + offset)
                        self.definitions.setdefault(key, (body, loc))

    def option(self, cell: Cell, key: str) -> Any:
        return cell.options.get(key, self.cell_defaults.get(key))

    # ---- text -----------------------------------------------------------------------

    def value(self, index: int) -> str:
        expr = self.section.inlines[index]
        return self.result.inline.get(expr.expr, "")

    def text(self, source: str, loc: Loc, inline: bool = False, wrap: bool = True) -> str:
        """Markdown with math and inline values → HTML with formula placeholders.

        Formulas are taken out of the text as written, so a formula's line is its line in the
        file, before Chinese line breaks are joined (in prose and inside formulas alike).
        Values become `<span class="value">`s telling where they come from, unless `wrap` is
        false (speaker notes, quiz choices: they stand where no control may).
        """
        first = len(self.formulas)
        marked, found = extract(source, first)
        marked, _ = take_definitions(marked)
        marked = bracketed_spans(mark_footnotes(marked, lambda *f: self.footnote(loc, *f)))

        def alt(text: str) -> str:  # alt text shows a formula as its TeX
            def tex(m: re.Match[str]) -> str:
                return (
                    f"${fill_values(found[int(m.group(1)) - first][0], self.section, self.result)}$"
                )

            return MATH_TOKEN.sub(tex, fill_values(text, self.section, self.result))

        self.md.pandoc.media = Media(image=lambda src: self.local_file(src, loc), alt=alt)
        out = self.md.reset().convert(join_cjk_lines(marked))
        if inline and out.startswith("<p>") and out.endswith("</p>") and out.count("<p>") == 1:
            out = out[3:-4]
        if self.incremental:
            out = LIST_ITEM.sub('<li class="fragment">', out)
        for raw, display, offset in found:
            tex = join_cjk_lines(self.fill(raw))
            self.formulas.append(Formula(tex, display, Loc(loc.path, loc.line + offset)))
        for m in dict.fromkeys(VALUE.findall(out)):  # in reading order: the record is stable
            self.record_value(int(m))
        return substitute_values(out, self.value, self.value_markup if wrap else self.value)

    def value_markup(self, index: int) -> str:
        expr = self.section.inlines[index]
        producers = shown_producers(self.bindings.producers([expr.expr]))
        self.sources.extend(producers)
        return value_span(expr.expr, str(expr.loc), self.value(index), producers)

    def footnote(self, loc: Loc, kind: str, content: str, offset: int) -> int:
        self.slide_state.footnotes.append((kind, content, Loc(loc.path, loc.line + offset)))
        return len(self.slide_state.footnotes) - 1

    def local_file(self, src: str, loc: Loc) -> str | None:
        """A file a slide names (an image, a background): recorded for publishing, or an
        error at the slide's line when it is not there."""
        folder = self.section.path.parent
        if not (folder / unquote(src)).is_file():
            self.diagnostics.append(
                Diagnostic(loc, "media", f"file `{src}` not found (paths are read from {folder})")
            )
            return None
        published = media_path(src)
        self.media.append(MediaFile(published, unquote(src), loc))
        return quote(published)

    def plain(self, markup: str) -> str:
        """Text of rendered HTML as a reader would quote it, formulas as `$TeX$`."""

        def tex(m: re.Match[str]) -> str:
            return html.escape(f"${self.formulas[int(m.group(1))].tex}$")

        return plain(MATH_TOKEN.sub(tex, markup))

    def fill(self, text: str) -> str:
        """Plain text (alt text, a formula's TeX) with inline values recorded and substituted."""
        for m in VALUE.findall(text):
            self.record_value(int(m))
        return fill_values(text, self.section, self.result)

    def record_value(self, index: int) -> None:
        expr = self.section.inlines[index]
        self.records["values"].append(
            {
                "expr": expr.expr,
                "text": self.value(index),
                "loc": str(expr.loc),
                "slide": self.number,
                "section": self.section.name,
            }
        )

    # ---- blocks ---------------------------------------------------------------------

    def blocks(self, blocks: tuple[Block, ...], notes: list[str]) -> str:
        """Blocks in order; a pause wraps everything after it in a fragment."""
        groups: list[list[str]] = [[]]
        for block in blocks:
            if isinstance(block, Pause):
                groups.append([])
            elif isinstance(block, Notes):
                notes.append(self.text(block.text, block.loc, wrap=False))
            else:
                groups[-1].append(self.block(block, notes))
        out = "\n".join(groups[0])
        for group in groups[1:]:
            out += '\n<div class="fragment">' + "\n".join(group) + "</div>"
        return out

    def block(self, block: Block, notes: list[str]) -> str:
        if isinstance(block, Prose):
            return self.text(block.text, block.loc)
        if isinstance(block, Code):
            return self.code(block)
        if isinstance(block, Cell):
            return self.cell(block)
        if isinstance(block, Quiz):
            return self.quiz(block)
        if isinstance(block, Columns):
            parts = []
            for column in block.columns:
                style = f' style="width:{html.escape(column.width)}"' if column.width else ""
                parts.append(
                    f'<div class="column"{style}>{self.blocks(column.blocks, notes)}</div>'
                )
            return '<div class="columns">' + "".join(parts) + "</div>"
        if isinstance(block, Div) and "widget" in block.classes:
            return self.widget(block, notes)
        if isinstance(block, Div):
            return render_div(self, block, notes)
        raise TypeError(block)

    def numbers(self, value: Any) -> bool | str:
        """`code-line-numbers` as written (true, false, "1-3|5"), else the deck's setting."""
        if value is None:
            value = self.line_numbers
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        return value

    def code(self, block: Code) -> str:
        if block.lang.startswith("="):  # a raw block: HTML goes in as it is, others are dropped
            return block.text if block.lang == "=html" else ""
        shown = highlight_code(
            block.text, block.lang, self.numbers(block.attrs.get("code-line-numbers"))
        )
        return f'<div class="cell">{shown}</div>' if block.attrs.get("cell") else shown

    def widget(self, div: Div, notes: list[str]) -> str:
        """A `::: {.widget kind=… data=…}`: its data checked against its kind (deck/widgets.py)."""
        kind = div.attrs["kind"]
        try:
            data = checked_data(kind, self.result.inline.get(data_expression(div.attrs["data"])))
        except DataProblem as problem:
            message = f"widget `{kind}` (data={div.attrs['data']}): {problem}"
            self.diagnostics.append(Diagnostic(div.loc, "widget", message))
            return ""
        self.records.setdefault("widgets", []).append(
            {"kind": kind, "data": div.attrs["data"], "loc": str(div.loc), "slide": self.number}
        )
        fallback = self.blocks(div.blocks, notes)
        return widget_html(kind, data, fallback, div.loc, div.classes, div.attrs.get("id"))

    def cell(self, cell: Cell) -> str:
        return render_cell(self, cell)

    def quiz(self, quiz: Quiz) -> str:
        choices = [self.text(c.text, c.loc, inline=True, wrap=False) for c in quiz.choices]
        texts = [self.plain(c) for c in choices]
        if quiz.answer is not None:
            answer_text = self.result.inline.get(quiz.answer.expr, "")
            matches = [k for k, t in enumerate(texts) if t == answer_text.strip()]
            if not matches:
                self.diagnostics.append(
                    Diagnostic(
                        quiz.loc, "quiz", f"answer `{answer_text}` is not among the choices {texts}"
                    )
                )
                return ""
            correct = matches[0]
        else:
            correct = next(k for k, c in enumerate(quiz.choices) if c.correct)
        for k, t in enumerate(texts):
            if t in texts[:k]:
                self.diagnostics.append(
                    Diagnostic(quiz.choices[k].loc, "quiz", f"two choices both read `{t}`")
                )
        question = self.text(quiz.question, quiz.loc)
        explanation = self.text(quiz.explanation, quiz.loc) if quiz.explanation else ""
        source = str(answer_source(self.section, quiz, correct))
        self.records["quizzes"].append(
            {
                "question": self.plain(question),
                "choices": texts,
                "answer": correct,
                "answer_text": texts[correct],
                "explanation": self.plain(explanation),
                "loc": str(quiz.loc),
                "source": source,
                "slide": self.number,
            }
        )
        return self.quiz_template.render(
            question=question,
            choices=choices,
            correct=correct,
            explanation=explanation,
            source=source,
        )

    # ---- slides ---------------------------------------------------------------------

    def slides(self) -> list[RenderedSlide]:
        """The section's slides, numbered from 1, formulas still placeholders. A cell with
        `output-location: slide` adds a slide after its own."""
        out: list[RenderedSlide] = []
        for slide in self.section.slides:
            self.number = len(out) + 1
            out.extend(self.slide(slide))
        return out

    def slide(self, slide: Slide) -> list[RenderedSlide]:
        self.slide_state = SlideState()
        self.incremental = bool(self.section.meta.get("incremental"))
        notes: list[str] = []
        self.sources = []
        title = self.text(slide.title, slide.loc, inline=True) if slide.title else None
        body = self.blocks(slide.blocks, notes) + sources_script(self.sources) + self.foot()
        if self.slide_state.footer is not None:
            body += f'<div class="footer slide-footer">{self.slide_state.footer}</div>'
        attrs = dict(slide.attrs)
        for key in MEDIA_ATTRS:
            if key in attrs and is_local(attrs[key]):
                attrs[key] = self.local_file(attrs[key], slide.loc) or attrs[key]
        first = RenderedSlide(
            number=self.number,
            section=self.section.name,
            title=title,
            level=slide.level,
            loc=slide.loc,
            classes=slide.classes,
            attrs=attrs,
            body=self.number_footnotes(body),
            notes=self.number_footnotes("\n".join(notes)),
        )
        extra = [
            replace(
                first,
                number=self.number + k,
                classes=(*slide.classes, "output-location-slide"),
                attrs={**attrs, "id": attrs["id"] + "-output"} if "id" in attrs else attrs,
                body=extra_body,
                notes="",
            )
            for k, extra_body in enumerate(self.slide_state.extra, start=1)
        ]
        return [first, *extra]

    def foot(self) -> str:
        """The slide's asides and footnotes, at its foot (one `<aside>`, as Quarto has it)."""
        state = self.slide_state
        items: list[str] = []
        numbers: dict[str, int] = {}  # footnote id → its number on this slide
        self.footnote_numbers: list[int] = []
        for kind, content, loc in list(state.footnotes):
            if kind == "ref" and content in numbers:
                self.footnote_numbers.append(numbers[content])
                continue
            if kind == "ref":
                if content not in self.definitions:
                    message = f"footnote `[^{content}]` has no definition `[^{content}]: …`"
                    self.diagnostics.append(Diagnostic(loc, "footnote", message))
                    body, at = "", loc
                else:
                    body, at = self.definitions[content]
                numbers[content] = len(items) + 1
            else:
                body, at = content, loc
            self.footnote_numbers.append(len(items) + 1)
            items.append(f"<li>{self.text(body, at, inline=True)}</li>")
        if not items and not state.asides:
            return ""
        out = "".join(f'<div class="aside">{a}</div>' for a in state.asides)
        if items:
            out += f'<ol class="aside-footnotes">{"".join(items)}</ol>'
        return f'<aside class="slide-aside">{out}</aside>'

    def number_footnotes(self, text: str) -> str:
        return FOOTNOTE_TOKEN.sub(
            lambda m: f'<sup class="footnote-ref">{self.footnote_numbers[int(m.group(1))]}</sup>',
            text,
        )

    def typeset(self, slides: list[RenderedSlide], katex: KaTeX | None) -> SectionRender:
        """Replace the formula placeholders by KaTeX's HTML; a formula KaTeX rejects is an
        error at its line."""
        rendered = []
        for formula in self.formulas:
            assert katex is not None, "formulas need KaTeX"
            markup = katex.html(formula.tex, formula.display)
            if markup is None:
                problem = katex.error(formula.tex, formula.display) or "not rendered"
                self.diagnostics.append(Diagnostic(formula.loc, "math", f"KaTeX: {problem}"))
                markup = html.escape(formula.tex)
            rendered.append(markup)

        def sub(text: str) -> str:
            return MATH_TOKEN.sub(lambda m: rendered[int(m.group(1))], text)

        done = tuple(
            replace(
                s,
                title=sub(s.title) if s.title is not None else None,
                body=sub(s.body),
                notes=sub(s.notes),
            )
            for s in slides
        )
        return SectionRender(
            done, self.records, tuple(self.figure_files), tuple(self.media), tuple(self.warnings)
        )


def figure_collisions(lesson: Lesson, results: dict[str, SectionResult]) -> list[Diagnostic]:
    """Figure files are published side by side in `figures/<lesson>/`: two cells that make one
    file name (a label equal to a generated `<section>-<n>` name, or to `<label>-2` of a cell
    with several figures) would show one picture twice. An error at the later cell. Names are
    compared regardless of case, as on macOS and Windows."""
    made: dict[str, Loc] = {}
    problems = []
    for section in lesson.sections:
        cells = section.cells()
        for cell, cell_result in zip(cells, results[section.name].cells, strict=True):
            if cell.replay:  # its figures are not shown
                continue
            for figure in cell_result.figures:
                first = made.setdefault(figure.file.lower(), cell.loc)
                if first is not cell.loc:
                    message = (
                        f"figure file `{figure.file}` is also made by the cell at {first}: "
                        "give this cell another `#| label:`"
                    )
                    problems.append(Diagnostic(cell.loc, "figure", message))
                    break
    return problems


def _environment(cache: Path | None) -> jinja2.Environment:
    compiled = None
    if cache is not None:  # compiled templates kept between builds (checked against the source)
        (cache / "jinja").mkdir(parents=True, exist_ok=True)
        compiled = jinja2.FileSystemBytecodeCache(str(cache / "jinja"))
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        bytecode_cache=compiled,
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def render_lesson(
    lesson: Lesson, results: dict[str, SectionResult], cache: Path | None = None
) -> RenderedDeck:
    """The deck page, its values record and its figures. With `cache` (the build's cache
    folder), formulas and sections rendered before are taken from there."""
    env = _environment(cache)
    quiz_template = env.get_template("quiz.html.j2")
    store = RenderStore(cache / lesson.name / "render") if cache is not None else None
    diagnostics = figure_collisions(lesson, results)
    parts: dict[str, SectionRender] = {}
    pending: list[tuple[Section, _SectionRenderer, list[RenderedSlide], str]] = []
    md = None
    for section in lesson.sections:
        result = results[section.name]
        key = store.key(section, result) if store else ""
        cached = store.load(section, key) if store else None
        if cached is not None:
            parts[section.name] = cached
            continue
        md = md or new_markdown()
        renderer = _SectionRenderer(section, result, md, quiz_template)
        pending.append((section, renderer, renderer.slides(), key))
    deck = deck_settings(lesson, lambda: md or new_markdown())
    formulas = {(f.tex, f.display) for _, r, _, _ in pending for f in r.formulas}
    formulas |= set(deck.formulas)
    katex = KaTeX(cache / "katex.json" if cache is not None else None) if formulas else None
    if katex is not None:
        katex.prepare(formulas)
        deck.typeset(katex)
    for section, renderer, slides, key in pending:
        part = renderer.typeset(slides, katex)
        diagnostics.extend(renderer.diagnostics)
        diagnostics.extend(missing_media(lesson, part))
        if not renderer.diagnostics:
            parts[section.name] = part
            if store:
                store.save(section, key, part)
    if diagnostics:
        order = {s.rel: k for k, s in enumerate(lesson.sections)}
        diagnostics.sort(key=lambda d: (order.get(d.loc.path, -1), d.loc.line))
        raise DeckError(diagnostics)
    if store:
        store.prune(lesson)
    slides: list[RenderedSlide] = []
    records: dict[str, list[dict[str, Any]]] = {
        "values": [],
        "figures": [],
        "quizzes": [],
        "outputs": [],
    }
    figures: list[Path] = []
    media: dict[str, Path] = {}
    warnings: list[Diagnostic] = []
    for section in lesson.sections:
        part = parts[section.name]
        numbered, part_records = part.numbered_from(len(slides) + 1)
        slides.extend(numbered)
        for kind, items in part_records.items():
            records.setdefault(kind, []).extend(items)
        figures.extend(Path(results[section.name].figure_dir) / f for f in part.figures)
        media.update((m.published, lesson.path / m.source) for m in part.media)
        warnings.extend(part.warnings)
    media.update(deck.media)
    slides = [replace(s, body=s.body + deck.frame(s)) for s in slides]
    page = env.get_template("deck.html.j2").render(
        lesson=lesson,
        meta=lesson.meta,
        slides=slides,
        data_attr=_data_attrs,
        stylesheets=deck.stylesheets,
        deck_options=deck.options,
    )
    values = {
        "lesson": lesson.name,
        "title": lesson.meta.get("title", lesson.name),
        "slides": len(slides),
        **records,
    }
    rendered = tuple(section.name for section, *_ in pending)
    return RenderedDeck(
        page,
        tuple(slides),
        values,
        tuple(figures),
        rendered,
        tuple(sorted(media.items())),
        tuple(warnings + deck.warnings),
    )


def _data_attrs(attrs: dict[str, str]) -> dict[str, str]:
    return {
        (k if k in SLIDE_ATTRS or k.startswith("data-") else f"data-{k}"): v
        for k, v in attrs.items()
    }


def answer_source(section: Section, quiz: Quiz, correct: int) -> Loc:
    """Where a quiz's answer is computed: the last cell before the quiz that assigns a name
    the answer's expression uses (the `answer=` expression, or the inline values of the right
    choice); the quiz itself when no cell does."""
    if quiz.answer is not None:
        exprs = [quiz.answer.expr]
    else:
        indices = [int(m) for m in VALUE.findall(quiz.choices[correct].text)]
        exprs = [section.inlines[k].expr for k in indices]
    found = Bindings(section).producers(exprs, before=quiz.loc.line)
    return Loc(found[-1].cell.loc.path, found[-1].line) if found else quiz.loc
