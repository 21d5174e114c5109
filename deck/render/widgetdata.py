"""`deck.widgetdata` under the name earlier widget checks import it by (README, Widgets)."""

from deck.widgetdata import (
    DataProblem,
    described,
    distribution,
    finite,
    index,
    listed,
    mapping,
    nested,
    number,
    path_at,
    text,
    vector,
)

__all__ = [
    "DataProblem",
    "described",
    "distribution",
    "finite",
    "index",
    "listed",
    "mapping",
    "nested",
    "number",
    "path_at",
    "text",
    "vector",
]
