"""Rendering one section: its slides as HTML with formula placeholders, the values record, and
the diagnostics found. The section is resolved first (`deck.render.document`: values as text,
cells as shown, quizzes in their order) and its HTML is rendered from the resolved slides, as
every other output is. `SectionRenderer` is the public render context block kinds and cells
use (`deck.blocks.context.RenderContext`); a `:::` block's node goes to its kind
(`deck.blocks`)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field, replace
from typing import Any

import jinja2

from deck.blocks import NAMED, quiz
from deck.blocks.context import SlideState
from deck.blocks.notes import unplanned
from deck.blocks.provenance import (
    VALUE,
    Bindings,
    Producer,
    shown_producers,
    sources_script,
    substitute_values,
    value_span,
)
from deck.blocks.tex import MATH_TOKEN, extract
from deck.errors import Diagnostic, Loc
from deck.model import (
    Records,
    Section,
    SectionResult,
    ValueRecord,
    WidgetKind,
)
from deck.model.document import (
    Aside,
    Cite,
    DocSlide,
    Group,
    Inline,
    Listing,
    Node,
    Ref,
    ShownCell,
    ShownQuiz,
    Text,
    Value,
    cite_token,
    ref_token,
)
from deck.render.cells import render_cell
from deck.render.crossref import equation_labels, split, written
from deck.render.document import Resolver
from deck.render.footnotes import footnote_definitions, numbered_footnotes, slide_foot
from deck.render.frame import is_local
from deck.render.htmltext import highlight_code, plain
from deck.render.mathtex import Formula, join_cjk_lines
from deck.render.media import MarkdownImages, SectionFiles
from deck.render.pandoc import (
    Media,
    bracketed_spans,
    mark_footnotes,
    take_definitions,
)
from deck.render.store import MediaFile, RenderedSlide
from deck.source.contain import from_root
from deck.strings import strings, table_language

LIST_ITEM = re.compile(r"<li>")
MEDIA_ATTRS = ("background-image", "background-video")  # slide attributes naming local files


ESCAPED_AT = re.compile(r"(?<!\\)\\@(?![^`]*`[^`]*$)")  # `\@`, not in a code span


@dataclass
class SectionRenderer:
    """Renders one section's slides with formula placeholders; collects formulas, diagnostics
    and the values record."""

    section: Section
    result: SectionResult
    md: Any
    templates: jinja2.Environment
    widget_kinds: dict[str, WidgetKind] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    formulas: list[Formula] = field(default_factory=list)
    records: Records = field(default_factory=Records)
    figure_files: list[str] = field(default_factory=list)
    figure_ids: set[str] = field(default_factory=set)
    warnings: list[Diagnostic] = field(default_factory=list)
    media: list[MediaFile] = field(default_factory=list)
    number: int = 0
    incremental: bool = False
    slide_state: SlideState = field(default_factory=SlideState)
    sources: list[Producer] = field(default_factory=list)  # of the current slide's values
    values: list[Inline] = field(default_factory=list)  # those met: placeholder k → value
    cites: bool = False  # the deck has a bibliography: `@key` and `[@key]` are citations
    equations: dict[int, str] = field(default_factory=dict)  # formula index → its `eq-` label

    def __post_init__(self) -> None:
        self.bindings = Bindings(self.section)
        self.quarto = self.section.settings.quarto
        self.line_numbers = self.section.settings.code_line_numbers
        self.files = SectionFiles(self.section.path.parent, self.media, self.diagnostics)
        self.resolver = Resolver(
            self.section,
            self.result,
            plain=self.quoted,
            diagnostics=self.diagnostics,
            warnings=self.warnings,
            parsed=self.bindings,
            cites=self.cites,
        )
        self.resolved: tuple[DocSlide, ...] = ()
        self.definitions: dict[str, tuple[str, Loc]] = {}

    # ---- text -----------------------------------------------------------------------

    def source(self, text: Text) -> str:
        """A resolved text as Markdown, each value a placeholder into `values`."""
        out = []
        for part in text.parts:
            if isinstance(part, str):
                out.append(part)
            else:
                out.append(f"\u2063V{len(self.values)}\u2063")
                self.values.append(part)
        return "".join(out)

    def value(self, index: int) -> str:
        """A value's text; a reference or citation as written (where only text may stand: in a
        formula, alt text, an attribute, a link)."""
        part = self.values[index]
        return part.text if isinstance(part, Value) else part.written

    def fill_values(self, tex: str) -> str:
        """Inline values inside a formula are substituted before KaTeX sees it."""
        return VALUE.sub(lambda m: self.value(int(m.group(1))), tex)

    def text(self, text: Text, inline: bool = False, wrap: bool = True) -> str:
        return self.markup(self.source(text), text.loc, inline, wrap)

    def markdown(self, source: str, loc: Loc, inline: bool = False) -> str:
        """Markdown as a cell printed it: its references and citations read as in prose."""
        if "@" not in source:
            return self.markup(source, loc, inline)
        return self.text(Text(split(source, loc, self.resolver.value, self.cites), loc), inline)

    def quoted(self, text: Text) -> str:
        """A text as its slide quotes it (formulas as `$TeX$`), recording nothing: how a
        quiz's choices are compared with its answer while the section resolves."""
        kept: tuple[list[Any], ...] = (
            self.formulas,
            self.records.values,
            self.diagnostics,
            self.media,
        )
        lengths = [len(k) for k in kept]
        footnotes = len(self.slide_state.footnotes)
        try:
            return self.plain(self.text(text, inline=True, wrap=False))
        finally:
            for k, n in zip(kept, lengths, strict=True):
                del k[n:]
            del self.slide_state.footnotes[footnotes:]
            for index in [i for i in self.equations if i >= lengths[0]]:
                del self.equations[index]

    def markup(self, source: str, loc: Loc, inline: bool = False, wrap: bool = True) -> str:
        """Markdown with math and inline values → HTML with formula placeholders.

        Formulas are taken out of the text as written, so a formula's line is its line in the
        file, before Chinese line breaks are joined (in prose and inside formulas alike).
        Values become `<span class="value">`s telling where they come from, unless `wrap` is
        false (speaker notes, quiz choices: they stand where no control may).
        """
        first = len(self.formulas)
        marked, found = extract(source, first)
        if "{#eq-" in marked:  # `$$…$$ {#eq-x}`: the formula's id and number (crossref)
            marked, labels = equation_labels(marked)
            self.equations.update((k, v) for k, v in labels.items() if found[k - first][1])
        marked = ESCAPED_AT.sub("&#64;", marked)  # `\@me`: Pandoc's escape, not a citation
        marked, _ = take_definitions(marked)
        marked = bracketed_spans(mark_footnotes(marked, lambda *f: self.footnote(loc, *f)))

        def alt(text: str) -> str:  # alt text shows a formula as its TeX
            def tex(m: re.Match[str]) -> str:
                return f"${self.fill_values(found[int(m.group(1)) - first][0])}$"

            return MATH_TOKEN.sub(tex, self.fill_values(text))

        images = MarkdownImages(lambda src: self.local_file(src, loc))  # (raw HTML's too:)
        self.md.pandoc.media = Media(image=images.token, alt=alt)
        out = self.md.reset().convert(join_cjk_lines(marked))
        out = images.restore(self.files.raw(out, loc, source))
        if inline and out.startswith("<p>") and out.endswith("</p>") and out.count("<p>") == 1:
            out = out[3:-4]
        if self.incremental:
            out = LIST_ITEM.sub('<li class="fragment">', out)
        for raw, display, offset in found:
            tex = join_cjk_lines(self.filled(raw))
            self.formulas.append(Formula(tex, display, Loc(loc.path, loc.line + offset)))
        for m in dict.fromkeys(VALUE.findall(out)):  # in reading order: the record is stable
            self.record_value(int(m))
        return substitute_values(out, self.value, self.value_markup if wrap else self.value_text)

    def value_text(self, index: int) -> str:
        """A value as text, where no control may stand (speaker notes, quiz choices); a
        reference or citation as the deck resolves it (`deck.render.crossref.fill`)."""
        part = self.values[index]
        if isinstance(part, Ref):
            return ref_token(part, link=False)
        if isinstance(part, Cite):
            return cite_token(part, markup=False)
        return html.escape(part.text)

    def value_markup(self, index: int) -> str:
        value = self.values[index]
        if isinstance(value, Ref):
            return ref_token(value, link=True)
        if isinstance(value, Cite):
            return cite_token(value, markup=True)
        producers = shown_producers(self.bindings.producers([value.expr]))
        self.sources.extend(producers)
        return value_span(value.expr, str(value.loc), value.text, producers)

    def footnote(self, loc: Loc, kind: str, content: str, offset: int) -> int:
        self.slide_state.footnotes.append((kind, content, Loc(loc.path, loc.line + offset)))
        return len(self.slide_state.footnotes) - 1

    def local_file(self, src: str, loc: Loc) -> str | None:
        """A file a slide names (an image, a background): recorded for publishing, or an
        error at the slide's line when it is not there (`deck.render.media`)."""
        return self.files.publish(src, loc)

    def names_file(self, src: str) -> bool:
        """Whether a slide attribute names a local file: a relative path, or a project-root
        one (`/images/x.png` in a Quarto project)."""
        root = src.startswith("/") and not src.startswith("//")
        return is_local(src) or root and from_root(self.files.folder, src) != src

    def plain(self, markup: str) -> str:
        """Text of rendered HTML as a reader would quote it, formulas as `$TeX$`, references
        and citations as written."""

        def tex(m: re.Match[str]) -> str:
            return html.escape(f"${self.formulas[int(m.group(1))].tex}$")

        return plain(written(MATH_TOKEN.sub(tex, markup)))

    def fill(self, text: Text | None) -> str:
        """A text (alt text) as plain text, its values recorded and in place."""
        return self.filled(self.source(text)) if text is not None else ""

    def filled(self, source: str) -> str:
        """Plain text (alt text, a formula's TeX) with inline values recorded and substituted."""
        for m in VALUE.findall(source):
            self.record_value(int(m))
        return self.fill_values(source)

    def record_value(self, index: int) -> None:
        value = self.values[index]
        if not isinstance(value, Value):
            return  # (a reference, a citation)
        self.records.values.append(
            ValueRecord(value.expr, value.text, str(value.loc), self.number, self.section.name)
        )

    # ---- blocks ---------------------------------------------------------------------

    def blocks(self, blocks: tuple[Node, ...], notes: list[str]) -> str:
        """Blocks in order; a pause wraps everything after it in a fragment."""
        groups: list[list[str]] = [[]]
        for block in blocks:
            if isinstance(block, Aside) and block.kind == "pause":
                groups.append([])
            elif isinstance(block, Aside):  # out of the flow, into the slide's notes
                NAMED[block.kind].render(self, block, notes)
            else:
                groups[-1].append(self.block(block, notes))
        out = "\n".join(groups[0])
        for group in groups[1:]:
            out += '\n<div class="fragment">' + "\n".join(group) + "</div>"
        return out

    def block(self, block: Node, notes: list[str]) -> str:
        if isinstance(block, Text):
            return self.text(block)
        if isinstance(block, Listing):
            return self.code(block)
        if isinstance(block, ShownCell):
            return render_cell(self, block)
        if isinstance(block, ShownQuiz):
            return quiz.KIND.render(self, block, notes)
        if isinstance(block, Group):
            return NAMED[block.kind].render(self, block, notes)  # a `:::` block
        raise TypeError(f"{type(block).__name__} has no place in the flow of a slide")

    @property
    def lang(self) -> str:
        return table_language(self.section.settings.lang)

    def template(self, name: str) -> Any:
        return self.templates.get_template(name)

    def numbers(self, value: Any) -> bool | str:
        """`code-line-numbers` as written (true, false, "1-3|5"), else the deck's setting."""
        if value is None:
            value = self.line_numbers
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        return value

    def code(self, block: Listing) -> str:
        if block.lang.startswith("="):  # a raw block: HTML goes in as it is, others are dropped
            at = Loc(block.loc.path, block.loc.line + 1)  # (its text's first line)
            return self.files.raw(block.text, at) if block.lang == "=html" else ""
        shown = highlight_code(
            block.text, block.lang, self.numbers(block.attrs.get("code-line-numbers"))
        )
        return f'<div class="cell">{shown}</div>' if block.attrs.get("cell") else shown

    # ---- slides ---------------------------------------------------------------------

    def slides(self) -> list[RenderedSlide]:
        """The section's slides, numbered from 1, formulas still placeholders. A cell with
        `output-location: slide` adds a slide after its own."""
        self.resolved = self.resolver.slides()
        self.definitions = footnote_definitions(self.resolved, self.source)
        out: list[RenderedSlide] = []
        for slide in self.resolved:
            self.number = len(out) + 1
            out.extend(self.slide(slide))
        return out

    def slide(self, slide: DocSlide) -> list[RenderedSlide]:
        self.slide_state = SlideState()
        self.incremental = self.section.settings.incremental
        notes: list[str] = []
        self.sources = []
        title = self.text(slide.title, inline=True) if slide.title else None
        body = self.blocks(slide.blocks, notes) + sources_script(self.sources) + self.foot()
        if not {"timing", "data-timing"} & set(slide.attrs):  # (a slide's own timing wins)
            self.warnings += unplanned(slide.blocks)
        if "optional" in slide.classes:  # a slide the lecturer may skip: the notes say so
            mark = strings(self.lang, "notes")["optional"]
            notes.insert(0, f'<p class="deck-optional-mark">{mark}</p>')
        if self.slide_state.footer is not None:
            body += f'<div class="footer slide-footer">{self.slide_state.footer}</div>'
        attrs = dict(slide.attrs)
        for key in MEDIA_ATTRS:
            if key in attrs and self.names_file(attrs[key]):
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
            handouts=tuple(map(self.number_footnotes, self.slide_state.handouts)),
        )
        extra = [
            replace(
                first,
                number=self.number + k,
                classes=(*slide.classes, "output-location-slide"),
                attrs={**attrs, "id": attrs["id"] + "-output"} if "id" in attrs else attrs,
                body=extra_body,
                notes="",
                handouts=(),
            )
            for k, extra_body in enumerate(self.slide_state.extra, start=1)
        ]
        return [first, *extra]

    def foot(self) -> str:
        """The slide's asides and footnotes, at its foot (one `<aside>`, as Quarto has it)."""
        out, self.footnote_numbers = slide_foot(self, self.slide_state, self.definitions)
        return out

    def number_footnotes(self, text: str) -> str:
        return numbered_footnotes(text, self.footnote_numbers)
