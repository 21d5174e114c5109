"""The lesson the widget tests build: it defines the Transformer lesson's widget kinds and
shows one of each, fed by a small NumPy stand-in for the lesson's measurements (`DATA_PY`)."""

from __future__ import annotations

import importlib.util
import json
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from catalogue import write_lesson
from deck.blocks.widgetembed import data_expression
from deck.model import Loc, WidgetSource
from deck.source.widgetkinds import load_widget_kinds
from fixture_build import ROOT

DATA_PY = '''
    """Small stand-ins for a lesson's measurements (NumPy only, seeded)."""

    import numpy as np


    def softmax(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


    def scaling(d_ks=(4, 16, 64, 256, 1024), n_keys=8, seed=0):
        rng = np.random.default_rng(seed)
        raw, scaled = [], []
        for d_k in d_ks:
            s = rng.standard_normal((n_keys, d_k)) @ rng.standard_normal(d_k)
            raw.append(softmax(s))
            scaled.append(softmax(s / np.sqrt(d_k)))
        return {
            "d_k": list(d_ks),
            "unscaled": np.array(raw),
            "scaled": np.array(scaled),
            "stats": [
                {
                    "label": "最大权重",
                    "unscaled": [float(r.max()) for r in raw],
                    "scaled": [float(r.max()) for r in scaled],
                }
            ],
        }


    def explorer(seed=0):
        rng = np.random.default_rng(seed)
        sentences = []
        for name, text in (
            ("猫", "[CLS] the cat sat on the mat [SEP]"),
            ("对照", "[CLS] it was tired [SEP]"),
        ):
            tokens = text.split()
            n = len(tokens)
            attention = softmax(3 * rng.standard_normal((2, 3, n, n)))  # 2 layers, 3 heads
            sentences.append({"name": name, "tokens": tokens, "attention": attention})
        return {"sentences": sentences, "layer": 1, "head": 2}


    def ablation():
        """The shape of experiments_training.head_ablation()'s result."""
        return {
            "relations": ["previous", "next", "first"],
            "num_heads": 4,
            "losses": [2.0, 1.0, 0.5],
            "full_accuracy": [0.99, 0.98, 1.0],
            "ablated_accuracy": [
                [0.40, 0.97, 1.0],
                [0.98, 0.35, 0.99],
                [0.98, 0.97, 0.30],
                [0.90, 0.98, 1.0],
            ],
            "drop": [[0.59, 0.01, 0.0], [0.01, 0.63, 0.01], [0.01, 0.01, 0.7], [0.09, 0.0, 0.0]],
            "head_focus": [
                {"previous": 0.9, "next": 0.02, "first": 0.03},
                {"previous": 0.01, "next": 0.88, "first": 0.05},
                {"previous": 0.02, "next": 0.03, "first": 0.91},
                {"previous": 0.4, "next": 0.3, "first": 0.1},
            ],
            "specialist": {"previous": 0, "next": 1, "first": 2},
        }
'''

SECTION = r"""
    ## 数值从哪里来

    ```{python}
    import numpy as np
    from data import ablation, explorer, scaling, softmax

    answer = 3 ** 2
    scores = np.array([1.0, 2.0, 3.0])
    weights = softmax(scores)
    ```

    最大权重 `{python} f"{weights.max():.3f}"`，平方 `{python} answer`，公式 $w=`{python} answer`$。

    ::: quiz
    $3^2$ 等于 `{python} answer` 吗？选出它：

    - [ ] `{python} 3 * 2`
    - [x] `{python} answer`
    - [ ] `{python} 3 + 2`
    :::

    ::: notes
    1 分钟。答案是 `{python} answer`。
    :::

    ## 缩放

    ```{python}
    scaling_data = scaling()
    ```

    ::: {.widget kind="softmax-scaling" data="scaling_data"}
    后备：d_k 越大，不缩放的 softmax 越尖。
    :::

    ## 注意力浏览器

    ```{python}
    explorer_data = explorer()
    ```

    ::: {.widget kind="attention-explorer" data="explorer_data"}
    :::

    ## 2×2 练习

    ::: {.widget kind="attention-2x2" data='{"Q": [[1, 0], [0, 1]], "K": [[1, 2], [3, 4]]}'}
    :::

    ## 关掉头

    ```{python}
    names = {"previous": "前一个词", "next": "后一个词", "first": "第一个词"}
    ablation_data = dict(ablation(), relation_names=names)
    ```

    ::: {.widget kind="head-ablation" data="ablation_data"}
    :::

    ## 一张图

    ```{python}
    #| label: line
    #| fig-alt: 一条直线，斜率 `{python} answer`
    #| fig-cap: 斜率 `{python} answer`
    import matplotlib.pyplot as plt

    plt.figure(figsize=(4, 2))
    _ = plt.plot([0, 1], [0, answer])
    ```
"""
VALUES, SCALING, EXPLORER, EXERCISE, ABLATION, FIGURE = range(6)  # slide indices
# The Transformer lesson's widget kinds, which these tests check (the engine defines none).
LESSON_DIR = ROOT / "content" / "transformer"
KIND_NAMES = ("softmax-scaling", "attention-explorer", "attention-2x2", "head-ablation")
LESSON_YML = "title: 组件\nlang: zh-CN\nwidgets:\n" + "".join(
    f"  - widgets/{k}\n" for k in KIND_NAMES
)
WIDGET_FILES = {  # bytes: written as they are
    f"widgets/{k}{suffix}": (LESSON_DIR / "widgets" / f"{k}{suffix}").read_bytes()
    for k in KIND_NAMES
    for suffix in (".py", ".js")
}
KINDS = {
    kind.name: kind
    for kind in load_widget_kinds(
        LESSON_DIR, tuple(WidgetSource(f"widgets/{k}", Loc("lesson.yml", 1)) for k in KIND_NAMES)
    )[0]
}
SUMMARIES = {name: kind.summary for name, kind in KINDS.items()}


def write_widget_lesson(root: Path, files: dict[str, str], name: str) -> Path:
    """A lesson that defines the Transformer lesson's widget kinds, holding `files`."""
    return write_lesson(root, {"lesson.yml": LESSON_YML, **WIDGET_FILES, **files}, name=name)


def source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of `text` containing `needle`."""
    return next(k for k, line in enumerate(text.splitlines(), 1) if needle in line)


def as_json(value: object) -> object:
    """`value` as the worker hands a widget's data over."""
    return json.loads(eval(data_expression("value")))


@pytest.fixture(scope="module", name="data")
def data_module(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The fixture lesson's data module, imported here: the numbers widgets must show."""
    path = tmp_path_factory.mktemp("data") / "widget_data.py"
    path.write_text(source(DATA_PY), "utf-8")
    spec = importlib.util.spec_from_file_location("widget_data", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
