"""`build.py new NAME`: a new lesson folder that builds at once, showing each convention once
(a cell, an inline value, a figure with alt text, notes with minutes, a quiz whose answer is
computed, an exercise), and a test of its numbers against the build's `values.json`."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

from deck.options import UsageError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")

TEXT = {
    "en": {
        "title": "Softmax and temperature",
        "subtitle": "A first lesson",
        "intro": "Softmax turns scores into probabilities",
        "figure": "Temperature flattens or sharpens",
        "quiz": "Quick check",
        "alt": "Bar chart of softmax probabilities at temperatures 0.5, 1 and 2",
        "notes1": "2 min. Read the scores aloud, then the probabilities.",
        "notes2": "3 min. Lower temperature: sharper; higher: flatter.",
        "notes3": "2 min. Poll first (click each raised hand), then press A.",
        "question": "Which score gets the largest probability?",
        "explain": "Softmax keeps the order of the scores.",
        "exercise": "Exercise: what does the temperature do as it grows without bound?",
        "answer": "All probabilities approach 1/3: the distribution becomes uniform.",
        "largest": "The largest probability is",
    },
    "zh": {
        "title": "Softmax 与温度",
        "subtitle": "第一课",
        "intro": "Softmax 把分数变成概率",
        "figure": "温度让分布变平或变尖",
        "quiz": "小测验",
        "alt": "温度为 0.5、1、2 时 softmax 概率的柱状图",
        "notes1": "2 分钟。先读分数，再读概率。",
        "notes2": "3 分钟。温度低：更尖；温度高：更平。",
        "notes3": "2 分钟。先投票（每举一只手点一次），再按 A。",
        "question": "哪个分数得到的概率最大？",
        "explain": "Softmax 保持分数的大小顺序。",
        "exercise": "练习：温度趋于无穷大时，概率会怎样？",
        "answer": "三个概率都趋于 1/3：分布变成均匀分布。",
        "largest": "最大的概率是",
    },
}


def lesson_files(name: str, lang: str) -> dict[str, str]:
    t = TEXT["zh" if lang.lower().startswith("zh") else "en"]
    today = datetime.date.today().isoformat()
    return {
        "lesson.yml": f"""# This lesson's settings (see the README, "lesson.yml").
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
for k, temperature in enumerate([0.5, 1.0, 2.0]):
    ax.bar(np.arange(3) + 0.25 * k, softmax(scores, temperature), width=0.25,
           label=f"T = {{temperature}}")
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
    module = re.sub(r"\W", "_", name)
    return f'''"""The numbers of the lesson `{name}`, recomputed here and compared with what its
slides show (`dist/{name}/values.json`, written by the build). Run: `bash test.sh -k {module}`.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def values() -> dict:
    """The lesson built once (cells run unless cached) and its values record."""
    command = [sys.executable, str(ROOT / "build.py"), "{name}", "--no-pdf", "-q"]
    subprocess.run(command, cwd=ROOT, check=True)
    return json.loads((ROOT / "dist" / "{name}" / "values.json").read_text("utf-8"))


def shown(values: dict, expr: str) -> str:
    (text,) = {{v["text"] for v in values["values"] if v["expr"] == expr}}
    return text


def test_the_largest_probability(values):
    scores = np.array([2.0, 1.0, 0.1])
    expected = np.exp(scores) / np.exp(scores).sum()  # softmax, written out again
    assert float(shown(values, 'f"{{p.max():.3f}}"')) == pytest.approx(expected.max(), abs=5e-4)
'''


def new_lesson(name: str, content: Path, root: Path, lang: str = "en") -> list[Path]:
    """Write the lesson `content/<name>/` and its test `tests/lessons/test_<name>.py`; refuse
    to overwrite anything."""
    if not NAME.fullmatch(name):
        raise UsageError(f"lesson name {name!r}: letters, digits, -, _ and . only")
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
    test.parent.mkdir(parents=True, exist_ok=True)
    test.write_text(test_file(name), "utf-8")
    written.append(test)
    return written
