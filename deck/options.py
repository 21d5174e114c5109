"""What a build is asked to do (`Options`) and what it did (`Report`): plain values, no imports
beyond the standard library, so the no-change path stays light."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# PDF file → the layout `window.deckHandout(kind)` makes of the slides ("": slides as they are)
PDFS = {"slides.pdf": "", "handout.pdf": "student", "notes.pdf": "lecturer"}
SHOWS_NOTES = {"lecturer"}  # the layouts that print the speaker notes


@dataclass(frozen=True)
class Options:
    content: Path = Path("content")
    out: Path = Path("dist")
    figures: Path = Path("figures")
    cache: Path = Path(".cache")
    pdf: bool = True
    force: bool = False
    jobs: int = 2
    verbose: bool = False
    single_file: bool = False


@dataclass
class Report:
    """What a build did, for the CLI to print and tests to assert on (never stderr text)."""

    lessons: list[str] = field(default_factory=list)  # lessons built or found up to date
    up_to_date: list[str] = field(default_factory=list)  # lessons with nothing to do
    executed: list[str] = field(default_factory=list)  # "<lesson>/<section>" whose cells ran
    reasons: dict[str, str] = field(default_factory=dict)  # why each of those ran
    reused: list[str] = field(default_factory=list)  # "<lesson>/<section>" taken from the cache
    printed: list[str] = field(default_factory=list)  # PDF files printed by this build
    warnings: list[str] = field(default_factory=list)
    published: bool = False  # some dist/ folder was replaced by this build
    seconds: dict[str, float] = field(default_factory=dict)  # stage → wall time

    @property
    def ran(self) -> int:
        return len(self.executed)

    @property
    def cached(self) -> int:
        return len(self.reused)
