"""The small checks a `.qmd`'s options are read with (each raises `Invalid` for a wrong value,
or `Accepted` for one that is read with a warning), and the readers of `format:`, `engine:`
and `jupyter:`; `deck.source.schemaqmd` declares the keys with them."""

from __future__ import annotations

from typing import Any

import yaml

from deck.source.attributes import line_steps
from deck.source.schema import Accepted, Check, Invalid, Reader, Reading, Schema, as_text, boolean


def _size(expected: int) -> Check:
    """`width`/`height` in CSS px (a number, or "1050px"); a percentage is read and not
    applied (the deck's pages, PDFs and overflow checks need a size in pixels)."""

    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise Invalid("must be a number of pixels")
        text = str(value).strip().removesuffix("px").strip()
        if isinstance(value, str) and text.endswith("%"):
            raise Accepted(f"a size in percent is not applied: the deck is {expected} px")
        try:
            pixels = round(float(text))
        except ValueError:
            raise Invalid("must be a number of pixels") from None
        if not 200 <= pixels <= 8000:
            raise Invalid("must be between 200 and 8000 pixels")
        return pixels

    return check


def _code_line_numbers(value: Any) -> Any:
    if isinstance(value, bool) or (isinstance(value, str) and line_steps(value) is not None):
        return value
    raise Invalid('must be true, false or lines such as "1-3|5"')


def _paths(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    return tuple(as_text(item) for item in items)


# Quarto's reveal.js themes, each drawn here by its palette and fonts (deck/static/quarto.css)
THEMES = {
    "default": "default", "white": "default", "simple": "simple", "serif": "serif",
    "sky": "sky", "beige": "beige", "solarized": "solarized", "dark": "dark", "black": "dark",
    "night": "night", "moon": "moon", "league": "league", "blood": "blood",
}  # fmt: skip


def _theme(value: Any) -> tuple[str, tuple[str, ...]]:
    """`theme: sky`, or `theme: [default, custom.scss]`: the base theme and the author's own
    `.scss`/`.css` files laid over it, in order."""
    items = value if isinstance(value, list) else [value]
    names = [as_text(item) for item in items]
    files = tuple(n for n in names if n.lower().endswith((".scss", ".css")))
    bases = [n for n in names if n not in files]
    unknown = [n for n in bases if n not in THEMES]
    chosen = next((THEMES[n] for n in bases if n in THEMES), "default")
    if unknown:
        raise Accepted(
            f"theme {', '.join(unknown)} is not a Quarto theme (known: {', '.join(THEMES)}); "
            f"the {chosen} theme is used",
            (chosen, files),
        )
    return chosen, files


def _embed(value: Any) -> bool:
    if boolean(value):
        raise Accepted(
            "index.html is written with its assets/ folder beside it (it opens offline from "
            "there, from any copy of the folder); no single self-contained file is made",
            True,
        )
    return False


def _plugin(name: str) -> Check:
    def check(value: Any) -> Any:
        if value is True:
            return True
        if value is False:
            raise Accepted(f"the deck's {name} stays available; false is not applied", False)
        raise Accepted(f"the deck's own {name} is used; its settings here are not read", True)

    return check


def _attributes(value: Any) -> dict[str, str]:
    """`title-slide-attributes: {data-background-image: a.png, …}`."""
    if not isinstance(value, dict):
        raise Invalid("must be a mapping of attributes, as `data-background-color: black`")
    return {str(k): as_text(v) for k, v in value.items()}


def _includes(value: Any) -> tuple[tuple[str, str], ...]:
    """`include-in-header: head.html`, a list of files, or `- text: <meta …>` items."""
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        if isinstance(item, dict) and len(item) == 1 and next(iter(item)) in ("text", "file"):
            ((kind, text),) = item.items()
            out.append((kind, as_text(text)))
        elif isinstance(item, str):
            out.append(("file", item))
        else:
            raise Invalid("must be a file, a list of files, or `- text: …` / `- file: …` items")
    return tuple(out)


def _nocite(value: Any) -> str:
    text = " ".join(as_text(v) for v in value) if isinstance(value, list) else as_text(value)
    if not all(word.startswith("@") for word in text.replace(",", " ").split()):
        raise Invalid("must name citation keys, as `@smith2020, @doe2021` or `@*`")
    return text


SHARED_SETTINGS = ("_quarto.yml", "_quarto.yaml", "_metadata.yml", "_metadata.yaml")


def format_reader(options: Schema) -> Reader:
    """`format: revealjs`, or `format: {revealjs: {options}, pdf: …}`: the revealjs options,
    read with `options`; another format is a warning (this builds reveal.js slides and their
    PDFs)."""

    def read(node: yaml.Node, name: str, reading: Reading) -> dict[str, Any]:
        other = "is not built here: this builds reveal.js slides (and their PDFs)"
        if isinstance(node, yaml.ScalarNode):
            if node.value != "revealjs":
                reading.warn(node, f"format `{node.value}` {other}")
            return {}
        if not isinstance(node, yaml.MappingNode):
            reading.error(node, f"`{name}` must be a format or a mapping")
            return {}
        found: dict[str, Any] = {}
        revealjs = False
        for key_node, value_node in node.value:
            if str(key_node.value) != "revealjs":
                reading.warn(key_node, f"format `{key_node.value}` {other}")
                continue
            revealjs = True
            if not isinstance(value_node, yaml.ScalarNode):  # not `revealjs: default`
                found = options.read(value_node, reading, f"{name}.revealjs")
        # A project's `_quarto.yml` and a folder's `_metadata.yml` name the formats of other
        # files too (a website's `html`): the file's own front matter says if it is slides
        if not revealjs and not reading.path.endswith(SHARED_SETTINGS):
            reading.warn(node, "no `revealjs` format: the file is built as reveal.js slides anyway")
        return found

    return read


def _engine(value: Any) -> str:
    """`engine: knitr`/`julia`: only Python cells run here; a file without cells of that
    engine still builds (a warning), and each such cell is an error at its own line."""
    text = as_text(value)
    if text not in ("jupyter", "python"):
        raise Accepted(
            "only Python cells run here (engine: jupyter); "
            "each cell of another engine is an error at its line",
            text,
        )
    return text


NOT_PYTHON = ("julia", "ir", "r", "ijulia", "javascript", "deno", "bash", "sas", "stata")


def _jupyter(value: Any) -> Any:
    """`jupyter: python3`, `jupyter: my-env` or `jupyter: {kernelspec: {name: …}}`: a Python
    kernel (its interpreter runs the cells); another language's kernel is an error."""
    if isinstance(value, dict):
        spec = value.get("kernelspec")
        kernel = spec.get("name", "") if isinstance(spec, dict) else ""
        language = (spec.get("language") or "") if isinstance(spec, dict) else ""
    else:
        kernel, language = as_text(value), ""
    lowered = str(kernel).lower()
    if (language and language.lower() != "python") or lowered.startswith(NOT_PYTHON):
        raise Invalid("is not available: only Python cells run here (jupyter: python3)")
    return str(kernel)
