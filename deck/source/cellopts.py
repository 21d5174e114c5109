"""A cell's `#| key: value` option lines, read and checked at their lines."""

from __future__ import annotations

from typing import Any, Protocol

from deck.source.attributes import QUARTO_ONLY_OPTIONS, YAML_PROBLEMS, option_problem, read_yaml


class Reader(Protocol):
    @property
    def dialect(self) -> Any: ...

    def error(self, index: int, code: str, message: str) -> None: ...

    def warn(self, index: int, code: str, message: str) -> None: ...

    def inline(self, text: str, index: int) -> str: ...


def read_options(p: Reader, start: int, body: list[str]) -> tuple[dict[str, Any] | None, int]:
    """The options of the cell whose fence is line `start` and whose lines are `body`, and how
    many lines they take; None for options when one is wrong (each reported). An empty `#|`
    line is skipped, as Quarto skips it."""
    options: dict[str, Any] = {}
    k = 0
    ok = True
    while k < len(body) and body[k].startswith("#|"):
        index = start + 1 + k
        if not body[k][2:].strip():
            k += 1
            continue
        try:
            parsed = read_yaml(body[k][2:])
        except YAML_PROBLEMS:
            parsed = None
        if not isinstance(parsed, dict) or len(parsed) != 1:
            p.error(index, "option", "cell option must read `#| key: value`")
            ok = False
            k += 1
            continue
        ((key, value),) = parsed.items()
        key = str(key)
        if key in options:
            p.error(index, "option", f"cell option `{key}` is given twice")
            ok = False
        elif p.dialect.quarto and key in QUARTO_ONLY_OPTIONS:
            p.warn(index, "option", f"cell option `{key}` is not applied here; ignored")
        else:
            problem = option_problem(key, value)
            if problem and p.dialect.quarto and problem.startswith("unknown"):
                p.warn(index, "option", f"{problem}; ignored")
            elif problem:
                p.error(index, "option", problem)
                ok = False
            else:
                if key in ("fig-cap", "fig-alt"):
                    value = p.inline(value, index)
                options[key] = value
        k += 1
    return (options if ok else None), k
