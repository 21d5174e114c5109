"""Where a line the worker names was written, when a section holds lines of other files.

The worker compiles every cell of a section with the section's path as its file name, each
at the lines of the file it was written in (`Cell.code_line`), and reports cells and inline
expressions at their own lines (`Loc.line`). A cell or an inline expression from a file the
section `{{< include >}}`s therefore comes back as `section.md:<its line there>`. What the
worker was running (which cell, which inline expression) and, for a traceback, the function
of the frame tell which file that line is in: `Places` puts errors, timeouts and crashes,
`-v` tracebacks and the warnings at a cell's line back at the file and line they were
written at (and an assert's quoted line is read from that file). A section whose every line
is its own is left exactly as the worker reported it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from deck.errors import Loc
from deck.model import Cell, Section

ASSERT = "assertion failed: "


class Places:
    def __init__(self, section: Section):
        self.rel = section.rel
        self.path = section.path
        self.slide = section.slides[0].loc if section.slides else Loc(section.rel, 1)
        self.cells = section.cells()  # in the worker's order (its cell `index` - 1)
        self.inlines: dict[str, Loc] = {}  # each expression at its first place (the job's order)
        for expr in section.inlines:
            self.inlines.setdefault(expr.expr, expr.loc)
        self.order = list(self.inlines)
        written = [c.loc for c in self.cells] + list(self.inlines.values())
        self.mixed = any(loc.path != section.rel for loc in written)

    # ---- what was running -------------------------------------------------------------

    def step(self, kind: str, index: int, line: int) -> Loc:
        """The place of the worker's step: a cell's fence, an inline expression, the first
        slide (while starting); else the cell or expression at `line`."""
        if kind == "cell" and 0 < index <= len(self.cells):
            return self.cells[index - 1].loc
        if kind == "inline" and 0 < index <= len(self.order):
            return self.inlines[self.order[index - 1]]
        if kind == "start":
            return self.slide if self.mixed else Loc(self.rel, line)
        return self.at_line(line)

    def at_line(self, line: int) -> Loc:
        """A cell fence's or an inline expression's `line` (what the worker's warnings name):
        in its file when only one file has one there."""
        written = [c.loc for c in self.cells] + list(self.inlines.values())
        files = {loc.path for loc in written if loc.line == line}
        return Loc(files.pop() if len(files) == 1 else self.rel, line)

    def frame(self, line: int, function: str, running: Cell | None) -> Loc:
        """A traceback frame of cell code at `line` in `function`: the running cell's own code
        at the top level, else the cell (of those run so far) holding that line, the one
        defining `function` first, the running one or the latest next."""
        if running is not None and function == "<module>":
            return Loc(running.loc.path, line)
        ran = self.cells[: self.cells.index(running) + 1] if running in self.cells else self.cells
        holding = [c for c in ran if c.code_line <= line < c.code_line + c.code.count("\n") + 1]
        defining = re.compile(rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(function)}\b", re.M)
        found = [c for c in holding if defining.search(c.code)] or holding
        if running is not None and (running in found or not found):
            return Loc(running.loc.path, line)
        return Loc(found[-1].loc.path if found else self.rel, line)

    # ---- what the worker reported -----------------------------------------------------

    def error(self, err: dict[str, Any], kind: str, index: int) -> tuple[Loc, str, list[str]]:
        """The worker's error (`path`, `line`, `message`, `traceback`) at the place it was
        written: (where, the message, the traceback's lines)."""
        loc, message = Loc(err["path"], err["line"]), err["message"]
        frames = list(err.get("traceback") or [])
        if not self.mixed or err["path"] != self.rel:
            return loc, message, frames
        running = self.cells[index - 1] if kind == "cell" and 0 < index <= len(self.cells) else None
        if running is None:
            return self.step(kind, index, loc.line), message, frames
        cell_frames = [m for m in map(self.cell_frame, frames) if m]
        innermost = cell_frames[-1] if cell_frames else None
        if innermost is not None and int(innermost.group(1)) == loc.line:
            loc = self.frame(loc.line, innermost.group(2), running)
        else:  # the cell's own line (a syntax error, a problem with its result)
            loc = Loc(running.loc.path, loc.line)
        if err.get("code") == "assert" and loc.path != self.rel:
            wrong = self.text(Loc(self.rel, loc.line))
            if message.startswith(ASSERT + wrong):
                message = ASSERT + self.text(loc) + message[len(ASSERT + wrong) :]
        return loc, message, self.traceback(frames, running)

    def cell_frame(self, line: str) -> re.Match[str] | None:
        """A traceback line naming a frame of cell code: (its line, its function)."""
        return re.match(rf"^  {re.escape(self.rel)}:(\d+), in (.+)$", line)

    def traceback(self, lines: list[str], running: Cell) -> list[str]:
        """The `-v` traceback with each frame of cell code at its file's line, quoting it."""
        out: list[str] = []
        k = 0
        while k < len(lines):
            m = self.cell_frame(lines[k])
            k += 1
            if not m:
                out.append(lines[k - 1])
                continue
            loc = self.frame(int(m.group(1)), m.group(2), running)
            out.append(f"  {loc}, in {m.group(2)}")
            if k < len(lines) and lines[k].startswith("    "):
                quoted = lines[k]
                k += 1
                if loc.path == self.rel:
                    out.append(quoted)
                    continue
            text = self.text(loc)
            if text:
                out.append(f"    {text}")
        return out

    def text(self, loc: Loc) -> str:
        """The line `loc` names, stripped ("" when there is none)."""
        path = self.path if loc.path == self.rel else Path(loc.path)
        try:
            lines = path.read_text("utf-8", "replace").splitlines()
        except OSError:
            return ""
        return lines[loc.line - 1].strip() if 0 < loc.line <= len(lines) else ""

    def result(self, data: dict[str, Any]) -> dict[str, Any]:
        """The worker's result with its warnings at a cell's line (a thread left running, an
        input not known) in the file of that cell."""
        if not self.mixed:
            return data
        prefix = re.compile(rf"^{re.escape(self.rel)}:(\d+)(?=:|$)")

        def placed(text: str) -> str:  # `section.md:LINE…` → `part.md:LINE…`
            return prefix.sub(lambda m: str(self.at_line(int(m.group(1)))), text, count=1)

        if "warnings" in data:
            data = {**data, "warnings": [placed(str(w)) for w in data["warnings"]]}
        if "deps" in data:
            deps = [
                [d[0], placed(str(d[1])), *d[2:]] if d[0] == "unknown" else d for d in data["deps"]
            ]
            data = {**data, "deps": deps}
        return data
