"""The render cache: a section's rendered slides, kept under a key of everything they depend on.

The key covers the section as parsed (every text, option and line its slides show), its
execution results, and the renderer itself (its code, templates, KaTeX and the versions of the
Markdown and highlighting libraries). Slides are numbered within their section, so a slide
added earlier in the deck does not invalidate the sections after it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import deck.warm as warm
from deck.errors import Diagnostic
from deck.model import Lesson, Loc, Records, Section, SectionResult
from deck.model.document import QuizOrder
from deck.render.mathtex import katex_fingerprint
from deck.store.files import write_atomic
from deck.theme import ENGINE, TEMPLATES

# What a section's rendered HTML depends on besides its text and results (the render key): the
# render stage and what it reads. Whole packages, so a new module needs no list kept by hand.
RENDER_CODE = (
    "render",
    "blocks",
    "source",
    "store",
    "model",
    "errors.py",
    "theme.py",
    "strings.py",
    "static/strings.json",  # (the words strings.py reads: callout titles, cross-reference names…)
    "host.py",
    "interpreter.py",
    "widgetdata.py",
    "warm.py",
)


def render_code() -> list[Path]:
    """The engine files a rendered section depends on, in a stable order."""
    files: list[Path] = []
    for name in RENDER_CODE:
        place = ENGINE / name
        files += sorted(place.rglob("*.py")) if place.is_dir() else [place]
    return [*files, *sorted(TEMPLATES.glob("*.j2"))]


def render_library_versions() -> dict[str, str]:
    """The versions of the Markdown and highlighting libraries, read from the modules the
    render imports anyway (importlib.metadata would cost 60 ms a build to find them)."""
    import jinja2
    import markdown
    import pygments
    from pymdownx import __meta__ as pymdownx_meta

    return {
        "markdown": markdown.__version__,
        "pymdown-extensions": pymdownx_meta.__version__,
        "pygments": pygments.__version__,
        "jinja2": jinja2.__version__,
    }


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
    handouts: tuple[str, ...] = ()  # the `::: handout` blocks, each as it stands in `body`

    def without_handouts(self) -> str:
        """The body as the slides show it: without its `::: handout` blocks (outer ones are
        recorded after the blocks inside them, so they go first)."""
        body = self.body
        for block in reversed(self.handouts):
            body = body.replace(block, "", 1)
        return body

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "section": self.section,
            "title": self.title,
            "level": self.level,
            "loc": [self.loc.path, self.loc.line],
            "classes": list(self.classes),
            "attrs": self.attrs,
            "body": self.body,
            "notes": self.notes,
            "handouts": list(self.handouts),
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> RenderedSlide:
        path, line = data["loc"]
        return RenderedSlide(
            number=int(data["number"]),
            section=str(data["section"]),
            title=data["title"],
            level=int(data["level"]),
            loc=Loc(str(path), int(line)),
            classes=tuple(data["classes"]),
            attrs=dict(data["attrs"]),
            body=str(data["body"]),
            notes=str(data["notes"]),
            handouts=tuple(str(h) for h in data["handouts"]),
        )


@dataclass(frozen=True)
class MediaFile:
    """A local file a slide names (an image, a slide background), published with the deck."""

    published: str  # its path inside the deck's folder (`media/…`)
    source: str  # its path as written, from the lesson's folder
    loc: Loc


@dataclass(frozen=True)
class SectionRender:
    """One section's rendered slides and values records, slides numbered from 1 within the
    section. This is what the render cache keeps."""

    slides: tuple[RenderedSlide, ...]
    records: Records
    figures: tuple[str, ...]  # file names in the section result's figure folder
    media: tuple[MediaFile, ...] = ()
    warnings: tuple[Diagnostic, ...] = ()  # repeated when the render is taken from the cache
    quiz_orders: tuple[QuizOrder, ...] = ()  # how each quiz was shown, for the document

    def to_json(self) -> dict[str, Any]:
        return {
            "slides": [s.to_json() for s in self.slides],
            "records": self.records.to_json(),
            "figures": list(self.figures),
            "media": [[m.published, m.source, m.loc.path, m.loc.line] for m in self.media],
            "warnings": [[w.loc.path, w.loc.line, w.code, w.message] for w in self.warnings],
            "quiz_orders": [[q.loc, list(q.order), q.answer, q.source] for q in self.quiz_orders],
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> SectionRender:
        records = Records.from_json(data["records"])
        return SectionRender(
            slides=tuple(RenderedSlide.from_json(s) for s in data["slides"]),
            records=records,
            figures=tuple(str(f) for f in data["figures"]),
            media=tuple(
                MediaFile(str(a), str(b), Loc(str(c), int(d))) for a, b, c, d in data["media"]
            ),
            warnings=tuple(
                Diagnostic(Loc(str(a), int(b)), str(c), str(d), "warning")
                for a, b, c, d in data["warnings"]
            ),
            quiz_orders=tuple(
                QuizOrder(str(loc), tuple(int(k) for k in order), int(answer), str(source))
                for loc, order, answer, source in data["quiz_orders"]
            ),
        )

    def numbered_from(self, first: int) -> tuple[list[RenderedSlide], Records]:
        """The slides and records with deck-wide slide numbers, the first slide being `first`."""
        shift = first - 1
        slides = [replace(s, number=s.number + shift) for s in self.slides]
        return slides, self.records.shifted(shift)


def render_engine_key() -> str:
    """Everything besides a section's text and results that its rendered HTML depends on."""
    h = hashlib.sha256(katex_fingerprint().encode())
    for path in render_code():
        h.update(path.relative_to(ENGINE).as_posix().encode() + b"\0" + path.read_bytes())
    for dist, version in render_library_versions().items():
        h.update(f"{dist}={version};".encode())
    return h.hexdigest()


class RenderStore:
    """`<folder>/<section>.json`: a section's last rendered slides and the key they were
    rendered for. An entry that cannot be read is rendered again, never trusted."""

    def __init__(self, folder: Path, lesson: Lesson):
        self.folder = folder
        h = hashlib.sha256(render_engine_key().encode())
        for kind in lesson.widgets:  # the lesson's widget checks shape what is embedded
            h.update(kind.name.encode() + b"\0" + kind.source.read_bytes())
        self.engine = h.hexdigest()

    def key(self, section: Section, result: SectionResult, macros: str = "") -> str:
        """What the section's render depends on (`macros`: the deck's TeX macros' digest)."""
        h = hashlib.sha256((self.engine + macros).encode())
        h.update(repr(section).encode())  # every text, option and line the slides show
        # what the section computed, without what it read (its dependencies say when the result
        # holds, which the cache's lookup checked; no slide shows them, and they are most of a
        # result's JSON: 1,300 files of torch's in each section that imports it)
        shown = replace(result, deps=()).to_json()
        h.update(json.dumps(shown, sort_keys=True, ensure_ascii=False).encode())
        return h.hexdigest()

    def load(self, section: Section, key: str) -> SectionRender | None:
        """The slides rendered for `key`: kept from an earlier build of this process or the
        warm service's (deck.warm: the key is all they are made from), else from the file."""
        kept = warm.get("render", key)
        if kept is not None:
            return kept
        try:
            data = json.loads((self.folder / f"{section.name}.json").read_text("utf-8"))
            if data["key"] != key:
                return None
            render = SectionRender.from_json(data["render"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        warm.put("render", key, render)
        return render

    def save(self, section: Section, key: str, render: SectionRender) -> None:
        data = json.dumps({"key": key, "render": render.to_json()}, ensure_ascii=False)
        write_atomic(self.folder / f"{section.name}.json", data.encode("utf-8"))
        warm.put("render", key, render)

    def prune(self, lesson: Lesson) -> None:
        names = {f"{s.name}.json" for s in lesson.sections}
        if self.folder.is_dir():
            for path in self.folder.glob("*.json"):
                if path.name not in names:
                    path.unlink(missing_ok=True)
