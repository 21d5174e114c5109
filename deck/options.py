"""What a build is asked to do (`Options`) and what it did (`BuildReport`, assembled from the
stages' `Execution` and `Published`): plain frozen values, no runtime imports beyond the
standard library and the outputs' names (`deck.model.config`), so the no-change path stays
light."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deck.model.config import DEFAULT_OUTPUTS, KNOWN_OUTPUTS, LESSON_OUTPUTS, read_outputs

if TYPE_CHECKING:
    from deck.model import SectionResult

__all__ = ["DEFAULT_OUTPUTS", "KNOWN_OUTPUTS", "LESSON_OUTPUTS", "read_outputs"]


class UsageError(Exception):
    """The command cannot be carried out as given (exit status 2); nothing was touched."""


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
    outputs: tuple[str, ...] | None = None  # `--to`: None leaves it to lesson.yml, then defaults
    course: bool = True  # False: no course page whatever is chosen (`--serve` lists the decks)
    # the headless layout check when no PDF is printed (build.py sets it: $DECK_LAYOUT_CHECK=0
    # turns it off; `--serve` leaves it to the page it shows)
    lint: bool = False
    # `--compare OLD`: after the build, the shown values that differ from an earlier build's
    # values.json (deck.publish.compare), numbers within these tolerances counting as equal
    compare: Path | None = None
    compare_rtol: float = 0.0
    compare_atol: float = 0.0
    # `--freeze`: write each section's results beside the lesson, to commit (deck.store.frozen)
    freeze: bool = False
    # `--frozen-only`: every section from its frozen results; one that no longer holds is an
    # error at its line, and no cell runs
    frozen_only: bool = False
    # `--executor`: "" runs sections in this machine's worker processes (`jobs` at once);
    # "dask://HOST:PORT" sends them to a Dask scheduler's workers (deck.execute.cluster)
    executor: str = ""

    def wants(self, output: str, chosen: tuple[str, ...] | None = None) -> bool:
        """Whether `output` is made: `--to` first, else the lesson's `outputs:` (`chosen`),
        else the defaults; `--no-pdf` always drops the PDFs, `--single-file` adds the single
        file."""
        if (output == "pdf" and not self.pdf) or (output == "course" and not self.course):
            return False
        if output == "single" and self.single_file:  # (`--single-file` adds it to any choice)
            return True
        names = self.outputs if self.outputs is not None else chosen
        return output in (names if names is not None else DEFAULT_OUTPUTS)


@dataclass(frozen=True)
class Execution:
    """What the execute stage did: every section's results, and which ran (and why) or were
    taken from the cache."""

    results: dict[str, SectionResult]  # by section name
    executed: tuple[str, ...] = ()  # sections whose cells ran
    reasons: dict[str, str] = field(default_factory=dict)  # why each of those ran
    reused: tuple[str, ...] = ()  # sections taken from the cache
    warnings: tuple[str, ...] = ()  # e.g. a section whose inputs are not fully known
    frozen: tuple[str, ...] = ()  # of `reused`, those taken from the frozen results


@dataclass(frozen=True)
class Published:
    """What the publish stage did: the files each exporter wrote, the PDFs printed by this
    build, the layout warnings it found (or kept from the build that printed the slides)."""

    written: tuple[str, ...] = ()
    printed: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class LessonReport:
    """What the build of one lesson did, assembled from the stages' values."""

    name: str
    up_to_date: bool = False  # nothing to do: inputs and outputs as the last good build left
    executed: tuple[str, ...] = ()  # "<section>" whose cells ran
    reasons: dict[str, str] = field(default_factory=dict)
    reused: tuple[str, ...] = ()  # "<section>" taken from the cache
    frozen: tuple[str, ...] = ()  # "<section>" of those, taken from the frozen results
    printed: tuple[str, ...] = ()  # PDF files printed by this build
    warnings: tuple[str, ...] = ()
    published: bool = False  # dist/<lesson> was replaced by this build
    slides: int = 0
    seconds: dict[str, float] = field(default_factory=dict)  # stage → wall time
    compared: tuple[str, ...] = ()  # `--compare`: the report's lines (deck.publish.compare)


@dataclass(frozen=True)
class BuildReport:
    """What a build did, for the CLI to print and tests to assert on (never stderr text)."""

    reports: tuple[LessonReport, ...] = ()

    @property
    def lessons(self) -> list[str]:
        return [r.name for r in self.reports]

    @property
    def up_to_date(self) -> list[str]:
        return [r.name for r in self.reports if r.up_to_date]

    @property
    def executed(self) -> list[str]:
        return [f"{r.name}/{s}" for r in self.reports for s in r.executed]

    @property
    def reasons(self) -> dict[str, str]:
        return {f"{r.name}/{s}": why for r in self.reports for s, why in r.reasons.items()}

    @property
    def reused(self) -> list[str]:
        return [f"{r.name}/{s}" for r in self.reports for s in r.reused]

    @property
    def frozen(self) -> list[str]:
        return [f"{r.name}/{s}" for r in self.reports for s in r.frozen]

    @property
    def printed(self) -> list[str]:
        return [p for r in self.reports for p in r.printed]

    @property
    def warnings(self) -> list[str]:
        return [w for r in self.reports for w in r.warnings]

    @property
    def published(self) -> bool:
        return any(r.published for r in self.reports)

    @property
    def seconds(self) -> dict[str, float]:
        return {k: v for r in self.reports for k, v in r.seconds.items()}

    @property
    def ran(self) -> int:
        return len(self.executed)

    @property
    def cached(self) -> int:
        return len(self.reused)

    def to_json(self) -> dict[str, Any]:
        names = ("lessons", "up_to_date", "executed", "reasons", "reused", "frozen", "printed")
        data: dict[str, Any] = {name: getattr(self, name) for name in names}
        data.update(warnings=self.warnings, published=self.published, seconds=self.seconds)
        return {**data, "ran": self.ran, "cached": self.cached}
