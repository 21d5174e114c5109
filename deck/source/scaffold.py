"""`build.py new NAME`: a new lesson folder that builds at once, showing each convention once
(a cell, an inline value, a figure with alt text, notes with minutes, a quiz whose answer is
computed, an exercise), and a test of its numbers against the build's `values.json`."""

from __future__ import annotations

import datetime
import os
import re
import textwrap
import tomllib
from pathlib import Path

from deck.options import UsageError
from deck.strings import strings

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
LONGEST = 64  # characters: a folder name, and the generated test's lines stay under 100


def lesson_files(name: str, lang: str) -> dict[str, str]:
    t = strings(lang, "scaffold")  # (deck/static/strings.json)
    today = datetime.date.today().isoformat()
    return {
        "lesson.yml": f"""# This lesson's settings (every key: docs/reference/settings.md).
title: {t["title"]}
subtitle: {t["subtitle"]}
author: Your Name
date: {today}
lang: {lang}
exec:
  seed: 0  # every random generator starts from it: numbers are the same on every build
  timeout: 120  # seconds a cell may take
""",
        "01-softmax.md": f"""## {t["intro"]}

```{{python}}
#| echo: true
import numpy as np

scores = np.array([2.0, 1.0, 0.1])


def softmax(x, temperature=1.0):
    z = np.exp((x - x.max()) / temperature)
    return z / z.sum()


p = softmax(scores)
```

{t["largest"]} `{{python}} f"{{p.max():.3f}}"`.

::: notes
{t["notes1"]}
:::

## {t["figure"]}

```{{python}}
#| label: temperature
#| fig-alt: "{t["alt"]}"
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 3.2))
for k, t in enumerate([0.5, 1.0, 2.0]):
    x = np.arange(3) + 0.25 * k
    ax.bar(x, softmax(scores, t), width=0.25, label=f"T = {{t}}")
ax.set_xticks(np.arange(3) + 0.25, [str(s) for s in scores])
ax.legend()
plt.show()
```

::: notes
{t["notes2"]}
:::

## {t["quiz"]}

::: {{.quiz answer="str(scores[np.argmax(p)])"}}
{t["question"]}

- [ ] `{{python}} str(scores[2])`
- [ ] `{{python}} str(scores[1])`
- [ ] `{{python}} str(scores[0])`

::: explain
{t["explain"]}
:::
:::

::: notes
{t["notes3"]}
:::

## {t["exercise"]}

::: answer
{t["answer"]}
:::
""",
    }


def test_file(name: str) -> str:
    """The lesson's test, as `ruff check` and `ruff format --check` want it with the project's
    settings (lines of at most 100 characters) for any name `new` takes: the name is written
    once as `LESSON`, and the docstring naming it is wrapped to fit."""
    module = re.sub(r"\W", "_", name)
    doc = textwrap.fill(
        f"The numbers of the lesson `{name}`, recomputed here and compared with what its "
        f"slides show (`dist/{name}/values.json`, written by the build).",
        width=96,
        initial_indent='"""',
        break_long_words=False,
        break_on_hyphens=False,
    )
    return f'''{doc}

Run: `bash test.sh -k {module}`.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSON = "{name}"


@pytest.fixture(scope="module")
def build() -> subprocess.CompletedProcess:
    """The lesson built once (cells run unless cached), its slides' layout checked."""
    command = [sys.executable, str(ROOT / "build.py"), LESSON, "--no-pdf"]
    env = {{**os.environ, "DECK_LAYOUT_CHECK": "1"}}
    ran = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    return ran


@pytest.fixture(scope="module")
def values(build) -> dict:
    """The lesson's values record, as its build wrote it."""
    return json.loads((ROOT / "dist" / LESSON / "values.json").read_text("utf-8"))


def test_the_build_says_nothing_is_wrong(build):
    """No warning: a slide that overflows, a note without its minutes, a figure's text…"""
    warnings = [line for line in build.stderr.splitlines() if ": warning [" in line]
    assert warnings == []


def shown(values: dict, expr: str) -> str:
    (text,) = {{v["text"] for v in values["values"] if v["expr"] == expr}}
    return text


def test_the_largest_probability(values):
    scores = np.array([2.0, 1.0, 0.1])
    expected = np.exp(scores) / np.exp(scores).sum()  # softmax, written out again
    assert float(shown(values, 'f"{{p.max():.3f}}"')) == pytest.approx(expected.max(), abs=5e-4)
'''


# A slide's code block holds about 95 columns at the deck's code size (20 px DejaVu Sans Mono
# in 1168 px): ruff formats a lesson's code to fit it, not to the project's 100.
SLIDE_COLUMNS = 88


def ruff_config(folder: Path, root: Path) -> str:
    """The lesson's ruff.toml: the project's rules (when it has a pyproject.toml), with lines
    that fit a slide."""
    project = root / "pyproject.toml"
    extend, longest = "", 88  # (ruff's own default)
    if project.is_file():
        rel = os.path.relpath(project.resolve(), folder.resolve())
        extend = f'extend = "{Path(rel).as_posix()}"\n'
        try:
            settings = tomllib.loads(project.read_text("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            settings = {}
        longest = settings.get("tool", {}).get("ruff", {}).get("line-length", longest)
    return (
        "# ruff for this lesson: the project's rules; `ruff format` keeps code to the width of a\n"
        "# slide's code block (about 95 columns at the deck's code size), while comments and\n"
        "# docstrings may be as long as the project's lines.\n"
        f"{extend}line-length = {SLIDE_COLUMNS}\n\n"
        f"[lint.pycodestyle]\nmax-line-length = {max(longest, SLIDE_COLUMNS)}\n"
    )


COMMANDS = ("new", "docs")  # `build.py new` and `build.py docs`, never lessons


def new_lesson(name: str, content: Path, root: Path, lang: str = "en") -> list[Path]:
    """Write the lesson `content/<name>/` and its test `tests/lessons/test_<name>.py`; refuse
    to overwrite anything."""
    if not NAME.fullmatch(name):
        raise UsageError(f"lesson name {name!r}: letters, digits, -, _ and . only")
    if name in COMMANDS:
        raise UsageError(f"lesson name {name!r} is a build.py command: choose another name")
    if len(name) > LONGEST:
        raise UsageError(f"lesson name {name[:20]}…: at most {LONGEST} characters")
    folder = content / name
    test = root / "tests" / "lessons" / f"test_{re.sub(r'[^A-Za-z0-9_]', '_', name)}.py"
    for path in (folder, test):
        if path.exists():
            raise UsageError(f"{path} exists already: choose another name")
    written = []
    folder.mkdir(parents=True)
    for rel, text in lesson_files(name, lang).items():
        (folder / rel).write_text(text, "utf-8")
        written.append(folder / rel)
    (folder / "ruff.toml").write_text(ruff_config(folder, root), "utf-8")
    written.append(folder / "ruff.toml")
    test.parent.mkdir(parents=True, exist_ok=True)
    test.write_text(test_file(name), "utf-8")
    written.append(test)
    return written
