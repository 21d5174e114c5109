"""The outputs a build makes: one registry. Each entry names the output (`--to`, lesson.yml's
`outputs:`), what it writes, whether it is made by default, and the exporter that writes it
(`module:Class`, loaded by `deck.publish.write`, which makes the outputs in this order).

Adding an output is its exporter module and one entry here: the names `--to` accepts, those
`outputs:` may give, the defaults, `--help` and the README's list all come from this table
(`tests/publish/test_outputs_registry.py` checks each)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Output:
    name: str
    makes: str  # what it writes, for `--help` and the README
    exporter: str | None  # `module:Class`; None: made once per build, after every lesson
    default: bool = True  # made when neither `--to` nor `outputs:` names any
    asked: bool = True  # a name `--to` takes (False: a check the build runs by itself)
    per_lesson: bool = True  # a lesson's `outputs:` may name it
    # the places it writes (deck.publish.places: `deck` is OUT/<lesson>/), each published whole
    places: tuple[str, ...] = ("deck",)


# In the order they are made: later ones may read what earlier ones staged. The notebooks come
# after the PDFs (their code/ folder is not a file the printed page loads); without PDFs the
# layout check measures the slides as printing them would; PPTX draws its pictures once the
# rest is staged; the course page lists every lesson once each is published.
OUTPUTS: tuple[Output, ...] = (
    Output(
        "html",
        "index.html, values.json and figures/ (always written: every other output is made from it)",
        "deck.publish.html:HtmlDeck",
        places=("deck", "figures"),
    ),
    Output("pdf", "slides.pdf, handout.pdf and notes.pdf", "deck.publish.pdfs:Pdfs"),
    Output(
        "layout",
        "the layout check: without PDFs, the slides measured as printed (warnings only)",
        "deck.publish.layoutcheck:LayoutCheck",
        asked=False,
        per_lesson=False,
    ),
    Output(
        "single",
        "OUT/<lesson>.html, the deck with every asset inlined (also `--single-file`)",
        "deck.publish.single:SingleFile",
        default=False,
        places=("single",),
    ),
    Output(
        "ipynb",
        "<lesson>.ipynb, <lesson>-solutions.ipynb and the code/ they import",
        "deck.publish.notebook:Notebooks",
    ),
    Output("pptx", "slides.pptx", "deck.publish.pptx:Pptx", default=False),
    Output(
        "course",
        "OUT/index.html, the course page of every lesson",
        None,
        per_lesson=False,
        places=(),
    ),
)

KNOWN_OUTPUTS = tuple(o.name for o in OUTPUTS if o.asked)
DEFAULT_OUTPUTS = tuple(o.name for o in OUTPUTS if o.asked and o.default)
LESSON_OUTPUTS = tuple(o.name for o in OUTPUTS if o.asked and o.per_lesson)


def read_outputs(
    text: str | list[str] | tuple[str, ...], known: tuple[str, ...] = KNOWN_OUTPUTS
) -> tuple[str, ...]:
    """`html,pdf,ipynb` (or a list) as the outputs' names; raises ValueError naming the known
    ones when a name is not one of them."""
    names = text.split(",") if isinstance(text, str) else list(text)
    found = tuple(dict.fromkeys(str(n).strip().lower() for n in names if str(n).strip()))
    unknown = [n for n in found if n not in known]
    if unknown or not found:
        what = f"unknown output {', '.join(repr(n) for n in unknown)}" if unknown else "no output"
        raise ValueError(f"{what} (known: {', '.join(known)})")
    return found
