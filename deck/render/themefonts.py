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
from urllib.parse import parse_qs, urlsplit

from deck.theme import NODE_MODULES

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


def fc_match(pattern: str, fmt: str) -> str | None:
    """What `fc-match -f fmt pattern` prints, or None when fontconfig cannot answer."""
    try:
        ran = subprocess.run(
            ["fc-match", "-f", fmt, pattern],
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return ran.stdout if ran.returncode == 0 else None


def installed(family: str) -> bool:
    """Whether fontconfig has `family` itself (fc-match answers a stand-in when it has not)."""
    ran = fc_match(family, "%{family}")
    if ran is None:
        return False
    return family.lower() in (f.strip().lower() for f in ran.split(","))


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
