"""Pandoc's grid tables (`+---+---+`) for Python-Markdown: cells that span columns and rows,
alignment from the head's rule, Markdown (lists too) in each cell."""

from __future__ import annotations

import re
import textwrap
import unicodedata
import xml.etree.ElementTree as ET

from markdown.blockprocessors import BlockProcessor

GRID_RULE = re.compile(r"^\+(?:[-=:]+\+)+\s*$")  # +---+:==+

# Pandoc's `+---+---+` tables: `+===+` ends the head, colons in it (or the first rule) align the
# columns, a row without a `|` where a column starts spans the columns on both sides, and each
# cell is Markdown (lists too). Wide (CJK) characters count as two columns, as Pandoc counts them.


class _Grid:
    """A grid table's characters by display column (a wide character fills two: its second
    is ""), read as Pandoc reads them: a cell is a rectangle of `+` corners, `-`/`=` rules
    and `|` sides, which may span rules that other cells have (rows and columns)."""

    def __init__(self, lines: list[str]):
        self.rows = []
        for line in lines:
            row: list[str] = []
            for ch in line.rstrip():
                row += [ch, ""] if unicodedata.east_asian_width(ch) in "WF" else [ch]
            self.rows.append(row)
        self.width = len(self.rows[0]) - 1  # the column of the first line's last `+`

    def at(self, r: int, c: int) -> str:
        row = self.rows[r]
        if c >= len(row):  # a line that stops short of the last `|` (Pandoc reads it)
            return "|" if c == self.width and 0 < r < len(self.rows) - 1 else " "
        return row[c]

    def cell(self, top: int, left: int) -> tuple[int, int] | None:
        """(bottom, right) of the cell whose top-left corner this is."""
        for right in range(left + 1, self.width + 1):
            ch = self.at(top, right)
            if ch == "+":
                bottom = self.down(top, left, right)
                if bottom is not None:
                    return bottom, right
            elif ch not in "-=:":
                return None
        return None

    def down(self, top: int, left: int, right: int) -> int | None:
        for bottom in range(top + 1, len(self.rows)):
            ch = self.at(bottom, right)
            if ch == "+":
                if self.closed(top, left, bottom, right):
                    return bottom
            elif ch != "|":
                return None
        return None

    def closed(self, top: int, left: int, bottom: int, right: int) -> bool:
        """The bottom rule runs back to a `+` below the top-left corner, and the left side up."""
        if any(self.at(bottom, c) not in "-=:+" for c in range(left + 1, right)):
            return False
        return self.at(bottom, left) == "+" and all(
            self.at(r, left) in "|+" for r in range(top + 1, bottom)
        )

    def text(self, top: int, left: int, bottom: int, right: int) -> str:
        inside = [
            "".join(self.at(r, c) for c in range(left + 1, right)) for r in range(top + 1, bottom)
        ]
        return "\n".join(t.rstrip() for t in textwrap.dedent("\n".join(inside)).split("\n")).strip()


GridCell = tuple[str, int, int, int]  # its Markdown, first column, columns and rows spanned


def grid_table(lines: list[str]) -> tuple[list[str], list[list[GridCell]], int] | None:
    """A grid table's column alignments, its rows (each cell that starts in the row, left to
    right) and how many rows are its head; None when the lines do not read as one."""
    rules = [k for k, line in enumerate(lines) if GRID_RULE.match(line)]
    if not rules or rules[0] != 0 or rules[-1] != len(lines) - 1:
        return None
    grid = _Grid(lines)
    corners, seen, found = [(0, 0)], set(), []
    while corners:
        top, left = corners.pop(0)
        if (top, left) in seen or top >= len(lines) - 1 or left >= grid.width:
            continue
        seen.add((top, left))
        end = grid.cell(top, left)
        if end is None:  # (a corner where no cell starts: inside a spanning cell's side)
            continue
        found.append((top, left, *end))
        corners += [(top, end[1]), (end[0], left)]
    area = sum((b - t) * (r - c) for t, c, b, r in found)
    if area != (len(lines) - 1) * grid.width:
        return None  # (cells that do not tile the table: not one)
    tops = sorted({t for t, *_ in found} | {b for _, _, b, _ in found})
    sides = sorted({c for _, c, _, _ in found} | {r for *_, r in found})
    head = next((k for k in rules if "=" in lines[k]), None)
    spec = grid.rows[head if head is not None else 0]
    aligns = []
    for a, b in zip(sides, sides[1:], strict=False):
        part = "".join(spec[a + 1 : b])
        left_colon, right_colon = part.startswith(":"), part.endswith(":")
        both = left_colon and right_colon
        aligns.append(
            "center" if both else "right" if right_colon else "left" if left_colon else ""
        )
    rows: list[list[GridCell]] = [[] for _ in tops[:-1]]
    for t, c, b, r in sorted(found, key=lambda f: (f[0], f[1])):
        span = (sides.index(r) - sides.index(c), tops.index(b) - tops.index(t))
        rows[tops.index(t)].append((grid.text(t, c, b, r), sides.index(c), *span))
    head_rows = tops.index(head) if head in tops else 0
    return aligns, rows, head_rows


class GridTables(BlockProcessor):
    def test(self, parent: ET.Element, block: str) -> bool:
        lines = block.split("\n")
        return (
            len(lines) >= 3
            and bool(GRID_RULE.match(lines[0]))
            and all(line.startswith(("+", "|")) for line in lines)
            and grid_table(lines) is not None
        )

    def run(self, parent: ET.Element, blocks: list[str]) -> None:
        found = grid_table(blocks.pop(0).split("\n"))
        assert found is not None
        aligns, rows, head_rows = found
        table = ET.SubElement(parent, "table")
        for k, row in enumerate(rows):
            part = "thead" if k < head_rows else "tbody"
            if not len(table) or table[-1].tag != part:
                ET.SubElement(table, part)
            tr = ET.SubElement(table[-1], "tr")
            for text, column, span, down in row:
                cell = ET.SubElement(tr, "th" if part == "thead" else "td")
                if down > 1:
                    cell.set("rowspan", str(down))
                if span > 1:
                    cell.set("colspan", str(span))
                if aligns[column]:
                    cell.set("style", f"text-align: {aligns[column]};")
                self.parser.parseChunk(cell, text)
                if len(cell) == 1 and cell[0].tag == "p":  # one paragraph: Pandoc's Plain
                    p = cell[0]
                    cell.remove(p)
                    cell.text, cell[:] = p.text, list(p)
