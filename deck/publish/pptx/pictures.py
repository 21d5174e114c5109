"""The pictures of a PowerPoint file: display formulas typeset by KaTeX and SVG figures, drawn
by the real browser (Chromium through Playwright) as PNG at twice their size, and kept in the
build's cache under a hash of what they are drawn from, so a rebuild launches no browser
unless a formula or a figure changed."""

from __future__ import annotations

import hashlib
import html
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from deck.render.mathtex import KaTeX, katex_fingerprint
from deck.theme import NODE_MODULES

SCALE = 2  # device pixels per CSS pixel: pictures at 2×
FORMULA_PX = 40  # KaTeX's font size for display formulas (the deck's slides use about this)
FIGURE_WIDTH = 1000  # CSS px an SVG figure is drawn at (its height follows its aspect)
RASTER = (".png", ".jpg", ".jpeg", ".gif")
DRAWING = "3"  # how pictures are drawn (the page below): a new value redraws every cached one


@dataclass(frozen=True)
class Drawn:
    png: Path
    width: int  # device pixels
    height: int


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def formula_key(tex: str) -> str:
    return _key("formula", DRAWING, katex_fingerprint(), str(FORMULA_PX), str(SCALE), tex)


def figure_key(path: Path) -> str:
    return _key(
        "figure",
        DRAWING,
        str(FIGURE_WIDTH),
        str(SCALE),
        hashlib.sha256(path.read_bytes()).hexdigest(),
    )


class Pictures:
    """Draws what is not drawn yet in one browser session, then hands out PNG files."""

    def __init__(self, cache: Path, katex: KaTeX | None) -> None:
        self.folder = cache
        self.katex = katex
        self.formulas: dict[str, str] = {}  # key → TeX
        self.figures: dict[str, Path] = {}  # key → SVG file

    def want_formula(self, tex: str) -> str:
        key = formula_key(tex)
        if not (self.folder / f"{key}.png").is_file():
            self.formulas[key] = tex
        return key

    def want_figure(self, path: Path) -> str:
        if path.suffix.lower() in RASTER:
            return ""
        key = figure_key(path)
        if not (self.folder / f"{key}.png").is_file():
            self.figures[key] = path
        return key

    def get(self, key: str) -> Drawn | None:
        path = self.folder / f"{key}.png"
        if not path.is_file():
            return None
        width, height = _png_size(path)
        return Drawn(path, width, height)

    def prune(self, used: set[str]) -> None:
        """Drop the pictures this lesson no longer shows (a changed figure leaves its old one)."""
        for path in self.folder.glob("*.png"):
            if path.stem not in used:
                path.unlink(missing_ok=True)

    def draw(self) -> list[str]:
        """Draw every wanted picture; the TeX of formulas KaTeX could not typeset."""
        if not self.formulas and not self.figures:
            return []
        failed: list[str] = []
        items = []
        for key, tex in self.formulas.items():
            markup = self.katex.html(tex, True) if self.katex is not None else None
            if markup is None:
                failed.append(tex)
                continue
            items.append(f'<div class="item formula" id="f{key}">{markup}</div>')
        for key, path in self.figures.items():
            src = html.escape(path.resolve().as_uri())
            items.append(f'<div class="item figure" id="f{key}"><img src="{src}"></div>')
        css = (NODE_MODULES / "katex/dist/katex.min.css").resolve().as_uri()
        page = (
            '<!doctype html><html><head><meta charset="utf-8">'
            f'<link rel="stylesheet" href="{html.escape(css)}"><style>'
            "body{margin:0;background:transparent;color:#1c2733;"
            'font-family:"Noto Sans CJK SC",sans-serif}'
            ".item{display:inline-block;padding:4px 6px}"
            f".formula{{font-size:{FORMULA_PX}px}} .formula .katex-display{{margin:0}}"
            f".figure img{{display:block;width:{FIGURE_WIDTH}px;height:auto}}"
            "</style></head><body>" + "".join(f"<div>{i}</div>" for i in items) + "</body></html>"
        )
        self.folder.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="pptx-", dir=self.folder))
        try:
            (work / "page.html").write_text(page, "utf-8")
            self._shoot(
                work / "page.html",
                [*(k for k in self.formulas if self.formulas[k] not in failed), *self.figures],
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)
        self.formulas.clear()
        self.figures.clear()
        return failed

    def _crop(self, shot: bytes, top: int, chunk: list[tuple[str, dict[str, int]]]) -> None:
        import io

        from PIL import Image

        with Image.open(io.BytesIO(shot)) as image:
            for key, r in chunk:
                box = (r["x"], r["y"] - top, r["x"] + r["width"], r["y"] - top + r["height"])
                target = self.folder / f"{key}.png"
                partial = target.with_suffix(".part.png")
                x1, y1, x2, y2 = (v * SCALE for v in box)
                image.crop((x1, y1, x2, y2)).save(partial)
                partial.replace(target)

    def _shoot(self, page_file: Path, keys: list[str]) -> None:
        from playwright.sync_api import sync_playwright

        from deck.publish.pdf import launch

        with sync_playwright() as p:
            browser = launch(p)
            try:
                page = browser.new_page(
                    viewport={"width": 1400, "height": 900}, device_scale_factor=SCALE
                )
                page.goto(page_file.resolve().as_uri())
                page.wait_for_load_state("load")
                page.evaluate("document.fonts.ready.then(() => true)")
                rects = page.evaluate(RECTS, [f"f{key}" for key in keys])
                for chunk in chunks(list(zip(keys, rects, strict=True))):
                    top = chunk[0][1]["y"]
                    bottom = max(r["y"] + r["height"] for _, r in chunk)
                    right = max(r["x"] + r["width"] for _, r in chunk)
                    clip = {"x": 0, "y": top, "width": right, "height": bottom - top}
                    shot = page.screenshot(clip=clip, full_page=True, omit_background=True)
                    self._crop(shot, top, chunk)
            finally:
                browser.close()


RECTS = """ids => ids.map(id => {
  const r = document.getElementById(id).getBoundingClientRect();
  return {x: Math.floor(r.left + scrollX), y: Math.floor(r.top + scrollY),
          width: Math.ceil(r.width), height: Math.ceil(r.height)};
})"""
CHUNK = 3000  # CSS px of the page in one screenshot (Chromium draws at most 16384 device px)


def chunks(items: list[tuple[str, dict[str, int]]]) -> list[list[tuple[str, dict[str, int]]]]:
    """The items (stacked top to bottom) in runs at most CHUNK px tall (a taller item alone)."""
    runs: list[list[tuple[str, dict[str, int]]]] = []
    for item in items:
        rect = item[1]
        if runs and rect["y"] + rect["height"] - runs[-1][0][1]["y"] <= CHUNK:
            runs[-1].append(item)
        else:
            runs.append([item])
    return runs


def manifest(pictures: dict[str, str]) -> str:
    """A stable text of which pictures a file uses (for what it is made from)."""
    return json.dumps(sorted(pictures.items()))
