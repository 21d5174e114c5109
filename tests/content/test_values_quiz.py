"""Section 6 (quizzes): answers and distractors recomputed independently."""

from __future__ import annotations

import math
import re

import pytest
import torch

from lesson_build import Built, rounded


@pytest.fixture
def lesson(lesson: Built) -> Built:
    """Inline values are looked up in this section only (item 22 of issue 7)."""
    return lesson.scoped("06")


def softmax_rows(rows: list[list[float]]) -> list[list[float]]:
    out = []
    for row in rows:
        z = sum(math.exp(x) for x in row)
        out.append([math.exp(x) / z for x in row])
    return out


def matmul(a, b):
    return [
        [sum(a[i][t] * b[t][j] for t in range(len(b))) for j in range(len(b[0]))]
        for i in range(len(a))
    ]


def text(row: list[float]) -> str:
    return "[" + ", ".join(f"{x:.3f}" for x in row) + "]"


def test_scaling_quiz_needs_the_reasoning(lesson: Built):
    quiz = lesson.quiz("标准差大约是多少")
    d_k = int(lesson.number("dk_quiz"))
    assert d_k == 256
    std = math.sqrt(d_k)
    assert quiz["answer_text"] == f"标准差约 {std:.0f}；softmax 接近 one-hot，梯度很小"
    assert f"标准差约 {d_k}；softmax 接近 one-hot，梯度很小" in quiz["choices"]  # var for std
    lengths = [len(c) for c in quiz["choices"]]
    assert max(lengths) < 1.5 * min(lengths)  # the right one does not stand out by its length
    # no reasoning given away before the question
    assert "方差会随之增大" not in lesson.html


@pytest.mark.slow
def test_scaling_quiz_quotes_its_experiment(lesson: Built):
    """The explanation's numbers are those of section 2's experiment (same function, same
    default seed), and an independent simulation with another seed agrees within sampling."""
    from experiments_basics import dot_product_variance, softmax_saturation

    var, sat = dot_product_variance(), softmax_saturation()
    i, j = var["d_k"].index(256), sat["d_k"].index(256)
    assert lesson.inline('f"{raw:.0f}"') == f"{var['var_raw'][i]:.0f}"
    assert lesson.inline('f"{raw_max:.2f}"') == f"{sat['raw']['max_weight'][j]:.2f}"
    gen = torch.Generator().manual_seed(99)
    q = torch.randn(20000, 256, generator=gen, dtype=torch.float64)
    k = torch.randn(20000, 256, generator=gen, dtype=torch.float64)
    dots = (q * k).sum(1)
    assert lesson.number('f"{raw:.0f}"') == pytest.approx(float(dots.var()), abs=12.0)
    assert lesson.number('f"{scaled:.2f}"') == pytest.approx(float((dots / 16).var()), abs=0.05)
    keys = torch.randn(2000, 16, 256, generator=gen, dtype=torch.float64)
    p = torch.softmax((q[:2000, None, :] * keys).sum(-1), dim=-1)
    shown_max = lesson.number('f"{raw_max:.2f}"')
    assert shown_max == pytest.approx(float(p.max(-1).values.mean()), abs=0.02)
    assert lesson.number('f"{uniform:.3f}"') == rounded(1 / 16, 3)


def test_two_by_two_quiz_answer_and_mistakes(lesson: Built):
    Q, K = [[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]], [[1.0, 1.0, 0.0], [0.0, 1.0, 2.0]]
    KT = [list(col) for col in zip(*K, strict=True)]
    scale = 1 / math.sqrt(3)
    scores = matmul(Q, KT)
    right = softmax_rows([[x * scale for x in row] for row in scores])[0]
    no_scaling = softmax_rows(scores)[0]
    over_d_k = softmax_rows([[x / 3 for x in row] for row in scores])[0]
    no_exp = [x / sum(scores[0]) for x in scores[0]]  # scores normalised without exp
    quiz = lesson.quiz("t1 的注意力权重")
    assert quiz["answer_text"] == text(right)
    assert sorted(quiz["choices"]) == sorted(map(text, [right, no_scaling, over_d_k, no_exp]))
    # nothing to rule out without computing: no uniform row, all lean the same way
    for row in (right, no_scaling, over_d_k, no_exp):
        assert abs(row[0] - 0.5) > 0.05 and row[0] < row[1]
    # the column softmax (section 2's promised mistake) is labelled in the explanation
    column = [
        math.exp(scores[0][j] * scale) / sum(math.exp(r[j] * scale) for r in scores)
        for j in range(2)
    ]
    assert text(column) in quiz["explanation"] and f"{sum(column):.3f}" in quiz["explanation"]
    assert "[0.500, 0.500]" not in quiz["choices"]
    for choice in quiz["choices"]:  # every distractor is a distribution too
        assert sum(float(x) for x in re.findall(r"\d\.\d+", choice)) == pytest.approx(1, abs=2e-3)
    assert text(right) in quiz["explanation"]
    assert "[1, 4]" in quiz["explanation"]  # QKᵀ's first row, the computation quoted


def test_shape_quiz(lesson: Built):
    batch, n, d_model, h = 4, 20, 768, 12
    mha = torch.nn.MultiheadAttention(d_model, h, batch_first=True)
    assert mha.head_dim == d_model // h
    quiz = lesson.quiz("split_heads")
    assert quiz["answer_text"] == str((batch, h, n, mha.head_dim))
    assert str((batch, n, h, mha.head_dim)) in quiz["choices"]
    assert lesson.number("batch") == batch and lesson.number("n") == n
