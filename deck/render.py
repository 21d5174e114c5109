"""Rendering: parsed lesson + execution results → reveal.js HTML and the values record.

Prose goes through Python-Markdown, math through KaTeX (pre-rendered, see `mathtex`), code
through Pygments, and the page through Jinja2 templates.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
import markdown

from deck.errors import DeckError, Diagnostic
from deck.htmltext import highlight_code, plain
from deck.mathtex import KaTeX, extract, math_placeholder
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
    placeholder,
)

TEMPLATES = Path(__file__).parent / "templates"
VALUE = re.compile("\u2063V(\\d+)\u2063")
# A line break inside a Chinese paragraph is not a space: join the lines.
CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
CJK_LINE_BREAK = re.compile(f"(?<=[{CJK}])\n(?=[{CJK}])")
SLIDE_ATTRS = {"id"}  # everything else becomes data-<key>, which reveal.js reads


@dataclass(frozen=True)
class RenderedSlide:
    number: int
    section: str
    title: str | None
    level: int
    loc: Loc
    classes: tuple[str, ...]
    attrs: dict[str, str]
    body: str
    notes: str


@dataclass(frozen=True)
class RenderedDeck:
    html: str
    slides: tuple[RenderedSlide, ...]
    values: dict[str, Any]
    figures: tuple[Path, ...]  # figure files to publish under figures/


def fill_values(tex: str, section: Section, result: SectionResult) -> str:
    """Inline values inside a formula are substituted before KaTeX sees it."""
    return VALUE.sub(lambda m: result.inline.get(section.inlines[int(m.group(1))].expr, ""), tex)


def collect_formulas(lesson: Lesson, results: dict[str, SectionResult]) -> set[tuple[str, bool]]:
    """Every formula of the lesson, values filled in, so KaTeX can render them in one go."""
    formulas: set[tuple[str, bool]] = set()
    for section in lesson.sections:
        for slide in section.slides:
            texts = [slide.title] if slide.title else []
            for text in [*texts, *_block_texts(slide.blocks)]:
                for tex, display, _ in extract(text)[1]:
                    formulas.add((fill_values(tex, section, results[section.name]), display))
    return formulas


def _block_texts(blocks: tuple[Block, ...]):
    for block in blocks:
        if isinstance(block, Prose | Notes):
            yield block.text
        elif isinstance(block, Cell):
            for key in ("fig-cap", "fig-alt"):
                if key in block.options:
                    yield block.options[key]
        elif isinstance(block, Quiz):
            yield block.question
            yield block.explanation
            yield from (c.text for c in block.choices)
        elif isinstance(block, Columns):
            for column in block.columns:
                yield from _block_texts(column.blocks)
        elif isinstance(block, Div):
            yield from _block_texts(block.blocks)


@dataclass
class _SectionRenderer:
    """Renders one section's slides; collects diagnostics and the values record."""

    section: Section
    result: SectionResult
    katex: KaTeX
    first_number: int
    quiz_template: jinja2.Template
    diagnostics: list[Diagnostic] = field(default_factory=list)
    records: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {"values": [], "figures": [], "quizzes": [], "outputs": []}
    )
    figure_files: list[Path] = field(default_factory=list)
    number: int = 0

    def __post_init__(self) -> None:
        self.md = markdown.Markdown(
            extensions=["tables", "sane_lists", "attr_list", "pymdownx.betterem"],
            output_format="html",
        )
        # Results follow the cells' order (equal cache keys mean the same cells in the same
        # order); line numbers are not in the key, so they may have moved since.
        cells = self.section.cells()
        assert len(cells) == len(self.result.cells), "cache key collision"
        self.cells = {id(c): r for c, r in zip(cells, self.result.cells, strict=True)}

    # ---- text -----------------------------------------------------------------------

    def value(self, index: int) -> str:
        expr = self.section.inlines[index]
        return self.result.inline.get(expr.expr, "")

    def text(self, source: str, loc: Loc, inline: bool = False) -> str:
        """Markdown with math and inline values → HTML."""
        text, formulas = extract(CJK_LINE_BREAK.sub("", source))
        out = self.md.reset().convert(text)
        if inline and out.startswith("<p>") and out.endswith("</p>") and out.count("<p>") == 1:
            out = out[3:-4]
        for n, (raw, display, offset) in enumerate(formulas):
            tex = self.fill(raw)
            rendered = self.katex.html(tex, display)
            if rendered is None:
                problem = self.katex.error(tex, display) or "not rendered"
                at = Loc(loc.path, loc.line + offset)
                self.diagnostics.append(Diagnostic(at, "math", f"KaTeX: {problem}"))
                rendered = html.escape(tex)
            out = out.replace(math_placeholder(n), rendered)
        for m in set(VALUE.findall(out)):
            index = int(m)
            self.record_value(index)
            out = out.replace(placeholder(index), html.escape(self.value(index)))
        return out

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
                notes.append(self.text(block.text, block.loc))
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
            return highlight_code(block.text, block.lang)
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
        if isinstance(block, Div):
            classes = " ".join(block.classes)
            attrs = "".join(f' {k}="{html.escape(v)}"' for k, v in _data_attrs(block.attrs).items())
            return f'<div class="{classes}"{attrs}>{self.blocks(block.blocks, notes)}</div>'
        raise TypeError(block)

    def cell(self, cell: Cell) -> str:
        result = self.cells.get(id(cell))
        if result is None or cell.options.get("include") is False:
            return ""
        parts = []
        if cell.options.get("echo") is True:
            parts.append(highlight_code(cell.code.strip("\n"), "python"))
        if cell.options.get("output", True):
            for output in result.outputs:
                self.records["outputs"].append(
                    {
                        "label": cell.label,
                        "loc": str(cell.loc),
                        "slide": self.number,
                        "kind": output.kind,
                        "text": plain(output.data) if output.kind == "html" else output.data,
                    }
                )
                if output.kind == "html":
                    parts.append(f'<div class="output">{output.data}</div>')
                elif output.kind == "stdout":
                    parts.append(f'<pre class="stdout">{html.escape(output.data)}</pre>')
                else:
                    parts.append(f'<pre class="output">{html.escape(output.data)}</pre>')
            for figure in result.figures:
                parts.append(self.figure(cell, figure.file, figure.width_in, figure.height_in))
        return '<div class="cell">' + "\n".join(parts) + "</div>" if parts else ""

    def figure(self, cell: Cell, file: str, width: float, height: float) -> str:
        alt = self.fill(cell.options.get("fig-alt") or "")
        if not alt:
            self.diagnostics.append(
                Diagnostic(cell.loc, "figure", "figure has no alt text: add `#| fig-alt: …`")
            )
            alt = ""
        caption = cell.options.get("fig-cap")
        caption_html = self.text(caption, cell.loc, inline=True) if caption else ""
        self.figure_files.append(Path(self.result.figure_dir) / file)
        self.records["figures"].append(
            {
                "label": cell.label,
                "file": f"figures/{file}",
                "caption": plain(caption_html),
                "alt": alt,
                "loc": str(cell.loc),
                "slide": self.number,
            }
        )
        img = (
            f'<img src="figures/{html.escape(file)}" alt="{html.escape(alt)}" '
            f'style="aspect-ratio:{width}/{height}">'
        )
        cap = f"<figcaption>{caption_html}</figcaption>" if caption_html else ""
        return f"<figure>{img}{cap}</figure>"

    def quiz(self, quiz: Quiz) -> str:
        choices = [self.text(c.text, c.loc, inline=True) for c in quiz.choices]
        texts = [plain(c) for c in choices]
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
        self.records["quizzes"].append(
            {
                "question": plain(question),
                "choices": texts,
                "answer": correct,
                "answer_text": texts[correct],
                "explanation": plain(explanation),
                "loc": str(quiz.loc),
                "slide": self.number,
            }
        )
        return self.quiz_template.render(
            question=question, choices=choices, correct=correct, explanation=explanation
        )

    # ---- slides ---------------------------------------------------------------------

    def slides(self) -> list[RenderedSlide]:
        out = []
        for k, slide in enumerate(self.section.slides):
            self.number = self.first_number + k
            out.append(self.slide(slide))
        return out

    def slide(self, slide: Slide) -> RenderedSlide:
        notes: list[str] = []
        title = self.text(slide.title, slide.loc, inline=True) if slide.title else None
        body = self.blocks(slide.blocks, notes)
        return RenderedSlide(
            number=self.number,
            section=self.section.name,
            title=title,
            level=slide.level,
            loc=slide.loc,
            classes=slide.classes,
            attrs=slide.attrs,
            body=body,
            notes="\n".join(notes),
        )


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def render_lesson(lesson: Lesson, results: dict[str, SectionResult], katex: KaTeX) -> RenderedDeck:
    env = _environment()
    quiz_template = env.get_template("quiz.html.j2")
    slides: list[RenderedSlide] = []
    diagnostics: list[Diagnostic] = []
    records: dict[str, list[dict[str, Any]]] = {
        "values": [],
        "figures": [],
        "quizzes": [],
        "outputs": [],
    }
    figures: list[Path] = []
    for section in lesson.sections:
        renderer = _SectionRenderer(
            section, results[section.name], katex, len(slides) + 1, quiz_template
        )
        slides.extend(renderer.slides())
        diagnostics.extend(renderer.diagnostics)
        for kind, items in renderer.records.items():
            records[kind].extend(items)
        figures.extend(renderer.figure_files)
    if diagnostics:
        raise DeckError(diagnostics)
    page = env.get_template("deck.html.j2").render(
        lesson=lesson, meta=lesson.meta, slides=slides, data_attr=_data_attrs
    )
    values = {
        "lesson": lesson.name,
        "title": lesson.meta.get("title", lesson.name),
        "slides": len(slides),
        **records,
    }
    return RenderedDeck(page, tuple(slides), values, tuple(figures))


def _data_attrs(attrs: dict[str, str]) -> dict[str, str]:
    return {
        (k if k in SLIDE_ATTRS or k.startswith("data-") else f"data-{k}"): v
        for k, v in attrs.items()
    }
