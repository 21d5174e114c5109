"""Code fences: static code blocks, raw blocks and Python cells with their `#| key: value`
option lines, read and checked at their lines (the scanner's side that reads code)."""

from __future__ import annotations

import re
from typing import Any, Protocol

from deck.errors import Loc
from deck.model import Block, Cell, Code
from deck.source.attributes import (
    CELL_OPTIONS,
    QUARTO_ONLY_OPTIONS,
    YAML_PROBLEMS,
    line_steps,
    option_problem,
    parse_attrs,
    read_yaml,
)

FENCE_OPEN = re.compile(r"^(`{3,}|~{3,})\s*(\{[^}]*\}|[\w+.-]+\s+\{[^}]*\}|[\w+.-]*)\s*$")
LANG_THEN_ATTRS = re.compile(r"^([\w+.-]+)\s+\{([^}]*)\}$")  # ```python {code-line-numbers=…}
ENGINE = re.compile(r"^[\w-]*")


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
            problem = nearest_option(key) or option_problem(key, value)
            if problem and p.dialect.quarto and problem.startswith("unknown"):
                p.warn(index, "option", f"{problem}; ignored")
            elif problem:
                p.error(index, "option", problem)
                ok = False
            else:
                if key in ("fig-cap", "fig-alt", "tbl-cap"):
                    value = p.inline(value, index)
                options[key] = value
        k += 1
    return (options if ok else None), k


def nearest_option(key: str) -> str | None:
    """For an unknown cell option close to a known one (`fig_alt`, `lable`): the message
    naming that one, as an unknown key in the settings names the nearest; else None (a
    Quarto option this build does not apply is no typo)."""
    if key in CELL_OPTIONS or key in QUARTO_ONLY_OPTIONS:
        return None
    import difflib

    near = difflib.get_close_matches(key.replace("_", "-"), list(CELL_OPTIONS), n=1)
    return f"unknown cell option `{key}` (did you mean `{near[0]}`?)" if near else None


OTHER_ENGINES = {
    "r": "R cells need R and knitr, which this build does not run",
    "julia": "Julia cells need a Julia kernel, which this build does not run",
    "ojs": "Observable JS cells run in Quarto's own OJS runtime, which this build does not ship",
    "shinylive-python": "shinylive cells need Pyodide in the browser, which this build does "
    "not ship (it runs Python at build time, offline)",
    "shinylive-r": "shinylive cells need webR in the browser, which this build does not ship",
    "mermaid": "mermaid diagrams are drawn by Quarto's bundled mermaid.js, which this build "
    "does not ship: include the diagram as an image (`![](diagram.svg)`)",
    "pyodide-python": "pyodide cells run in the browser through a Quarto extension, which "
    "this build does not ship (it runs Python at build time, offline)",
    "dot": "Graphviz diagrams are drawn by Quarto's bundled Graphviz, which this build does "
    "not ship: include the diagram as an image (`![](diagram.svg)`), or draw it in a "
    "Python cell",
}


def engine_message(engine: str) -> str:
    """Why a `{engine}` cell cannot run here, and what to write instead."""
    shown = f"for code shown as it is write ```{engine or 'text'}"
    cause = OTHER_ENGINES.get(engine.lower(), "only Python cells run here (```{python})")
    return f"`{{{engine}}}` cells cannot run: {cause}; {shown}"


class CodeReader:
    """The scanner's methods that read a code fence (mixed into `Scanner`)."""

    lines: list[str]
    pos: int
    dialect: Any

    def loc(self, index: int) -> Loc:  # (the scanner's)
        raise NotImplementedError

    def error(self, index: int, code: str, message: str) -> None: ...

    def warn(self, index: int, code: str, message: str) -> None: ...

    def inline(self, text: str, index: int) -> str:
        raise NotImplementedError

    def fence(self) -> Block | None:
        start = self.pos
        m = FENCE_OPEN.match(self.lines[start])
        assert m
        marker, info = m.group(1), m.group(2)
        both = LANG_THEN_ATTRS.match(info)
        if both:  # Pandoc 3 reads ```python {…} as ```{.python …}
            info = f"{{.{both.group(1)} {both.group(2)}}}"
        end = start + 1
        closing = re.compile("^" + re.escape(marker[0]) + "{" + str(len(marker)) + r",}\s*$")
        while end < len(self.lines) and not closing.match(self.lines[end]):
            end += 1
        if end >= len(self.lines):
            self.error(start, "parse", f"code fence {marker} is never closed")
            self.pos = len(self.lines)
            return None
        self.pos = end + 1
        body = self.lines[start + 1 : end]
        text = "\n".join(body)
        if not info.startswith("{"):
            return Code(info, text, self.loc(start))
        inner = info[1:-1].strip()
        if inner.startswith("="):  # a raw block: ```{=html}
            return Code(inner, text, self.loc(start))
        if inner.startswith((".", "#")):  # a static block with attributes: ```{.python …}
            return self.static_code(start, inner, text)
        engine = ENGINE.match(inner).group(0)  # type: ignore[union-attr]
        if engine != "python":
            options = [line for line in body if line.startswith("#|")]
            if any(re.fullmatch(r"#\|\s*eval:\s*false\s*", o) for o in options):
                # never run, only shown (Quarto shows it too): code, not an error
                shown = "\n".join(line for line in body if not line.startswith("#|"))
                return Code(engine, shown, self.loc(start))
            self.error(start, "engine", engine_message(engine))
            return None
        if inner[len(engine) :].strip(" ,"):
            self.warn(
                start,
                "option",
                "options in the fence are not read: write them as `#| key: value` lines",
            )
        return self.cell(start, body)

    def static_code(self, start: int, inner: str, text: str) -> Code | None:
        parsed = parse_attrs(inner)
        if parsed is None:
            self.error(start, "attr", f"cannot read code block attributes `{{{inner}}}`")
            return None
        classes, attrs = parsed
        if len(classes) > 1:
            attrs["class"] = " ".join(classes[1:])
        numbers = attrs.get("code-line-numbers")
        if numbers is not None and numbers.lower() in ("true", "false"):
            numbers = attrs["code-line-numbers"] = numbers.lower()  # (`"True"` as Quarto reads it)
        if numbers is not None and numbers not in ("true", "false") and not line_steps(numbers):
            self.error(
                start,
                "attr",
                f'code-line-numbers="{numbers}" must be true, false or lines such as "1-3|5"',
            )
        return Code(classes[0] if classes else "", text, self.loc(start), attrs)

    def cell(self, start: int, body: list[str]) -> Cell | Code | None:
        options, k = read_options(self, start, body)
        if options is None:
            return None
        code = "\n".join(body[k:])
        if self.option(options, "eval", True) is False:
            return self.shown_code(start, code, options)
        # the line its code starts at, in the file it was written in (an included file's own)
        return Cell(code, options, self.loc(start), self.loc(start + 1 + k).line)

    def option(self, options: dict[str, Any], key: str, default: Any) -> Any:
        """A cell's option, else the file's `execute:` default, else `default`."""
        return options.get(key, self.dialect.defaults.get(key, default))

    def shown_code(self, start: int, code: str, options: dict[str, Any]) -> Code | None:
        """A cell with `eval: false` is code to show (when echoed), never run."""
        echo = self.option(options, "echo", self.dialect.quarto)  # Quarto shows code
        if echo is False or self.option(options, "include", True) is False:
            return None
        attrs = {"cell": "true"}
        if "code-line-numbers" in options:
            attrs["code-line-numbers"] = str(options["code-line-numbers"]).lower()
        return Code("python", code, self.loc(start), attrs)
