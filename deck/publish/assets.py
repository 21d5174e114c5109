"""The static files a built deck needs (reveal.js, plugins, KaTeX, the theme), from npm and
`deck/static/`, copied into `dist/<lesson>/assets/` so nothing loads from a CDN."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from deck.publish.carry import carry, carry_bytes, replace_text
from deck.theme import (
    DARK_CODE_STYLE,
    DARK_THEMES,
    LIGHT_CODE_STYLE,
    NODE_MODULES,
    STATIC,
    code_colours,
)

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
    "fonts.css",  # (deck.publish.fonts appends the @font-face rules of the deck's subsets)
    "strings.js",  # the UI strings of every language: first, every script asks it for its own
    "mathtext.js",
    "present.js",
    "handout.js",
    "quarto.js",
    "widgets.js",
    "deck.js",
)
# An asset assembled from several files, joined in this order (each followed by a newline):
# the page still loads one script. The UI strings: the page's parts of strings.json (as the
# script `deck.strings.page_script` makes of them), then strings.js, which reads them. The
# widget runtime comes first, then the lesson's widget kinds (each registers itself;
# LESSON_WIDGETS stands for their scripts), start.js (starts them all), then the popover. The
# deck's behaviour, then its search box's.
LESSON_WIDGETS = "<the lesson's widget kinds>"
ASSEMBLED = {
    "strings.js": ("strings.json", "strings.js"),
    "widgets.js": ("widgets/runtime.js", LESSON_WIDGETS, "widgets/start.js", "provenance.js"),
    "deck.js": ("deck.js", "decksearch.js"),
}
STRINGS = STATIC / "strings.json"  # (deck.strings.DATA)


def asset_plan(widgets: tuple[Path, ...] = ()) -> list[tuple[str, list[Path]]]:
    """Every (destination under assets/, its source files) pair, in a stable order: one
    source is copied as is, several are joined (an ASSEMBLED asset). `widgets`: the scripts
    of the lesson's widget kinds."""
    if not NODE_MODULES.is_dir():
        raise RuntimeError("node_modules is missing: run `npm ci` (README command 1 does)")
    plan = [(dest, [NODE_MODULES / src]) for dest, src in NPM_FILES.items()]
    for dest, (src, pattern) in NPM_FOLDERS.items():
        for path in sorted((NODE_MODULES / src).glob(pattern)):
            plan.append((f"{dest}/{path.name}", [path]))
    for name in STATIC_FILES:
        parts = ASSEMBLED.get(name)
        if not parts:
            plan.append((name, [STATIC / name]))
            continue
        paths = [[*widgets] if p == LESSON_WIDGETS else [STATIC / p] for p in parts]
        plan.append((name, [path for group in paths for path in group]))
    return plan


def asset_sources() -> list[tuple[str, Path]]:
    """Every (key, source file) pair of the engine's assets, in a stable order, for hashing
    (a lesson's widget scripts are hashed with the lesson): the key is the destination under
    assets/, or `destination:part` for a part of an assembled asset, so each key names one
    file."""
    pairs = []
    for dest, sources in asset_plan():
        if dest in ASSEMBLED:
            pairs += [(f"{dest}:{src.relative_to(STATIC).as_posix()}", src) for src in sources]
        else:
            pairs.append((dest, sources[0]))
    return pairs


def assembled(sources: list[Path]) -> bytes:
    """The parts joined, each followed by a newline (strings.json as the script setting it)."""
    from deck.strings import page_script  # (not on the no-change check's path)

    return b"".join(
        (page_script() if src == STRINGS else src.read_bytes()) + b"\n" for src in sources
    )


@functools.cache
def pygments_css() -> str:
    """The code's colours: the light style, and the dark one under the dark built-in themes
    (an author's dark .scss theme gets them from deck.render.sass)."""
    from pygments.formatters import HtmlFormatter

    light = HtmlFormatter(style=LIGHT_CODE_STYLE).get_style_defs(".highlight")
    dark = tuple(f"html.deck-theme-{name} .reveal .highlight" for name in DARK_THEMES)
    return light + "\n" + code_colours(dark, DARK_CODE_STYLE)


def copy_assets(
    target: Path, widgets: tuple[Path, ...] = (), published: Path | None = None
) -> None:
    """Fill `target` (a deck's assets/ folder) with every asset; `widgets`: the scripts of
    the lesson's widget kinds. With `published` (the assets/ folder of the deck this build
    replaces), an asset it holds exactly is linked from there (`deck.publish.carry`)."""

    def old(dest: str) -> Path | None:
        return published / dest if published is not None else None

    for dest, sources in asset_plan(widgets):
        (target / dest).parent.mkdir(parents=True, exist_ok=True)
        if dest in ASSEMBLED:
            carry_bytes(assembled(sources), target / dest, old(dest))
        else:
            carry(sources[0], target / dest, old(dest))
    carry_bytes(pygments_css().encode("utf-8"), target / "pygments.css", old("pygments.css"))


# The theme's stylesheets (reveal.js's white theme embeds Source Sans Pro, ~556 KB as data:
# URLs, which deck.css replaces by its own font stack).
THEMES = "reveal/theme"
FONT_FACE = re.compile(r"@font-face\s*\{[^{}]*\}", re.I)
FONT_FAMILY = re.compile(r"font-family\s*:\s*([^;}]+)", re.I)


def _named(family: str, css: str) -> bool:
    """Whether `css` names `family` as a font (in a font stack, quoted or not)."""
    words = r"\s+".join(re.escape(w) for w in family.split())
    return re.search(rf"""(?<![\w-])(['"]?){words}\1(?![\w-])""", css, re.I) is not None


def drop_unused_theme_fonts(deck: Path, page: str | None = None) -> int:
    """Remove from the staged deck's theme stylesheets each `@font-face` whose family none of
    the deck's own stylesheets (the engine's, the lesson's, the page's `<style>`s) names;
    returns the bytes removed. The stacks of reveal.js and its plugins do not count: deck.css
    and fonts.css replace them. `page`: the staged page's text, when the caller holds it."""
    themes = sorted((deck / "assets" / THEMES).glob("*.css"))
    vendor = {deck / "assets" / dest for dest in NPM_FILES}
    others = [p for p in sorted(deck.rglob("*.css")) if p not in vendor]
    used = "\n".join(FONT_FACE.sub("", p.read_text("utf-8", "replace")) for p in others)
    used = re.sub(r"/\*.*?\*/", "", used, flags=re.S)  # (a comment names nothing)
    index = deck / "index.html"
    if page is None and index.is_file():
        page = index.read_text("utf-8")
    if page is not None:
        used += "\n".join(re.findall(r"<style\b[^>]*>(.*?)</style>", page, re.S))
    removed = 0
    for path in themes:
        css = path.read_text("utf-8")

        def keep(m: re.Match[str]) -> str:
            family = FONT_FAMILY.search(m.group(0))
            name = family.group(1).strip().strip("'\"") if family else ""
            return m.group(0) if name and _named(name, used) else ""

        kept = FONT_FACE.sub(keep, css)
        if kept != css:
            replace_text(path, kept)  # (not in place: the staged file may be a link)
            removed += len(css.encode()) - len(kept.encode())
    return removed
