"""The fonts a Quarto theme asks for, made available offline: each built-in theme's fonts, and
the families a custom `.scss` imports from the web (Google Fonts), are shipped with the deck
when the machine has them (fontconfig finds the family installed) or a pinned npm
`@fontsource/*` package holds them; a family neither has is substituted (a face of its name
made of Lato's, DejaVu Serif's or DejaVu Sans Mono's glyphs), with a warning saying so.

`deck.publish.fonts` subsets the faces found here into the deck like its own fonts, under the
family names the theme's stylesheets use, so the deck never loads a font from the web.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from deck.theme import NODE_MODULES

if TYPE_CHECKING:
    from deck.render.fontconfig import Match

# family → its npm package (package.json pins it): latin subsets as WOFF2, by weight and style
PACKAGES = {
    "League Gothic": "league-gothic",
    "Lato": "lato",
    "Open Sans": "open-sans",
    "Montserrat": "montserrat",
    "Quicksand": "quicksand",
    "Ubuntu": "ubuntu",
}
# Quarto's reveal.js themes' web fonts (headings, then body): reveal.js's own theme sources.
# `simple`'s News Cycle has no package: Lato (its body font) stands in, as quarto.css says.
# `serif` names Palatino and its system stand-ins; white/black/default/dark use the deck's own.
THEME_FONTS = {
    "beige": ("League Gothic", "Lato"),
    "league": ("League Gothic", "Lato"),
    "moon": ("League Gothic", "Lato"),
    "solarized": ("League Gothic", "Lato"),
    "night": ("Montserrat", "Open Sans"),
    "sky": ("Quicksand", "Open Sans"),
    "simple": ("Lato",),
    "blood": ("Ubuntu",),
}
SUBSTITUTED = {"News Cycle": "Lato"}  # a theme's font with no package → what stands in
WEIGHTS = ((400, False), (700, False), (400, True))  # body, bold, italic
GOOGLE = ("fonts.googleapis.com", "fonts.bunny.net")


def packaged(family: str, weight: int, italic: bool) -> Path | None:
    """The WOFF2 file of a face from its npm package, if installed (or None)."""
    slug = PACKAGES.get(family)
    if slug is None:
        return None
    files = NODE_MODULES / "@fontsource" / slug / "files"
    # (League Gothic has one face: it stands for its bold and italic too, as the theme shows it)
    for w, style in ((weight, "italic" if italic else "normal"), (400, "normal")):
        found = files / f"{slug}-latin-{w}-{style}.woff2"
        if found.is_file():
            return found
    return None


def matches(patterns: list[str]) -> list[Match | None]:
    """fontconfig's match for each pattern: asked in this process (deck.render.fontconfig),
    else one `fc-match` process each."""
    from deck.render.fontconfig import match

    found = match(patterns)
    return found if found is not None else [_fc_match(p) for p in patterns]


def _fc_match(pattern: str) -> Match | None:
    """What `fc-match PATTERN` answers, or None when fontconfig cannot answer."""
    from deck.render.fontconfig import Match

    try:
        ran = subprocess.run(
            ["fc-match", "-f", "%{file}\n%{index}\n%{family}\n", pattern],
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = ran.stdout.splitlines() if ran.returncode == 0 else []
    if len(lines) < 2 or not lines[0] or not lines[1].isdigit():
        return None
    families = lines[2].split(",") if len(lines) > 2 else []
    return Match(lines[0], int(lines[1]), tuple(f.strip() for f in families if f.strip()))


def installed(family: str) -> bool:
    """Whether fontconfig has `family` itself (it answers a stand-in when it has not)."""
    (found,) = matches([family])
    return found is not None and family.lower() in (f.lower() for f in found.families)


def available(family: str) -> bool:
    return packaged(family, 400, False) is not None or installed(family)


def imported_families(url: str) -> list[str]:
    """The families a Google Fonts address asks for (`css2?family=Fira+Sans:wght@400;700
    &family=Lato`, or the old `css?family=Lato:400,700|Open+Sans`); none for another address."""
    parts = urlsplit(url)
    if parts.netloc.lower() not in GOOGLE:
        return []
    found: list[str] = []
    for value in parse_qs(parts.query).get("family", []):
        for one in value.split("|"):
            name = re.sub(r"\s+", " ", one.split(":")[0]).strip()
            if name and name not in found:
                found.append(name)
    return found


def substitute(family: str) -> str:
    """What stands in for a family nobody has: a monospace, serif or sans face the deck ships."""
    lowered = family.lower()
    if re.search(r"mono|code|console|courier", lowered):
        return "DejaVu Sans Mono"
    if re.search(r"serif|slab|garamond|baskerville|playfair|merriweather|lora", lowered) and (
        "sans" not in lowered
    ):
        return "DejaVu Serif"
    return "Lato"


def theme_families(theme: str, imported: list[str]) -> list[str]:
    """The families to ship for a deck: its named theme's, those its `.scss` imports that are
    available here, and for each imported family nobody has, `Family=Stand-in` (a face of
    that name made of the stand-in's glyphs, so that the author's font stacks reach it)."""
    names = list(THEME_FONTS.get(theme, ()))
    for family in imported:
        if family not in names:
            names.append(family if available(family) else f"{family}={substitute(family)}")
    return names


def named_families(css: str) -> list[str]:
    """The families with a font package that a compiled theme names in a `font-family` or a
    font variable (`$presentation-heading-font: "League Gothic"` needs no web import)."""
    stacks = " ".join(re.findall(r"(?:font-family|--r-[\w-]*font)\s*:\s*([^;}]+)", css, re.I))
    return [
        family
        for family in PACKAGES
        if re.search(rf"""(?<![\w-])["']?{re.escape(family)}["']?(?![\w-])""", stacks, re.I)
    ]
