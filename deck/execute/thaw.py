"""Taking sections from their frozen results (`deck.store.frozen`) when the section cache has
none that holds, as the execute stage plans: the record becomes this machine's cache entry, and
the build says what it stands on (distributions not installed here, another CPU). With
`--frozen-only` a section whose record does not hold is an error at its line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deck.errors import Diagnostic, Loc
from deck.model import Lesson, Section, SectionResult
from deck.options import Options
from deck.store.frozen import NONE, Frozen
from deck.store.sections import Store


class FrozenSections:
    """The frozen results of one lesson, as the plan asks for them section by section."""

    def __init__(
        self,
        lesson: Lesson,
        options: Options,
        store: Store,
        log: Callable[[str], Any],
        dry: bool = False,
    ):
        self.lesson = lesson
        self.skip = (options.out, options.figures, options.cache)
        self.frozen = None if options.force else Frozen(lesson, skip=self.skip)
        self.dry = dry  # only to know which sections would run: nothing taken, nothing said
        self.only = options.frozen_only
        self.store = store
        self.log = log
        self.taken: list[str] = []
        self.problems: list[Diagnostic] = []
        self.warnings: list[str] = []
        self._hosts: dict[str, list[str]] = {}

    def take(self, section: Section, key: str, reason: str) -> tuple[SectionResult | None, str]:
        """(the frozen result, "") when it stands; else (None, why the section runs)."""
        if self.frozen is None:
            return None, reason
        found = self.frozen.lookup(section)
        if found.record is None:
            if self.only:
                fix = "build without --frozen-only to run it, then --freeze"
                message = f"frozen result does not hold: {found.why} ({fix})"
                where = found.at or Loc(section.rel, 1)
                self.problems.append(Diagnostic(where, "frozen", message))
            if found.why == NONE or reason not in ("new", "cache format changed"):
                return None, reason
            return None, f"frozen result: {found.why}"
        if self.dry:
            return SectionResult("", (), {}, 0.0), ""
        result = self.frozen.seed(section, found, self.store, key)
        self.taken.append(section.name)
        seconds = result.seconds
        shown = f"frozen, computed in {seconds:.1f} s"
        if found.absent:
            names = ", ".join(found.absent)
            shown += f"; {names} not installed here"
            self.warnings.append(
                f"{section.rel}: note: its frozen results were computed with {names}, which "
                "this machine does not have: they are taken as frozen"
            )
        self.log(f"  frozen  {section.rel}  ({shown})")
        from deck.host import kernel_selectors  # (light)

        now = kernel_selectors()
        differs = [k for k in ("cpu", "cpu_flags") if found.host.get(k) != now.get(k)]
        if found.host and differs:
            self._hosts.setdefault(str(found.host.get("cpu")), []).append(section.name)
        return result, ""

    def stale(self, ran: tuple[str, ...]) -> None:
        """Say which sections that just ran have a frozen result that no longer holds."""
        frozen = self.frozen or Frozen(self.lesson, skip=self.skip)  # (--force too)
        if not frozen.dir.is_dir():
            return
        sections = [s for s in self.lesson.sections if s.name in ran]
        old = [
            s.name for s in sections if frozen.path(s).is_file() and frozen.lookup(s).record is None
        ]
        if old:
            self.log(
                f"note: the frozen results of {', '.join(old)} no longer hold: "
                f"`--freeze` writes them again ({frozen.dir.as_posix()}/)"
            )

    def notes(self) -> list[str]:
        """One line per other CPU the frozen results taken were computed on."""
        return [
            f"note: the frozen results of {', '.join(names)} were computed on another CPU "
            f"({cpu}): their numbers are that machine's (--force computes them here)"
            for cpu, names in self._hosts.items()
        ]
