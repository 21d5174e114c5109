"""Section 5 (encoder): every number on its slides, recomputed independently.

Shapes and parameter counts come from PyTorch's own nn.TransformerEncoderLayer /
nn.TransformerEncoder (counted on the meta device, nothing allocated) and the closed formula;
the MiniLM numbers from the `transformers` BertModel loaded from the same files; the
experiments' statistics from a second forward pass written here with nn.MultiheadAttention and
F.layer_norm on the experiments' weights. The trained residual ablation is checked by its
properties, not copied.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from lesson_build import NUMBER, Built, rounded
from torch import nn


@pytest.fixture
def lesson(lesson: Built) -> Built:
    """Inline values are looked up in this section only (item 22 of issue 7)."""
    return lesson.scoped("05")


# The paper's configurations (Vaswani et al. 2017, Table 3): inputs, not results.
PAPER = {"base": (6, 512, 8, 2048), "large": (6, 1024, 16, 4096)}
SENTENCES = [
    "the bank of the river was muddy",
    "the bank raised interest rates",
    "the bank approved the loan",
]


def numbers(text: str) -> list[float]:
    """Numbers in a slide's text, with thousands separators removed."""
    return [float(x) for x in NUMBER.findall(re.sub(r"(?<=\d),(?=\d{3})", "", text))]


def count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def torch_layer(d_model: int, heads: int, d_ff: int) -> nn.TransformerEncoderLayer:
    with torch.device("meta"):
        return nn.TransformerEncoderLayer(d_model, heads, d_ff, batch_first=True)


def torch_encoder(num_layers: int, d_model: int, heads: int, d_ff: int) -> nn.TransformerEncoder:
    with torch.device("meta"):
        layer = nn.TransformerEncoderLayer(d_model, heads, d_ff, batch_first=True)
        return nn.TransformerEncoder(layer, num_layers, enable_nested_tensor=False)


def breakdown(layer: nn.TransformerEncoderLayer) -> dict[str, int]:
    return {
        "attention": count(layer.self_attn),
        "ffn": count(layer.linear1) + count(layer.linear2),
        "layer_norm": count(layer.norm1) + count(layer.norm2),
        "total": count(layer),
    }


def formula(d: int, d_ff: int) -> int:
    """4d² + 4d (attention) + 2·d·d_ff + d_ff + d (FFN) + 2·2d (two LayerNorms)."""
    return 4 * d * d + 4 * d + 2 * d * d_ff + d_ff + d + 4 * d


# ---------- data flow and code ----------


def shape(t: torch.Tensor) -> str:
    return "(" + ", ".join(str(s) for s in t.shape) + ")"


def test_data_flow_shapes_match_pytorch_layer(lesson: Built):
    n_layers, d, heads, d_ff = PAPER["base"]
    assert lesson.number("N") == n_layers
    layer = nn.TransformerEncoderLayer(d, heads, d_ff, dropout=0.0, batch_first=True)
    seen = {}
    for name in ("self_attn", "norm1", "linear1", "linear2", "norm2"):
        layer.get_submodule(name).register_forward_hook(
            lambda m, i, out, name=name: seen.__setitem__(name, out)
        )
    x = torch.randn(2, 10, d)  # the slide's batch: 2 sentences of 10 tokens
    y = layer(x)  # training mode with grad: the module-by-module path, so the hooks fire
    _, weights = layer.self_attn(x, x, x, average_attn_weights=False)
    assert lesson.inline("shape(x)") == shape(x)
    assert lesson.inline('shape(seen["self_attn"][0])') == shape(seen["self_attn"][0])
    assert lesson.inline('shape(seen["norm1"])') == shape(seen["norm1"])
    assert lesson.inline('shape(seen["ffn.linear1"])') == shape(seen["linear1"])
    assert lesson.inline('shape(seen["ffn"])') == shape(seen["linear2"])
    assert lesson.inline('shape(seen["norm2"])') == shape(seen["norm2"])
    assert lesson.inline("shape(y)") == shape(y)
    assert lesson.inline("shape(attn_weights)") == shape(weights)


def test_equivalence_with_pytorch(lesson: Built):
    assert lesson.number('f"{layer_error:.1e}"') < 1e-5
    assert lesson.number('f"{encoder_error:.1e}"') < 1e-5
    n_layers, d, heads, d_ff = PAPER["base"]
    expected = count(torch_encoder(n_layers, d, heads, d_ff))
    assert expected == n_layers * formula(d, d_ff)
    assert lesson.number('f"{count_parameters(our_encoder):,}"') == expected


# ---------- parameters ----------


def test_paper_parameter_table(lesson: Built):
    columns = []
    for n_layers, d, heads, d_ff in PAPER.values():
        parts = breakdown(torch_layer(d, heads, d_ff))
        assert parts["total"] == formula(d, d_ff)
        encoder = count(torch_encoder(n_layers, d, heads, d_ff))
        columns.append(
            [d, heads, d // heads, d_ff, n_layers]
            + [parts["attention"], parts["ffn"], parts["layer_norm"], parts["total"], encoder]
        )
    expected = [value for row in zip(*columns, strict=True) for value in row]  # row by row
    assert numbers(lesson.output("enc-param-table")) == expected


def test_parameter_shares_and_growth(lesson: Built):
    n_layers, d, heads, d_ff = PAPER["base"]
    parts = breakdown(torch_layer(d, heads, d_ff))
    ffn_share = round(100 * parts["ffn"] / parts["total"])
    attention_share = round(100 * parts["attention"] / parts["total"])
    assert lesson.inline('f"{ffn_share:.0%}"') == f"{ffn_share}%"
    assert lesson.inline("f\"{base['attention_per_layer'] / base['per_layer']:.0%}\"") == (
        f"{attention_share}%"
    )
    n_large, d_large, h_large, f_large = PAPER["large"]
    ratio = count(torch_encoder(n_large, d_large, h_large, f_large)) / count(
        torch_encoder(n_layers, d, heads, d_ff)
    )
    assert lesson.number("f\"{large['encoder'] / base['encoder']:.2f}\"") == rounded(ratio, 2)
    # independent layers: k · P; one layer reused k times: P (parameters counted once)
    expected = []
    for k in range(1, n_layers + 1):
        expected += [k, count(torch_encoder(k, d, heads, d_ff)), parts["total"]]
    assert numbers(lesson.output("enc-params-vs-n")) == expected


def test_quiz_choices_are_the_typical_mistakes(lesson: Built):
    _, d, heads, d_ff = PAPER["base"]
    layer = torch_layer(d, heads, d_ff)
    right = count(layer)
    linear_biases = sum(
        p.numel() for n, p in layer.named_parameters() if "norm" not in n and "bias" in n
    )
    quiz = lesson.quiz("编码器层有多少个参数")
    assert quiz["answer_text"] == f"{right:,}"
    assert set(quiz["choices"]) == {
        f"{right:,}",
        f"{right - linear_biases:,}",  # forgot the biases of the linear layers
        f"{right - count(layer.norm1) - count(layer.norm2):,}",  # forgot the LayerNorms
        f"{right - count(layer.linear2):,}",  # counted only one FFN linear layer
    }
    assert lesson.number("d") == d
    assert lesson.number('base["num_heads"]') == heads
    assert lesson.number('base["d_ff"]') == d_ff
    parts = breakdown(layer)
    assert lesson.inline("f\"{base['attention_per_layer']:,}\"") == f"{parts['attention']:,}"
    assert lesson.inline("f\"{base['ffn_per_layer']:,}\"") == f"{parts['ffn']:,}"
    assert lesson.inline("f\"{base['layer_norm_per_layer']:,}\"") == f"{parts['layer_norm']:,}"


# ---------- MiniLM (transformers BertModel) ----------


@pytest.fixture(scope="module")
def bert():
    from transformers import BertModel, BertTokenizer

    from pretrained import model_dir

    tokenizer = BertTokenizer.from_pretrained(str(model_dir()))
    model = BertModel.from_pretrained(str(model_dir()), attn_implementation="eager").eval()
    return tokenizer, model


def test_layers_have_distinct_weights(lesson: Built, bert):
    _, model = bert
    vectors = []
    for block in model.encoder.layer:
        params = [p.detach().flatten() for n, p in block.named_parameters() if "LayerNorm" not in n]
        vectors.append(torch.cat(params).double())
    unit = torch.stack([v / v.norm() for v in vectors])
    cos = (unit @ unit.T).numpy()
    off = np.abs(cos[~np.eye(len(vectors), dtype=bool)]).max()
    assert lesson.number('f"{max_off:.3f}"') == pytest.approx(off, abs=5e-4 + 1e-6)


def test_bank_is_contextualised_layer_by_layer(lesson: Built, bert):
    tokenizer, model = bert
    states = []
    for sentence in SENTENCES:
        encoded = tokenizer(sentence, return_tensors="pt")
        tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
        with torch.no_grad():
            hidden = model(**encoded, output_hidden_states=True).hidden_states
        states.append(torch.stack([h[0, tokens.index("bank")] for h in hidden]))

    def cos(i: int, j: int) -> list[float]:
        return F.cosine_similarity(states[i], states[j], dim=-1).tolist()

    river_rates, rates_loan = cos(0, 1), cos(1, 2)
    assert lesson.inline('f"{river_rates[0]:.3f}"') == f"{river_rates[0]:.3f}" == "1.000"
    assert lesson.number('f"{river_rates[-1]:.3f}"') == pytest.approx(river_rates[-1], abs=6e-4)
    assert lesson.number('f"{rates_loan[-1]:.3f}"') == pytest.approx(rates_loan[-1], abs=6e-4)
    assert lesson.number("len(river_rates) - 1") == model.config.num_hidden_layers
    assert lesson.number("runs[0].hidden_states.shape[-1]") == model.config.hidden_size


# ---------- experiments: a second forward pass on the same weights ----------


def sinusoid(n: int, d: int) -> torch.Tensor:
    pos = np.arange(n)[:, None]
    i = np.arange(d)[None, :]
    angle = pos / 10000 ** ((i - i % 2) / d)
    return torch.tensor(np.where(i % 2 == 0, np.sin(angle), np.cos(angle)), dtype=torch.float32)


@torch.no_grad()
def reference_layer(layer, h: torch.Tensor, residual: bool, layer_norm: bool) -> torch.Tensor:
    """Post-LN encoder layer written with nn.MultiheadAttention and F.layer_norm."""
    attn = layer.self_attn
    d = h.size(-1)
    mha = nn.MultiheadAttention(d, attn.num_heads, batch_first=True)
    mha.in_proj_weight.copy_(torch.cat([attn.W_q.weight, attn.W_k.weight, attn.W_v.weight]))
    mha.in_proj_bias.copy_(torch.cat([attn.W_q.bias, attn.W_k.bias, attn.W_v.bias]))
    mha.out_proj.weight.copy_(attn.W_o.weight)
    mha.out_proj.bias.copy_(attn.W_o.bias)

    def norm(x, ln):
        return F.layer_norm(x, (d,), ln.weight, ln.bias, ln.eps) if layer_norm else x

    a = mha(h, h, h, need_weights=False)[0]
    x = norm(h + a if residual else a, layer.norm1)
    ffn = layer.ffn
    f = F.linear(
        F.relu(F.linear(x, ffn.linear1.weight, ffn.linear1.bias)), *ffn.linear2.parameters()
    )
    return norm(x + f if residual else f, layer.norm2)


def mean_cos_between_positions(h: torch.Tensor) -> float:
    z = h.double().numpy()
    z = z / np.linalg.norm(z, axis=-1, keepdims=True)
    gram = np.einsum("bid,bjd->bij", z, z)
    n = gram.shape[1]
    return float(((gram.sum(axis=(1, 2)) - n) / (n * (n - 1))).mean())


def test_residual_ablation_supports_the_claim(lesson: Built):
    from experiments_training import sort_batch

    x, y = sort_batch(torch.Generator().manual_seed(0), 500)
    vocab, seq_len = int(x.max()) + 1, x.shape[1]
    assert torch.equal(y, x.sort(dim=1).values)
    assert lesson.number("VOCAB") == vocab and lesson.number("VOCAB - 1") == vocab - 1
    assert lesson.number("SEQ_LEN") == seq_len
    assert lesson.number('f"{chance:.3f}"') == rounded(math.log(vocab), 3)
    with_res = lesson.number("f\"{res['final_with_residual']:.3f}\"")
    without = lesson.number("f\"{res['final_without_residual']:.3f}\"")
    assert without > 5 * with_res
    assert 0.8 * math.log(vocab) < without < math.log(vocab) + 0.2  # stuck near guessing
    assert lesson.number('f"{ratio:.0f}"') == pytest.approx(without / with_res, abs=1)
    assert lesson.number('res["num_layers"]') == PAPER["base"][0]


def test_positions_collapse_without_residual(lesson: Built):
    from experiments_training import SortModel, reproducible, sort_batch

    x, _ = sort_batch(torch.Generator().manual_seed(1), 256)
    expected = []
    for residual in (True, False):
        with reproducible(0):
            model = SortModel(6, residual)
        d = model.embed.embedding_dim
        h = model.embed.weight.detach()[x] + sinusoid(x.shape[1], d)
        sims = [mean_cos_between_positions(h)]
        for layer in model.encoder.layers:
            h = reference_layer(layer, h, residual, layer_norm=True)
            sims.append(mean_cos_between_positions(h))
        expected += [sims[0], sims[1], sims[-1]]
    shown = numbers(lesson.output("enc-collapse"))[-6:]
    assert shown == pytest.approx(expected, abs=6e-4)
    assert shown[-1] == pytest.approx(1.0, abs=1e-3)


def test_layernorm_statistics(lesson: Built):
    from encoder import Encoder
    from experiments_training import reproducible

    stds = {}
    for layer_norm in (True, False):
        with reproducible(0):
            encoder = Encoder(12, 64, 4, 256, layer_norm=layer_norm)
            h = torch.randn(8, 16, 64)
        values = []
        for layer in encoder.layers:
            h = reference_layer(layer, h, residual=True, layer_norm=layer_norm)
            values.append(float(h.std()))
        stds[layer_norm] = values
    assert lesson.number('len(stats["layer"])') == lesson.number("len(without_std)") == 12
    assert lesson.inline('f"{with_std[-1]:.3f}"') == f"{stds[True][-1]:.3f}" == "1.000"
    first, last = stds[False][0], stds[False][-1]
    assert lesson.number('f"{without_std[0]:.2f}"') == pytest.approx(first, abs=6e-3)
    assert lesson.number('f"{without_std[-1]:.2f}"') == pytest.approx(last, abs=6e-3)
    assert all(b > a for a, b in zip(stds[False], stds[False][1:], strict=False))
    step = (last**2 - first**2) / 11
    assert lesson.number('f"{var_step:.2f}"') == pytest.approx(step, abs=6e-3)
