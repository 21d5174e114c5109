"""Author-facing problems: each one names a file and line."""

from __future__ import annotations

from dataclasses import dataclass

from deck.model import Loc


@dataclass(frozen=True)
class Diagnostic:
    loc: Loc
    code: str  # short category: parse, option, attr, exec, assert, timeout, inline, math, quiz…
    message: str
    severity: str = "error"  # or "warning": reported, the build goes on

    def __str__(self) -> str:
        return f"{self.loc}: {self.severity} [{self.code}] {self.message}"


class DeckError(Exception):
    """A build cannot go on: carries every diagnostic found so far."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))
