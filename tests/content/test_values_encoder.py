"""Section 5 (encoder): every number on its slides, recomputed independently.

Shapes and parameter counts come from PyTorch's own nn.TransformerEncoderLayer /
nn.TransformerEncoder (counted on the meta device, nothing allocated) and the closed formula;
the MiniLM numbers from the `transformers` BertModel loaded from the same files; the
experiments' statistics at initialisation from a second forward (and backward) pass written
here with nn.MultiheadAttention and F.layer_norm on the experiments' weights; the untrained
control from transformers' own BertModel initialisation. Trained experiments are checked by
their properties, and the LayerNorm comparison is re-run on PyTorch's nn.TransformerEncoder.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from lesson_build import NUMBER, Built, rounded


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
    d, heads, d_ff = 768, 12, 3072  # BERT-base: fresh numbers, no earlier slide shows them
    layer = torch_layer(d, heads, d_ff)
    right = count(layer)
    linear_biases = sum(
        p.numel() for n, p in layer.named_parameters() if "norm" not in n and "bias" in n
    )
    quiz = lesson.quiz("编码器层：")
    assert quiz["answer_text"] == f"{right:,}"
    assert set(quiz["choices"]) == {
        f"{right:,}",
        f"{right - linear_biases:,}",  # forgot the biases of the linear layers
        f"{right - count(layer.norm1) - count(layer.norm2):,}",  # forgot the LayerNorms
        f"{right - count(layer.linear2):,}",  # counted only one FFN linear layer
    }
    assert lesson.number("quiz_d") == d
    assert lesson.number("quiz_h") == heads
    assert lesson.number("quiz_ff") == d_ff
    parts = breakdown(layer)
    assert lesson.inline("f\"{parts['attention']:,}\"") == f"{parts['attention']:,}"
    assert lesson.inline("f\"{parts['ffn']:,}\"") == f"{parts['ffn']:,}"
    assert lesson.inline("f\"{parts['layer_norm']:,}\"") == f"{parts['layer_norm']:,}"


# ---------- MiniLM (transformers BertModel) ----------


@pytest.fixture(scope="module")
def bert():
    from transformers import BertModel, BertTokenizer

    from pretrained import model_dir

    tokenizer = BertTokenizer.from_pretrained(str(model_dir()))
    model = BertModel.from_pretrained(str(model_dir()), attn_implementation="eager").eval()
    return tokenizer, model


def largest_layer_cosine(model) -> float:
    vectors = []
    for block in model.encoder.layer:
        params = [p.detach().flatten() for n, p in block.named_parameters() if "LayerNorm" not in n]
        vectors.append(torch.cat(params).double())
    unit = torch.stack([v / v.norm() for v in vectors])
    cos = (unit @ unit.T).numpy()
    return float(np.abs(cos[~np.eye(len(vectors), dtype=bool)]).max())


@pytest.fixture(scope="module")
def untrained_bert(bert):
    """transformers' own BertModel of MiniLM's shape with its own (BERT) initialisation, the
    trained embeddings copied in: an untrained encoder, built independently of the lesson."""
    from transformers import BertConfig, BertModel

    from pretrained import model_dir

    _, trained = bert
    torch.manual_seed(1)
    config = BertConfig.from_pretrained(str(model_dir()), attn_implementation="eager")
    model = BertModel(config).eval()
    model.embeddings.load_state_dict(trained.embeddings.state_dict())
    return model


def test_layer_weights_are_as_unrelated_as_at_random_initialisation(lesson: Built, bert,
                                                                     untrained_bert):  # fmt: skip
    _, model = bert
    trained, untrained = largest_layer_cosine(model), largest_layer_cosine(untrained_bert)
    assert lesson.number('f"{max_off:.3f}"') == rounded(trained, 3)
    # near zero in both: the measurement shows that weights are not shared, nothing more
    assert trained < 0.1 and untrained < 0.1
    assert lesson.number('f"{random_off:.3f}"') < 0.1


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
    assert lesson.number('f"{river_rates[-1]:.3f}"') == rounded(river_rates[-1], 3, 1e-4)
    assert lesson.number('f"{rates_loan[-1]:.3f}"') == rounded(rates_loan[-1], 3, 1e-4)
    assert lesson.number("len(river_rates) - 1") == model.config.num_hidden_layers
    d_model = model.config.hidden_size
    assert lesson.number("minilm.encoder.layers[0].self_attn.d_model") == d_model
    assert not all(b < a for a, b in zip(river_rates, river_rates[1:], strict=False))


def last_layer_sense_gaps(tokenizer, model) -> dict[str, tuple[float, float]]:
    """Per word: (same sense − other sense, mean of the six similarities) at the last layer."""
    from experiments_pretrained import SENSE_SETS

    result = {}
    for word, (first, second) in SENSE_SETS.items():
        states = []
        for sentence in (*first, *second):
            encoded = tokenizer(sentence, return_tensors="pt")
            tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])
            with torch.no_grad():
                hidden = model(**encoded, output_hidden_states=True).hidden_states
            states.append(hidden[-1][0, tokens.index(word)].double())
        z = F.normalize(torch.stack(states), dim=-1)
        sim = (z @ z.T).numpy()
        gap = (sim[0, 1] + sim[2, 3]) / 2 - sim[:2, 2:].mean()
        result[word] = (float(gap), float(sim[np.triu_indices(4, 1)].mean()))
    return result


INDEPENDENT_DRAWS = 20


def random_bert(bert, init_std: float, seed: int):
    """transformers' own BertModel of MiniLM's shape, its own initialisation at `init_std`,
    the trained embeddings copied in (a different random draw from the lesson's)."""
    from transformers import BertConfig, BertModel

    from pretrained import model_dir

    _, trained = bert
    torch.manual_seed(100 + seed)
    config = BertConfig.from_pretrained(str(model_dir()), attn_implementation="eager")
    config.initializer_range = init_std
    model = BertModel(config).eval()
    model.embeddings.load_state_dict(trained.embeddings.state_dict())
    return model


@pytest.mark.slow
def test_a_random_encoder_that_mixes_context_is_a_control_that_could_fail(
    lesson: Built, bert, untrained_bert
):
    from experiments_pretrained import MIXING_INIT_STD

    tokenizer, model = bert
    trained = last_layer_sense_gaps(tokenizer, model)
    rows = re.findall(r"(\w+) ([+-]\d\.\d{3}) (\d+)%", lesson.output("enc-sense-table"))
    shown = {word: float(gap) for word, gap, _ in rows}
    shown_beats = {word: int(percent) / 100 for word, _, percent in rows}
    assert set(shown) == set(trained)
    for word, (gap, _) in trained.items():
        assert shown[word] == rounded(gap, 3, 1e-4)
    assert lesson.number("len(random_seeds)") >= 40  # the floor: at least 40 draws
    # at BERT's scale a random encoder mixes almost nothing: a gap near 0 is guaranteed
    assert min(m for _, m in last_layer_sense_gaps(tokenizer, untrained_bert).values()) > 0.98
    # at the larger scale it does mix (similarities ≈ 0.8); its gaps are what chance gives.
    # Independent random draws (transformers' own initialisation, other seeds): the fraction
    # of them each word's trained gap exceeds is a sample of what the slide reports
    mixing = [
        last_layer_sense_gaps(tokenizer, random_bert(bert, MIXING_INIT_STD, s))
        for s in range(INDEPENDENT_DRAWS)
    ]
    assert max(m for run in mixing for _, m in run.values()) < 0.9
    beats = {w: sum(trained[w][0] > run[w][0] for run in mixing) / len(mixing) for w in trained}
    for word in trained:  # two samples of one fraction: 40 and 20 draws, well within 0.35
        assert abs(beats[word] - shown_beats[word]) < 0.35, (word, beats, shown_beats)
    # the words the lesson calls separated beat most of these draws too, the others do not all
    separated = lesson.inline('"、".join(separated)').split("、")
    assert 2 <= len(separated) < len(trained)
    assert all(shown_beats[w] >= 0.9 for w in separated)
    assert all(shown_beats[w] < 0.9 for w in set(trained) - set(separated))
    assert all(beats[w] >= 0.7 for w in separated)
    assert min(beats.values()) < 0.8


# ---------- experiments: a second forward pass on the same weights ----------


def sinusoid(n: int, d: int) -> torch.Tensor:
    pos = np.arange(n)[:, None]
    i = np.arange(d)[None, :]
    angle = pos / 10000 ** ((i - i % 2) / d)
    return torch.tensor(np.where(i % 2 == 0, np.sin(angle), np.cos(angle)), dtype=torch.float32)


def mean_cos_between_positions(h: torch.Tensor) -> float:
    z = h.double().numpy()
    z = z / np.linalg.norm(z, axis=-1, keepdims=True)
    gram = np.einsum("bid,bjd->bij", z, z)
    n = gram.shape[1]
    return float(((gram.sum(axis=(1, 2)) - n) / (n * (n - 1))).mean())


def order_free_floor_by_sampling(seq_len: int, vocab: int, n: int = 200_000) -> float:
    """Monte-Carlo: the entropy of a sequence's own digit counts (the best a model can do that
    gives every position the same prediction), averaged over random sequences."""
    rng = np.random.default_rng(7)
    x = rng.integers(0, vocab, (n, seq_len))
    p = np.stack([(x == d).sum(1) for d in range(vocab)], 1) / seq_len
    return float(-(p * np.log(np.where(p > 0, p, 1))).sum(1).mean())


def test_residual_ablation_supports_the_claim(lesson: Built):
    from experiments_training import sort_batch

    x, y = sort_batch(torch.Generator().manual_seed(0), 500)
    vocab, seq_len = int(x.max()) + 1, x.shape[1]
    assert torch.equal(y, x.sort(dim=1).values)
    assert lesson.number("VOCAB") == vocab and lesson.number("VOCAB - 1") == vocab - 1
    assert lesson.number("SEQ_LEN") == seq_len
    assert lesson.number('f"{chance:.2f}"') == rounded(math.log(vocab), 2)
    floor = order_free_floor_by_sampling(seq_len, vocab)
    assert lesson.number('f"{floor:.2f}"') == rounded(floor, 2, 5e-3)
    with_res = numbers(lesson.inline("span(res_with)"))
    without = numbers(lesson.inline("span(res_without)"))
    assert max(with_res) < 0.3 and min(without) > 5 * max(with_res)
    # below guessing on every seed, well above what knowing the digits alone would allow
    assert floor + 0.2 < min(without) and max(without) < math.log(vocab)
    assert lesson.number('f"{res_spread:.0e}"') < 1e-4  # one prediction for every position
    assert lesson.number('res["num_layers"]') == PAPER["base"][0]


def reference_model_at_init(residual: bool, seed: int = 0):
    """The lesson's SortModel weights at initialisation, run by a second implementation whose
    attention modules are nn.MultiheadAttention copies (gradients are taken on the copies)."""
    from experiments_training import SortModel, reproducible

    with reproducible(seed):
        model = SortModel(6, residual)
    d = model.embed.embedding_dim
    copies = []
    for layer in model.encoder.layers:
        attn = layer.self_attn
        mha = nn.MultiheadAttention(d, attn.num_heads, batch_first=True)
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.cat([attn.W_q.weight, attn.W_k.weight, attn.W_v.weight]))
            mha.in_proj_bias.copy_(torch.cat([attn.W_q.bias, attn.W_k.bias, attn.W_v.bias]))
            mha.out_proj.weight.copy_(attn.W_o.weight)
            mha.out_proj.bias.copy_(attn.W_o.bias)
        copies.append(mha)
    return model, copies


def measure_at_init(residual: bool, seed: int) -> dict[str, list[float]]:
    """Similarity, position spread and the Q/K vs V/O gradient norms per layer, by the second
    implementation (nn.MultiheadAttention: in_proj_weight's rows are W_Q, W_K, W_V)."""
    from experiments_training import sort_batch

    x, y = sort_batch(torch.Generator().manual_seed(seed + 1), 64)
    model, copies = reference_model_at_init(residual, seed)
    d = model.embed.embedding_dim
    h = model.embed.weight.detach()[x] + sinusoid(x.shape[1], d)
    sims, spread = [mean_cos_between_positions(h.detach())], []
    for layer, mha in zip(model.encoder.layers, copies, strict=True):
        a = mha(h, h, h, need_weights=False)[0]
        n1, n2, ffn = layer.norm1, layer.norm2, layer.ffn
        h1 = F.layer_norm(h + a if residual else a, (d,), n1.weight, n1.bias, n1.eps)
        f = F.linear(F.relu(F.linear(h1, *ffn.linear1.parameters())), *ffn.linear2.parameters())
        h = F.layer_norm(h1 + f if residual else f, (d,), n2.weight, n2.bias, n2.eps)
        sims.append(mean_cos_between_positions(h.detach()))
        spread.append(float((h - h.mean(1, keepdim=True)).abs().max().detach()))
    F.cross_entropy(model.out(h).reshape(-1, 10), y.reshape(-1)).backward()
    qk, vo = [], []
    for mha in copies:
        w, b = mha.in_proj_weight.grad, mha.in_proj_bias.grad
        qk.append(float(torch.sqrt(w[: 2 * d].pow(2).sum() + b[: 2 * d].pow(2).sum())))
        out = sum(p.grad.pow(2).sum() for p in mha.out_proj.parameters())
        vo.append(float(torch.sqrt(w[2 * d :].pow(2).sum() + b[2 * d :].pow(2).sum() + out)))
    return {"similarity": sims, "spread": spread, "qk": qk, "vo": vo}


@pytest.mark.slow
def test_collapse_makes_the_attention_pattern_gradients_vanish(lesson: Built):
    seeds = range(10)  # the slide's seeds: one forward and backward each
    runs = [{r: measure_at_init(r, seed) for r in (True, False)} for seed in seeds]
    # every seed collapses within three layers; the slide states the layer from which all have
    per_seed = [next(i + 1 for i in range(6) if run[False]["spread"][i] < 1e-5) for run in runs]
    collapsed_from = max(per_seed)
    assert collapsed_from == lesson.number("collapsed_from") <= 3
    assert lesson.number("len(init_seeds)") == len(seeds)
    deep = range(collapsed_from - 1, 6)
    qk_without = [run[False]["qk"][i] for run in runs for i in deep]
    qk_with = [run[True]["qk"][i] for run in runs for i in deep]
    vo_ratio = [
        b / a for run in runs for a, b in zip(run[True]["vo"], run[False]["vo"], strict=True)
    ]
    assert max(qk_without) < 1e-5 < 1e-3 < min(qk_with)  # the pattern's gradients vanish
    assert min(vo_ratio) > 0.1  # the value/output gradients do not vanish (same magnitude)
    # without residuals the Q/K gradients are rounding noise: both implementations agree on
    # the order of magnitude only; with residuals they agree to the digit shown
    assert max(qk_without) < 1e-5 and lesson.number('f"{max(qk_without):.0e}"') < 1e-5
    assert lesson.number('f"{min(qk_with):.0e}"') == pytest.approx(min(qk_with), rel=0.5)
    assert lesson.number('f"{max(qk_with):.0e}"') == pytest.approx(max(qk_with), rel=0.5)
    assert lesson.number('f"{min(vo_ratio):.1f}"') == rounded(min(vo_ratio), 1, 1e-2)
    assert lesson.number('f"{max(vo_ratio):.1f}"') == rounded(max(vo_ratio), 1, 1e-2)
    sim_without = min(run[False]["similarity"][-1] for run in runs)
    sim_with = max(run[True]["similarity"][-1] for run in runs)
    assert sim_without > 0.99 > 0.7 > sim_with  # the positions collapse
    spread = max(run[False]["spread"][i] for run in runs for i in deep)
    assert spread < 1e-5 and lesson.number('f"{spread_without:.0e}"') < 1e-5


def train_torch_encoder(variant: str, lr: float, steps: int = 150) -> float:
    """The sort task on PyTorch's own nn.TransformerEncoder (post-LN, pre-LN, or LayerNorms
    replaced by identities), our own loop: mean loss of the last 20 steps (inf if it blew up)."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(
        32, 4, 64, dropout=0.0, batch_first=True, norm_first=variant == "pre"
    )
    norm = nn.LayerNorm(32) if variant == "pre" else None
    encoder = nn.TransformerEncoder(layer, 6, norm=norm, enable_nested_tensor=False)
    for block in encoder.layers:
        block.self_attn._reset_parameters()
        block.linear1.reset_parameters()
        block.linear2.reset_parameters()
        if variant == "none":
            block.norm1, block.norm2 = nn.Identity(), nn.Identity()
    embed, out = nn.Embedding(10, 32), nn.Linear(32, 10)
    params = [*embed.parameters(), *encoder.parameters(), *out.parameters()]
    optimizer = torch.optim.Adam(params, lr=lr)
    gen = torch.Generator().manual_seed(0)
    pe = sinusoid(8, 32)
    losses = []
    for _ in range(steps):
        x = torch.randint(0, 10, (32, 8), generator=gen)
        loss = F.cross_entropy(
            out(encoder(embed(x) + pe)).reshape(-1, 10), x.sort(1).values.reshape(-1)
        )
        if not torch.isfinite(loss):
            return math.inf
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses[-20:]) / 20


@pytest.mark.slow
def test_layernorm_comparison_holds_for_pytorch_encoders(lesson: Built):
    chance = math.log(10)
    # the lesson's table: first row of numbers per variant, "第 N 步发散" where it diverged
    text = lesson.output("enc-layernorm-table")
    # each cell is the range over the seeds, "a–b" (or "第 a–b 步发散")
    post = re.search(r"Post-LN（论文） ([\d.]+)–([\d.]+) ([\d.]+)–([\d.]+)", text)
    pre = re.search(r"Pre-LN ([\d.]+)–([\d.]+) ([\d.]+)–([\d.]+)", text)
    none = re.search(r"无 LayerNorm ([\d.]+)–([\d.]+) 第 (\d+)–(\d+) 步发散", text)
    assert post and pre and none, text
    assert max(float(post[2]), float(pre[2]), float(none[2])) < 0.5 * chance  # small lr: all train
    assert float(none[2]) < min(float(post[1]), float(pre[1]))  # no LayerNorm lowest, every seed
    # large lr: Post-LN stalls at chance, Pre-LN still learns (the claim's criterion: below 3/4
    # of chance; a slow seed reaches only about half of chance)
    assert float(post[3]) > 0.95 * chance and float(pre[4]) < 0.75 * chance
    # the same outcome with PyTorch's own modules at the large learning rate
    big_lr = float(re.findall(r"学习率 ([\d.e-]+)", text)[-1])
    assert train_torch_encoder("post", big_lr) > 0.9 * chance
    assert train_torch_encoder("pre", big_lr) < 0.75 * chance
    assert train_torch_encoder("none", big_lr) > 10 * chance  # blows up
    small_lr = float(re.findall(r"学习率 ([\d.e-]+)", text)[0])
    assert train_torch_encoder("none", small_lr) < train_torch_encoder("post", small_lr)
