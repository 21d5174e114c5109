"""Quarto's shortcodes, each one function of its arguments: `meta`, `var`, `env`, `pagebreak`,
`kbd`, `lipsum`, `placeholder`, `video` and `fa` (`include` is spliced by `deck.source.prepass`).

A shortcode gives Markdown text (raw HTML only where Quarto's own gives markup: a page break,
keys, an icon, a video). Values from the front matter, `_variables.yml` or the environment
are the author's text and go in as written, as Quarto puts them.
"""

from __future__ import annotations

import base64
import html
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

VIDEO_FILES = (".mp4", ".webm", ".ogg", ".ogv", ".mov", ".m4v")
ENV_SHORTCODE = re.compile(r"\{\{<\s*env\s+([\w.-]+)")


class ShortcodeError(Exception):
    """A shortcode that cannot give its text: an error at its line."""


@dataclass(frozen=True)
class Call:
    name: str
    args: list[str]
    named: dict[str, str]
    context: Any  # deck.source.prepass.Context
    in_path: bool = False  # inside a link target or an attribute value


def parse_args(text: str) -> tuple[list[str], dict[str, str]]:
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise ShortcodeError(f"cannot read its arguments: {e}") from None
    pair = re.compile(r"([\w-]+)=(.*)", re.S)  # (an address's `?v=…` is not a named argument)
    positional = [w for w in words if not pair.fullmatch(w)]
    named = {m.group(1): m.group(2) for w in words if (m := pair.fullmatch(w))}
    return positional, named


def _lookup(values: dict[str, Any], key: str) -> Any:
    """`a.b.c` in nested mappings; None when absent."""
    found: Any = values
    for part in key.split("."):
        if not isinstance(found, dict) or part not in found:
            return None
        found = found[part]
    return found


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return str(value)


def _one(call: Call, what: str) -> str:
    if len(call.args) != 1:
        raise ShortcodeError(f"needs one {what}, as `{{{{< {call.name} {what} >}}}}`")
    return call.args[0]


def meta(call: Call) -> str:
    key = _one(call, "key")
    value = _lookup(call.context.meta, key)
    if value is None:
        raise ShortcodeError(f"`{key}` is not in the front matter (or `_metadata.yml`)")
    return _text(value)


def var(call: Call) -> str:
    key = _one(call, "name")
    value = _lookup(call.context.variables, key)
    if value is None:
        raise ShortcodeError(f"`{key}` is not in `_variables.yml`")
    return _text(value)


def env(call: Call) -> str:
    if not 1 <= len(call.args) <= 2:
        raise ShortcodeError("needs a variable's name (and a default), as `{{< env NAME >}}`")
    value = call.context.environ(call.args[0])
    if value is None:
        if len(call.args) == 2:
            return call.args[1]
        raise ShortcodeError(f"the environment variable `{call.args[0]}` is not set")
    return value


def pagebreak(call: Call) -> str:
    return '<div style="page-break-after: always;"></div>'


def kbd(call: Call) -> str:
    keys = call.args or [v for k, v in call.named.items() if k in ("win", "linux", "mac")][:1]
    if not keys:
        raise ShortcodeError("needs a key, as `{{< kbd Ctrl-C >}}`")
    return " ".join(f"<kbd>{html.escape(k)}</kbd>" for k in keys)


LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit. Vestibulum ante ipsum primis in "
    "faucibus orci luctus et ultrices posuere cubilia curae; sed a dui vitae nulla tempus.",
    "Curabitur pretium tincidunt lacus, nulla gravida orci a odio. Nullam varius, turpis et "
    "commodo pharetra, est eros bibendum elit, nec luctus magna felis sollicitudin mauris.",
    "Integer in mauris eu nibh euismod gravida. Duis ac tellus et risus vulputate vehicula. "
    "Donec lobortis risus a elit. Etiam tempor, ut ullamcorper ligula eu tempor congue.",
    "Aliquam erat volutpat. Nunc eleifend leo vitae magna. In id erat non orci commodo "
    "lobortis. Proin neque massa, cursus ut, gravida ut, lobortis eget, lacus.",
    "Sed diam. Praesent fermentum tempor tellus. Nullam tempus. Mauris ac felis vel velit "
    "tristique imperdiet. Donec at pede. Etiam vel neque nec dui dignissim bibendum.",
)


def lipsum(call: Call) -> str:
    """`{{< lipsum 2 >}}`: paragraphs of placeholder text (always the same ones: a build is
    deterministic, so `random=true` changes nothing)."""
    spec = call.args[0] if call.args else "1"
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", spec)
    if not m:
        raise ShortcodeError(f"`{spec}` is not a number of paragraphs (as `2` or `1-3`)")
    start, end = (int(m.group(1)), int(m.group(2))) if m.group(2) else (1, int(m.group(1)))
    if not 1 <= start <= end <= 50:
        raise ShortcodeError(f"`{spec}`: paragraphs 1 to 50")
    return "\n\n".join(LOREM[(k - 1) % len(LOREM)] for k in range(start, end + 1))


def placeholder_svg(width: int, height: int) -> str:
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}"><rect width="100%" height="100%" fill="#ddd"/>'
        f'<text x="50%" y="50%" dominant-baseline="middle" text-anchor="middle" '
        f'font-family="sans-serif" font-size="{max(10, min(width, height) // 8)}" '
        f'fill="#666">{width} × {height}</text></svg>'
    )
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def placeholder(call: Call) -> str:
    """`{{< placeholder 400 200 >}}`: a grey image of that size, made here (no network)."""
    sizes = call.args or ["100"]
    if len(sizes) > 2 or not all(s.isdigit() and 0 < int(s) <= 4000 for s in sizes):
        raise ShortcodeError("needs a width (and a height) in pixels, 1 to 4000")
    width = int(sizes[0])
    height = int(sizes[1]) if len(sizes) > 1 else width
    uri = placeholder_svg(width, height)
    if call.in_path:
        return uri
    return f'<img src="{uri}" width="{width}" height="{height}" alt="{width} × {height}">'


def _youtube(url: str) -> str | None:
    parts = urlsplit(url)
    host = parts.netloc.lower().removeprefix("www.").removeprefix("m.")
    if host == "youtu.be":
        return parts.path.strip("/") or None
    if host in ("youtube.com", "youtube-nocookie.com"):
        if parts.path.startswith(("/embed/", "/shorts/", "/live/")):
            return parts.path.split("/")[2] or None
        return (parse_qs(parts.query).get("v") or [""])[0] or None
    return None


def _vimeo(url: str) -> str | None:
    parts = urlsplit(url)
    host = parts.netloc.lower().removeprefix("www.")
    if host in ("vimeo.com", "player.vimeo.com"):
        found = re.search(r"/(\d+)", parts.path)
        return found.group(1) if found else None
    return None


def video(call: Call) -> str:
    """`{{< video src >}}`: a local file as a `<video>` (published with the deck, works
    offline); a YouTube or Vimeo address as their player in an iframe (that needs the network)."""
    src = call.args[0] if call.args else call.named.get("src", "")
    if not src:
        raise ShortcodeError("needs a file or an address, as `{{< video intro.mp4 >}}`")
    named = call.named
    size = "".join(f' {k}="{html.escape(named[k])}"' for k in ("width", "height") if k in named)
    title = html.escape(call.named.get("title", ""))
    start = call.named.get("start", "")
    found = _youtube(src)
    if found:
        query = f"?start={int(float(start))}" if start else ""
        return (
            f'<iframe src="https://www.youtube.com/embed/{html.escape(found)}{query}"{size} '
            f'title="{title}" allowfullscreen></iframe>'
        )
    found = _vimeo(src)
    if found:
        return (
            f'<iframe src="https://player.vimeo.com/video/{found}"{size} title="{title}" '
            "allowfullscreen></iframe>"
        )
    if urlsplit(src).scheme:
        return f'<video controls src="{html.escape(src)}"{size} title="{title}"></video>'
    if not src.lower().endswith(VIDEO_FILES):
        raise ShortcodeError(f"`{src}` is not a video file ({', '.join(VIDEO_FILES)})")
    # an image in Markdown: the renderer publishes the file and makes it a <video>
    attrs = "".join(f" {key}={call.named[key]}" for key in ("width", "height") if key in call.named)
    return f"![{title}]({src}){{.video{attrs}}}"


FA_STYLES = {"brands": "fab", "regular": "far", "solid": "fas"}


def fa(call: Call) -> str:
    """`{{< fa name >}}` / `{{< fa brands github >}}`: a Font Awesome icon, from the copy the
    deck ships (offline)."""
    if len(call.args) == 1:
        style, name = "fas", call.args[0]
    elif len(call.args) == 2 and call.args[0] in FA_STYLES:
        style, name = FA_STYLES[call.args[0]], call.args[1]
    else:
        raise ShortcodeError("reads `{{< fa icon >}}` or `{{< fa brands|regular|solid icon >}}`")
    if not re.fullmatch(r"[a-z0-9-]+", name):
        raise ShortcodeError(f"`{name}` is not an icon name")
    size = call.named.get("size", "")
    extra = f" fa-{html.escape(size)}" if re.fullmatch(r"[\w-]+", size) else ""
    title = call.named.get("title")
    label = f' role="img" aria-label="{html.escape(title)}"' if title else ' aria-hidden="true"'
    return f'<i class="{style} fa-{name}{extra}"{label}></i>'


def embed(call: Call) -> str:
    """(`{{< embed >}}` on a line of its own is spliced by `deck.source.prepass`.)"""
    raise ShortcodeError("stands on a line of its own: it gives a notebook's cells")


SHORTCODES: dict[str, Callable[[Call], str]] = {
    "meta": meta,
    "var": var,
    "env": env,
    "pagebreak": pagebreak,
    "kbd": kbd,
    "lipsum": lipsum,
    "placeholder": placeholder,
    "video": video,
    "fa": fa,
    "embed": embed,
}


def env_names(text: str) -> set[str]:
    """The environment variables a text's `{{< env >}}` shortcodes read (the no-change check
    watches them)."""
    return set(ENV_SHORTCODE.findall(text))
