"""Section 2 (self-attention): every number on its slides, recomputed independently.

The inputs (seeded random matrices, the exercise's Q and K) are rebuilt here; every result is
recomputed with PyTorch's own operators or a closed formula and compared with what the slides
show (read back from values.json, which mirrors the rendered HTML).
"""

from __future__ import annotations

import math

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
    W_Q, W_K, W_V = (rng.normal(size=(4, 3)).round(1) for _ in range(3))
    x = torch.tensor(X)
    q, k, v = x @ torch.tensor(W_Q), x @ torch.tensor(W_K), x @ torch.tensor(W_V)
    weights = torch.softmax(q @ k.T / math.sqrt(3), dim=-1)
    return {
        "X": X,
        "Q": q.numpy(),
        "scores": (q @ k.T).numpy() / math.sqrt(3),
        "weights": weights.numpy(),
        "output": F.scaled_dot_product_attention(q, k, v).numpy(),
    }


def close(shown: list[float], expected: np.ndarray, digits: int) -> None:
    assert len(shown) == expected.size
    assert np.abs(np.array(shown) - expected.ravel()).max() <= 0.5 * 10**-digits + 1e-12


def test_example_tables(lesson: Built, example):
    lesson = lesson.scoped("02")
    close(lesson.output_numbers("example-x"), example["X"], 1)
    close(lesson.output_numbers("example-q"), example["Q"], 2)
    close(lesson.output_numbers("example-scores"), example["scores"], 3)
    close(lesson.output_numbers("example-weights"), example["weights"], 3)
    close(lesson.output_numbers("example-output"), example["output"], 3)


def test_example_inline_values(lesson: Built, example):
    lesson = lesson.scoped("02")
    assert lesson.number('f"{np.sqrt(d_k):.3f}"') == rounded(math.sqrt(3), 3)
    assert lesson.number('f"{scores[1, 2]:.3f}"') == rounded(float(example["scores"][1, 2]), 3)
    sums = lesson.inline('", ".join(f"{s:.6f}" for s in row_sums)')
    assert sums == "1.000000, 1.000000, 1.000000"
    assert (
        lesson.inline("tokens[int(weights[0].argmax())]")
        == ["The", "cat", "sat"][int(example["weights"][0].argmax())]
    )
    assert lesson.number('f"{error_torch:.1e}"') < 1e-12


def test_exercise_answer_is_the_closed_form(lesson: Built):
    lesson = lesson.scoped("02")
    Q = np.array([[1.0, 2.0], [0.0, 1.0]])
    K = np.array([[1.0, 0.0], [1.0, 1.0]])
    expected = []
    for row in Q:
        s = [row @ k / math.sqrt(2) for k in K]
        z = sum(math.exp(x) for x in s)
        expected.append([math.exp(x) / z for x in s])
    close(lesson.output_numbers("exercise-weights"), np.array(expected), 3)


def test_mask_tables(lesson: Built):
    lesson = lesson.scoped("02")
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, 5, 4, generator=gen) for _ in range(3))
    keep = torch.tensor([True, True, True, False, False])
    scores = (q @ k.transpose(-2, -1) / 2.0).masked_fill(~keep, float("-inf"))
    close(lesson.output_numbers("padding-weights"), torch.softmax(scores, -1)[0, 0].numpy(), 2)
    causal = torch.ones(4, 4).tril().bool()
    s = (q[..., :4, :] @ k[..., :4, :].transpose(-2, -1) / 2.0).masked_fill(~causal, -math.inf)
    close(lesson.output_numbers("causal-weights"), torch.softmax(s, -1)[0, 0].numpy(), 2)


def test_it_animal_numbers_match_transformers_bert(lesson: Built):
    lesson = lesson.scoped("02")
    from transformers import BertModel, BertTokenizer

    from pretrained import model_dir

    tokenizer = BertTokenizer.from_pretrained(str(model_dir()))
    model = BertModel.from_pretrained(str(model_dir()), attn_implementation="eager").eval()
    sentence = "The animal didn't cross the street because it was too tired"
    encoded = tokenizer(sentence, return_tensors="pt")
    with torch.no_grad():
        attentions = model(**encoded, output_attentions=True).attentions
    tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
    it, animal, street = tokens.index("it"), tokens.index("animal"), tokens.index("street")
    to_animal = torch.stack([a[0, :, it, animal] for a in attentions])  # (layers, heads)
    to_street = torch.stack([a[0, :, it, street] for a in attentions])
    layer, head = divmod(int(to_animal.argmax()), to_animal.shape[1])
    assert lesson.number('top["layer"] + 1') == layer + 1
    assert lesson.number('top["head"] + 1') == head + 1
    assert lesson.number("f\"{top['to_animal']:.3f}\"") == rounded(float(to_animal[layer, head]), 3)
    assert lesson.number("f\"{top['to_street']:.3f}\"") == rounded(float(to_street[layer, head]), 3)
    assert lesson.number('it["heads_preferring_animal"]') == int((to_animal > to_street).sum())
    assert lesson.number("n_heads", "02") == to_animal.numel()


def test_scaling_numbers_are_reproduced_by_an_independent_simulation(lesson: Built):
    lesson = lesson.scoped("02")
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
