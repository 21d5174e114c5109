"""Printed output captured from a cell: the first `limit` characters kept, the rest counted
and named in a note; memory addresses taken out of reprs, so two builds show the same text."""

from __future__ import annotations

import io
import re

# `<__main__.Foo object at 0x7f3a2c1b9d50>`, `<function f at 0x…>`: the address differs from
# one run to the next (as matplotlib artists' do: those are not shown at all, see deck.show)
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]{4,16}(?=>)")


def without_addresses(text: str) -> str:
    """`<__main__.Foo object at 0x7f3a2c1b9d50>` → `<__main__.Foo object>`."""
    return ADDRESS.sub("", text) if " at 0x" in text else text


class CappedText(io.TextIOBase):
    """Captured printed output that keeps the first `limit` characters and counts the rest."""

    def __init__(self, limit: int):
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.total = 0

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.total += len(text)
        room = self.limit - self.kept
        if room > 0:
            piece = text[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        return len(text)

    def getvalue(self) -> str:
        return truncated("".join(self.parts), self.total, self.limit)


def truncated(text: str, total: int, limit: int) -> str:
    if total <= limit:
        return text
    return text[:limit] + f"\n… output truncated: {total:,} characters, showing the first {limit:,}"
