"""A Quarto deck as the equivalent Jupyter notebook, for `jupyter nbconvert --to slides`.

    bench/.venv/bin/python bench/notebook.py talk.qmd talk.ipynb

Runs in bench/.venv (jupytext and nbformat are not project dependencies). jupytext reads the
file as R Markdown (its own Quarto reader needs the quarto binary; the `{python}` chunks are the
same), then each `#`/`##` heading starts a slide (its `{.class}` attributes dropped), `::: notes`
become speaker-notes cells, `include: false` cells run without being shown and `echo: false`
cells are tagged `remove_input` (bench/build.py tells nbconvert to drop those inputs). Inline
`{python}` expressions stay as written: nbconvert has no such thing.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import jupytext
import nbformat
import yaml

HEADING = re.compile(r"#{1,2} ")
ATTRIBUTES = re.compile(r"\s*\{[^{}]*\}\s*$")  # `## Title {.smaller}`: Quarto's, not Markdown
OPTION = re.compile(r"#\|\s*([\w-]+)\s*:\s*(.*?)\s*$")


def options(source: str) -> dict[str, str]:
    found = {}
    for line in source.splitlines():
        match = OPTION.match(line)
        if not match:
            break
        found[match[1]] = match[2].lower()
    return found


def split_markdown(source: str) -> list[tuple[str, str]]:
    """A markdown cell as (slide_type, text) pieces: a heading starts a slide, notes apart."""
    pieces: list[tuple[str, list[str]]] = [("-", [])]
    fence = in_notes = False
    for line in source.splitlines():
        if line.startswith("```"):
            fence = not fence
        if not fence and not in_notes and line.strip() == "::: notes":
            in_notes = True
            pieces.append(("notes", []))
            continue
        if in_notes and line.strip() == ":::":
            in_notes = False
            pieces.append(("-", []))
            continue
        if not fence and not in_notes and HEADING.match(line):
            pieces.append(("slide", []))
            line = ATTRIBUTES.sub("", line)
        pieces[-1][1].append(line)
    return [(kind, "\n".join(lines).strip()) for kind, lines in pieces if "".join(lines).strip()]


def title_cell(header: str) -> nbformat.NotebookNode | None:
    meta = yaml.safe_load(header.strip().strip("-")) or {}
    lines = [f"# {meta['title']}"] if meta.get("title") else []
    lines += [str(meta[key]) for key in ("subtitle", "author") if meta.get(key)]
    if not lines:
        return None
    cell = nbformat.v4.new_markdown_cell("\n\n".join(lines))
    cell.metadata["slideshow"] = {"slide_type": "slide"}
    return cell


def convert(text: str) -> nbformat.NotebookNode:
    source = jupytext.reads(text, fmt="Rmd")
    cells = []
    for cell in source.cells:
        if cell.cell_type == "raw" and cell.source.startswith("---"):
            title = title_cell(cell.source)
            cells += [title] if title else []
        elif cell.cell_type == "markdown":
            for kind, piece in split_markdown(cell.source):
                new = nbformat.v4.new_markdown_cell(piece)
                new.metadata["slideshow"] = {"slide_type": kind}
                cells.append(new)
        elif cell.cell_type == "code":
            opts = options(cell.source)
            new = nbformat.v4.new_code_cell(cell.source)
            hidden = opts.get("include") == "false"
            new.metadata["slideshow"] = {"slide_type": "skip" if hidden else "-"}
            if opts.get("echo") == "false":
                new.metadata["tags"] = ["remove_input"]
            cells.append(new)
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.metadata["language_info"] = {"name": "python"}
    return notebook


def main() -> None:
    src, dst = (Path(arg) for arg in sys.argv[1:3])
    notebook = convert(src.read_text("utf-8"))
    nbformat.validate(notebook)
    nbformat.write(notebook, str(dst))


if __name__ == "__main__":
    main()
