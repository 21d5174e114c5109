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

import encoder_demo
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
    "rnn_gradient_spread": basics.rnn_gradient_spread,
    "attention_cost": basics.attention_cost,
    "coreference_control": pre.coreference_control,
    "head_patterns": pre.head_patterns,
    "head_ablation": training.head_ablation,
    "head_ablation_8": lambda: training.head_ablation(num_heads=8),
    "residual_ablation": training.residual_ablation,
    "residual_at_initialisation": encoder_demo.residual_at_initialisation,
    "layernorm_comparison": training.layernorm_comparison,
    "pe_ablation": training.pe_ablation,
    "pe_extrapolation": training.pe_extrapolation,
}
# attention_timing measures wall-clock time: it is checked by its shape, not for identity.


def deterministic_part(name: str, result: dict) -> dict:
    """Everything except measurements of the running process (tracemalloc's peak memory)."""
    if name == "attention_cost":
        return {k: v for k, v in result.items() if k != "attention_peak_bytes"}
    return result


def run_all() -> dict:
    return {name: deterministic_part(name, fn()) for name, fn in EXPERIMENTS.items()}


class Results(dict):
    """Each experiment's result, run when a test first asks for it (a test of one experiment
    does not wait for the others)."""

    def __missing__(self, name: str) -> dict:
        self[name] = deterministic_part(name, EXPERIMENTS[name]())
        return self[name]


FRESH_PROCESS_SCRIPT = f"""
import json, sys
sys.path.insert(0, {os.path.abspath(LESSON_DIR)!r})
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
import test_lesson_code_experiments as t
print(json.dumps(t.run_all()))
"""


@pytest.fixture(scope="module")
def results() -> dict:
    return Results()


@pytest.mark.slow
def test_json_serialisable_and_identical_in_same_process(results):
    first = {name: results[name] for name in EXPERIMENTS}
    again = run_all()
    assert json.dumps(first, sort_keys=True) == json.dumps(again, sort_keys=True)


@pytest.mark.slow
def test_identical_in_fresh_process(results):
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONHASHSEED="12345")
    proc = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS_SCRIPT],
        capture_output=True, text=True, env=env, timeout=1200,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    fresh = json.loads(proc.stdout.strip().splitlines()[-1])
    assert fresh == json.loads(json.dumps({name: results[name] for name in EXPERIMENTS}))


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


@pytest.mark.slow  # (trains or differentiates for seconds: the suite's --all runs it)
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


@pytest.mark.slow  # (trains or differentiates for seconds: the suite's --all runs it)
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


@pytest.mark.slow  # (trains or differentiates for seconds: the suite's --all runs it)
def test_rnn_gradient_spread_is_the_ratio_of_each_seed(results):
    r = results["rnn_gradient_spread"]
    assert len(r["ratio"]) == len(r["seeds"]) >= 3
    for seed, ratio in zip(r["seeds"], r["ratio"], strict=True):
        g = basics.rnn_gradient_vs_distance(seed=seed)
        far = [i for i, d in enumerate(g["distance"]) if d >= r["min_distance"]]
        expected = np.mean([g["attention"][i] for i in far]) / np.mean([g["rnn"][i] for i in far])
        assert ratio == pytest.approx(expected, rel=1e-9)
    assert max(r["ratio"]) > 1.5 * min(r["ratio"])  # one seed's number is not the number


def matmul_flops(*shapes: tuple[int, int, int]) -> int:
    """(m, k, p) for each (m×k)·(k×p) product: m·p outputs of k multiply-adds, 2 operations each."""
    return sum(2 * m * k * p for m, k, p in shapes)


def single_head_attention_flops(n: int, d: int) -> int:
    """Counted from the products one attention head does on an n×d input, projections included
    (as the RNN's count includes its input projection x_t W_x)."""
    projections = [(n, d, d)] * 4  # X W_Q, X W_K, X W_V, and the output through W_O
    return matmul_flops(*projections, (n, d, n), (n, n, d))  # Q Kᵀ, then weights · V


def test_attention_cost(results):
    r = basics.attention_cost(ns=(64, 128, 256, 512))
    d = r["d"]
    assert r["score_matrix_bytes"] == [4 * n * n for n in r["n"]]
    assert r["attention_flops"] == [single_head_attention_flops(n, d) for n in r["n"]]
    assert r["rnn_flops"] == [4 * n * d * d for n in r["n"]]
    assert r["rnn_sequential_steps"] == r["n"]
    peaks = r["attention_peak_bytes"]
    assert all(p >= b for p, b in zip(peaks, r["score_matrix_bytes"], strict=True))
    assert peaks[-1] > 3 * peaks[-2]  # ~n^2


def test_attention_timing_shape():
    r = basics.attention_timing(ns=(16, 32), repeats=1)
    assert r["n"] == [16, 32] and r["cpu_count"] == os.cpu_count()
    assert all(t > 0 for t in r["attention_seconds"] + r["rnn_seconds"])


# ---------- pretrained attention ----------


def test_coreference_control(results):
    r = results["coreference_control"]
    original, control = r["tokens"]["original"], r["tokens"]["control"]
    assert original[-2:] == ["tired", "[SEP]"] and control[-2:] == ["wide", "[SEP]"]
    assert original[:-2] == control[:-2]
    assert original[r["query"]] == "it" and original[r["animal"]] == "animal"
    assert original[r["street"]] == "street"
    share = np.array(r["original"]["animal_share"])
    assert share.shape == (6, 12) and r["n_heads"] == 72
    for name in ("original", "control"):
        w = np.array(r[name]["weights"])
        assert w[r["query"], r["animal"]] == pytest.approx(r[name]["it_to_animal"])
        assert w[r["query"], r["street"]] == pytest.approx(r[name]["it_to_street"])
        assert np.allclose(w.sum(axis=1), 1, atol=1e-5)
    assert 0 <= r["right_in_both"] <= r["n_heads"]


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


@pytest.mark.slow  # (trains or differentiates for seconds: the suite's --all runs it)
def test_head_ablation(results):
    r = results["head_ablation"]
    assert min(r["full_accuracy"]) >= 0.9
    drop = np.array(r["drop"])
    assert drop.shape == (r["num_heads"], 3)
    # some head carries one relation: removing it costs that one ≥ 20 points, another < a third
    selective = [(row.max() >= 0.2 and row.min() < row.max() / 3) for row in drop]
    assert any(selective), drop
    assert np.mean(r["losses"][-20:]) < 0.25 * np.mean(r["losses"][:20])


@pytest.mark.slow  # (trains or differentiates for seconds: the suite's --all runs it)
def test_more_heads_than_relations_spreads_the_work(results):
    four, eight = (
        np.array(results["head_ablation"]["drop"]),
        np.array(results["head_ablation_8"]["drop"]),
    )
    assert eight.shape == (8, 3)
    assert min(results["head_ablation_8"]["full_accuracy"]) >= 0.9
    assert eight.max() < four.max()


@pytest.mark.slow  # (trains or differentiates for seconds: the suite's --all runs it)
def test_residual_ablation(results):
    r = results["residual_ablation"]
    assert len(r["loss_with_residual"]) == len(r["loss_without_residual"]) == r["steps"]
    assert r["final_with_residual"] < 0.25 * r["final_without_residual"]


@pytest.mark.slow  # (trains or differentiates for seconds: the suite's --all runs it)
def test_residual_at_initialisation(results):
    r = results["residual_at_initialisation"]
    for name in ("with_residual", "without_residual"):
        assert len(r[name]["similarity"]) == len(r["layer"]) == 7
        assert len(r[name]["attention_grad"]) == 6
    # the same input before the first layer
    assert r["with_residual"]["similarity"][0] == r["without_residual"]["similarity"][0]
    assert r["without_residual"]["similarity"][-1] > 0.99


def scripted_loss(bad_from: int, bad: float):
    """A batch maker and a loss for training.train: 1.0 until the `bad_from`-th batch, then
    `bad` (the model's output times 0, so the weights' gradient is 0 and the loss stays put)."""
    calls = []

    def batch(gen):
        calls.append(1)
        return (torch.ones(1, 1),)

    def loss(m, x):
        return m(x).sum() * 0 + (bad if len(calls) >= bad_from else 1.0)

    return batch, loss


def test_train_stops_when_the_loss_diverges():
    batch, loss = scripted_loss(3, float("nan"))
    losses = training.train(torch.nn.Linear(1, 1), batch, loss, steps=10, lr=0.1, seed=0)
    assert len(losses) == 2 and all(math.isfinite(v) for v in losses)


def test_train_stops_when_the_loss_explodes_without_becoming_nan():
    """A diverging run may sit near 1e10 for many steps before (or without) turning NaN; when
    it turns NaN depends on the machine's floating-point path. Above the limit is diverged."""
    model = torch.nn.Linear(1, 1)
    batch, loss = scripted_loss(4, 1e10)
    losses = training.train(model, batch, loss, steps=10, lr=0.1, seed=0, diverge_above=23.0)
    assert losses == [1.0, 1.0, 1.0]
    batch, loss = scripted_loss(4, 1e10)
    assert len(training.train(model, batch, loss, steps=10, lr=0.1, seed=0)) == 10  # no limit


@pytest.mark.slow  # (trains or differentiates for seconds: the suite's --all runs it)
def test_layernorm_comparison(results):
    r = results["layernorm_comparison"]
    assert r["variants"] == ["post_ln", "pre_ln", "no_ln"] and len(r["lrs"]) == 2
    limit = training.DIVERGE_FACTOR * math.log(training.VOCAB)
    for runs in r["runs"].values():
        for run in runs:
            assert all(math.isfinite(v) and v <= limit for v in run["losses"])
            if run["diverged_at"] is None:
                assert len(run["losses"]) == r["steps"]
                assert run["final"] == pytest.approx(np.mean(run["losses"][-20:]))
            else:
                assert run["final"] is None and len(run["losses"]) == run["diverged_at"] - 1


def test_pe_ablation(results):
    r = results["pe_ablation"]
    assert r["accuracy_with_pe"] >= 0.95
    assert abs(r["accuracy_without_pe"] - 0.5) <= 0.02
    assert r["pair_agreement_without_pe"] >= 0.98  # permutation invariance


def test_pe_extrapolation(results):
    r = results["pe_extrapolation"]
    assert r["train_len"] == training.SEQ_LEN < r["test_len"]
    assert r["accuracy_train"] >= 0.95 and r["accuracy_seen_positions"] >= 0.8
    assert r["accuracy_unseen_positions"] < 0.6


def test_order_batch_at_places_a_and_b_in_range():
    x, y = training.order_batch_at(torch.Generator().manual_seed(3), 500, 16, 8, 16)
    pos_a = (x == training.A).float().argmax(1)
    pos_b = (x == training.B).float().argmax(1)
    assert ((x == training.A).sum(1) == 1).all() and ((x == training.B).sum(1) == 1).all()
    assert (pos_a >= 8).all() and (pos_b >= 8).all() and (pos_a != pos_b).all()
    assert torch.equal(y, (pos_a < pos_b).long())


def test_swap_a_b_flips_label():
    x, y = training.order_batch(torch.Generator().manual_seed(5), 50)
    swapped = training.swap_a_b(x)
    first = (swapped == training.A).float().argmax(1) < (swapped == training.B).float().argmax(1)
    assert torch.equal(first.long(), 1 - y)
    assert torch.equal(swapped.sort(1).values, x.sort(1).values)
