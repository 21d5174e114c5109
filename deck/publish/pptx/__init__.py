"""The PowerPoint exporter: `slides.pptx`, for institutions that require it, made only when
asked for (`--to …,pptx`, `outputs:` in lesson.yml) from the typed document the deck was
rendered from (`built.deck.document`; see `writer`, `prose`, `layout`, `compose`), never from
the deck's HTML, and kept while what it is made from is unchanged."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import time
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from deck.options import Options
from deck.progress import Progress
from deck.publish.exporter import DECK, Built, Exported, file_digest
from deck.store.files import content_hash
from deck.theme import ENGINE

if TYPE_CHECKING:
    from deck.model.document import Document
    from deck.publish.pptx.writer import SlidePlan

FILE = "slides.pptx"
FIXED_TIME = (2000, 1, 1, 0, 0, 0)  # every zip member's date: equal decks make equal files
CSS_PX_PT = 0.75  # a CSS pixel in points (960 pt wide = 1280 px)
# What the file is made by besides the document: the exporter, the block kinds' handlers,
# the document's types and the deck's Markdown syntax.
CODE = ("publish/pptx", "blocks", "model/document.py", "render/pandoc.py")


def deterministic(data: bytes) -> bytes:
    """The same package with every member dated FIXED_TIME (python-pptx dates them now)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            member = zipfile.ZipInfo(info.filename, FIXED_TIME)
            packed = info.filename.endswith((".png", ".jpeg", ".jpg", ".gif"))  # (compressed)
            member.compress_type = zipfile.ZIP_STORED if packed else zipfile.ZIP_DEFLATED
            member.external_attr = 0o644 << 16
            dst.writestr(member, src.read(info.filename), compresslevel=6)
    return out.getvalue()


def document_of(built: Built) -> Document:
    if built.deck.document is None:
        raise RuntimeError("slides.pptx is made from the rendered deck's document: it has none")
    return built.deck.document


def document_json(doc: Document) -> str:
    """The document as stable text (who sees a node, a set, in sorted order)."""
    return json.dumps(dataclasses.asdict(doc), default=sorted, sort_keys=True, ensure_ascii=False)


class Formulas:
    """The deck's KaTeX as the writer asks it for one formula's typesetting, noting those
    it has not typeset yet (typeset in one batch, then the slides are written again)."""

    def __init__(self, katex: Any) -> None:
        self.katex = katex
        self.missing: set[tuple[str, bool]] = set()

    def html(self, tex: str, display: bool) -> str | None:
        found = self.katex.html(tex, display)
        if found is None and self.katex.error(tex, display) is None:
            self.missing.add((tex, display))
        return found


class Pptx:
    name = "pptx"
    why_not = "ask for pptx (`--to`, `outputs:` in lesson.yml) to make it again"

    def wanted(self, options: Options) -> bool:
        return options.wants("pptx")

    def places(self, name: str, options: Options) -> dict[str, Path]:
        return {DECK: options.out / name}

    def files(self, built: Built) -> tuple[str, ...]:
        return (FILE,)

    def sources(self, built: Built) -> dict[str, Path]:
        """The files a slide's pictures may be: its figures (and their PNGs) and media."""
        found = {f"figures/{p.name}": p for p in built.deck.figures}
        found.update(
            {
                f"figures/{p.with_suffix('.png').name}": p.with_suffix(".png")
                for p in built.deck.figures
            }
        )
        found.update({published: source for published, source in built.deck.media})
        return found

    def made_from(self, built: Built) -> dict[str, str] | None:
        import markdown
        import pptx

        from deck.blocks.tex import macros_digest
        from deck.render.mathtex import katex_fingerprint, lesson_macros

        digest = hashlib.sha256()
        versions = [pptx.__version__, markdown.__version__, katex_fingerprint()]
        versions.append(macros_digest(lesson_macros(built.lesson)))
        digest.update(json.dumps(versions).encode())
        digest.update(document_json(document_of(built)).encode())
        for published, source in sorted(self.sources(built).items()):
            if source.is_file():
                digest.update(f"{published}\0{content_hash(source)}".encode())
        for name in CODE:
            place = ENGINE / name
            for code in sorted(place.rglob("*.py")) if place.is_dir() else [place]:
                digest.update(code.read_bytes())
        return {FILE: digest.hexdigest()}

    def digest(self, path: Path) -> str:
        return file_digest(path)

    def export(self, built: Built, todo: list[str], progress: Progress) -> Exported:
        t0 = time.perf_counter()
        if FILE in todo:
            data, warnings = self.make(built)
            target = built.staging[DECK] / FILE
            target.write_bytes(data)
            return Exported({FILE: warnings}, time.perf_counter() - t0)
        return Exported({}, time.perf_counter() - t0)

    def plans(self, built: Built) -> tuple[list[SlidePlan], Any]:
        """Every slide's content, written from the document (formulas typeset first)."""
        from deck.publish.pptx.prose import Prose
        from deck.publish.pptx.shapes import pictures_in
        from deck.publish.pptx.writer import SlidesWriter
        from deck.render.frame import media_path
        from deck.render.mathtex import KaTeX, lesson_macros

        doc = document_of(built)
        katex = KaTeX(built.options.cache / "katex.json")
        katex.use_macros(lesson_macros(built.lesson))
        formulas = Formulas(katex)
        media = dict(built.deck.media)

        def found(src: str) -> Path | None:
            return media.get(media_path(unquote(src))) if src else None

        for _ in range(2):  # (again once the formulas not typeset yet are)
            formulas.missing.clear()
            prose = Prose(formulas, found)
            numbered = {k: t for k, t in doc.targets.items() if t.kind in ("fig", "tbl")}
            prose.labels = {k: f"{t.name}: " for k, t in numbered.items()}
            plans = SlidesWriter(doc, prose, doc.lang).plans()
            shown = {
                (p.source, True)
                for s in plans
                for p in pictures_in(s.blocks)
                if p.kind == "formula"
            }
            todo = formulas.missing | {
                f for f in shown if katex.html(*f) is None and katex.error(*f) is None
            }
            if not todo:
                break
            katex.prepare(todo)
        return plans, katex

    def make(self, built: Built) -> tuple[bytes, list[str]]:
        from deck.publish.pptx.compose import add_slide, new_presentation
        from deck.publish.pptx.pictures import SCALE, Pictures
        from deck.publish.pptx.shapes import Picture, pictures_in

        doc = document_of(built)
        plans, katex = self.plans(built)
        drawer = Pictures(built.options.cache / built.lesson.name / "pptx", katex)
        keys: dict[int, tuple[str, Path | None]] = {}
        doubled: set[int] = set()  # pictures whose PNG has twice their size
        warnings: list[str] = []
        where: dict[str, str] = {}  # a formula's TeX → the first slide showing it
        for plan in plans:
            for picture in pictures_in(plan.blocks):
                if picture.kind == "formula":
                    keys[id(picture)] = (drawer.want_formula(picture.source), None)
                    where.setdefault(picture.source, str(plan.loc))
                elif picture.png is not None and picture.png.is_file():
                    keys[id(picture)] = ("", picture.png)
                    doubled.add(id(picture))
                elif picture.path is None or not picture.path.is_file():
                    warnings.append(
                        f"{plan.loc}: warning: slides.pptx: picture `{picture.source}` not found"
                    )
                else:
                    key = drawer.want_figure(picture.path)
                    keys[id(picture)] = (key, None if key else picture.path)
        for failed in drawer.draw():
            message = f"slides.pptx: formula `{failed}` could not be typeset (left out)"
            warnings.append(f"{where[failed]}: warning: {message}")
        drawer.prune({key for key, _ in keys.values() if key})
        files: dict[int, Path] = {}
        sizes: dict[int, tuple[float, float]] = {}
        for ident, (key, raster) in keys.items():
            if raster is not None:
                from pptx.parts.image import Image

                px_width, px_height = Image.from_file(str(raster)).size
                files[ident] = raster
                per = SCALE if ident in doubled else 1
                sizes[ident] = (px_width / per * CSS_PX_PT, px_height / per * CSS_PX_PT)
                continue
            drawn = drawer.get(key)
            if drawn is not None:
                files[ident] = drawn.png
                sizes[ident] = (drawn.width / SCALE * CSS_PX_PT, drawn.height / SCALE * CSS_PX_PT)

        def natural(picture: Picture) -> tuple[float, float]:
            w, h = sizes.get(id(picture), (1.0, 1.0))
            if picture.kind == "formula":
                return w * 0.7, h * 0.7
            return w, h

        prs = new_presentation(doc.title, doc.lang)
        for plan in plans:
            add_slide(
                prs,
                plan.title,
                plan.level,
                plan.blocks,
                "\n".join(plan.notes),
                plan.number,
                doc.lang,
                files,
                natural,
                plan.footer,
                plan.title_slide,
            )
        out = io.BytesIO()
        prs.save(out)
        return deterministic(out.getvalue()), warnings
