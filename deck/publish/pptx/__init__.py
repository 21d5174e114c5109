"""The PowerPoint exporter: `slides.pptx`, for institutions that require it, made only when
asked for (`--to …,pptx`, `outputs:` in lesson.yml) from the rendered deck's slides (see
`parse`, `layout`, `compose`), kept while what it is made from is unchanged."""

from __future__ import annotations

import hashlib
import io
import json
import time
import zipfile
from pathlib import Path
from typing import Any

from deck.options import Options
from deck.progress import Progress
from deck.publish.exporter import DECK, Built, Exported, file_digest
from deck.store.files import content_hash
from deck.theme import ENGINE

FILE = "slides.pptx"
FIXED_TIME = (2000, 1, 1, 0, 0, 0)  # every zip member's date: equal decks make equal files
CSS_PX_PT = 0.75  # a CSS pixel in points (960 pt wide = 1280 px)


def notes_text(html: str) -> str:
    """Speaker notes (HTML) as plain paragraphs, values and formulas as text."""
    from deck.publish.pptx.parse import ColumnsBlock, Flow, QuizBlock, Text, slide_blocks

    lines: list[str] = []

    def walk(blocks: list[Any]) -> None:
        for block in blocks:
            if isinstance(block, Text):
                for para in block.paras:
                    prefix = "  " * max(para.level - 1, 0) + (
                        para.bullet + " " if para.bullet else ""
                    )
                    lines.append(prefix + para.text.replace("\v", "\n").strip())
            elif isinstance(block, ColumnsBlock):
                for column in block.columns:
                    walk(column)
            elif isinstance(block, QuizBlock):
                walk([Text(block.question)])
            elif isinstance(block, Flow):
                walk([Text(block.boxes)])
            elif hasattr(block, "source") and getattr(block, "kind", "") == "formula":
                lines.append(block.source)
            elif hasattr(block, "text"):
                lines.append(block.text)

    walk(slide_blocks(html))
    return "\n".join(line for line in lines if line)


def quiz_notes(blocks: list[Any], lang: str) -> list[str]:
    from deck.publish.pptx.parse import ColumnsBlock, QuizBlock

    answer_word = "答案" if lang.startswith("zh") else "Answer"
    found: list[str] = []
    for block in blocks:
        if isinstance(block, ColumnsBlock):
            for column in block.columns:
                found += quiz_notes(column, lang)
        elif isinstance(block, QuizBlock) and 0 <= block.answer < len(block.choices):
            letter = chr(65 + block.answer)
            found.append(f"{answer_word}: {letter}. {block.choices[block.answer]}")
            if block.explanation:
                found.append(block.explanation)
    return found


def pictures_of(blocks: list[Any]) -> list[Any]:
    from deck.publish.pptx.parse import ColumnsBlock, Picture

    found = []
    for block in blocks:
        if isinstance(block, ColumnsBlock):
            for column in block.columns:
                found += pictures_of(column)
        elif isinstance(block, Picture):
            found.append(block)
    return found


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
        """The files a slide's `src` may name: its figures and media."""
        found = {f"figures/{p.name}": p for p in built.deck.figures}
        found.update({published: source for published, source in built.deck.media})
        return found

    def pngs(self, built: Built) -> dict[Path, Path]:
        """A computed figure's SVG → its PNG at twice its size, saved beside it when the cell
        ran (matplotlib's own drawing: no browser needed)."""
        found = {}
        for result in built.results.values():
            folder = Path(result.figure_dir)
            for cell in result.cells:
                for figure in cell.figures:
                    if figure.png:
                        found[folder / figure.file] = folder / figure.png
        return found

    def made_from(self, built: Built) -> dict[str, str] | None:
        import pptx

        digest = hashlib.sha256()
        slides = [
            [s.number, s.level, s.title, s.without_handouts(), s.notes] for s in built.deck.slides
        ]
        config = built.lesson.config
        digest.update(
            json.dumps([slides, built.lesson.title, config.lang, pptx.__version__]).encode()
        )
        for published, source in sorted(self.sources(built).items()):
            if source.is_file():
                digest.update(f"{published}\0{content_hash(source)}".encode())
        for png in sorted(self.pngs(built).values()):
            if png.is_file():
                digest.update(f"{png.name}\0{content_hash(png)}".encode())
        for code in sorted((ENGINE / "publish" / "pptx").glob("*.py")):
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

    def make(self, built: Built) -> tuple[bytes, list[str]]:
        from deck.publish.pptx.compose import add_slide, new_presentation
        from deck.publish.pptx.parse import Picture, slide_blocks, slide_footer, title_runs
        from deck.publish.pptx.pictures import SCALE, Pictures
        from deck.render.mathtex import KaTeX, lesson_macros

        lesson = built.lesson
        lang = lesson.config.lang
        cache = built.options.cache
        slides = []
        for s in built.deck.slides:
            blocks = slide_blocks(s.without_handouts())
            slides.append((s, blocks, pictures_of(blocks)))
        tex = {(p.source, True) for _, _, pics in slides for p in pics if p.kind == "formula"}
        katex = None
        if tex:
            katex = KaTeX(cache / "katex.json")
            katex.use_macros(lesson_macros(lesson))
            katex.prepare(tex)
        drawer = Pictures(cache / lesson.name / "pptx", katex)
        sources = self.sources(built)
        pngs = self.pngs(built)
        keys: dict[int, tuple[str, Path | None]] = {}
        doubled: set[int] = set()  # pictures whose PNG has twice their size
        warnings: list[str] = []
        where: dict[str, str] = {}  # a formula's TeX → the first slide showing it
        for s, _, pics in slides:
            for picture in pics:
                if picture.kind == "formula":
                    keys[id(picture)] = (drawer.want_formula(picture.source), None)
                    where.setdefault(picture.source, str(s.loc))
                    continue
                source = sources.get(picture.source)
                if source is None or not source.is_file():
                    warnings.append(
                        f"{s.loc}: warning: slides.pptx: picture `{picture.source}` not found"
                    )
                    continue
                png = pngs.get(source)
                if png is not None and png.is_file():
                    keys[id(picture)] = ("", png)
                    doubled.add(id(picture))
                    continue
                key = drawer.want_figure(source)
                keys[id(picture)] = (key, None if key else source)
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

        prs = new_presentation(lesson.title, lang)
        for s, blocks, _ in slides:
            notes = "\n".join(filter(None, [notes_text(s.notes), *quiz_notes(blocks, lang)]))
            add_slide(
                prs,
                title_runs(s.title or ""),
                s.level,
                blocks,
                notes,
                s.number,
                lang,
                files,
                natural,
                slide_footer(s.without_handouts()),
            )
        out = io.BytesIO()
        prs.save(out)
        return deterministic(out.getvalue()), warnings
