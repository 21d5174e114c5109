"""The lesson's own attention / encoding / multi-head / encoder code against independent references.

References: torch.nn.functional.scaled_dot_product_attention, torch.nn.MultiheadAttention,
torch.nn.TransformerEncoderLayer / TransformerEncoder (same weights copied in), closed formulas.
Float32 comparisons use an absolute tolerance of 1e-5.
"""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attention import (
    attention_steps,
    causal_mask,
    masked_softmax,
    padding_mask,
    scaled_dot_product_attention,
    self_attention_np,
    softmax,
)
from encoder import (
    PAPER_CONFIGS,
    Encoder,
    EncoderLayer,
    count_parameters,
    encoder_layer_parameters,
    encoder_parameters,
    load_encoder_from_torch,
    load_layer_from_torch,
    paper_parameter_table,
)
from encoding import (
    LearnedPositionalEncoding,
    SinusoidalPositionalEncoding,
    relative_position_matrix,
    sinusoidal_encoding,
)
from multihead import MultiHeadAttention, load_from_torch

TOL = 1e-5


def max_err(a, b) -> float:
    a, b = (torch.as_tensor(t).detach().to(torch.float64) for t in (a, b))
    return float((a - b).abs().max())


def sdpa_weights(q, k, mask=None):
    """Reference attention weights: SDPA applied to an identity value matrix returns the weights."""
    eye = torch.eye(k.size(-2), dtype=q.dtype).expand(*k.shape[:-1], k.size(-2))
    return F.scaled_dot_product_attention(q, k, eye, attn_mask=mask)


def random_mask(shape, gen):
    """Random boolean mask (True = attend) with at least one True per row."""
    mask = torch.rand(shape, generator=gen) < 0.6
    mask[..., 0] = True
    return mask


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(1234)


# ---------- attention ----------


def test_softmax_matches_closed_formula_and_is_stable():
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1000.0, 1001.0, 1002.0]])
    e = np.exp([1.0, 2.0, 3.0])
    expected = e / e.sum()
    out = softmax(x)
    assert np.allclose(out[0], expected, atol=1e-12)
    assert np.allclose(out[1], 1 / 3)
    assert np.allclose(out[2], expected, atol=1e-12)  # shift invariance, no overflow
    assert np.all(np.isfinite(out))


@pytest.mark.parametrize("mask_kind", [None, "causal", "padding", "random"])
def test_attention_numpy_and_torch_match_sdpa(mask_kind, gen):
    b, h, n, d = 2, 3, 6, 8
    q, k, v = (torch.randn(b, h, n, d, generator=gen) for _ in range(3))
    tokens = torch.tensor([[5, 6, 7, 8, 0, 0], [1, 2, 3, 4, 5, 0]])
    mask = {
        None: None,
        "causal": causal_mask(n),
        "padding": padding_mask(tokens),
        "random": random_mask((b, h, n, n), gen),
    }[mask_kind]
    ref_out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    ref_w = sdpa_weights(q, k, mask)

    out, w = scaled_dot_product_attention(q, k, v, mask)
    assert max_err(out, ref_out) <= TOL and max_err(w, ref_w) <= TOL

    np_mask = None if mask is None else mask.numpy()
    out_np, w_np = self_attention_np(q.numpy(), k.numpy(), v.numpy(), np_mask)
    assert max_err(out_np, ref_out) <= TOL and max_err(w_np, ref_w) <= TOL
    assert np.allclose(w_np.sum(-1), 1.0, atol=1e-6)


def test_attention_steps_match_sdpa(gen):
    Q, K, V = (torch.randn(3, 4, generator=gen, dtype=torch.float64) for _ in range(3))
    steps = attention_steps(Q.numpy(), K.numpy(), V.numpy())
    assert max_err(steps["scores"], Q @ K.T) <= 1e-12
    assert max_err(steps["scaled"], Q @ K.T / 2.0) <= 1e-12  # sqrt(d_k) = sqrt(4)
    assert max_err(steps["weights"], sdpa_weights(Q, K)) <= 1e-12
    assert max_err(steps["output"], F.scaled_dot_product_attention(Q, K, V)) <= 1e-12


def test_causal_mask_matches_sdpa_is_causal(gen):
    q, k, v = (torch.randn(1, 2, 5, 4, generator=gen) for _ in range(3))
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert max_err(scaled_dot_product_attention(q, k, v, causal_mask(5))[0], ref) <= TOL
    expected = torch.tensor([[j <= i for j in range(4)] for i in range(4)])
    assert torch.equal(causal_mask(4), expected)


def test_padding_mask_shape_and_meaning():
    tokens = torch.tensor([[3, 4, 0], [0, 9, 0]])
    m = padding_mask(tokens)
    assert m.shape == (2, 1, 1, 3) and m.dtype == torch.bool
    assert m[:, 0, 0].tolist() == [[True, True, False], [False, True, False]]
    assert padding_mask(tokens.numpy()).shape == (2, 1, 1, 3)  # works on NumPy too


def test_fully_masked_rows_give_zeros_not_nan(gen):
    q, k, v = (torch.randn(1, 1, 3, 4, generator=gen, requires_grad=True) for _ in range(3))
    mask = torch.tensor([[True, True, False], [False, False, False], [True, True, True]])
    out, w = scaled_dot_product_attention(q, k, v, mask)
    assert torch.all(out[0, 0, 1] == 0) and torch.all(w[0, 0, 1] == 0)
    assert (
        max_err(
            out[0, 0, [0, 2]], F.scaled_dot_product_attention(q, k, v, attn_mask=mask)[0, 0, [0, 2]]
        )
        <= TOL
    )
    out.sum().backward()
    assert all(torch.isfinite(t.grad).all() for t in (q, k, v))

    out_np, w_np = self_attention_np(
        q.detach().numpy(), k.detach().numpy(), v.detach().numpy(), mask.numpy()
    )
    assert np.all(out_np[0, 0, 1] == 0) and np.all(w_np[0, 0, 1] == 0)
    assert np.all(np.isfinite(masked_softmax(np.zeros((2, 2)), np.zeros((2, 2), bool))))


# ---------- positional encoding ----------


@pytest.mark.parametrize("d_model", [16, 7])
def test_sinusoidal_matches_closed_formula(d_model):
    max_len = 60
    expected = torch.zeros(max_len, d_model, dtype=torch.float64)
    for pos in range(max_len):
        for j in range(d_model):
            i = j // 2
            angle = pos / 10000 ** (2 * i / d_model)
            expected[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    assert max_err(sinusoidal_encoding(max_len, d_model), expected) <= 1e-6
    assert max_err(sinusoidal_encoding(max_len, d_model, dtype=torch.float64), expected) <= 1e-12


def test_positional_modules(gen):
    x = torch.randn(2, 5, 8, generator=gen)
    assert max_err(SinusoidalPositionalEncoding(10, 8)(x), x + sinusoidal_encoding(5, 8)) == 0
    assert count_parameters(SinusoidalPositionalEncoding(10, 8)) == 0
    learned = LearnedPositionalEncoding(10, 8)
    assert count_parameters(learned) == 10 * 8
    assert max_err(learned(x), x + learned.table.weight[:5]) == 0


@pytest.mark.parametrize("k", [1, 3, 17, 64])
def test_relative_position_matrix(k):
    d_model = 32
    pe = sinusoidal_encoding(200, d_model, dtype=torch.float64)
    M = relative_position_matrix(k, d_model)
    for pos in (0, 5, 50, 120):
        assert max_err(M @ pe[pos], pe[pos + k]) <= 1e-10
    assert max_err(M.T @ M, torch.eye(d_model, dtype=torch.float64)) <= 1e-12  # a rotation
    assert (
        max_err(relative_position_matrix(2, d_model) @ M, relative_position_matrix(k + 2, d_model))
        <= 1e-12
    )
    with pytest.raises(ValueError):
        relative_position_matrix(k, 7)


# ---------- multi-head attention ----------


def randomize_(module: nn.Module, gen) -> nn.Module:
    """Random values for every parameter (torch initialises biases and LayerNorm to 0/1)."""
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.3)
    return module


@pytest.mark.parametrize("bias", [True, False])
def test_multihead_matches_torch(bias, gen):
    d, h = 16, 4
    ref = randomize_(nn.MultiheadAttention(d, h, batch_first=True, bias=bias), gen).eval()
    ours = load_from_torch(ref)
    x = torch.randn(2, 5, d, generator=gen)
    mem = torch.randn(2, 7, d, generator=gen)
    tokens = torch.tensor([[1, 2, 3, 4, 5, 0, 0], [1, 2, 3, 0, 0, 0, 0]])

    # self-attention, no mask
    ref_out, ref_w = ref(x, x, x, average_attn_weights=False)
    out, w = ours(x, x, x)
    assert max_err(out, ref_out) <= TOL and max_err(w, ref_w) <= TOL
    # causal mask: torch's bool attn_mask means True = NOT allowed
    ref_out, ref_w = ref(x, x, x, attn_mask=~causal_mask(5), average_attn_weights=False)
    out, w = ours(x, x, x, mask=causal_mask(5))
    assert max_err(out, ref_out) <= TOL and max_err(w, ref_w) <= TOL
    # cross-attention with key padding: torch's key_padding_mask means True = ignore
    ref_out, ref_w = ref(x, mem, mem, key_padding_mask=tokens == 0, average_attn_weights=False)
    out, w = ours(x, mem, mem, mask=padding_mask(tokens))
    assert max_err(out, ref_out) <= TOL and max_err(w, ref_w) <= TOL
    assert w.shape == (2, h, 5, 7)


def test_head_mask_equals_zeroing_w_o_columns(gen):
    d, h = 16, 4
    mha = randomize_(MultiHeadAttention(d, h), gen)
    x = torch.randn(2, 5, d, generator=gen)
    for head in range(h):
        head_mask = torch.ones(h)
        head_mask[head] = 0
        reference = randomize_(MultiHeadAttention(d, h), gen)
        reference.load_state_dict(mha.state_dict())
        with torch.no_grad():  # the head's slice of the concatenation no longer reaches the output
            reference.W_o.weight[:, head * (d // h) : (head + 1) * (d // h)] = 0
        assert max_err(mha(x, x, x, head_mask=head_mask)[0], reference(x, x, x)[0]) <= TOL
    all_off = mha(x, x, x, head_mask=torch.zeros(h))[0]
    assert max_err(all_off, mha.W_o.bias.expand_as(all_off)) <= TOL


# ---------- encoder ----------


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches_torch(norm_first, activation, gen):
    d, h, d_ff = 16, 4, 32
    ref = nn.TransformerEncoderLayer(
        d, h, d_ff, dropout=0.0, activation=activation, batch_first=True, norm_first=norm_first
    )
    ref = randomize_(ref, gen).eval()
    ours = load_layer_from_torch(ref).eval()
    x = torch.randn(2, 6, d, generator=gen)
    tokens = torch.tensor([[1, 2, 3, 4, 0, 0], [1, 2, 3, 4, 5, 6]])
    assert max_err(ours(x)[0], ref(x)) <= TOL
    assert max_err(ours(x, causal_mask(6))[0], ref(x, src_mask=~causal_mask(6))) <= TOL
    # grad mode keeps torch on its reference (non-fast) path, so padded rows are computed too
    ref_pad = ref(x, src_key_padding_mask=tokens == 0)
    assert max_err(ours(x, padding_mask(tokens))[0], ref_pad) <= TOL


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_stack_matches_torch(norm_first, gen):
    d, h, d_ff, n_layers = 16, 4, 32, 3
    layer = nn.TransformerEncoderLayer(
        d, h, d_ff, dropout=0.0, batch_first=True, norm_first=norm_first
    )
    final = nn.LayerNorm(d) if norm_first else None
    ref = nn.TransformerEncoder(layer, n_layers, norm=final, enable_nested_tensor=False)
    ref = randomize_(ref, gen).eval()  # every layer gets its own random weights
    ours = load_encoder_from_torch(ref).eval()
    x = torch.randn(2, 6, d, generator=gen)
    out, weights = ours(x)
    assert max_err(out, ref(x)) <= TOL
    assert len(weights) == n_layers and weights[0].shape == (2, h, 6, 6)
    with torch.no_grad():  # torch's fast path (nested tensors) too, on the unpadded positions
        out_fast = ref(x)
    assert max_err(ours(x)[0], out_fast) <= TOL


def test_encoder_layers_are_independent():
    enc = Encoder(3, 16, 4, 32)
    pointers = {p.data_ptr() for p in enc.parameters()}
    assert len(pointers) == len(list(enc.parameters()))
    assert count_parameters(enc) == 3 * count_parameters(EncoderLayer(16, 4, 32))


def test_encoder_layer_ablation_options(gen):
    x = torch.randn(2, 5, 16, generator=gen)
    layer = randomize_(EncoderLayer(16, 4, 32, residual=False, layer_norm=False), gen)
    attn, _ = layer.self_attn(x, x, x)
    assert max_err(layer(x)[0], layer.ffn(attn)) <= TOL
    layer = randomize_(EncoderLayer(16, 4, 32, residual=True, layer_norm=False), gen)
    attn, _ = layer.self_attn(x, x, x)
    assert max_err(layer(x)[0], x + attn + layer.ffn(x + attn)) <= TOL
    assert count_parameters(layer) == count_parameters(EncoderLayer(16, 4, 32)) - 4 * 16


# ---------- parameter counts ----------


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize(
    "d_model,num_heads,d_ff", [(512, 8, 2048), (1024, 16, 4096), (384, 12, 1536), (10, 2, 7)]
)
def test_parameter_formula_matches_torch_modules(d_model, num_heads, d_ff, bias):
    ref = nn.TransformerEncoderLayer(
        d_model, num_heads, d_ff, batch_first=True, bias=bias, device="meta"
    )
    formula = encoder_layer_parameters(d_model, d_ff, bias)
    assert formula["total"] == count_parameters(ref)
    assert formula["attention"] == count_parameters(ref.self_attn)
    assert formula["ffn"] == count_parameters(ref.linear1) + count_parameters(ref.linear2)
    assert formula["layer_norm"] == count_parameters(ref.norm1) + count_parameters(ref.norm2)
    ours = EncoderLayer(d_model, num_heads, d_ff, bias=bias)
    assert count_parameters(ours) == formula["total"]
    stack = nn.TransformerEncoder(ref, 6, enable_nested_tensor=False)
    assert encoder_parameters(6, d_model, d_ff, bias) == count_parameters(stack)


def test_paper_table_matches_torch_modules():
    table = {row["name"]: row for row in paper_parameter_table()}
    assert set(table) == set(PAPER_CONFIGS) == {"base", "large"}
    for name, cfg in PAPER_CONFIGS.items():
        kwargs = {"batch_first": True, "device": "meta"}
        layer = nn.TransformerEncoderLayer(cfg["d_model"], cfg["num_heads"], cfg["d_ff"], **kwargs)
        stack = nn.TransformerEncoder(layer, cfg["num_layers"], enable_nested_tensor=False)
        layer_nb = nn.TransformerEncoderLayer(
            cfg["d_model"], cfg["num_heads"], cfg["d_ff"], bias=False, **kwargs
        )
        stack_nb = nn.TransformerEncoder(layer_nb, cfg["num_layers"], enable_nested_tensor=False)
        assert table[name]["per_layer"] == count_parameters(layer)
        assert table[name]["encoder"] == count_parameters(stack)
        assert table[name]["encoder_no_bias"] == count_parameters(stack_nb)
        assert table[name]["d_k"] == 64
