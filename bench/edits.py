"""The edits the benchmark makes to a copy of a deck's sources (lesson section files or a .qmd):
a prose edit, a cell edit, a slide title edit for the preview, and where a source line is shown.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

FENCE = "```{python}"
OPTION = re.compile(r"#\|\s*([\w-]+)\s*:\s*(.*?)\s*$")
CONSTANT = "bench_constant = {}"
PROSE = "补充的一段讲解文字（第 {} 次修改）。"
TITLE = "（已修改 {}）"
SOURCE = re.compile(r'<section\b[^>]*\bdata-source="([^"]*):(\d+)"')


def sources(target: Path) -> list[Path]:
    """A lesson folder's section files in order, or the .qmd file itself."""
    return [target] if target.is_file() else sorted(target.glob("[0-9]*.md"))


def prose_edit(target: Path, n: int) -> None:
    """Edit n (1, 2, …): a paragraph at the end of the last source file, then reworded."""
    path = sources(target)[-1]
    text = path.read_text("utf-8")
    old = PROSE.format(n - 1)
    if old in text:
        text = text.replace(old, PROSE.format(n))
    else:
        text = text.rstrip("\n") + "\n\n" + PROSE.format(n) + "\n"
    path.write_text(text, "utf-8")


RARE = "龘齉爨麤鱻靐飝馫驫鸞灪纞籲饢鑾龖齾黷"  # ideographs a lesson hardly ever shows
NEW = "新的字：{}。"


def new_character_edit(target: Path) -> str:
    """A paragraph at the end of the last source file with two characters the deck has never
    shown (the first two of RARE its sources do not hold), as a prose edit in Chinese often
    brings: their font subsets are made anew. Returns the two characters."""
    path = sources(target)[-1]
    shown = "".join(p.read_text("utf-8") for p in sources(target))
    fresh = [c for c in RARE if c not in shown]
    if len(fresh) < 2:
        raise ValueError(f"{target}: every character of RARE is shown already")
    chars = "".join(fresh[:2])
    text = path.read_text("utf-8").rstrip("\n") + "\n\n" + NEW.format(chars) + "\n"
    path.write_text(text, "utf-8")
    return chars


def cells(lines: list[str]) -> list[tuple[int, dict[str, str]]]:
    """(index of the first line after a cell's options, its options) for every Python cell."""
    found = []
    for i, line in enumerate(lines):
        if line.strip() != FENCE:
            continue
        j, options = i + 1, {}
        while j < len(lines) and (match := OPTION.match(lines[j])):
            options[match[1]] = match[2].lower()
            j += 1
        found.append((j, options))
    return found


def hidden(options: dict[str, str], qmd: bool) -> bool:
    """A cell that runs and whose code is not shown (a .qmd shows code unless told not to; the
    lessons hide it unless told to show it)."""
    if options.get("include") == "false" or options.get("eval") == "false":
        return False
    return options.get("echo") == "false" if qmd else options.get("echo") != "true"


def add_constant(target: Path) -> Path:
    """Before the first build: `bench_constant = 0` at the top of the last cell whose code is not
    shown; `cell_edit` later changes it. Returns the file."""
    for path in reversed(sources(target)):
        lines = path.read_text("utf-8").split("\n")
        chosen = [j for j, opts in cells(lines) if hidden(opts, path.suffix == ".qmd")]
        if chosen:
            lines.insert(chosen[-1], CONSTANT.format(0))
            path.write_text("\n".join(lines), "utf-8")
            return path
    raise ValueError(f"{target}: no cell whose code is hidden, to edit")


def cell_edit(target: Path, n: int) -> None:
    for path in sources(target):
        text = path.read_text("utf-8")
        if CONSTANT.format(n - 1) in text:
            path.write_text(text.replace(CONSTANT.format(n - 1), CONSTANT.format(n)), "utf-8")
            return
    raise ValueError(f"{target}: no `{CONSTANT.format(n - 1)}` (add_constant first)")


def title_line(target: Path) -> tuple[Path, int]:
    """A slide title to edit in the preview: the first plain `## ` heading of the last source
    file that has one (file, 1-based line)."""
    for path in reversed(sources(target)):
        fence = False
        for number, line in enumerate(path.read_text("utf-8").split("\n"), 1):
            fence = fence != line.startswith("```")
            if not fence and line.startswith("## ") and not re.search(r"[$`*_\\<]", line):
                return path, number
    raise ValueError(f"{target}: no plain `## ` heading to edit")


def title_edit(path: Path, line: int, n: int) -> str:
    """Add a marker to the slide title at `line`; returns the text the slide then shows."""
    lines = path.read_text("utf-8").split("\n")
    heading = lines[line - 1]
    match = re.search(r"\s*\{[^{}]*\}\s*$", heading)  # `## Title {.small}`
    cut = match.start() if match else len(heading.rstrip())
    lines[line - 1] = heading[:cut] + TITLE.format(n) + heading[cut:]
    path.write_text("\n".join(lines), "utf-8")
    return TITLE.format(n)


def slide_index(page: Path, path: Path, line: int) -> int:
    """The 0-based index of the slide showing `path:line` in a built index.html."""
    starts = [
        (Path(html.unescape(f)).name, int(n)) for f, n in SOURCE.findall(page.read_text("utf-8"))
    ]
    best = None
    for index, (name, start) in enumerate(starts):
        if name == path.name and start <= line:
            best = index
    if best is None:
        raise ValueError(f"{page}: no slide shows {path.name}:{line}")
    return best


def slide_count(page: Path) -> int:
    return len(SOURCE.findall(page.read_text("utf-8")))
