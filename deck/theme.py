"""What every stage shares about where things are and how a deck looks: the engine's paths,
the slide size, the PDFs a build prints, how a note says its minutes (each defined once; the
UI strings by language are deck/strings.py's)."""

from __future__ import annotations

import re
from pathlib import Path

# ---- paths ----------------------------------------------------------------------------------
ENGINE = Path(__file__).resolve().parent  # the deck package
ROOT = ENGINE.parent  # the project: build.py, node_modules/
STATIC = ENGINE / "static"  # the deck's own CSS and JS, matplotlibrc, the KaTeX script
TEMPLATES = ENGINE / "templates"  # Jinja2 templates of the page, a slide, a quiz
NODE_MODULES = ROOT / "node_modules"  # reveal.js and KaTeX, as `npm ci` installed them
KATEX = NODE_MODULES / "katex"
# Beside a lesson's sections: its frozen results, meant to be committed (deck.store.frozen);
# not an input of the lesson's build (a build with `--freeze` writes it)
FREEZE_FOLDER = "_freeze"

# ---- the slide ------------------------------------------------------------------------------
SLIDE_WIDTH = 1280  # CSS px; PDF slides are 960×540 pt
SLIDE_HEIGHT = 720
SLIDE_VIEWPORT = {"width": SLIDE_WIDTH, "height": SLIDE_HEIGHT}

# ---- PDFs -----------------------------------------------------------------------------------
# The views render makes of a deck (`RenderedDeck.views`): the page as each layout shows it.
# The slides show neither speaker notes nor `::: handout` blocks, the students' handout no
# speaker notes, the lecturer's notes everything.
VIEWS = ("slides", "student", "lecturer")
# PDF file → the layout `window.deckHandout(kind)` makes of the slides ("": slides as they are)
PDFS = {"slides.pdf": "", "handout.pdf": "student", "notes.pdf": "lecturer"}
VIEW_OF_LAYOUT = {"": "slides", "student": "student", "lecturer": "lecturer"}
# The handouts' paper (A4, and A4 landscape for a dense slide's own page) and its margins are
# deck/static/handout.js's @page rules: it lays the pages out to them.
HANDOUT_PER_PAGE = (1, 2, 3)  # `handout: {per-page: …}` in lesson.yml; 2 unless said
HANDOUT_MAX_LINES = 40  # `handout: {lines: …}`: ruled lines under each slide, at least

# ---- notes ----------------------------------------------------------------------------------
# A note's minutes, in any language, as the speaker view reads them (deck/static/deck.js
# `TEXT.minutes`): "2 分钟。…", "2 min. …", "(3 minutes) …", "3 Min. …". (How the deck says
# them, and every other word the engine puts on a page, by language: deck/strings.py.)
NOTE_MINUTES = re.compile(r"\s*[(（]?\s*(\d+(?:\.\d+)?)\s*(?:分钟|min(?:ute)?s?\b\.?)", re.I)

# ---- code -----------------------------------------------------------------------------------
# Code is coloured by Pygments: its `default` style on light slides, `github-dark` on the
# built-in dark themes (and on an author's .scss theme whose page is dark), as Quarto switches
# to a dark highlight style for dark themes. Only the tokens' colours: the theme draws the box.
LIGHT_CODE_STYLE = "default"
DARK_CODE_STYLE = "github-dark"
DARK_THEMES = ("dark", "night", "moon", "league", "blood")


def code_colours(scopes: tuple[str, ...], style: str) -> str:
    """Pygments' token rules of `style` for code under each of `scopes` (CSS selectors of a
    code box), one rule a token for all of them."""
    from pygments.formatters import HtmlFormatter

    rules = []
    for line in HtmlFormatter(style=style).get_style_defs(".S").split("\n"):
        if not line.startswith(".S .") or line.startswith(".S .hll"):
            continue
        token, _, body = line[len(".S ") :].partition(" {")
        rules.append(", ".join(f"{s} {token}" for s in scopes) + " {" + body)
    return "\n".join(rules) + "\n"
