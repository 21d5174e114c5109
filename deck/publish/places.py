"""Where each place a build fills is (`deck` is OUT/<lesson>/, `figures` FIGURES/<lesson>/,
`single` OUT/<lesson>.html), and every place a build of a lesson replaces, read from the
outputs' registry without loading an exporter: a no-change build asks for them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from deck.model.outputs import OUTPUTS
from deck.options import Options

PLACES: dict[str, Callable[[str, Options], Path]] = {
    "deck": lambda name, options: options.out / name,
    "figures": lambda name, options: options.figures / name,
    "single": lambda name, options: options.out / f"{name}.html",
}


def output_places(name: str, options: Options) -> dict[str, Path]:
    """Every place a build of `name` replaces (its deck folder, figures, single file…), or
    drops when its output is not wanted (the single file of an earlier `--single-file`)."""
    return {p: PLACES[p](name, options) for o in OUTPUTS if o.exporter for p in o.places}
