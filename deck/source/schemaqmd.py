"""A Quarto file's keys, declared for the schema engine (`deck.source.schema`): the
`format: revealjs:` options (`REVEALJS_SCHEMA`, also a lesson's `slides:`), `execute:`, and
the front matter of a `.qmd` or its `_metadata.yml` (`QUARTO_SCHEMA`).

The options a deck commonly sets are applied; those Quarto has but this build does not apply
are read and named in a warning (never silently dropped); another format or engine says that
this build makes reveal.js slides from Python cells.
https://quarto.org/docs/reference/formats/presentations/revealjs.html
"""

from __future__ import annotations

import dataclasses

from deck.source.authors import read_affiliations, read_authors, read_institutes
from deck.source.config import TITLE_KEYS, TOP_SCHEMA
from deck.source.qmdchecks import (
    THEMES,
    _attributes,
    _code_line_numbers,
    _embed,
    _engine,
    _includes,
    _jupyter,
    _nocite,
    _paths,
    _plugin,
    _size,
    _theme,
    format_reader,
)
from deck.source.schema import Invalid, Key, Schema, aliased, choice, flag, ignored, section, text


def _extension(name: str) -> str | None:
    """`clean-revealjs` (a Quarto extension's format, built on revealjs) reads as `revealjs`."""
    return "revealjs" if name.endswith("-revealjs") else None


NOT_EXTENDED = (
    "is a Quarto extension's format: its options are read as `revealjs`'s; the extension "
    "itself (its theme, filters, templates) is not applied"
)


TRANSITIONS = ("none", "fade", "slide", "convex", "concave", "zoom")
REVEALS = "reveal.js's own"
NOT_APPLIED = "a Quarto option this build does not apply; ignored"


UNAPPLIED = ignored("Quarto's; read, not applied (a warning)", NOT_APPLIED)


def _not_applied(*names: str) -> dict[str, Key]:
    return dict.fromkeys(names, UNAPPLIED)  # (one declaration: the reference gives them one row)


INCLUDES = ("include-in-header", "include-before-body", "include-after-body")
INCLUDED = {
    "include-in-header": "the page's `<head>`",
    "include-before-body": "the start of the page's `<body>`",
    "include-after-body": "the end of the page's `<body>`",
}
# At the top of a .qmd or under its format: revealjs: (`deck_option` reads either)
DECK_OPTIONS: dict[str, Key] = {
    **{
        key: Key(
            "files or `- text:` items",
            f"the author's own HTML at {where}: files inside the project (watched inputs), "
            "or `- text: <meta …>` items",
            _includes,
            (),
        )
        for key, where in INCLUDED.items()
    },
    "toc": flag("a contents slide after the title slide, each entry a link"),
    "toc-depth": choice("the headings the contents slide lists", 1, 2, 3, default=2),
    "toc-title": text("the contents slide's title", shown="the language's word for contents"),
    "slide-level": choice(
        "the heading level that starts a slide (`#` above it starts a section title)",
        1,
        2,
        3,
        default=2,
    ),
    "title-slide-attributes": Key(
        "mapping",
        "the title slide's attributes, as `data-background-image: a.png` or `class`",
        _attributes,
    ),
}
# Not reveal.js's (the deck's pass reads it, deck.render.transforms.auto_stretch); a lesson's
# `slides:` takes it too, where it is off unless asked.
AUTO_STRETCH = flag(
    "a slide's lone image grows to the height the slide has left, as Quarto's (not in columns, "
    "a layout panel, a fragment or a tab panel, nor one with a height of its own or `.absolute`;"
    " `.nostretch` on the slide or the image: not that one)",
    None,
    shown="`true` in a `.qmd`; `false` in a lesson",
)
REVEALJS_SCHEMA = Schema(
    "format: revealjs:",
    {
        "width": Key(
            "pixels",
            "the slide's width in CSS px (200 to 8000): reveal.js, the slide CSS, the overflow "
            "check and the PDFs' pages follow it; in percent: a warning, not applied",
            _size(1280),
            1280,
        ),
        "height": Key("pixels", "the slide's height in CSS px, as `width`", _size(720), 720),
        "slide-number": choice(
            "the slide number: `true` (the deck's own, `c/t`), `c/t`, `c`, `h/v`, `h.v`, "
            "`false` (none)",
            True,
            False,
            "c/t",
            "c",
            "h/v",
            "h.v",
            default=False,
        ),
        "incremental": flag("lists shown item by item"),
        "smaller": flag("every slide in smaller type"),
        "scrollable": flag("slides taller than the page scroll"),
        "footer": text("a line at the foot of every slide (Markdown; a slide's `::: footer` wins)"),
        "logo": text("an image in the corner of every slide, a file inside the project"),
        "controls": choice(
            "reveal.js's arrows; `auto`: reveal.js's own",
            True,
            False,
            "auto",
            default=None,
            shown=REVEALS,
        ),
        "progress": flag("reveal.js's progress bar", None, shown=REVEALS),
        "menu": Key(
            "true/false",
            "the slide menu: the deck's own stays (`false` or settings: a warning)",
            _plugin("slide menu"),
            True,
        ),
        "chalkboard": Key(
            "true/false",
            "the chalkboard: the deck's own stays (`false` or settings: a warning)",
            _plugin("chalkboard"),
            True,
        ),
        "code-line-numbers": Key(
            'true/false or lines such as `"1-3|5"`',
            "line numbers on code; lines to highlight, step by step",
            _code_line_numbers,
            True,
        ),
        "css": Key("files", "the author's stylesheets, files inside the project", _paths, ()),
        "theme": Key(
            "name or list",
            f"a Quarto theme ({', '.join(f'`{t}`' for t in THEMES)}), and the author's "
            "`.scss`/`.css` over it: `[sky, custom.scss]`; an unknown name is a warning",
            _theme,
            ("default", ()),
            shown="`default`",
        ),
        "embed-resources": Key(
            "true/false",
            "`true`: a warning; the deck stays `index.html` with `assets/` beside it, offline "
            "from its folder (`--single-file` makes one file)",
            _embed,
            False,
        ),
        "self-contained": Key("true/false", "as `embed-resources`", _embed, False),
        "transition": choice("how slides change", *TRANSITIONS, default="slide", shown="`slide`"),
        "background-transition": choice(
            "how slide backgrounds change", *TRANSITIONS, default=None, shown=REVEALS
        ),
        "transition-speed": choice(
            "the transitions' speed", "default", "fast", "slow", default=None, shown=REVEALS
        ),
        "navigation-mode": choice(
            "how the arrow keys move", "linear", "vertical", "grid", default=None, shown=REVEALS
        ),
        "center": flag("slides centred vertically"),
        "hash-type": choice(
            "read; the deck's addresses are slide numbers either way",
            "title",
            "number",
            default="number",
        ),
        "auto-stretch": AUTO_STRETCH,
        **DECK_OPTIONS,
        **_not_applied(
            "auto-animate-duration",
            "auto-animate-easing",
            "center-title-slide",
            "code-copy",
            "code-overflow",
            "fig-dpi",
            "fig-height",
            "fig-width",
            "highlight-style",
            "html-math-method",
            "link-external-icon",
            "multiplex",
            "pdf-separate-fragments",
            "preview-links",
            "reference-location",
            "revealjs-plugins",
            "show-notes",
        ),
    },
    "A `.qmd`'s `format: revealjs:` options (also at its top level), a lesson's `slides:`.",
)


def _margin(value: object) -> float:
    """reveal.js's `margin`: the room around the slide, a fraction of its size."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise Invalid("must be a number from 0 to 1 (a fraction of the slide's size)")
    return float(value)


def _distance(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Invalid("must be a whole number of slides, at least 1")
    return value


VIEW_DISTANCE = Key(
    "number", "slides kept loaded on each side of the current one (reveal.js)", _distance,
    shown=REVEALS,
)  # fmt: skip
# reveal.js's own options as Quarto passes them (deck.source.qmdconfig.REVEAL_NAMES): a `.qmd`'s
REVEAL_OPTIONS: dict[str, Key] = {
    "show-slide-number": choice(
        "where the slide number shows: `all`, `print` (printed pages only), `speaker` (the "
        "speaker view only)",
        "all",
        "print",
        "speaker",
        default=None,
        shown="`all`",
    ),
    "hash": flag("the slide's number in the page's address", None, shown="`true`"),
    "history": flag("each slide a step of the browser's history", None, shown=REVEALS),
    "margin": Key(
        "number",
        "room around the slide on screen, a fraction of its size (printed pages keep none)",
        _margin,
        shown="`0.04`",
    ),
    "view-distance": VIEW_DISTANCE,
    "viewDistance": dataclasses.replace(VIEW_DISTANCE, help="as `view-distance`"),
    "controls-tutorial": flag("reveal.js's hint to use the arrows", None, shown=REVEALS),
}

EXECUTE_SCHEMA = Schema(
    "execute",
    {
        "echo": choice(
            "show the cells' code; `fenced`: with its fence (Quarto's revealjs default: hidden)",
            True,
            False,
            "fenced",
            default=False,
        ),
        "eval": flag("run the cells (`false`: their code is shown, never run)", True),
        "output": choice(
            "show the cells' output; `asis`: printed Markdown read as written",
            True,
            False,
            "asis",
            default=True,
        ),
        "warning": flag("show the warnings cells print (Quarto's revealjs default: hidden)"),
        "error": flag("a cell's exception is shown as its output instead of an error", False),
        "include": flag("`false`: the cells run and nothing of them is shown", True),
        "enabled": flag("`false`: no cell runs (as `eval: false`)", True),
        # Results are kept per section in the build's cache, keyed by the code: freeze and
        # cache are what it does already.
        "freeze": Key("any", "accepted: the section cache does its job"),
        "cache": Key("any", "accepted: the section cache does its job"),
        **_not_applied("daemon", "kernel-keepalive"),
    },
    "The cells' defaults, each overridden by a cell's own `#|` option.",
)
CITATIONS = {
    "bibliography": Key(
        "files", "bibliography files inside the project, formatted by Pandoc's citeproc", _paths, ()
    ),
    "csl": text("a citation style (`.csl` file)"),
    "nocite": Key(
        "keys", "references listed though not cited: `@smith2020, @doe2021` or `@*`", _nocite
    ),
}
# Quarto reads execution and document options per format too (`format: revealjs: echo:
# true`, `bibliography:`…): there they win over the file's `execute:` and top-level keys.
PER_FORMAT = {
    **EXECUTE_SCHEMA.only("echo", "eval", "output", "warning", "error", "include"),
    **CITATIONS,
    **_not_applied("code-fold", "code-summary", "code-tools"),
}
# A `.qmd`'s `format: revealjs:` (a lesson's `slides:` takes REVEALJS_SCHEMA's keys)
QMD_REVEALJS_SCHEMA = Schema(
    "format: revealjs:",
    {**REVEALJS_SCHEMA, **REVEAL_OPTIONS, **PER_FORMAT},
    "A `.qmd`'s `format: revealjs:` options: the deck's, reveal.js's own, and the cells' and "
    "citations' settings for this format.",
)
QUARTO_SCHEMA = Schema(
    ".qmd front matter",
    {
        **CITATIONS,
        "title": TITLE_KEYS["title"],
        "subtitle": TITLE_KEYS["subtitle"],
        "author": dataclasses.replace(
            TITLE_KEYS["author"],
            help=TITLE_KEYS["author"].help + "; each `affiliation`/`affiliations` under its name",
            check=read_authors,
        ),
        "authors": Key(
            "list",
            "Quarto's normalized form of `author`: `[{name: …, affiliations: …}]`",
            read_authors,
        ),
        "affiliations": Key(
            "list",
            "`- id: …` / `name: …` entries an author's `affiliations: [{ref: id}]` names",
            read_affiliations,
        ),
        "institute": Key(
            "text or list",
            "affiliations in order: the first author's, the second's… (the last author takes "
            "the rest), as Quarto attaches them",
            read_institutes,
        ),
        "date": TITLE_KEYS["date"],
        "lang": text("the deck's language: its UI strings, fonts", "en"),
        "format": Key(
            "`revealjs` or mapping",
            "`revealjs`, or `revealjs:` with its options (the table above); an extension's "
            "`name-revealjs:` is read as `revealjs:` (a warning: the extension itself is not "
            "applied); another format is a warning",
            read=aliased(format_reader(QMD_REVEALJS_SCHEMA), _extension, NOT_EXTENDED),
        ),
        "execute": section("the cells' defaults (the table below)", EXECUTE_SCHEMA),
        "jupyter": Key(
            "text or mapping",
            "a Python kernel (`python3`, a kernelspec's name): its interpreter runs the cells; "
            "another language's kernel is an error",
            _jupyter,
        ),
        "engine": Key(
            "text",
            "`jupyter` (or `python`); another engine is a warning (each of its cells an error)",
            _engine,
            shown="`jupyter`",
        ),
        "exec": TOP_SCHEMA["exec"],  # this build's own settings (seed, timeout, memory, output)
        **DECK_OPTIONS,
        # a format's options may stand at the top level too (`footer:` beside `format: revealjs`)
        **{k: v for k, v in REVEALJS_SCHEMA.items() if k not in DECK_OPTIONS},
        **REVEAL_OPTIONS,
        **_not_applied(
            "abstract",
            "citation",
            "copyright",
            "crossref",
            "date-format",
            "description",
            "editor",
            "filters",
            "keywords",
            "license",
            "lightbox",
            "number-sections",
            "resources",
            "subject",
        ),
    },
    "A `.qmd`'s front matter, and a `_metadata.yml` beside it (merged under it).",
)
