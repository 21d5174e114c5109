"""The static files a built deck needs (reveal.js, plugins, KaTeX, the theme), from npm and
`deck/static/`, copied into `dist/<lesson>/assets/` so nothing loads from a CDN."""

from __future__ import annotations

import shutil
from pathlib import Path

from deck.theme import NODE_MODULES, STATIC

# destination under assets/ → source under node_modules/
NPM_FILES = {
    "reveal/reveal.css": "reveal.js/dist/reveal.css",
    "reveal/reveal.js": "reveal.js/dist/reveal.js",
    "reveal/theme/white.css": "reveal.js/dist/theme/white.css",
    "reveal/plugin/notes.js": "reveal.js/dist/plugin/notes.js",
    "reveal/plugin/search.js": "reveal.js/dist/plugin/search.js",
    "reveal/plugin/zoom.js": "reveal.js/dist/plugin/zoom.js",
    "katex/katex.min.css": "katex/dist/katex.min.css",
    "menu/menu.js": "reveal.js-menu/menu.js",
    "menu/menu.css": "reveal.js-menu/menu.css",
    "menu/font-awesome/css/all.css": "reveal.js-menu/font-awesome/css/all.css",
    "chalkboard/plugin.js": "reveal.js-plugins/chalkboard/plugin.js",
    "chalkboard/style.css": "reveal.js-plugins/chalkboard/style.css",
}
# destination folder under assets/ → (source folder under node_modules/, file pattern)
NPM_FOLDERS = {
    "katex/fonts": ("katex/dist/fonts", "*.woff2"),
    "menu/font-awesome/webfonts": ("reveal.js-menu/font-awesome/webfonts", "*.woff2"),
    "chalkboard/img": ("reveal.js-plugins/chalkboard/img", "*.png"),
}
# Loaded in this order by deck.html.j2 (deck.js last: it starts reveal.js).
STATIC_FILES = (
    "deck.css",
    "quarto.css",
    "widgets.css",
    "mathtext.js",
    "present.js",
    "handout.js",
    "quarto.js",
    "widgets.js",
    "deck.js",
)


def asset_sources() -> list[tuple[str, Path]]:
    """Every (destination under assets/, source file) pair, in a stable order."""
    if not NODE_MODULES.is_dir():
        raise RuntimeError("node_modules is missing: run `npm ci` (README command 1 does)")
    pairs = [(dest, NODE_MODULES / src) for dest, src in NPM_FILES.items()]
    for dest, (src, pattern) in NPM_FOLDERS.items():
        for path in sorted((NODE_MODULES / src).glob(pattern)):
            pairs.append((f"{dest}/{path.name}", path))
    pairs += [(name, STATIC / name) for name in STATIC_FILES]
    return pairs


def pygments_css() -> str:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style="default").get_style_defs(".highlight")


def copy_assets(target: Path) -> None:
    """Fill `target` (a deck's assets/ folder) with every asset."""
    for dest, src in asset_sources():
        (target / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target / dest)
    (target / "pygments.css").write_text(pygments_css(), "utf-8")
