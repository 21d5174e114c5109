"""What changed in a lecture (`build.py LESSON --compare OLD/values.json`): the values a slide
shows in this build's `values.json` against an earlier build's, each change at its slide and
`file:line` as old → new, under a line naming both build hosts (standard library only).

Compared are what the slides show as text: each inline value (`values`), each cell output
(`outputs`: printed text, a value, a table's text, a warning) and each quiz's choices and
answer (`quizzes`). Not compared: figures (`values.json` names their files, not their pixels;
a value in a caption or alt text is a `values` record already) and widgets (their record is
the expression as written).

A shown value is the same one in both builds when it is the same expression (an output: of
the same cell label and kind; a quiz: the same quiz) in the same file, counted in reading
order, so that a line added above it does not make it new. With no tolerance, any change in
the shown text counts; with `rtol`/`atol`, the numbers in the two texts are compared by
`math.isclose` and the rest of the text must be equal.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deck.options import UsageError

# a number as a slide writes it: 3, -0.125, 1.5e-07, 12,345.6 (the minus may be U+2212)
NUMBER = re.compile(r"([-+\u2212]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)")
WIDTH = 60  # characters of a long value shown, around its first difference
RECORD_FIELDS = {
    "values": ("expr", "text", "loc", "slide"),
    "outputs": ("loc", "slide", "kind", "text"),
    "quizzes": ("choices", "answer", "loc", "slide"),
}


@dataclass(frozen=True)
class Shown:
    """One value a slide shows, with what identifies it across builds."""

    key: tuple[Any, ...]
    what: str  # what the report calls it: `expr`, "stdout of cell `label`", "quiz answer"
    text: str
    loc: str
    slide: int


@dataclass(frozen=True)
class Change:
    what: str
    old: Shown | None  # None: added
    new: Shown | None  # None: removed

    def line(self) -> str:
        if self.old is None or self.new is None:
            shown = self.new or self.old
            assert shown is not None
            verb, where = ("added", "slide") if self.new else ("removed", "old slide")
            return f"{where} {shown.slide}  {shown.loc}  {self.what}  {verb}: {brief(shown.text)}"
        old, new = clipped(self.old.text, self.new.text)
        return f"slide {self.new.slide}  {self.new.loc}  {self.what}  {old} → {new}"


@dataclass(frozen=True)
class Comparison:
    changes: tuple[Change, ...]
    compared: int  # shown values in both builds
    old_host: str
    new_host: str
    tolerance: str  # "" when exact
    note: str = ""  # about the old file: a build of another lesson

    @property
    def changed(self) -> list[Change]:
        return [c for c in self.changes if c.old is not None and c.new is not None]

    def lines(self, old_name: str) -> list[str]:
        """The report: a header line, then one line per change (none when none changed)."""
        host = "same" if self.new_host == self.old_host else self.new_host
        hosts = f"old build: {self.old_host}; this build: {host}{self.note}"
        within = f", {self.tolerance}" if self.tolerance else ""
        if not self.changes:
            return [
                f"no shown value changed since {old_name} "
                f"({self.compared} compared{within}; {hosts})"
            ]
        added = sum(c.old is None for c in self.changes)
        removed = sum(c.new is None for c in self.changes)
        n = len(self.changed)
        head = (
            f"{n} shown value{'' if n == 1 else 's'} changed since {old_name}, {added} added, "
            f"{removed} removed ({self.compared} compared{within}; {hosts})"
        )
        return [head, *(f"  {c.line()}" for c in self.changes)]


def load_values(path: Path) -> dict[str, Any]:
    """An earlier build's `values.json` (or the folder holding one), checked to be one;
    UsageError naming the file when it is missing, unreadable or something else."""
    if path.is_dir() and (path / "values.json").is_file():
        path = path / "values.json"
    where = f"--compare {path}"
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{where}: no such file (an earlier build's values.json)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{where}: cannot be read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not a values.json (not JSON: {exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("values"), list):
        raise UsageError(f"{where}: not a values.json (it has no list of `values`)")
    for kind, names in RECORD_FIELDS.items():
        records = data.get(kind, [])
        bad = not isinstance(records, list) or any(
            not isinstance(r, dict) or any(n not in r for n in names) for r in records
        )
        if bad:
            raise UsageError(f"{where}: not a values.json (its `{kind}` are not records)")
    return data


def shown_values(data: dict[str, Any]) -> list[Shown]:
    """Every value the slides of a `values.json` show as text, in reading order by kind."""
    found: list[Shown] = []
    seen: dict[tuple[Any, ...], int] = {}

    def add(identity: tuple[Any, ...], what: str, text: str, record: dict[str, Any]) -> None:
        loc = str(record["loc"])
        identity = (loc.rpartition(":")[0], *identity)
        n = seen[identity] = seen.get(identity, 0) + 1
        found.append(Shown((*identity, n), what, text, loc, int(record["slide"])))

    for r in data.get("values", []):
        add(("value", r["expr"]), f"`{r['expr']}`", str(r["text"]), r)
    for r in data.get("outputs", []):
        label = r.get("label")
        what = f"{r['kind']} of cell `{label}`" if label else f"{r['kind']} of a cell"
        add(("output", label, r["kind"]), what, str(r["text"]), r)
    for r in data.get("quizzes", []):
        choices = [f"{chr(ord('A') + k)}) {c}" for k, c in enumerate(r["choices"])]
        add(("quiz choices",), "quiz choices", " | ".join(choices), r)
        add(("quiz answer",), "quiz answer", chr(ord("A") + int(r["answer"])), r)  # (its place)
    return found


def compare(
    old: dict[str, Any], new: dict[str, Any], rtol: float = 0.0, atol: float = 0.0
) -> Comparison:
    """The shown values of `new` that differ from `old` (beyond the tolerance) and those only
    in `new` (added), by slide and line; then those only in `old` (removed)."""
    before = {s.key: s for s in shown_values(old)}
    after = sorted(shown_values(new), key=reading_order)
    changes = []
    for shown in after:
        earlier = before.get(shown.key)
        if earlier is None:
            changes.append(Change(shown.what, None, shown))
        elif differs(earlier.text, shown.text, rtol, atol):
            changes.append(Change(shown.what, earlier, shown))
    keys = {s.key for s in after}
    gone = sorted((s for s in before.values() if s.key not in keys), key=reading_order)
    changes.extend(Change(s.what, s, None) for s in gone)
    both = sum(s.key in before for s in after)
    tolerance = f"numbers within rtol {rtol:g}, atol {atol:g}" if rtol or atol else ""
    other = old.get("lesson") if old.get("lesson") != new.get("lesson") else None
    note = f"; it is a build of lesson `{other}`" if other else ""
    return Comparison(tuple(changes), both, host_line(old), host_line(new), tolerance, note)


def reading_order(shown: Shown) -> tuple[int, str, int]:
    path, _, line = shown.loc.rpartition(":")
    return shown.slide, path, int(line) if line.isdigit() else 0


def differs(old: str, new: str, rtol: float = 0.0, atol: float = 0.0) -> bool:
    """Whether a shown text changed: any change without a tolerance; with one, a change in
    the text around the numbers, in how many there are, or a number not `isclose`."""
    if old == new:
        return False
    if not rtol and not atol:
        return True
    a, b = NUMBER.split(old), NUMBER.split(new)
    if len(a) != len(b) or a[0::2] != b[0::2]:
        return True
    return not all(
        math.isclose(number(x), number(y), rel_tol=rtol, abs_tol=atol)
        for x, y in zip(a[1::2], b[1::2], strict=True)
    )


def number(text: str) -> float:
    return float(text.replace(",", "").replace("\u2212", "-"))


def host_line(data: dict[str, Any]) -> str:
    """A build's host as the report's header names it: CPU, torch's capability and threads,
    torch's version (`values.json`'s `build_host`, its `kernels` from the workers)."""
    found = data.get("build_host")
    host: dict[str, Any] = found if isinstance(found, dict) else {}
    parts = [str(host.get("cpu") or "unknown CPU")]
    kernels = host.get("kernels")
    torch = kernels.get("torch") if isinstance(kernels, dict) else None
    records = torch if isinstance(torch, list) else [torch] if isinstance(torch, dict) else []
    if records:  # (a list when sections saw different kernels: each value shown once)

        def each(name: str) -> str:
            seen = dict.fromkeys(str(r.get(name)) for r in records if isinstance(r, dict))
            return "/".join(seen)

        threads = each("threads")
        threads += " thread" if threads == "1" else " threads"
        parts += [each("capability"), threads, f"torch {each('version')}"]
    elif kernels is None:
        parts.append("kernels not recorded")  # a build from before they were
    else:
        parts.append("no cell imported torch")
    return " · ".join(parts)


def brief(text: str) -> str:
    return clipped(text, text)[0]


def clipped(old: str, new: str) -> tuple[str, str]:
    """Both texts on one line each (a newline as ⏎); a long one as the WIDTH characters around
    where the two first differ, at the same place in both."""
    a, b = old.replace("\n", "⏎"), new.replace("\n", "⏎")
    if not a and not b:
        return "(empty)", "(empty)"
    if len(a) <= WIDTH and len(b) <= WIDTH:
        return a or "(empty)", b or "(empty)"
    same = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
    start = max(0, (min(len(a), len(b)) if same is None else same) - WIDTH // 3)

    def part(text: str) -> str:
        shown = text[start : start + WIDTH]
        return ("…" if start else "") + shown + ("…" if start + WIDTH < len(text) else "")

    return part(a) or "(empty)", part(b) or "(empty)"
