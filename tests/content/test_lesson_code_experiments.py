"""The lesson's experiments: deterministic (same process and fresh process) and with the documented
outcome. Expected values come from closed formulas or independent computations, never from the
experiment's own output.
"""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from torch.autograd.functional import jacobian

import experiments_basics as basics
import experiments_pretrained as pre
import experiments_training as training

LESSON_DIR = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "content", "transformer"
)

EXPERIMENTS = {
    "rnn_gradient_vs_distance": basics.rnn_gradient_vs_distance,
    "dot_product_variance": basics.dot_product_variance,
    "softmax_saturation": basics.softmax_saturation,
    "permutation_equivariance": basics.permutation_equivariance,
    "relative_position_check": basics.relative_position_check,
    "pe_similarity_vs_distance": basics.pe_similarity_vs_distance,
    "attention_cost": basics.attention_cost,
    "it_animal_attention": pre.it_animal_attention,
    "head_patterns": pre.head_patterns,
    "head_ablation": training.head_ablation,
    "residual_ablation": training.residual_ablation,
    "layernorm_activation_stats": training.layernorm_activation_stats,
    "pe_ablation": training.pe_ablation,
}


def deterministic_part(name: str, result: dict) -> dict:
    """Everything except wall-clock measurements."""
    if name == "attention_cost":
        return {k: v for k, v in result.items() if k != "measured"}
    return result


def run_all() -> dict:
    return {name: deterministic_part(name, fn()) for name, fn in EXPERIMENTS.items()}


FRESH_PROCESS_SCRIPT = f"""
import json, sys
sys.path.insert(0, {os.path.abspath(LESSON_DIR)!r})
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
import test_lesson_code_experiments as t
print(json.dumps(t.run_all()))
"""


@pytest.fixture(scope="module")
def results() -> dict:
    return run_all()


def test_json_serialisable_and_identical_in_same_process(results):
    again = run_all()
    assert json.dumps(results, sort_keys=True) == json.dumps(again, sort_keys=True)


def test_identical_in_fresh_process(results):
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONHASHSEED="12345")
    proc = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS_SCRIPT],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    fresh = json.loads(proc.stdout.strip().splitlines()[-1])
    assert fresh == json.loads(json.dumps(results))


def test_reproducible_restores_global_state():
    threads = torch.get_num_threads()
    torch.manual_seed(7)
    expected = torch.rand(3)
    torch.manual_seed(7)
    with training.reproducible(0):
        torch.rand(100)
    assert torch.equal(torch.rand(3), expected)
    assert torch.get_num_threads() == threads


# ---------- section 1: gradients through an RNN vs attention ----------


def test_rnn_jacobian_matches_hand_derivative():
    """1-D RNN h_t = tanh(w_x x_t + w_h h_{t-1}).

    dh_T/dx_t = w_x (1 - h_t^2) prod_{s>t} w_h (1 - h_s^2).
    """
    w_x, w_h = 0.7, 0.9
    x = torch.tensor([[0.3], [-1.2], [0.5], [2.0], [-0.4]], dtype=torch.float64)
    W_x, W_h = (
        torch.tensor([[w_x]], dtype=torch.float64),
        torch.tensor([[w_h]], dtype=torch.float64),
    )
    hs, h = [], 0.0
    for x_t in x[:, 0].tolist():
        h = math.tanh(w_x * x_t + w_h * h)
        hs.append(h)
    expected = []
    for t in range(len(hs)):
        g = w_x * (1 - hs[t] ** 2)
        for s in range(t + 1, len(hs)):
            g *= w_h * (1 - hs[s] ** 2)
        expected.append(g)
    J = jacobian(lambda x: basics.rnn_last_state(x, W_x, W_h), x)[0, :, 0]
    assert np.allclose(J.numpy(), expected, atol=1e-12)


def test_rnn_gradient_decays_attention_does_not(results):
    r = results["rnn_gradient_vs_distance"]
    rnn, att = np.array(r["rnn"]), np.array(r["attention"])
    assert r["distance"] == list(range(len(rnn)))
    assert rnn[-1] < 1e-3 * rnn[0]  # exponential decay with distance
    assert all(rnn[i + 5] < rnn[i] for i in range(len(rnn) - 5))
    far, near = att[len(att) // 2 :], att[1 : len(att) // 2]
    assert far.mean() > 0.3 * near.mean()  # no systematic decay for attention
    assert att[-1] > 100 * rnn[-1]


# ---------- section 2: why 1/sqrt(d_k) ----------


def test_dot_product_variance_grows_like_d_k(results):
    r = results["dot_product_variance"]
    for d_k, raw, scaled in zip(r["d_k"], r["var_raw"], r["var_scaled"], strict=True):
        if d_k >= 8:
            assert abs(raw / d_k - 1) < 0.1, d_k
        assert abs(scaled - 1) < 0.1, d_k


def test_softmax_jacobian_matches_autograd():
    rng = np.random.default_rng(3)
    s = rng.standard_normal(6)
    p = basics.softmax(s)
    J_ref = jacobian(lambda z: torch.softmax(z, dim=0), torch.tensor(s))
    assert np.allclose(basics.softmax_jacobian(p), J_ref.numpy(), atol=1e-12)


def test_softmax_saturates_without_scaling(results):
    r = results["softmax_saturation"]
    raw, scaled = r["raw"], r["scaled"]
    assert r["uniform_entropy"] == pytest.approx(math.log(r["n_keys"]))
    assert all(a < b for a, b in zip(raw["max_weight"][:-1], raw["max_weight"][1:], strict=True))
    assert raw["max_weight"][-1] > 0.9 and raw["entropy"][-1] < 0.1 * r["uniform_entropy"]
    assert max(scaled["max_weight"]) - min(scaled["max_weight"]) < 0.1
    assert min(scaled["entropy"]) > 0.8 * r["uniform_entropy"]
    assert raw["grad_norm"][-1] < 0.3 * scaled["grad_norm"][-1]


# ---------- section 3: positions ----------


def test_permutation_equivariance(results):
    r = results["permutation_equivariance"]
    assert sorted(r["permutation"]) == list(range(len(r["permutation"])))
    assert r["permutation"] != sorted(r["permutation"])
    assert r["error_without_pe"] < 1e-5
    assert r["error_with_pe"] > 1e-2


def test_relative_position(results):
    r = results["relative_position_check"]
    assert max(r["max_error"]) < 1e-5 and max(r["orthogonality_error"]) < 1e-10


def test_pe_similarity_closed_form(results):
    r = results["pe_similarity_vs_distance"]
    d_model = 64
    w = [1 / 10000 ** (2 * i / d_model) for i in range(d_model // 2)]
    for k, sim, cos in zip(r["distance"], r["similarity"], r["cosine"], strict=True):
        expected = sum(math.cos(k * wi) for wi in w)  # PE(p)·PE(p+k) = sum_i cos(k w_i)
        assert sim == pytest.approx(expected, abs=1e-9)
        assert cos == pytest.approx(expected / (d_model / 2), abs=1e-9)
    assert max(r["spread"]) < 1e-9


def test_attention_cost(results):
    r = basics.attention_cost(ns=(64, 128, 256, 512))
    d = r["d"]
    assert r["score_matrix_bytes"] == [4 * n * n for n in r["n"]]
    assert r["attention_flops"] == [4 * n * n * d for n in r["n"]]
    assert r["rnn_sequential_steps"] == r["n"]
    m = r["measured"]
    assert all(t > 0 for t in m["attention_seconds"] + m["rnn_seconds"])
    peaks = m["attention_peak_bytes"]
    assert all(p >= b for p, b in zip(peaks, r["score_matrix_bytes"], strict=True))
    assert m["attention_peak_bytes"][-1] > 3 * m["attention_peak_bytes"][-2]  # ~n^2


# ---------- pretrained attention ----------


def test_it_animal_attention(results):
    r = results["it_animal_attention"]
    tokens = r["tokens"]
    assert tokens[r["query"]] == "it"
    to_animal = np.array(r["to_animal"])
    assert to_animal.shape == (6, 12)
    top = r["top"]
    assert to_animal[top["layer"], top["head"]] == to_animal.max()
    matrix = np.array(r["top_head_weights"])
    assert matrix[r["query"], tokens.index("animal")] == pytest.approx(top["to_animal"])
    assert top["to_animal"] > top["to_street"]


def test_head_statistics_on_hand_made_patterns():
    n = 6
    shift = np.zeros((n, n))
    shift[0, 0] = 1
    for i in range(1, n):
        shift[i, i - 1] = 1
    stats = pre.head_statistics(shift)
    assert stats["previous"] == 1 and stats["next"] == 0 and pre.classify_head(stats) == "previous"
    uniform = np.full((n, n), 1 / n)
    stats = pre.head_statistics(uniform)
    assert stats["entropy"] == pytest.approx(1.0) and pre.classify_head(stats) == "broad"
    to_cls = np.zeros((n, n))
    to_cls[:, 0] = 1
    assert pre.classify_head(pre.head_statistics(to_cls)) == "cls"


def test_head_patterns(results):
    r = results["head_patterns"]
    assert len(r["heads"]) == 72 and sum(r["counts"].values()) == 72
    assert set(r["counts"]) == set(r["examples"])
    for head in r["heads"]:
        assert head["label"] == pre.classify_head(head)
    assert len(r["counts"]) >= 3  # heads do different things


# ---------- trained ablations ----------


def test_head_ablation(results):
    r = results["head_ablation"]
    assert min(r["full_accuracy"]) >= 0.95
    drop = np.array(r["drop"])
    assert drop.shape == (r["num_heads"], 3)
    selective = [(row.max() >= 0.3 and row.min() <= 0.05) for row in drop]
    assert any(selective), drop
    assert np.mean(r["losses"][-20:]) < 0.25 * np.mean(r["losses"][:20])


def test_residual_ablation(results):
    r = results["residual_ablation"]
    assert len(r["loss_with_residual"]) == len(r["loss_without_residual"]) == r["steps"]
    assert r["final_with_residual"] < 0.25 * r["final_without_residual"]


def test_layernorm_activation_stats(results):
    r = results["layernorm_activation_stats"]
    with_ln, without_ln = r["with_layer_norm"], r["without_layer_norm"]
    # Post-LN output with gamma=1, beta=0: zero mean and unit variance per token
    assert all(abs(s - 1) < 1e-3 for s in with_ln["std"])
    assert all(abs(m) < 1e-5 for m in with_ln["mean"])
    assert without_ln["std"][-1] > 1.3 * without_ln["std"][0]


def test_pe_ablation(results):
    r = results["pe_ablation"]
    assert r["accuracy_with_pe"] >= 0.95
    assert abs(r["accuracy_without_pe"] - 0.5) <= 0.02
    assert r["pair_agreement_without_pe"] >= 0.98  # permutation invariance


def test_swap_a_b_flips_label():
    x, y = training.order_batch(torch.Generator().manual_seed(5), 50)
    swapped = training.swap_a_b(x)
    first = (swapped == training.A).float().argmax(1) < (swapped == training.B).float().argmax(1)
    assert torch.equal(first.long(), 1 - y)
    assert torch.equal(swapped.sort(1).values, x.sort(1).values)
