"""Widgets fed by build-time data: the directive and its errors (through the CLI), each kind's
data checks, and which cells produce a computed value (the provenance popover's data). The
built deck in Chromium is tests/browser/test_widgets.py."""

from __future__ import annotations

import json
import re

import numpy as np  # noqa: F401 - the data expressions below name it
import pytest

from catalogue import write_lesson
from deck.blocks.provenance import Bindings, shown_producers, used_names
from deck.blocks.widgetembed import DataProblem, checked_data, data_expression, directive_problem
from fixture_build import run_cli
from widget_lesson import (  # data_module: the `data` fixture
    KINDS,
    SUMMARIES,
    as_json,
    data_module,  # noqa: F401
    write_widget_lesson,
)

# ---- the directive and its errors, through the real CLI ---------------------------------------


def test_unknown_kind_missing_data_and_stray_attributes_are_errors_at_their_lines(tmp_path):
    md = """
        ## A

        ::: {.widget kind="sofmax" data="x"}
        :::

        ::: {.widget kind="attention-2x2"}
        :::

        ::: {.widget kind="head-ablation" data="x" height="3"}
        :::
        """
    write_widget_lesson(tmp_path, {"01-a.md": md}, name="bad")
    proc = run_cli(tmp_path, "bad", "--no-pdf")
    assert proc.returncode == 1
    known = "attention-2x2, attention-explorer, head-ablation, softmax-scaling"
    assert (
        f"content/bad/01-a.md:3: error [widget] unknown widget kind `sofmax` (known kinds: {known})"
        in proc.stderr
    )
    assert (
        'content/bad/01-a.md:6: error [widget] widget `attention-2x2` needs data="' in proc.stderr
    )
    assert "content/bad/01-a.md:9: error [widget] unknown widget attribute `height`" in proc.stderr


def test_data_of_the_wrong_shape_is_an_error_at_the_directive(tmp_path):
    md = """
        ## A

        ```{python}
        w = [[0.5, 0.5], [0.2, 0.8]]
        ```

        ::: {.widget kind="softmax-scaling" data='{"d_k": [4, 16, 64], "unscaled": w, "scaled": w}'}
        :::

        ::: {.widget kind="attention-2x2" data='{"Q": [[1, 2]], "K": [[1, 0], [0, 1]]}'}
        :::

        ::: {.widget kind="head-ablation" data='{"relations": ["a"], "num_heads": 1}'}
        :::
        """
    write_widget_lesson(tmp_path, {"01-a.md": md}, name="bad")
    proc = run_cli(tmp_path, "bad", "--no-pdf")
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.splitlines() if ": error [widget]" in line]
    assert errors == [
        'content/bad/01-a.md:7: error [widget] widget `softmax-scaling` (data={"d_k": [4, 16, '
        '64], "unscaled": w, "scaled": w}): `unscaled` has 2 rows (one per d_k), expected 3',
        'content/bad/01-a.md:10: error [widget] widget `attention-2x2` (data={"Q": [[1, 2]], '
        '"K": [[1, 0], [0, 1]]}): `Q` has 1 rows, expected 2',
        'content/bad/01-a.md:13: error [widget] widget `head-ablation` (data={"relations": '
        '["a"], "num_heads": 1}): the data has no key `full_accuracy`',
    ]


def test_data_that_is_not_json_is_an_error_at_the_directive(tmp_path):
    md = """
        ## A

        ```{python}
        import math
        I = [[1, 0], [0, 1]]
        ```

        ::: {.widget kind="attention-2x2" data='{"Q": [[math.nan, 0], [0, 1]], "K": I}'}
        :::
        """
    write_widget_lesson(tmp_path, {"01-a.md": md}, name="bad")
    proc = run_cli(tmp_path, "bad", "--no-pdf")
    assert proc.returncode == 1
    assert "content/bad/01-a.md:8: error [inline]" in proc.stderr
    assert "Out of range float values are not JSON compliant" in proc.stderr


def test_directive_checks():
    assert directive_problem({"kind": "attention-2x2", "data": "d"}, SUMMARIES) is None
    assert "known kinds: attention-2x2," in (directive_problem({"data": "d"}, SUMMARIES) or "")
    bare = directive_problem({"kind": "attention-2x2", "data": " "}, SUMMARIES) or ""
    assert "needs data=" in bare
    assert "known kinds: none" in (directive_problem({"kind": "x", "data": "d"}, {}) or "")


def test_data_expression_turns_arrays_into_json():
    value = eval(data_expression("{'a': np.arange(3), 'b': np.float32(0.5), 'c': (1, 2)}"))
    assert json.loads(value) == {"a": [0, 1, 2], "b": 0.5, "c": [1, 2]}
    with pytest.raises(ValueError):
        eval(data_expression("[float('inf')]"))


# ---- each kind's data ---------------------------------------------------------------------------


def test_every_kind_accepts_its_documented_data(data):
    scaling = checked_data(KINDS["softmax-scaling"], json.dumps(as_json(data.scaling())))
    assert scaling["d_k"] == [4, 16, 64, 256, 1024]
    explorer = checked_data(KINDS["attention-explorer"], json.dumps(as_json(data.explorer())))
    first = explorer["sentences"][0]["attention"][0][0][0]
    assert first == [round(w, 4) for w in data.explorer()["sentences"][0]["attention"][0, 0, 0]]
    exercise = {"Q": [[1, 0], [0, 1]], "K": [[1, 2], [3, 4]], "d_k": 4}
    assert checked_data(KINDS["attention-2x2"], json.dumps(exercise)) == exercise
    ablation = checked_data(KINDS["head-ablation"], json.dumps(data.ablation()))
    assert "losses" not in ablation and ablation["num_heads"] == 4
    assert set(KINDS) == {"softmax-scaling", "attention-explorer", "attention-2x2", "head-ablation"}


@pytest.mark.parametrize(
    ("kind", "change", "says"),
    [
        ("softmax-scaling", {"scaled": [[0.5, 0.6]] * 5}, "`scaled[0]` has 2 weights, expected 8"),
        ("softmax-scaling", {"initial": 5}, "`initial` is 5, not one of `d_k`"),
        ("softmax-scaling", {"extra": 1}, "unknown key `extra`"),
        ("attention-explorer", {"layer": 2}, "`layer` must be an index from 0 to 1"),
        ("attention-explorer", {"sentences": []}, "`sentences` is empty"),
        ("attention-2x2", {"d_k": 0}, "`d_k` is 0, outside"),
        ("attention-2x2", {"K": [[1, "2"], [3, 4]]}, '`K[0][1]` must be a number, not "2"'),
        ("head-ablation", {"num_heads": 3}, "`ablated_accuracy` has 4 rows (one per head)"),
        ("head-ablation", {"full_accuracy": [1.2, 1, 1]}, "`full_accuracy[0]` is 1.2, outside"),
        ("head-ablation", {"relation_names": {"previous": "前"}}, "has no key `next`"),
    ],
)
def test_bad_data_is_named_by_its_json_path(data, kind, change, says):
    good = {
        "softmax-scaling": data.scaling(),
        "attention-explorer": data.explorer(),
        "attention-2x2": {"Q": [[1, 0], [0, 1]], "K": [[1, 2], [3, 4]]},
        "head-ablation": data.ablation(),
    }[kind]
    with pytest.raises(DataProblem, match=re.escape(says)):
        checked_data(KINDS[kind], json.dumps(as_json({**good, **change})))


def test_attention_rows_must_be_softmax_weights(data):
    bad = as_json(data.explorer())
    bad["sentences"][1]["attention"][0][1][2][0] += 0.1
    with pytest.raises(DataProblem, match=re.escape("`sentences[1].attention[0][1][2]` adds up")):
        checked_data(KINDS["attention-explorer"], json.dumps(bad))


def test_sentences_must_share_layers_and_heads(data):
    bad = as_json(data.explorer())
    bad["sentences"][1]["attention"] = bad["sentences"][1]["attention"][:1]
    with pytest.raises(DataProblem, match="has 1 layers × 3 heads, but `sentences\\[0\\]` has 2"):
        checked_data(KINDS["attention-explorer"], json.dumps(bad))


@pytest.mark.parametrize(
    "items, says",
    [
        ([0.5, float("nan"), 0.25], "`w[1]` must be a number, not NaN"),
        ([0.5, 0.25, float("inf")], "`w[2]` must be a number, not Infinity"),
        ([0.5, True], "`w[1]` must be a number, not true"),
        ([0.5, "0.2"], '`w[1]` must be a number, not "0.2"'),
        ([0.5, -0.25, 0.75], "`w[1]` is -0.25, outside [0.0, 1.0]"),
        ([0.5, 1.5], "`w[1]` is 1.5, outside [0.0, 1.0]"),
        ([0, 2], "`w[1]` is 2, outside [0.0, 1.0]"),
    ],
)
def test_a_vector_names_its_first_bad_item(items, says):
    """The quick look over a list of floats and the item-by-item one agree: whatever the kind
    of the bad item, the error names it by its path."""
    from deck.widgetdata import vector

    with pytest.raises(DataProblem, match=re.escape(says)):
        vector(items, "w", None, low=0.0, high=1.0)
    assert vector([0.0, 0.5, 1.0], "w", 3, low=0.0, high=1.0) == [0.0, 0.5, 1.0]
    assert vector([0, 1, 0.5], "w", None, low=0.0, high=1.0) == [0, 1, 0.5]  # ints are numbers
    assert vector([], "w", None) == []


# ---- provenance -------------------------------------------------------------------------------


def test_producers_are_the_last_cells_binding_the_names_an_expression_reads(tmp_path):
    from deck.source.folder import load_lesson

    md = """
        ## A

        ```{python}
        import numpy as np
        x = np.ones(3)
        a = 5
        ```

        `{python} f"{x.sum():.1f}"` `{python} [a * 2 for a in range(2)]` `{python} np.pi`

        ```{python}
        x = x * 2
        ```
        """
    lesson = load_lesson(write_lesson(tmp_path, {"01-a.md": md}))
    section = lesson.sections[0]
    bindings = Bindings(section)
    # values are computed after every cell ran: the later `x = x * 2` is what the slide shows
    (later,) = shown_producers(bindings.producers(['f"{x.sum():.1f}"']))
    assert (later.cell.loc.line, [b.first for b in later.bindings]) == (11, [12])
    # a comprehension's own variable is not looked up in the cells
    assert used_names(["[a * 2 for a in range(2)]"]) == {"range"}
    assert bindings.producers(["[a * 2 for a in range(2)]"]) == []
    # a name only imported: the import is all there is to show
    (imported,) = shown_producers(bindings.producers(["np.pi"]))
    assert imported.imports_only and imported.line == 4
    # a quiz's answer source still stops at the quiz
    (early,) = bindings.producers(["x"], before=10)
    assert early.line == 5
