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

import jinja2
from markupsafe import Markup

from deck.blocks.tex import macros_digest
from deck.errors import DeckError, Diagnostic
from deck.host import build_host, kernel_record
from deck.model import (
    Lesson,
    Loc,
    Records,
    Section,
    SectionResult,
)
from deck.model.document import Document
from deck.render.document import document
from deck.render.frame import deck_settings, missing_media
from deck.render.mathtex import KaTeX, lesson_macros
from deck.render.pandoc import (
    PandocExtension,
)
from deck.render.section import SectionRenderer
from deck.render.store import RenderedSlide, RenderStore, SectionRender
from deck.render.transforms import DeckPass, apply_to_document
from deck.render.transforms import apply as apply_transforms
from deck.render.typeset import typeset
from deck.theme import NOTE_MINUTES, TEMPLATES

PLOTLY_JS_FILE = re.compile(r"plotly-[\w.+-]+\.min\.js")  # (deck.execute.display writes it)
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


@dataclass(frozen=True)
class RenderedDeck:
    html: str
    slides: tuple[RenderedSlide, ...]
    values: dict[str, Any]
    figures: tuple[Path, ...]  # figure files to publish under figures/
    rendered: tuple[str, ...] = ()  # sections rendered by this build (the rest were cached)
    media: tuple[tuple[str, Path], ...] = ()  # (path inside the deck folder, source file)
    warnings: tuple[Diagnostic, ...] = ()
    views: dict[str, str] = field(default_factory=dict)  # layout (theme.VIEWS) → its page
    document: Document | None = None  # the lesson resolved for presentation (every output's)


def new_markdown() -> Any:
    """One Markdown converter per build: creating one compiles many regular expressions."""
    import importlib

    import markdown

    pandoc = PandocExtension()
    builtin = [getattr(importlib.import_module(m), c)() for m, c in MARKDOWN_EXTENSIONS]
    md = markdown.Markdown(extensions=[*builtin, pandoc], output_format="html")
    md.pandoc = pandoc
    return md


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


def planned(slide: RenderedSlide) -> bool:
    """Whether the slide gives its minutes (its notes open with them) or its own timing."""
    if "timing" in slide.attrs or "data-timing" in slide.attrs:
        return True
    notes = re.sub(r'<p class="deck-optional-mark">.*?</p>', "", slide.notes, flags=re.S)
    return bool(NOTE_MINUTES.match(html.unescape(re.sub(r"<[^>]*>", "", notes))))


def render_lesson(
    lesson: Lesson, results: dict[str, SectionResult], cache: Path | None = None
) -> RenderedDeck:
    """The deck page, its values record and its figures. With `cache` (the build's cache
    folder), formulas and sections rendered before are taken from there."""
    env = _environment(cache)
    widget_kinds = {kind.name: kind for kind in lesson.widgets}
    store = RenderStore(cache / lesson.name / "render", lesson) if cache is not None else None
    diagnostics = figure_collisions(lesson, results)
    parts: dict[str, SectionRender] = {}
    pending: list[tuple[Section, SectionRenderer, list[RenderedSlide], str]] = []
    md = None
    macros = lesson_macros(lesson)  # `\newcommand`s hold in every formula of the deck
    cites = bool(lesson.config.citations.bibliography)  # (`@key` is a citation: crossref.split)
    for section in lesson.sections:
        result = results[section.name]
        digest = macros_digest(macros) + (" cites" if cites else "")
        key = store.key(section, result, digest) if store else ""
        cached = store.load(section, key) if store else None
        if cached is not None:
            parts[section.name] = cached
            continue
        md = md or new_markdown()
        renderer = SectionRenderer(section, result, md, env, widget_kinds, cites=cites)
        pending.append((section, renderer, renderer.slides(), key))
    deck = deck_settings(lesson, lambda: md or new_markdown(), cache)
    diagnostics.extend(deck.errors)
    formulas = {(f.tex, f.display) for _, r, _, _ in pending for f in r.formulas}
    formulas |= set(deck.formulas)
    katex = KaTeX(cache / "katex.json" if cache is not None else None) if formulas else None
    if katex is not None:
        katex.use_macros(macros)
        katex.prepare(formulas)
        deck.typeset(katex)
    for section, renderer, drafts, key in pending:
        part = typeset(renderer, drafts, katex)
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
    records = Records()
    figures: list[Path] = []
    media: dict[str, Path] = {}
    warnings: list[Diagnostic] = []
    for section in lesson.sections:
        part = parts[section.name]
        numbered, part_records = part.numbered_from(len(slides) + 1)
        slides.extend(numbered)
        records.extend(part_records)
        figures.extend(Path(results[section.name].figure_dir) / f for f in part.figures)
        media.update((m.published, lesson.path / m.source) for m in part.media)
        warnings.extend(part.warnings)
    media.update(deck.media)
    if not any(planned(s) for s in slides):  # no minutes anywhere: a note without is no slip
        warnings = [w for w in warnings if w.code != "minutes"]
    warnings.extend(quiz_positions(lesson, records))
    resolved = {section.name: renderer.resolved for section, renderer, *_ in pending}
    doc = document(lesson, results, parts, resolved, cites)
    doc, found = apply_to_document(doc, DeckPass(lesson, deck, cache))  # (deck-wide)
    warnings.extend(found)
    slides, found = apply_transforms(slides, DeckPass(lesson, deck, cache, doc))
    warnings.extend(found)
    template = env.get_template("deck.html.j2")
    for script in sorted({f.name for f in figures if PLOTLY_JS_FILE.fullmatch(f.name)}):
        # a plotly figure's library, from the author's plotly (deck.execute.display)
        tag = f'<script src="figures/{html.escape(script)}"></script>\n'
        deck.includes["in-header"] = deck.includes.get("in-header", "") + tag

    def page_of(shown: list[RenderedSlide]) -> str:
        return template.render(
            lesson=lesson,
            slides=shown,
            data_attr=_data_attrs,
            stylesheets=deck.stylesheets,
            deck_options=deck.options,
            includes={k: Markup(v) for k, v in deck.includes.items()},  # the author's HTML
        )

    page = page_of(slides)
    # What each layout shows, for the outputs made from one (a PDF is reprinted only when its
    # view changed): the lecturer's notes everything, the students' handout no speaker notes,
    # the slides neither notes nor `::: handout` blocks.
    student = [replace(s, notes="") for s in slides]
    views = {
        "lecturer": page,
        "student": page_of(student),
        "slides": page_of([replace(s, body=s.without_handouts()) for s in student]),
    }
    values = {
        "lesson": lesson.name,
        "title": lesson.title,
        "slides": len(slides),
        **records.to_json(),
        "build_host": build_host_of(lesson, results),
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
        views,
        doc,
    )


def build_host_of(lesson: Lesson, results: dict[str, SectionResult]) -> dict[str, Any]:
    """`values.json`'s `build_host`: what timings on the slides were measured on (this
    machine, `build_host()`), and under `kernels` what decided the floating-point kernels of
    the values (`kernel_record` of the sections' records, each from the run that computed that
    section, so a section taken from the cache brings its own; {} when no section imported
    torch or numpy)."""
    recorded = {s.name: results[s.name].kernels for s in lesson.sections}
    return {**build_host(), "kernels": kernel_record({k: v for k, v in recorded.items() if v})}


def quiz_positions(lesson: Lesson, records: Records) -> list[Diagnostic]:
    """A warning at the first quiz when a lesson of three or more quizzes, not shuffled, has
    more than half of its answers at one position (students learn the letter, not the
    reasoning). A shuffled lesson plans its positions so that this never happens."""
    quizzes = records.quizzes
    if lesson.config.quiz.shuffle or len(quizzes) < 3:
        return []
    answers = [q.answer for q in quizzes]
    most = max(set(answers), key=answers.count)
    if 2 * answers.count(most) <= len(answers):
        return []
    path, _, line = quizzes[0].loc.rpartition(":")
    held = "all" if answers.count(most) == len(answers) else f"{answers.count(most)} of"
    message = (
        f"{held} {len(quizzes)} quizzes have their answer at choice {chr(ord('A') + most)}: "
        "set `quiz: {shuffle: true}` in lesson.yml, or reorder the choices"
    )
    return [Diagnostic(Loc(path, int(line)), "quiz-positions", message, "warning")]


def _data_attrs(attrs: dict[str, str]) -> dict[str, str]:
    return {
        (k if k in SLIDE_ATTRS or k.startswith("data-") else f"data-{k}"): v
        for k, v in attrs.items()
    }
