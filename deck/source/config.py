"""`lesson.yml`'s own keys (or a `.qmd`'s front matter's, where they are the same) declared
for the schema engine (`deck.source.schema`), and read into a typed, frozen `LessonConfig`.

A wrong value is an error at its line, an unknown key a warning naming the nearest known key.
Nothing is silently accepted or silently dropped: a Quarto option that is read but not applied
is a warning saying what happens instead.
"""

from __future__ import annotations

import datetime
import keyword
import re
from typing import Any

import yaml

from deck.errors import Diagnostic
from deck.model import ExecConfig, LessonConfig, Loc, QuizConfig, WidgetSource
from deck.model.config import (
    DEFAULT_OUTPUTS,
    LESSON_OUTPUTS,
    HandoutConfig,
    SetupSource,
    read_outputs,
)
from deck.source.schema import (
    Accepted,
    Check,
    Invalid,
    Key,
    Reading,
    Schema,
    as_text,
    choice,
    flag,
    section,
    text,
    whole,
)
from deck.theme import HANDOUT_MAX_LINES, HANDOUT_PER_PAGE

__all__ = ["Accepted", "Check", "Invalid", "as_text"]  # (the checks' own names, for their users)

SEED_LIMIT = 2**32  # random, numpy and torch all accept 0 <= seed < 2**32
MAX_TIMEOUT = 1_000_000  # seconds (11.6 days); the worker's interval timer takes no more


def _seed(value: Any) -> int:
    n = whole(value)
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
    n = whole(value)
    if n < 1000:
        raise Invalid("must be at least 1000 characters")
    return n


EXEC_SCHEMA = Schema(
    "exec",
    {
        "seed": Key(
            "whole number",
            "`random`, numpy and torch are seeded with it at the start of every section "
            "(0 to 2**32 - 1)",
            _seed,
            ExecConfig.seed,
        ),
        "timeout": Key(
            "number",
            f"seconds a cell may run, more than 0 and at most {MAX_TIMEOUT:,} (a cell's "
            "`#| timeout:` overrides)",
            _positive_seconds,
            ExecConfig.timeout,
        ),
        "memory": Key(
            "size",
            "address space per worker: `4G`, `512M`, or a number of MB (at least 64M)",
            _memory_mb,
            shown="half the machine's memory",
        ),
        "output": Key(
            "whole number",
            "characters of printed output kept per cell (at least 1000; the rest is cut "
            "with a note)",
            _output_chars,
            ExecConfig.output_limit,
        ),
    },
    "How cells run; the same keys in a `.qmd`'s front matter.",
)
EXEC_FIELDS = {
    "seed": "seed",
    "timeout": "timeout",
    "memory": "memory_mb",
    "output": "output_limit",
}


WIDGET_PATH = re.compile(r"[\w.-]+(/[\w.-]+)*")


def read_widgets(node: yaml.Node, name: str, reading: Reading) -> tuple[WidgetSource, ...] | None:
    """`widgets:` a list of paths in the lesson's folder, each without a suffix: `<path>.py`
    checks a kind's data, `<path>.js` draws it; the kind is named after the file."""
    if not isinstance(node, yaml.SequenceNode):
        reading.error(node, f"`{name}` must be a list of paths such as `widgets/softmax-scaling`")
        return None
    found = []
    for item in node.value:
        text = item.value if isinstance(item, yaml.ScalarNode) else None
        if not isinstance(text, str) or not WIDGET_PATH.fullmatch(text) or ".." in text.split("/"):
            message = (
                f"`{name}`: {text!r} must be a path inside the lesson's folder, without a "
                "suffix (`widgets/softmax-scaling` for widgets/softmax-scaling.py and .js)"
            )
            reading.error(item, message)
            continue
        found.append(WidgetSource(text.removesuffix(".py"), reading.loc(item)))
    names = [w.name for w in found]
    for k, widget in enumerate(found):
        if widget.name in names[:k]:
            message = f"widget kind `{widget.name}` is named twice"
            reading.diagnostics.append(Diagnostic(widget.loc, "config", message))
    return tuple(found)


def read_setup(node: yaml.Node, name: str, reading: Reading) -> SetupSource | None:
    """`setup: common.py`: a module in the lesson's folder (not in a subfolder)."""
    text = node.value if isinstance(node, yaml.ScalarNode) else None
    module = text.removesuffix(".py") if isinstance(text, str) and text.endswith(".py") else ""
    if not module.isidentifier() or keyword.iskeyword(module):
        reading.error(
            node,
            f"`{name}` must name a Python module in the lesson's folder, such as `common.py` "
            f"(not {text!r})",
        )
        return None
    return SetupSource(module, reading.loc(node))


def _lines(value: Any) -> int:
    n = whole(value)
    if not 0 <= n <= HANDOUT_MAX_LINES:
        raise Invalid(f"must be a number of lines from 0 to {HANDOUT_MAX_LINES}")
    return n


def _outputs(value: Any) -> tuple[str, ...]:
    """`outputs: [html, pdf, ipynb]`: what a build of the lesson makes (`--to` overrides)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Invalid(f"must be a list of outputs (known: {', '.join(LESSON_OUTPUTS)})")
    try:
        return read_outputs(value, LESSON_OUTPUTS)
    except ValueError as exc:
        raise Invalid(str(exc)) from None


def _names(value: Any) -> str:
    """`author: A`, `author: [A, B]` or `author: [{name: A, affiliation: …}]` → "A, B"."""
    items = value if isinstance(value, list) else [value]
    names = []
    for item in items:
        if isinstance(item, dict):
            item = item.get("name")
            if isinstance(item, dict):  # name: {given: …, family: …} or {literal: …}
                item = item.get("literal") or " ".join(
                    str(item[k]) for k in ("given", "family") if k in item
                )
        names.append(as_text(item))
    return ", ".join(names)


def _date(value: Any) -> str:
    if value in ("today", "now"):
        return datetime.date.today().isoformat()
    return as_text(value)


QUIZ_SCHEMA = Schema(
    "quiz",
    {
        "shuffle": flag(
            "each quiz's choices in an order drawn from `exec.seed` (and the quiz's file and "
            "`#id`), so answers are not all at one place",
            QuizConfig.shuffle,
        ),
        "mode": choice(
            "`poll`: a click adds a hand to a choice, nothing is judged until `A`; `check`: "
            "each click is judged at once (self-study); `?quiz=` in the URL overrides it",
            "poll",
            "check",
            default=QuizConfig.mode,
            says="must be `poll` (count the room's choices) or `check` (judge each click)",
        ),
    },
)
HANDOUT_SCHEMA = Schema(
    "handout",
    {
        "per-page": choice(
            "slides to a page of the students' `handout.pdf`; a slide too dense for that "
            "gets more room",
            *HANDOUT_PER_PAGE,
            default=HandoutConfig.per_page,
            says="must be 1, 2 or 3 (slides per page)",
        ),
        "lines": Key(
            "whole number",
            f"ruled lines under each slide, at least (0 to {HANDOUT_MAX_LINES}); a page's "
            "rest is lined too",
            _lines,
            shown="the layout's own",
        ),
    },
)

# Title slide fields: Quarto's readers (`author` may be a list or `- name:` items, `date:
# today` is the build's day); `deck.source.qmdconfig` declares a `.qmd`'s with these same keys.
TITLE_KEYS = {
    "title": text("the title slide's title (also the course page's)"),
    "subtitle": text("the title slide's second line"),
    "author": Key(
        "text or list",
        "a name, a list (`[A, B]`) or Quarto's `- name: A` items: the title slide, the PDFs' "
        "`/Author` and XMP `dc:creator`, the course page",
        _names,
    ),
    "date": Key(
        "date or text",
        "a date (`2026-12-01`) or `today` (the build's day): the title slide, the PDFs' XMP "
        "`dc:date`, the course page",
        _date,
    ),
}
# lesson.yml's own keys; `deck.source.lessonyml.LESSON_SCHEMA` adds the deck's options
# (`slides:`) and citations, declared with a `.qmd`'s.
TOP_SCHEMA = Schema(
    "lesson.yml",
    {
        "title": TITLE_KEYS["title"],
        "subtitle": TITLE_KEYS["subtitle"],
        "course": text("the course's name, on the title slide under the author"),
        "author": TITLE_KEYS["author"],
        "date": TITLE_KEYS["date"],
        "lang": text(
            "the deck's language: its UI strings, minutes in the notes, fonts",
            LessonConfig.lang,
        ),
        "exec": section("how cells run", EXEC_SCHEMA),
        "widgets": Key(
            "list of paths",
            "the widget kinds the lesson defines: paths in its folder without a suffix "
            "(`widgets/softmax-scaling`: its `.py` checks the data, its `.js` draws it)",
            read=read_widgets,
            default=(),
        ),
        "setup": Key(
            "path",
            "a module of the lesson's folder (`common.py`) that every section starts with, as "
            "`from common import *` after seeding: its names are every section's, its imports "
            "and data loaded once a section; an input of each section (an edit re-runs them)",
            read=read_setup,
        ),
        "quiz": section("how quizzes are shown", QUIZ_SCHEMA),
        "handout": section("the students' `handout.pdf`", HANDOUT_SCHEMA),
        "outputs": Key(
            "list of " + ", ".join(f"`{o}`" for o in LESSON_OUTPUTS),
            "what a build of the lesson makes (`--to` overrides); the deck itself is always "
            "written",
            _outputs,
            shown=", ".join(f"`{o}`" for o in DEFAULT_OUTPUTS if o in LESSON_OUTPUTS),
        ),
        "title-slide": flag(
            "`false`: no title slide is made from the title, subtitle, author and date",
            LessonConfig.title_slide,
        ),
    },
)


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
    """`lesson.yml` text (its own keys) → (config, the checked values, diagnostics)."""
    diagnostics: list[Diagnostic] = []
    try:
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        diagnostics.append(yaml_error(exc, path))
        return LessonConfig(), {}, diagnostics
    if node is None:
        return LessonConfig(), {}, diagnostics
    values = TOP_SCHEMA.read(node, Reading(path, diagnostics))
    return config_from(values), values, diagnostics


def config_from(values: dict[str, Any]) -> LessonConfig:
    exec_values = values.get("exec") or {}
    exec_config = ExecConfig(**{EXEC_FIELDS[k]: v for k, v in exec_values.items()})
    quiz_config = QuizConfig(**(values.get("quiz") or {}))
    handout = values.get("handout") or {}
    handout_config = HandoutConfig(
        handout.get("per-page", HANDOUT_SCHEMA.default("per-page")), handout.get("lines")
    )
    top = {k: v for k, v in values.items() if k not in ("exec", "quiz", "handout")}
    if "title-slide" in top:
        top["title_slide"] = top.pop("title-slide")
    return LessonConfig(**top, exec=exec_config, quiz=quiz_config, handout=handout_config)
