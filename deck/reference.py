"""The documentation site's reference pages, written from the code at each build of the site
(`docs/hooks.py` calls `reference`), so they cannot go stale: a page holding
`<!-- deck:reference NAME -->` gets NAME's Markdown in its place.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# `<!-- deck:reference NAME -->`, or `… NAME ### -->` for its entries one level deeper.
MARKER = re.compile(r"<!--\s*deck:reference\s+([\w-]+)(?:\s+(#{2,6}))?\s*-->")


def blocks_markdown() -> str:
    """Every `:::` block kind, in the order a block's classes are matched, from its `doc`."""
    from deck.blocks import KINDS, PLAIN

    parts = []
    for kind in (*KINDS, PLAIN):
        syntax, _, meaning = kind.doc.strip().partition("\n\n")
        seen = ", ".join(sorted(kind.seen_by))
        parts.append(f"## `{kind.name}`\n\n{syntax}\n\n{meaning}\n\nSeen by: {seen}.\n")
    return "\n".join(parts)


def signature(name: str, obj: Callable[..., object]) -> str:
    """A call's signature as its source writes it (annotations as written, not evaluated),
    one parameter a line when it would be longer than a line."""
    if isinstance(obj, type) and issubclass(obj, BaseException):
        return f"class {name}({obj.__mro__[1].__name__})"
    sig = inspect.signature(obj)
    params = []
    for p in sig.parameters.values():
        stars = "*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else ""
        text = stars + (p.name if p.annotation is p.empty else f"{p.name}: {p.annotation}")
        if p.default is not p.empty:
            text += f" = {p.default!r}"
        params.append(text)
    returns = "" if sig.return_annotation is sig.empty else f" -> {sig.return_annotation}"
    line = f"{name}({', '.join(params)}){returns}"
    if len(line) <= 88:
        return line
    inner = "".join(f"    {p},\n" for p in params)
    return f"{name}(\n{inner}){returns}"


def show_markdown() -> str:
    """`deck.show`'s public names, each with its signature and docstring."""
    import deck.show as show

    return module_markdown(show)


def jobs_markdown() -> str:
    """`deck.jobs`: what it does (its module's docstring) and `each`."""
    import deck.jobs as jobs

    return f"{inspect.getdoc(jobs)}\n\n{module_markdown(jobs)}"


def widgetdata_markdown() -> str:
    """`deck.widgetdata`'s checks, for a widget kind's data check."""
    import deck.widgetdata as widgetdata

    return module_markdown(widgetdata)


def module_markdown(module: Any) -> str:
    """A module's public names (`__all__`), each with its signature and docstring; a name
    without a docstring is an error."""
    parts = []
    for name in module.__all__:
        obj = getattr(module, name)
        if not inspect.getdoc(obj):
            raise ValueError(f"{module.__name__}.{name} has no docstring for the reference")
        code = signature(name, obj)
        parts.append(f"## `{name}`\n\n```python\n{code}\n```\n\n{inspect.getdoc(obj)}\n")
    return "\n".join(parts)


def cli_markdown() -> str:
    """`build.py --help` and `build.py new --help` as the command prints them."""
    from deck import cli, docsite

    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal: the page's width instead
    try:
        build_help = cli.parser().format_help()
        new_help = cli.new_parser().format_help()
        docs_help = docsite.docs_parser().format_help()
    finally:
        if columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = columns
    return (
        f"## `build.py`\n\n```text\n{build_help}```\n\n"
        f"## `build.py new`\n\n```text\n{new_help}```\n\n"
        f"## `build.py docs`\n\n```text\n{docs_help}```\n"
    )


def widget_helpers_markdown() -> str:
    """`deckWidgets.register` and each of `deckWidgets.helpers`, read from the runtime's
    source: its signature and the comment above it. A helper without one is an error."""
    source = (ROOT / "deck/static/widgets/runtime.js").read_text("utf-8")
    listed = re.search(r"helpers: \{([^}]*)\}", source)
    assert listed is not None, "runtime.js lists no helpers"
    names = re.findall(r"(\w+):", listed.group(1))
    lines = source.split("\n")
    parts = []
    for name, shown in [("register", "deckWidgets.register")] + [
        (n, f"deckWidgets.helpers.{n}") for n in names
    ]:
        at = next(
            (
                k
                for k, line in enumerate(lines)
                if re.match(rf"\s*(function {name}\(|var {name} =)", line)
            ),
            None,
        )
        comment: list[str] = []
        k = -1 if at is None else at - 1
        while k >= 0 and lines[k].strip().startswith("//"):
            comment.insert(0, lines[k].strip()[2:].strip())
            k -= 1
        if at is None or not comment:
            raise ValueError(f"runtime.js: helper {name} has no comment above its definition")
        call = re.match(rf"\s*function {name}(\([^)]*\))", lines[at])
        heading = shown + (call.group(1) if call else "")
        parts.append(f"## `{heading}`\n\n{' '.join(comment)}\n")
    return "\n".join(parts)


def settings_markdown() -> str:
    from deck.source.schemadoc import reference_markdown

    return reference_markdown()


REFERENCES: dict[str, Callable[[], str]] = {
    "blocks": blocks_markdown,
    "show": show_markdown,
    "jobs": jobs_markdown,
    "cli": cli_markdown,
    "widget-helpers": widget_helpers_markdown,
    "widgetdata": widgetdata_markdown,
    "settings": settings_markdown,
}


def reference(markdown: str, page: str) -> str:
    """The page with each `<!-- deck:reference NAME -->` replaced by NAME's reference."""

    def written(m: re.Match[str]) -> str:
        if m.group(1) not in REFERENCES:
            known = ", ".join(REFERENCES)
            raise ValueError(f"{page}: no reference {m.group(1)!r} (known: {known})")
        text = REFERENCES[m.group(1)]()
        if m.group(2):  # its entries' `## ` headings at the level asked for
            text = re.sub(r"^## ", m.group(2) + " ", text, flags=re.M)
        return text

    return MARKER.sub(written, markdown)
