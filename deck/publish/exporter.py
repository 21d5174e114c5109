"""What an output is: an `Exporter` names the places it fills, the files it writes, what each
file is made from (a file is kept while that is unchanged and it is as that build wrote it),
and how it writes them into staging."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from deck.options import Options
from deck.progress import Progress
from deck.store.files import content_hash

if TYPE_CHECKING:
    from deck.model import Lesson, SectionResult
    from deck.publish.ahead import Ahead
    from deck.render.deck import RenderedDeck

DECK = "deck"  # the place `dist/<lesson>/`, where every kept file and the build record live


@dataclass(frozen=True)
class Built:
    """What every exporter is made from: the lesson, its rendered deck (with each view), the
    options, the staging path of each place of this build, and what running each section
    produced (its cells' outputs, for outputs made from more than the page)."""

    lesson: Lesson
    deck: RenderedDeck
    options: Options
    staging: dict[str, Path]
    results: dict[str, SectionResult] = field(default_factory=dict)
    # what exporters leave until the build's places are published (`deck.publish.write`)
    later: list[Callable[[], None]] = field(default_factory=list)
    # what exporters started making beside the build (`deck.publish.ahead`), ended with it
    beside: list[Ahead] = field(default_factory=list)


@dataclass(frozen=True)
class Exported:
    """Warnings found while making each file (kept with the file, repeated while it is)."""

    warnings: dict[str, list[str]] = field(default_factory=dict)
    seconds: float = 0.0


class Exporter(Protocol):
    name: str
    why_not: str  # said when its files of an earlier build are dropped (it is not wanted)

    def wanted(self, options: Options) -> bool: ...

    def places(self, name: str, options: Options) -> dict[str, Path]:
        """The places it writes, by name (`deck` is `dist/<lesson>/`): each is published whole."""
        ...

    def files(self, built: Built) -> tuple[str, ...]:
        """Its files in the `deck` place, in order."""
        ...

    def made_from(self, built: Built) -> dict[str, str] | None:
        """For each file, a hash of everything it is made from (equal hashes make equal
        files); None when its files are always made anew."""
        ...

    def digest(self, path: Path) -> str:
        """A file's digest, to know it is still as the build that made it wrote it."""
        ...

    def export(self, built: Built, todo: list[str], progress: Progress) -> Exported:
        """Write `todo` (and whatever else it makes) into the staging places."""
        ...


def file_digest(path: Path) -> str:
    return content_hash(path)
