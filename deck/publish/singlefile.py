"""One self-contained HTML file from a built deck: every stylesheet, script, font, figure and
plugin image inlined (fonts and images as `data:` URLs), so the deck presents offline when it
is sent alone. The speaker view still works: its previews load the same file. Attribute values
are read as HTML reads them: double-quoted, single-quoted or bare."""

from __future__ import annotations

import base64
import html
import json
import mimetypes
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from deck.render.htmltext import file_attributes

MIME = {".woff2": "font/woff2", ".woff": "font/woff", ".svg": "image/svg+xml"}
# Files the scripts ask for by name (the chalkboard's pens and boards): handed to deck.js as
# `window.DECK_ASSETS`, keyed by their path under assets/.
SCRIPT_ASSETS = {".png", ".svg", ".jpg", ".jpeg", ".gif", ".webp"}

_VALUE = r"""(?:"[^"]*"|'[^']*'|[^\s>"']+)"""  # an attribute's value, quoted or not
_ATTRS = rf"((?:[\s/]+[^\s=>/]+(?:\s*=\s*{_VALUE})?)*)[\s/]*"
LINK = re.compile(rf"<link\b{_ATTRS}>", re.I)
SCRIPT = re.compile(rf"<script\b{_ATTRS}>\s*</script\s*>", re.I)
STYLE = re.compile(r"(<style\b[^>]*>)(.*?)(</style>)", re.I | re.S)
MEDIA_ATTRS = ("src", "data-src", "poster")  # (`data-src`: a picture reveal.js loads late)
CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")
ATTR = re.compile(rf"([^\s=>/]+)(?:\s*=\s*({_VALUE}))?")


def attributes(written: str) -> dict[str, str]:
    """A tag's attributes as HTML reads them: names lowercased, values unquoted and their
    character references decoded (a bare name: "")."""
    found: dict[str, str] = {}
    for name, value in ATTR.findall(written):
        if value[:1] in ("'", '"'):
            value = value[1:-1]
        found.setdefault(name.lower(), html.unescape(value))
    return found


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
        attrs = attributes(m.group(1))
        href = attrs.get("href", "")
        if attrs.get("rel", "").lower() != "stylesheet" or not _local(href):
            return m.group(0)
        path = _file(root, href, root)
        if path is None or not path.is_file():
            return m.group(0)
        keep = "".join(
            f" {k}" + (f'="{html.escape(v)}"' if v else "")
            for k, v in attrs.items()
            if k not in {"rel", "href"}
        )
        return f"<style{keep}>{inline_css(path.read_text('utf-8'), path.parent, root)}</style>"

    def script(m: re.Match[str]) -> str:
        path = script_file(m)
        if path is None:
            return m.group(0)
        kept = [a.group(0) for a in ATTR.finditer(m.group(1)) if a.group(1).lower() != "src"]
        keep = "".join(f" {a}" for a in kept)
        return f"<script{keep}>{_script_text(path.read_text('utf-8'))}</script>"

    def script_file(m: re.Match[str]) -> Path | None:
        src = attributes(m.group(1)).get("src", "")
        path = _file(root, src, root) if src and _local(src) else None
        return path if path is not None and path.is_file() else None

    def media(ref: str, _: int) -> str | None:
        path = _file(root, ref, root) if ref and _local(ref) else None
        return data_url(path) if path is not None and path.is_file() else None

    def style(m: re.Match[str]) -> str:
        return m.group(1) + inline_css(m.group(2), root, root) + m.group(3)

    page = STYLE.sub(style, page)  # styles written in the page itself (widgets)
    page = LINK.sub(link, page)
    page = file_attributes(page, MEDIA_ATTRS, media)
    page = file_attributes(page, ("data-background-image",), media, ("section",))  # (slides)
    assets = {
        path.relative_to(root / "assets").as_posix(): data_url(path)
        for path in sorted((root / "assets").rglob("*"))
        if path.suffix.lower() in SCRIPT_ASSETS
    }
    table = f"<script>window.DECK_ASSETS = {json.dumps(assets)};</script>\n"
    first = next((m for m in SCRIPT.finditer(page) if script_file(m)), None)
    if first:
        page = page[: first.start()] + table + page[first.start() :]
    return SCRIPT.sub(script, page)
