"""Author-facing problems: each one names a file and line (`Loc`, `Diagnostic`, `DeckError`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Loc:
    """A place in a source file: the path as the author knows it and a 1-based line."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


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


def display_path(path: Path) -> str:
    """A path as messages show it: from the working folder, else as given."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
