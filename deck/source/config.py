"""`lesson.yml` (or a `.qmd`'s front matter) as a typed, frozen `LessonConfig`, checked
against a schema with line numbers.

Each key has a small checker in a table; a wrong value is an error at its line, an unknown key
a warning naming the nearest known key. Nothing is silently accepted or silently dropped: a
Quarto option that is read but not applied is a warning saying what happens instead.
"""

from __future__ import annotations

import datetime
import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from deck.errors import Diagnostic
from deck.model import (
    ExecConfig,
    LessonConfig,
    Loc,
    QuizConfig,
    WidgetSource,
)
from deck.model.config import LESSON_OUTPUTS, HandoutConfig, read_outputs
from deck.theme import HANDOUT_MAX_LINES, HANDOUT_PER_PAGE


class Invalid(Exception):
    pass


class Accepted(Exception):
    """A value that is read and kept (`value`), with a warning saying what happens."""

    def __init__(self, message: str, value: Any = None):
        super().__init__(message)
        self.value = value


Check = Callable[[Any], Any]


def as_text(value: Any) -> str:
    if isinstance(value, datetime.date):  # `date: 2026-11-29` reads as a date
        return value.isoformat()
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise Invalid("must be text")
    if "\u2063" in str(value):  # (the build's placeholders are made of it)
        raise Invalid("holds U+2063 (invisible separator), which is reserved by the build")
    return str(value)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid("must be a whole number")
    return value


SEED_LIMIT = 2**32  # random, numpy and torch all accept 0 <= seed < 2**32
MAX_TIMEOUT = 1_000_000  # seconds (11.6 days); the worker's interval timer takes no more


def _seed(value: Any) -> int:
    n = _int(value)
    if not 0 <= n < SEED_LIMIT:
        raise Invalid(f"must be from 0 to {SEED_LIMIT - 1:,} (2**32 - 1: numpy's range)")
    return n


def seconds_problem(value: Any) -> str | None:
    """What is wrong with a time limit in seconds (`exec.timeout`, `#| timeout:`), or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "must be a number of seconds"
    if not 0 < value <= MAX_TIMEOUT:  # also NaN; infinity is over the limit
        return f"must be more than 0 and at most {MAX_TIMEOUT:,} seconds"
    return None


def _positive_seconds(value: Any) -> float:
    problem = seconds_problem(value)
    if problem:
        raise Invalid(problem)
    return float(value)


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.I)
_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


def _memory_mb(value: Any) -> int:
    """`4G`, `512M`, `2048` (MB)."""
    if isinstance(value, bool):
        raise Invalid("must be a size such as 4G or 512M")
    if isinstance(value, int | float):
        mb = float(value)
    else:
        m = _SIZE.match(str(value))
        if not m:
            raise Invalid("must be a size such as 4G or 512M")
        unit = m.group(2).lower() or "m"
        mb = float(m.group(1)) * _UNITS[unit] / 2**20
    if mb < 64:
        raise Invalid("must be at least 64M (a Python worker needs that much)")
    return int(mb)


def _output_chars(value: Any) -> int:
    n = _int(value)
    if n < 1000:
        raise Invalid("must be at least 1000 characters")
    return n


EXEC_SCHEMA: dict[str, Check] = {
    "seed": _seed,
    "timeout": _positive_seconds,
    "memory": _memory_mb,
    "output": _output_chars,
}
EXEC_FIELDS = {
    "seed": "seed",
    "timeout": "timeout",
    "memory": "memory_mb",
    "output": "output_limit",
}


@dataclass(frozen=True)
class NodeCheck:
    """A key whose value's shape decides how it is read (a scalar or a mapping): gets the
    YAML node itself, returns the value to keep (None: nothing)."""

    read: Callable[..., Any]

    def __call__(
        self,
        node: yaml.Node,
        name: str,
        path: str,
        diagnostics: list[Diagnostic],
        locs: dict[str, Loc] | None,
    ) -> Any:
        return self.read(node, name, path, diagnostics, locs)


WIDGET_PATH = re.compile(r"[\w.-]+(/[\w.-]+)*")


def read_widgets(
    node: yaml.Node, name: str, path: str, diagnostics: list[Diagnostic], locs: Any
) -> tuple[WidgetSource, ...] | None:
    """`widgets:` a list of paths in the lesson's folder, each without a suffix: `<path>.py`
    checks a kind's data, `<path>.js` draws it; the kind is named after the file."""
    at = Loc(path, node.start_mark.line + 1)
    if not isinstance(node, yaml.SequenceNode):
        message = f"`{name}` must be a list of paths such as `widgets/softmax-scaling`"
        diagnostics.append(Diagnostic(at, "config", message))
        return None
    found = []
    for item in node.value:
        loc = Loc(path, item.start_mark.line + 1)
        text = item.value if isinstance(item, yaml.ScalarNode) else None
        if not isinstance(text, str) or not WIDGET_PATH.fullmatch(text) or ".." in text.split("/"):
            message = (
                f"`{name}`: {text!r} must be a path inside the lesson's folder, without a "
                "suffix (`widgets/softmax-scaling` for widgets/softmax-scaling.py and .js)"
            )
            diagnostics.append(Diagnostic(loc, "config", message))
            continue
        found.append(WidgetSource(text.removesuffix(".py"), loc))
    names = [w.name for w in found]
    for k, widget in enumerate(found):
        if widget.name in names[:k]:
            message = f"widget kind `{widget.name}` is named twice"
            diagnostics.append(Diagnostic(widget.loc, "config", message))
    return tuple(found)


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Invalid("must be true or false")
    return value


QUIZ_MODES = ("poll", "check")


def _quiz_mode(value: Any) -> str:
    """`quiz.mode`: `poll` (clicks are counted, nothing judged until `A`) or `check`."""
    if value not in QUIZ_MODES:
        raise Invalid("must be `poll` (count the room's choices) or `check` (judge each click)")
    return value


def _per_page(value: Any) -> int:
    if isinstance(value, bool) or value not in HANDOUT_PER_PAGE:
        raise Invalid("must be 1, 2 or 3 (slides per page)")
    return value


def _lines(value: Any) -> int:
    n = _int(value)
    if not 0 <= n <= HANDOUT_MAX_LINES:
        raise Invalid(f"must be a number of lines from 0 to {HANDOUT_MAX_LINES}")
    return n


HANDOUT_SCHEMA: dict[str, Check] = {"per-page": _per_page, "lines": _lines}


def _outputs(value: Any) -> tuple[str, ...]:
    """`outputs: [html, pdf, ipynb]`: what a build of the lesson makes (`--to` overrides)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Invalid(f"must be a list of outputs (known: {', '.join(LESSON_OUTPUTS)})")
    try:
        return read_outputs(value, LESSON_OUTPUTS)
    except ValueError as exc:
        raise Invalid(str(exc)) from None


# lesson.yml's keys; `deck.source.lessonyml` reads lesson.yml with this table and the deck
# options a .qmd has (`slides:`). The README's "lesson.yml reference" lists each key (tested).
TOP_SCHEMA: dict[str, Check | dict[str, Check] | NodeCheck] = {
    "title": as_text,
    "subtitle": as_text,
    "course": as_text,
    "author": as_text,
    "date": as_text,
    "lang": as_text,
    "exec": EXEC_SCHEMA,
    "widgets": NodeCheck(read_widgets),
    "quiz": {"shuffle": _bool, "mode": _quiz_mode},
    "handout": HANDOUT_SCHEMA,
    "outputs": _outputs,
    "title-slide": _bool,  # false: no title slide made from title, subtitle, author, date
}


def _plain(node: yaml.Node) -> Any:
    return yaml.safe_load(yaml.serialize(node)) if node is not None else None


def check_mapping(
    node: yaml.Node,
    schema: dict[str, Any],
    where: str,
    path: str,
    diagnostics: list[Diagnostic],
    locs: dict[str, Loc] | None = None,
) -> dict[str, Any]:
    line = node.start_mark.line + 1
    if not isinstance(node, yaml.MappingNode):
        what = f"`{where}`" if where else "the file"
        diagnostics.append(Diagnostic(Loc(path, line), "config", f"{what} must be a mapping"))
        return {}
    values: dict[str, Any] = {}
    for key_node, value_node in node.value:
        key = str(key_node.value)
        at = Loc(path, key_node.start_mark.line + 1)
        name = f"{where}.{key}" if where else key
        if locs is not None:
            locs[name] = at
        if key not in schema:
            near = difflib.get_close_matches(key, list(schema), n=1)
            hint = f" (did you mean `{near[0]}`?)" if near else f" (known: {', '.join(schema)})"
            diagnostics.append(
                Diagnostic(at, "config", f"unknown key `{name}` is ignored{hint}", "warning")
            )
            continue
        check = schema[key]
        if isinstance(check, NodeCheck):
            found = check(value_node, name, path, diagnostics, locs)
            if found is not None:
                values[key] = found
            continue
        if isinstance(check, dict):
            if isinstance(value_node, yaml.ScalarNode) and value_node.value in ("", "~", "null"):
                continue
            values[key] = check_mapping(value_node, check, name, path, diagnostics, locs)
            continue
        shown = value_node.value if isinstance(value_node, yaml.ScalarNode) else "…"
        try:
            values[key] = check(_plain(value_node))
        except Accepted as note:
            diagnostics.append(Diagnostic(at, "config", f"`{name}: {shown}`: {note}", "warning"))
            if note.value is not None:
                values[key] = note.value
        except (Invalid, ValueError, yaml.YAMLError) as exc:  # ValueError: `date: 2020-13-01`
            diagnostics.append(Diagnostic(at, "config", f"`{name}: {shown}` {exc}"))
    return values


def yaml_error(exc: yaml.YAMLError, path: str, line: int = 1) -> Diagnostic:
    """A YAML syntax error at its line of `path` (`line` when the parser gives none).

    A problem found where the text ends (a `[`, `{` or quote never closed) is marked by PyYAML
    at the end of input, a line past the last when the text ends with a newline: it is
    reported where what was left open began, else at the last line that holds anything."""
    problem_mark = getattr(exc, "problem_mark", None)
    context_mark = getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    mark = problem_mark or context_mark
    if mark is None:
        return Diagnostic(Loc(path, line), "config", f"not valid YAML: {problem}")
    at = mark.line + 1
    if problem_mark is not None and _at_end(problem_mark):
        if context_mark is not None:
            at = context_mark.line + 1
            what = re.sub(r"^while (parsing|scanning) ", "", getattr(exc, "context", "") or "")
            if what:  # `[`, `{`, a quote…
                problem = f"the YAML ends inside {what} that starts here ({problem})"
        else:
            at = min(at, _last_line(problem_mark.buffer) or at)
    return Diagnostic(Loc(path, at), "config", f"not valid YAML: {problem}")


def _at_end(mark: Any) -> bool:
    """Whether PyYAML's mark stands at the end of the text (its reader ends it with NUL)."""
    buffer = getattr(mark, "buffer", None)
    return isinstance(buffer, str) and mark.pointer >= len(buffer.rstrip("\0"))


def _last_line(buffer: str | None) -> int:
    """The 1-based number of the text's last line that holds more than spaces (0: none)."""
    lines = (buffer or "").rstrip("\0").split("\n")
    return next((k + 1 for k in range(len(lines) - 1, -1, -1) if lines[k].strip()), 0)


def parse_config(text: str, path: str) -> tuple[LessonConfig, dict[str, Any], list[Diagnostic]]:
    """`lesson.yml` text → (config, the checked values as a plain dict, diagnostics)."""
    diagnostics: list[Diagnostic] = []
    try:
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        diagnostics.append(yaml_error(exc, path))
        return LessonConfig(), {}, diagnostics
    if node is None:
        return LessonConfig(), {}, diagnostics
    values = check_mapping(node, TOP_SCHEMA, "", path, diagnostics)
    return config_from(values), values, diagnostics


def config_from(values: dict[str, Any]) -> LessonConfig:
    exec_values = values.get("exec") or {}
    exec_config = ExecConfig(**{EXEC_FIELDS[k]: v for k, v in exec_values.items()})
    quiz_config = QuizConfig(**(values.get("quiz") or {}))
    handout = values.get("handout") or {}
    handout_config = HandoutConfig(handout.get("per-page", 2), handout.get("lines"))
    top = {k: v for k, v in values.items() if k not in ("exec", "quiz", "handout")}
    if "title-slide" in top:
        top["title_slide"] = top.pop("title-slide")
    return LessonConfig(**top, exec=exec_config, quiz=quiz_config, handout=handout_config)
