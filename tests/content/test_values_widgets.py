"""The lesson's widgets (issue 10 item 8): what each embeds, read back from the built page,
against an independent recomputation (PyTorch softmax, transformers' BertModel, the exercise's
own inputs) or the lesson function that feeds it."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lesson_build import Built

KINDS = {
    "softmax-scaling": "02",
    "attention-explorer": "02",
    "attention-2x2": "02",
    "head-ablation": "04",
}


def only(lesson: Built, kind: str) -> dict:
    (data,) = lesson.widgets(kind)
    return data


def test_widgets_listed_in_values_json(lesson: Built):
    records = lesson.values["widgets"]
    assert sorted(r["kind"] for r in records) == sorted(KINDS)
    for record in records:
        assert f"/{KINDS[record['kind']]}-" in record["loc"], record
    # one embedded data block per record, nothing else drawn
    assert sum(len(lesson.widgets(kind)) for kind in KINDS) == len(records)


def test_attention_2x2_starts_at_the_exercise(lesson: Built):
    from exercises import EXERCISE_K, EXERCISE_Q

    data = only(lesson, "attention-2x2")
    Q, K, d_k = torch.tensor(data["Q"]), torch.tensor(data["K"]), data["d_k"]
    assert d_k == EXERCISE_Q.shape[1]
    q, k = torch.tensor(EXERCISE_Q), torch.tensor(EXERCISE_K)
    # the widget's Q Kᵀ is the exercise's, so its softmax is the exercise's answer
    assert torch.allclose(Q @ K.T, (q @ k.T).float(), atol=1e-9)
    expected = torch.softmax(q @ k.T / math.sqrt(q.shape[1]), dim=-1)
    shown = torch.softmax(Q @ K.T / math.sqrt(d_k), dim=-1).double()
    assert torch.allclose(shown, expected, atol=1e-6)


def test_softmax_scaling_rows_are_softmax_of_fresh_draws(lesson: Built):
    from experiments_basics import D_KS, softmax_saturation

    data = only(lesson, "softmax-scaling")
    d_ks = data["d_k"]
    assert d_ks == list(D_KS[::2]) and len(d_ks) <= 6  # the paper draws six rows at most
    n = len(data["keys"])
    for name in ("unscaled", "scaled"):
        assert len(data[name]) == len(d_ks)
        for row in data[name]:
            assert len(row) == n and min(row) >= 0 and math.fsum(row) == pytest.approx(1, abs=1e-9)
    # replay the seeded draws (one query, n keys per d_k) and take torch's softmax
    rng = np.random.default_rng(0)
    for j, d_k in enumerate(d_ks):
        q = torch.tensor(rng.standard_normal(d_k))
        keys = torch.tensor(rng.standard_normal((n, d_k)))
        scores = keys @ q
        assert np.allclose(data["unscaled"][j], torch.softmax(scores, 0).numpy(), atol=1e-12)
        scaled = torch.softmax(scores / math.sqrt(d_k), 0).numpy()
        assert np.allclose(data["scaled"][j], scaled, atol=1e-12)
    # at the largest d_k the unscaled row is almost one-hot, the scaled one is not
    assert max(data["unscaled"][-1]) > 0.9 > max(data["scaled"][-1])
    # the stats are the measurement of the previous slide at the same d_k
    sat = softmax_saturation()
    at = [sat["d_k"].index(d) for d in d_ks]
    stats = {s["label"]: s for s in data["stats"]}
    for label, metric in (("平均最大权重", "max_weight"), ("平均熵（nats）", "entropy")):
        assert stats[label]["unscaled"] == pytest.approx([sat["raw"][metric][i] for i in at])
        assert stats[label]["scaled"] == pytest.approx([sat["scaled"][metric][i] for i in at])
    assert data["initial"] in d_ks


def test_attention_explorer_matches_transformers_bert(lesson: Built):
    from transformers import BertModel, BertTokenizer

    from pretrained import model_dir

    tokenizer = BertTokenizer.from_pretrained(str(model_dir()))
    model = BertModel.from_pretrained(str(model_dir()), attn_implementation="eager").eval()
    data = only(lesson, "attention-explorer")
    endings = ("tired", "wide")
    assert [s["name"].split("（")[0] for s in data["sentences"]] == [f"…too {w}" for w in endings]
    for sentence, last in zip(data["sentences"], endings, strict=True):
        encoded = tokenizer(
            f"The animal didn't cross the street because it was too {last}", return_tensors="pt"
        )
        with torch.no_grad():
            att = model(**encoded, output_attentions=True).attentions
        expected = torch.stack([a[0] for a in att]).numpy()  # (L, H, n, n)
        assert sentence["tokens"] == tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
        shown = np.array(sentence["attention"])
        assert shown.shape == expected.shape
        assert np.abs(shown - expected).max() <= 0.5e-4 + 1e-5  # embedded to 4 decimals
    # it opens on the head that gives "it" → "animal" the most weight in the first sentence
    tokens = data["sentences"][0]["tokens"]
    it, animal = tokens.index("it"), tokens.index("animal")
    first = np.array(data["sentences"][0]["attention"])
    layer, head = np.unravel_index(first[:, :, it, animal].argmax(), first.shape[:2])
    assert (data["layer"], data["head"], data["query"]) == (layer, head, it)


@pytest.mark.slow
def test_head_ablation_is_head_ablations_result(lesson: Built):
    from experiments_training import head_ablation

    data = only(lesson, "head-ablation")
    result = head_ablation()
    assert data["relations"] == list(result["relations"])
    assert data["num_heads"] == result["num_heads"]
    assert np.allclose(data["full_accuracy"], result["full_accuracy"], atol=1e-9)
    assert np.allclose(data["ablated_accuracy"], result["ablated_accuracy"], atol=1e-9)
    for shown, focus in zip(data["head_focus"], result["head_focus"], strict=True):
        assert shown == pytest.approx(focus)
    assert set(data["relation_names"]) == set(result["relations"])
    assert data["threshold"] == 0.05
    assert not {"losses", "drop", "specialist"} & set(data)  # not embedded
