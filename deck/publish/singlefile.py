"""One self-contained HTML file from a built deck: every stylesheet, script, font, figure and
plugin image inlined (fonts and images as `data:` URLs), so the deck presents offline when it
is sent alone. The speaker view still works: its previews load the same file."""

from __future__ import annotations

import base64
import json
import mimetypes
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

MIME = {".woff2": "font/woff2", ".woff": "font/woff", ".svg": "image/svg+xml"}
# Files the scripts ask for by name (the chalkboard's pens and boards): handed to deck.js as
# `window.DECK_ASSETS`, keyed by their path under assets/.
SCRIPT_ASSETS = {".png", ".svg", ".jpg", ".jpeg", ".gif", ".webp"}

LINK = re.compile(r"<link\b[^>]*>", re.I)
SCRIPT = re.compile(r'<script\b([^>]*)\bsrc="([^"]+)"([^>]*)>\s*</script>', re.I)
STYLE = re.compile(r"(<style\b[^>]*>)(.*?)(</style>)", re.I | re.S)
MEDIA = re.compile(r'(<(?:img|source|video|audio)\b[^>]*?\bsrc=")([^"]+)(")', re.I)
CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")
ATTR = re.compile(r'(\w[\w-]*)(?:="([^"]*)")?')


def _local(ref: str) -> bool:
    parts = urlsplit(ref)
    return not parts.scheme and not parts.netloc and not ref.startswith("#")


def _file(base: Path, ref: str, root: Path) -> Path | None:
    """The file `ref` names, relative to `base`, when it lies in the deck's folder `root`
    (nothing outside it is ever inlined: `/etc/passwd`, `../..`, a symlink out)."""
    path = (base / unquote(urlsplit(ref).path)).resolve()
    return path if root in path.parents else None


def data_url(path: Path) -> str:
    mime = MIME.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0]
    mime = mime or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def inline_css(css: str, base: Path, root: Path) -> str:
    """`url(...)` references in a stylesheet (resolved against `base`) become data: URLs; a
    local file that does not exist (a font format the deck does not ship) becomes an empty
    data: URL, so nothing is requested."""

    def replace(m: re.Match[str]) -> str:
        ref = m.group(2).strip()
        if not _local(ref):
            return m.group(0)
        path = _file(base, ref, root)
        return f'url("{data_url(path) if path and path.is_file() else "data:,"}")'

    return CSS_URL.sub(replace, css)


def _script_text(js: str) -> str:
    # Inside <script>, only `</script` and `<!--` can end or derail the element early.
    return re.sub(r"</(script)", r"<\\/\1", js, flags=re.I).replace("<!--", "<\\!--")


def inline_deck(index_html: Path) -> str:
    """The deck at `index_html` (a built `dist/<lesson>/index.html`) as one HTML string."""
    root = index_html.resolve().parent
    page = index_html.read_text("utf-8")

    def link(m: re.Match[str]) -> str:
        attrs = {k.lower(): v for k, v in ATTR.findall(m.group(0)[5:-1])}
        href = attrs.get("href", "")
        if attrs.get("rel", "").lower() != "stylesheet" or not _local(href):
            return m.group(0)
        path = _file(root, href, root)
        if path is None or not path.is_file():
            return m.group(0)
        keep = "".join(
            f" {k}" + (f'="{v}"' if v else "") for k, v in attrs.items() if k not in {"rel", "href"}
        )
        return f"<style{keep}>{inline_css(path.read_text('utf-8'), path.parent, root)}</style>"

    def script(m: re.Match[str]) -> str:
        src = m.group(2)
        path = _file(root, src, root) if _local(src) else None
        if path is None or not path.is_file():
            return m.group(0)
        attrs = (m.group(1) + m.group(3)).rstrip()
        return f"<script{attrs}>{_script_text(path.read_text('utf-8'))}</script>"

    def media(m: re.Match[str]) -> str:
        ref = m.group(2)
        path = _file(root, ref, root) if _local(ref) else None
        if path is None or not path.is_file():
            return m.group(0)
        return m.group(1) + data_url(path) + m.group(3)

    def style(m: re.Match[str]) -> str:
        return m.group(1) + inline_css(m.group(2), root, root) + m.group(3)

    page = STYLE.sub(style, page)  # styles written in the page itself (widgets)
    page = LINK.sub(link, page)
    page = MEDIA.sub(media, page)
    assets = {
        path.relative_to(root / "assets").as_posix(): data_url(path)
        for path in sorted((root / "assets").rglob("*"))
        if path.suffix.lower() in SCRIPT_ASSETS
    }
    table = f"<script>window.DECK_ASSETS = {json.dumps(assets)};</script>\n"
    first = SCRIPT.search(page)
    if first:
        page = page[: first.start()] + table + page[first.start() :]
    return SCRIPT.sub(script, page)
