"""Section 7 (summary): every number on its slides, recomputed independently.

MiniLM's numbers come from config.json read here with json and from transformers' BertModel;
counts, bytes and fractions from closed formulas; the gradient experiment is rebuilt from its
seed with torch.nn.RNN and F.scaled_dot_product_attention. Trained and timed experiments are
checked by the properties they must have (chance level, n² memory growth, ...).
"""

from __future__ import annotations

import inspect
import json
import math
import re

import pytest
import torch
import torch.nn.functional as F

from experiments_basics import attention_cost
from lesson_build import Built, rounded


@pytest.fixture
def lesson(lesson: Built) -> Built:
    """Inline values are looked up in this section only (item 22 of issue 7)."""
    return lesson.scoped("07")


@pytest.fixture(scope="module")
def bert():
    from transformers import BertModel, BertTokenizer

    from pretrained import model_dir

    config = json.loads((model_dir() / "config.json").read_text())
    tokenizer = BertTokenizer.from_pretrained(str(model_dir()))
    model = BertModel.from_pretrained(
        str(model_dir()), attn_implementation="eager", add_pooling_layer=False
    ).eval()
    return config, tokenizer, model


def within(shown: float, expected: float, digits: int) -> bool:
    return abs(shown - expected) <= 0.5 * 10**-digits + 1e-12


# ---------- 组件的传承 ----------


def test_families_table(lesson: Built):
    text = lesson.output("sum-families")
    n = int(text.split("n = ")[1].split("）")[0])
    causal = torch.ones(n, n).tril()  # GPT：第 i 个位置看 0..i
    assert f"可见 {round(100 * float(causal.mean()))}%" in text
    assert f"可见 {round(100 * (n + 1) / (2 * n))}%" in text  # 下三角 n(n+1)/2 格
    assert f"224×224 图像 → {(224 // 16) ** 2} 个 patch" in text  # ViT-Base/16


def test_causal_mask_keeps_earlier_outputs_fixed(lesson: Built):
    assert lesson.inline('f"{change_causal:.1f}"') == "0.0"
    assert lesson.number('f"{change_bidirectional:.3f}"') > 1e-3
    # 同样的性质在 PyTorch 自己的编码器层上也成立
    gen = torch.Generator().manual_seed(3)
    layer = torch.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True).eval()
    x = torch.randn(1, 8, 16, generator=gen)
    y = x.clone()
    y[0, -1] = torch.randn(16, generator=gen)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(8)
    with torch.no_grad():
        assert torch.equal(layer(x, src_mask=causal)[0, :-1], layer(y, src_mask=causal)[0, :-1])
        assert (layer(x)[0, :-1] - layer(y)[0, :-1]).abs().max() > 1e-3


def test_minilm_numbers_from_config_and_transformers(lesson: Built, bert):
    config, _, model = bert
    assert lesson.inline('mini_config["architectures"][0]') == "BertModel"
    heads, d = config["num_attention_heads"], config["hidden_size"]
    assert lesson.number("mini_layers") == config["num_hidden_layers"]
    assert lesson.number("mini_heads") == heads
    assert lesson.number("mini_d") == d
    assert lesson.number("mini_d // mini_heads") == d // heads
    assert lesson.number("mini_ff") == config["intermediate_size"]
    total = sum(p.numel() for p in model.parameters())  # add_pooling_layer=False
    embeddings = sum(p.numel() for p in model.embeddings.parameters())
    layer = sum(p.numel() for p in model.encoder.layer[0].parameters())
    pooler = config["hidden_size"] ** 2 + config["hidden_size"]  # one dense layer on [CLS]
    assert lesson.number('f"{mini_params:,}"') == total
    assert lesson.number('f"{mini_params + mini_pooler:,}"') == total + pooler == 22_713_216
    shown = [
        int(x.replace(",", ""))
        for x in re.findall(r"\d{1,3}(?:,\d{3})+", lesson.output("sum-minilm"))
    ]
    layers = config["num_hidden_layers"]
    assert shown == [embeddings, layers * layer, total, pooler, total + pooler]
    assert total == embeddings + config["num_hidden_layers"] * layer


# ---------- 复杂度 ----------


def test_complexity_numbers(lesson: Built):
    import os

    n_min, n_max = lesson.number("cost_n[0]"), lesson.number("cost_n[-1]")
    assert lesson.inline("cpus") == str(os.cpu_count())
    assert lesson.number("(cost_n[-1] // cost_n[0]) ** 2") == (n_max / n_min) ** 2
    # 测得的峰值内存：n 放大 16 倍，内存接近 256 倍（n×n 矩阵占主导，小 n 时有固定开销）
    growth = lesson.number('f"{cost_peak[-1] / cost_peak[0]:.0f}"')
    assert 0.6 * (n_max / n_min) ** 2 < growth <= 1.05 * (n_max / n_min) ** 2
    assert 3.5 < lesson.number('f"{cost_peak[-1] / cost_peak[-2]:.1f}"') < 4.5
    assert lesson.number('cost["d"]') == inspect.signature(attention_cost).parameters["d"].default
    tokens = int(lesson.number('f"{book_tokens:,}"'))
    assert lesson.number('f"{book_gib:.1f}"') == rounded(
        tokens * tokens * 4 / 1024**3, 1
    )  # float32
    figures = {f["label"] for f in lesson.values["figures"]}
    assert {"sum-masks", "sum-cost", "sum-pe-loss"} <= figures


def test_head_count_does_not_change_parameters(lesson: Built):
    d_model = int(lesson.number('base["d_model"]'))
    heads = [int(h) for h in lesson.inline('"、".join(str(h) for h in head_choices)').split("、")]
    counts = {
        sum(p.numel() for p in torch.nn.MultiheadAttention(d_model, h).parameters()) for h in heads
    }
    assert counts == {4 * d_model * d_model + 4 * d_model}
    assert lesson.number('f"{mha_params[0]:,}"') == 4 * d_model * d_model + 4 * d_model


def test_question_hints(lesson: Built):
    k, n_far = lesson.number("k_conv"), lesson.number("n_far")
    assert lesson.number("conv_layers") == math.ceil(n_far / (k - 1))  # 感受野 1 + L(k−1) ≥ n_far+1
    n, w = int(lesson.number("n_long")), int(lesson.number("long_window"))
    h = w // 2
    visible = n * (2 * h + 1) - h * (h + 1)  # 带宽 h 的带状矩阵，减去两个角上被截掉的部分
    assert lesson.number('f"{long_band:.1%}"') == rounded(100 * visible / n**2, 1)
    assert lesson.number('f"{layer_error:.1e}"') < 1e-4


# ---------- 思考题一：去掉位置编码 ----------


def test_pe_ablation_table(lesson: Built):
    acc_with, agree_with, acc_without, agree_without = lesson.output_numbers("sum-pe-table")
    assert acc_without == 0.5 and agree_without == 1.0
    assert acc_with >= 0.95
    # 一对样本的标签相反：两条都答对就必然预测不同
    assert agree_with <= 2 * (1 - acc_with) + 1e-9
    assert lesson.inline("f\"{pe_run['chance']:.0%}\"") == "50%"
    assert lesson.inline("f\"{pe_run['accuracy_without_pe']:.0%}\"") == "50%"
    assert acc_with >= lesson.number('f"{pe_with_lo:.0%}"') / 100 - 0.005 >= 0.95 - 0.005


def test_without_positions_a_swap_cannot_change_the_prediction():
    """Why the slide's 50% is exact: encoder + mean pooling is permutation invariant."""
    gen = torch.Generator().manual_seed(7)
    embed = torch.nn.Embedding(12, 32)
    layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True).eval()
    x = torch.randint(2, 12, (64, 8), generator=gen)
    x[:, 1], x[:, 5] = 0, 1  # A 在 B 之前
    swapped = x.clone()
    swapped[:, 1], swapped[:, 5] = 1, 0  # B 在 A 之前
    with torch.no_grad():
        pooled = layer(embed(x)).mean(dim=1)
        pooled_swapped = layer(embed(swapped)).mean(dim=1)
    assert torch.allclose(pooled, pooled_swapped, atol=1e-5)


# ---------- 回到课程问题 ----------


def far_ratio_with_torch_rnn(seed: int, min_distance: int, gain: float = 1.0) -> float:
    """Rebuild one seed's inputs; Jacobians of torch.nn.RNN and F.scaled_dot_product_attention."""
    seq_len, d, hidden, n_trials = 40, 16, 32, 8
    gen = torch.Generator().manual_seed(seed)

    def randn(*shape):
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    W_x, W_h = randn(d, hidden) / math.sqrt(d), gain * randn(hidden, hidden) / math.sqrt(hidden)
    W_q, W_k, W_v = (randn(d, d) / math.sqrt(d) for _ in range(3))
    rnn = torch.nn.RNN(d, hidden, bias=False, dtype=torch.float64)
    with torch.no_grad():
        rnn.weight_ih_l0.copy_(W_x.T)
        rnn.weight_hh_l0.copy_(W_h.T)
    rnn_norm = torch.zeros(seq_len, dtype=torch.float64)
    att_norm = torch.zeros(seq_len, dtype=torch.float64)
    for _ in range(n_trials):
        x = randn(seq_len, d)
        J_rnn = torch.autograd.functional.jacobian(lambda x: rnn(x)[1][0], x)
        J_att = torch.autograd.functional.jacobian(
            lambda x: F.scaled_dot_product_attention(x @ W_q, x @ W_k, x @ W_v)[-1], x
        )
        rnn_norm += J_rnn.norm(dim=(0, 2)) / n_trials
        att_norm += J_att.norm(dim=(0, 2)) / n_trials
    return float(att_norm.flip(0)[min_distance:].mean() / rnn_norm.flip(0)[min_distance:].mean())


@pytest.mark.slow
def test_gradient_spread_with_torch_rnn(lesson: Built):
    """The range of ratios over seeds, recomputed; section 1 and the recap show the same range."""
    far = int(lesson.number('sum_spread["min_distance"]'))
    seeds = int(lesson.number('len(sum_spread["seeds"])'))
    ratios = [far_ratio_with_torch_rnn(seed, far) for seed in range(seeds)]
    for expr, value in (('f"{sum_lo:,.0f}"', min(ratios)), ('f"{sum_hi:,.0f}"', max(ratios))):
        assert lesson.number(expr) == pytest.approx(value, rel=1e-6, abs=0.5 + 1e-6)
    assert lesson.inline('f"{lo:,.0f}"', "01") == lesson.inline('f"{sum_lo:,.0f}"')
    assert lesson.inline('f"{hi:,.0f}"', "01") == lesson.inline('f"{sum_hi:,.0f}"')
    assert max(ratios) > 1.5 * min(ratios)  # a single seed's ratio would be false precision
    assert lesson.number("far_from", "01") == far
    # the ratio belongs to this initialisation: a larger W_h gives a few-fold ratio
    gain = lesson.number("gain", "01")
    gained = [far_ratio_with_torch_rnn(seed, far, gain) for seed in range(seeds)]
    assert max(gained) < 0.01 * min(ratios)
    for expr, value in (('f"{gain_lo:.1f}"', min(gained)), ('f"{gain_hi:.1f}"', max(gained))):
        assert lesson.number(expr, "01") == rounded(value, 1, 1e-3)


def test_background_cost_table(lesson: Built):
    import os
    import platform

    from lesson_build import NUMBER

    text = lesson.output("bg-cost-table")
    body = [float(x) for x in NUMBER.findall(text)]
    rows = [body[i : i + 6] for i in range(0, len(body), 6)]
    d = inspect.signature(attention_cost).parameters["d"].default
    for n, steps, one, flops, rnn_ms, att_ms in rows:
        assert steps == n and one == 1  # counted, not timed
        # attention: QKᵀ and weights·V (2·n²·d each) plus four n×d by d×d projections; the RNN:
        # x_t W_x and h W_h (2·d² each) per step. Both sides count their projections.
        assert flops == rounded((4 * n * n * d + 4 * 2 * n * d * d) / (n * 2 * (d * d + d * d)), 0)
        assert rnn_ms > 0 and att_ms > 0  # timed: no claim on the values
    assert lesson.inline("cpus", "01") == str(os.cpu_count())
    assert lesson.inline("machine", "01") == platform.machine()
    assert "构建这份幻灯片的机器" in lesson.html and "本机只有" not in lesson.html


def test_recap_lines(lesson: Built):
    n = lesson.number("cost_n[-1]")
    assert lesson.number('cost["rnn_sequential_steps"][-1]') == n
    d = inspect.signature(attention_cost).parameters["d"].default
    flops = "f\"{cost['attention_flops'][-1] / cost['rnn_flops'][-1]:.0f}\""
    assert lesson.number(flops) == rounded(n / d + 2, 0)  # projections counted on both sides
    assert lesson.number("f\"{perm_run['error_without_pe']:.0e}\"") < 1e-5
    # the residual line: section 5's measurement at initialisation, over the same seeds
    assert lesson.number('f"{sim_without:.3f}"') > 0.99 and lesson.number('f"{sim_with:.2f}"') < 0.7
    assert lesson.number('collapse["layer"][-1]') == lesson.number("n_enc", "05") == 6
    # "N 类模式" leaves out the classifier's catch-all ("混合")
    labels = [part.split(" ")[0] for part in lesson.inline("count_text", "04").split("，")]
    assert lesson.number("len(named_patterns)") == len([x for x in labels if x != "混合"])
    # the multi-head line quotes section 4's head patterns, not the it → animal head
    assert lesson.inline('sum_counts.get("cls", 0)') == lesson.inline(
        'patterns["counts"].get("cls", 0)', "04"
    )
    assert lesson.number('len(sum_heads["heads"])') == lesson.number("n_total", "04")
    recap = lesson.html[lesson.html.rindex("回到课程问题：注意力") :]
    assert "it → animal" not in recap and "一步并行" not in recap
