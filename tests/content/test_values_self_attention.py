"""Section 2 (self-attention): every number on its slides, recomputed independently.

The inputs (seeded random matrices, the exercise's Q and K) are rebuilt here; every result is
recomputed with PyTorch's own operators or a closed formula and compared with what the slides
show (read back from values.json, which mirrors the rendered HTML).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lesson_build import Built, rounded


@pytest.fixture
def lesson(lesson: Built) -> Built:
    """Inline values are looked up in this section only (item 22 of issue 7)."""
    return lesson.scoped("02")


@pytest.fixture(scope="module")
def example():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3, 4)).round(1)
    W_Q, W_K, W_V = (rng.normal(size=(4, 2)).round(1) for _ in range(3))  # d_k = 2 ≠ n = 3
    x = torch.tensor(X)
    q, k, v = x @ torch.tensor(W_Q), x @ torch.tensor(W_K), x @ torch.tensor(W_V)
    weights = torch.softmax(q @ k.T / math.sqrt(2), dim=-1)
    return {
        "X": X,
        "Q": q.numpy(),
        "scores": (q @ k.T).numpy() / math.sqrt(2),
        "weights": weights.numpy(),
        "output": F.scaled_dot_product_attention(q, k, v).numpy(),
    }


def close(shown: list[float], expected: np.ndarray, digits: int) -> None:
    assert len(shown) == expected.size
    assert np.abs(np.array(shown) - expected.ravel()).max() <= 0.5 * 10**-digits + 1e-12


def test_example_tables(lesson: Built, example):
    close(lesson.output_numbers("example-x"), example["X"], 1)
    close(lesson.output_numbers("example-q"), example["Q"], 2)
    close(lesson.output_numbers("example-scores"), example["scores"], 3)
    close(lesson.output_numbers("example-weights"), example["weights"], 3)
    close(lesson.output_numbers("example-output"), example["output"], 3)


def test_example_inline_values(lesson: Built, example):
    assert lesson.number('f"{np.sqrt(d_k):.3f}"') == rounded(math.sqrt(2), 3)
    with pytest.raises(ValueError) as caught:  # Q K without the transpose: (3, 2) @ (3, 2)
        np.ones((3, 2)) @ np.ones((3, 2))
    assert lesson.inline("shape_error") == str(caught.value)
    assert lesson.number('f"{scores[1, 2]:.3f}"') == rounded(float(example["scores"][1, 2]), 3)
    sums = lesson.inline('", ".join(f"{s:.6f}" for s in row_sums)')
    assert sums == "1.000000, 1.000000, 1.000000"
    assert (
        lesson.inline("tokens[int(weights[0].argmax())]")
        == ["The", "cat", "sat"][int(example["weights"][0].argmax())]
    )
    assert lesson.number('f"{error_torch:.1e}"') < 1e-12


def test_exercise_answer_is_the_closed_form(lesson: Built):
    Q = [[1, 2, 0], [0, 1, 1]]  # 2 tokens, d_k = 3: n ≠ d_k
    K = [[1, 0, 1], [1, 1, 0]]
    expected = []
    for q in Q:
        s = [sum(a * b for a, b in zip(q, k, strict=True)) / math.sqrt(3) for k in K]
        z = sum(math.exp(x) for x in s)
        expected.append([math.exp(x) / z for x in s])
    close(lesson.output_numbers("exercise-weights"), np.array(expected), 3)
    assert lesson.number("ex_dk") == 3 and lesson.number("ex_n") == 2
    with pytest.raises(ValueError) as caught:
        np.array(Q, dtype=float) @ np.array(K, dtype=float)
    assert lesson.inline("ex_error") == str(caught.value)


def test_mask_tables(lesson: Built):
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, 5, 4, generator=gen) for _ in range(3))
    keep = torch.tensor([True, True, True, False, False])
    scores = (q @ k.transpose(-2, -1) / 2.0).masked_fill(~keep, float("-inf"))
    close(lesson.output_numbers("padding-weights"), torch.softmax(scores, -1)[0, 0].numpy(), 2)
    causal = torch.ones(4, 4).tril().bool()
    s = (q[..., :4, :] @ k[..., :4, :].transpose(-2, -1) / 2.0).masked_fill(~causal, -math.inf)
    close(lesson.output_numbers("causal-weights"), torch.softmax(s, -1)[0, 0].numpy(), 2)


@pytest.fixture(scope="module")
def bert_attentions():
    from transformers import BertModel, BertTokenizer

    from pretrained import model_dir

    tokenizer = BertTokenizer.from_pretrained(str(model_dir()))
    model = BertModel.from_pretrained(str(model_dir()), attn_implementation="eager").eval()

    def run(sentence: str) -> tuple[list[str], np.ndarray]:
        encoded = tokenizer(sentence, return_tensors="pt")
        with torch.no_grad():
            att = model(**encoded, output_attentions=True).attentions
        tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
        return tokens, torch.stack([a[0] for a in att]).double().numpy()  # (L, H, n, n)

    return run


def test_coreference_control_matches_transformers_bert(lesson: Built, bert_attentions):
    tired, att_t = bert_attentions("The animal didn't cross the street because it was too tired")
    wide, att_w = bert_attentions("The animal didn't cross the street because it was too wide")
    it, animal, street = tired.index("it"), tired.index("animal"), tired.index("street")
    assert wide.index("it") == it and wide.index("street") == street
    layer, head = divmod(int(att_t[:, :, it, animal].argmax()), att_t.shape[1])
    assert lesson.inline("head_name") == f"第 {layer + 1} 层第 {head + 1} 个头"
    others = [i for i in range(1, len(tired) - 1) if i != it]
    rows = []
    for att in (att_t, att_w):
        w = att[layer, head]
        share = att[:, :, it, animal] / (att[:, :, it, animal] + att[:, :, it, street])
        rows.append([w[it, animal], w[it, street], w[others, animal].mean(), share.mean()])
    # row by row, the two sentences' values (labels hold only the integers of the head's name)
    values = [float(v) for v in re.findall(r"\d+\.\d+", lesson.output("it-control-table"))]
    expected = [rows[s][r] for r in range(4) for s in range(2)]
    assert values == [rounded(v, 2) for v in expected]
    # the control: with "it" = street the head still attends to animal, and so do other words
    assert rows[1][0] > 5 * rows[1][1]
    assert min(rows[0][2], rows[1][2]) > 4 / len(tired)
    right = (att_t[:, :, it, animal] > att_t[:, :, it, street]) & (
        att_w[:, :, it, street] > att_w[:, :, it, animal]
    )
    assert lesson.number('coref["right_in_both"]') == int(right.sum())
    # the weakest of the two correct weights: a head "right in both" is right in each
    weakest = np.minimum(att_t[:, :, it, animal], att_w[:, :, it, street])[right].max()
    assert lesson.number("f\"{endings['weakest_right'][0]:.2f}\"") == rounded(weakest, 2)
    assert lesson.number('coref["n_heads"]') == att_t.shape[0] * att_t.shape[1]


def test_the_head_moves_a_little_with_the_referent_over_many_endings(
    lesson: Built, bert_attentions
):
    from experiments_pretrained import ENDING_STEM, ENDINGS

    runs = {g: [bert_attentions(ENDING_STEM + w) for w in ws] for g, ws in ENDINGS.items()}
    tokens = runs["animal"][0][0]
    it, animal, street = tokens.index("it"), tokens.index("animal"), tokens.index("street")
    layer, head = divmod(int(runs["animal"][0][1][:, :, it, animal].argmax()), 12)
    others = [i for i in range(1, len(tokens) - 1) if i != it]
    heads = {
        g: [
            (
                a[layer, head, it, animal],
                a[layer, head, it, street],
                a[layer, head, others, animal].mean(),
            )
            for _, a in rs
        ]  # fmt: skip
        for g, rs in runs.items()
    }
    to_animal = {g: [v[0] for v in vs] for g, vs in heads.items()}
    # the groups never overlap, the head never turns to the street, the other rows overlap
    assert min(to_animal["animal"]) > max(to_animal["street"])
    assert min(to_animal["street"]) > 5 * max(v[1] for v in heads["street"])
    others_animal = [v[2] for v in heads["animal"]]
    others_street = [v[2] for v in heads["street"]]
    assert min(others_street) < max(others_animal)

    def span(values: list[float]) -> str:
        return f"{min(values):.2f}–{max(values):.2f}"

    text = lesson.output("it-endings-table")
    assert f"it → animal {span(to_animal['animal'])} {span(to_animal['street'])}" in text
    assert "其他 → animal" in text

    # heads that "flip" between two endings with the same referent: the null for the count
    def prefers_animal(a: np.ndarray) -> np.ndarray:
        return a[:, :, it, animal] > a[:, :, it, street]

    same = [
        int((prefers_animal(a) & ~prefers_animal(b)).sum())
        for rs in runs.values()
        for i, (_, a) in enumerate(rs)
        for j, (_, b) in enumerate(rs)
        if i != j
    ]
    assert lesson.number("min(flips_same)") == min(same)
    assert lesson.number("max(flips_same)") == max(same)
    assert min(same) <= lesson.number('coref["right_in_both"]') <= max(same)


def test_scaling_numbers_are_reproduced_by_an_independent_simulation(lesson: Built):
    """Monte Carlo with another seed and torch: agrees within sampling error."""
    gen = torch.Generator().manual_seed(1234)
    d_k, n_keys, n = 512, 16, 4000
    q = torch.randn(n, 1, d_k, generator=gen, dtype=torch.float64)
    k = torch.randn(n, n_keys, d_k, generator=gen, dtype=torch.float64)
    raw = (q * k).sum(-1)
    p = torch.softmax(raw, -1)
    assert lesson.number("f\"{sat['raw']['max_weight'][last]:.3f}\"") == pytest.approx(
        float(p.max(-1).values.mean()), abs=0.02
    )
    assert lesson.inline('sat["d_k"][last]') == str(d_k)
