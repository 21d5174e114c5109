"""Section 6 (quizzes): answers and distractors recomputed independently."""

from __future__ import annotations

import math

import pytest
import torch
from lesson_build import Built


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


def test_scaling_quiz_numbers_match_an_independent_simulation(lesson: Built):
    lesson = lesson.scoped("06")
    quiz = lesson.quiz("为什么除以")
    assert "softmax 不饱和" in quiz["answer_text"]
    gen = torch.Generator().manual_seed(99)
    q = torch.randn(20000, 64, generator=gen, dtype=torch.float64)
    k = torch.randn(20000, 64, generator=gen, dtype=torch.float64)
    dots = (q * k).sum(1)
    assert lesson.number('f"{raw:.1f}"') == pytest.approx(float(dots.var()), abs=4.0)
    assert lesson.number('f"{scaled:.2f}"') == pytest.approx(float((dots / 8).var()), abs=0.06)
    assert lesson.number('f"{over_dk:.3f}"') == pytest.approx(float((dots / 64).var()), abs=0.002)


def test_two_by_two_quiz_answer_and_mistakes(lesson: Built):
    lesson = lesson.scoped("06")
    Q, K = [[1.0, 2.0], [0.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]]
    KT = [list(col) for col in zip(*K, strict=True)]
    scale = 1 / math.sqrt(2)
    scaled = [[x * scale for x in row] for row in matmul(Q, KT)]
    right = softmax_rows(scaled)[0]
    no_scaling = softmax_rows(matmul(Q, KT))[0]
    columns = softmax_rows([list(c) for c in zip(*scaled, strict=True)])  # softmax down each column
    wrong_axis = [columns[j][0] for j in range(2)]
    no_transpose = softmax_rows([[x * scale for x in row] for row in matmul(Q, K)])[0]
    quiz = lesson.quiz("t1 的注意力权重")
    assert quiz["answer_text"] == text(right)
    assert sorted(quiz["choices"]) == sorted(
        map(text, [right, no_scaling, wrong_axis, no_transpose])
    )


def test_shape_quiz(lesson: Built):
    lesson = lesson.scoped("06")
    batch, n, d_model, h = 2, 10, 512, 8
    mha = torch.nn.MultiheadAttention(d_model, h, batch_first=True)
    assert mha.head_dim == d_model // h
    quiz = lesson.quiz("split_heads")
    assert quiz["answer_text"] == str((batch, h, n, mha.head_dim))
    assert str((batch, n, h, mha.head_dim)) in quiz["choices"]
