"""The lesson's decoder: a small GPT-style (decoder-only) Transformer, written out so that every
matrix multiply-add it does is counted, with an optional KV cache.

Cells import it as `from decoder import ...` (the lesson folder is importable). Everything here
runs on the CPU in a few seconds: a model of two layers, 64 dimensions.
"""

from __future__ import annotations

import math
import re
import statistics
import time
from dataclasses import dataclass, field

import torch
from torch import nn

# The sentence the small model learns by heart (repeated, word by word): enough for its
# generation to be readable. A word is a token.
SENTENCE = (
    "a decoder reads the prompt , guesses the next word , appends it and reads again ."
)


@dataclass(frozen=True)
class Config:
    vocab: int
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 256
    context: int = 512


def causal_mask(n_new: int, n_cached: int = 0) -> torch.Tensor:
    """(n_new, n_cached + n_new) booleans: True where a query may look at a key. Query i is the
    token at position n_cached + i; it sees every key at that position or before."""
    return torch.ones(n_new, n_cached + n_new, dtype=torch.bool).tril(diagonal=n_cached)


@dataclass
class KVCache:
    """The keys and values of every token seen so far, one (heads, tokens, d_k) pair per layer."""

    keys: list[torch.Tensor] = field(default_factory=list)
    values: list[torch.Tensor] = field(default_factory=list)

    @property
    def length(self) -> int:
        return self.keys[0].shape[1] if self.keys else 0

    def nbytes(self) -> int:
        return sum(t.nbytes for t in self.keys + self.values)


class Decoder(nn.Module):
    """Token and position embeddings, `n_layers` pre-LN blocks (causal self-attention, then an
    MLP), a final LayerNorm and the output projection to logits. No biases: every weight is a
    matrix, so the multiply-adds are exactly the matrix products counted in `macs`."""

    def __init__(self, config: Config):
        super().__init__()
        self.config = config
        d, f = config.d_model, config.d_ff

        def weight(*shape: int) -> nn.Parameter:
            return nn.Parameter(torch.randn(*shape) / math.sqrt(shape[0]))

        self.tokens = nn.Parameter(torch.randn(config.vocab, d) * 0.5)
        self.positions = nn.Parameter(torch.randn(config.context, d) * 0.5)
        self.blocks = nn.ModuleList()
        for _ in range(config.n_layers):
            block = nn.Module()
            block.norm1, block.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
            block.qkv, block.out = weight(d, 3 * d), weight(d, d)
            block.up, block.down = weight(d, f), weight(f, d)
            self.blocks.append(block)
        self.norm = nn.LayerNorm(d)
        self.head = weight(d, config.vocab)
        self.macs = 0  # multiply-adds of every matrix product since the last reset

    def matmul(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        """a @ b, counted: (…, m, k) @ (…, k, n) is m·n·k multiply-adds for each of the batch."""
        self.macs += a.shape[:-1].numel() * b.shape[-1] * a.shape[-1]
        return a @ b

    def forward(
        self,
        tokens: torch.Tensor,
        cache: KVCache | None = None,
        causal: bool = True,
        scores_out: list | None = None,
    ) -> torch.Tensor:
        """Logits (m, vocab) for the m tokens given, which follow the `cache.length` tokens
        already in `cache` (their keys and values are then appended to it). `causal=False`
        lets every token see every other (the encoder's attention). `scores_out`, a list,
        receives each layer's scaled scores QKᵀ/√d_k (heads, m, keys), before the mask."""
        h, m = self.config.n_heads, len(tokens)
        past = cache.length if cache is not None else 0
        x = self.tokens[tokens] + self.positions[past : past + m]
        mask = (
            causal_mask(m, past)
            if causal
            else torch.ones(m, past + m, dtype=torch.bool)
        )
        for layer, block in enumerate(self.blocks):
            q, k, v = self.matmul(block.norm1(x), block.qkv).split(
                self.config.d_model, dim=-1
            )
            q, k, v = (
                t.reshape(m, h, -1).transpose(0, 1) for t in (q, k, v)
            )  # (h, m, d_k)
            if cache is not None:
                if layer == len(cache.keys):
                    cache.keys.append(k[:, :0])
                    cache.values.append(v[:, :0])
                k = cache.keys[layer] = torch.cat([cache.keys[layer], k], dim=1)
                v = cache.values[layer] = torch.cat([cache.values[layer], v], dim=1)
            scores = self.matmul(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])
            if scores_out is not None:
                scores_out.append(scores.detach())
            weights = scores.masked_fill(~mask, float("-inf")).softmax(dim=-1)
            mixed = self.matmul(weights, v).transpose(0, 1).reshape(m, -1)
            x = x + self.matmul(mixed, block.out)
            up = torch.nn.functional.gelu(self.matmul(block.norm2(x), block.up))
            x = x + self.matmul(up, block.down)
        return self.matmul(self.norm(x), self.head)


@dataclass(frozen=True)
class Generation:
    tokens: list[int]  # the prompt, then the generated tokens
    logits: torch.Tensor  # (n_new, vocab): the logits each new token was chosen from
    macs: int  # multiply-adds the whole generation did


@torch.no_grad()
def generate(
    model: Decoder, prompt: list[int], n_new: int, use_cache: bool
) -> Generation:
    """Greedy generation of `n_new` tokens after `prompt`. Without a cache every step runs the
    model on the whole sequence so far; with one, the prompt once (the prefill), then each new
    token alone against the cached keys and values."""
    model.macs = 0
    tokens = list(prompt)
    cache = KVCache() if use_cache else None
    chosen = []
    logits = model(torch.tensor(tokens), cache)
    for step in range(n_new):
        chosen.append(logits[-1])
        tokens.append(int(logits[-1].argmax()))
        if step == n_new - 1:
            break
        if cache is None:
            logits = model(torch.tensor(tokens))  # the whole sequence, again
        else:
            logits = model(torch.tensor(tokens[-1:]), cache)  # the new token only
    return Generation(tokens, torch.stack(chosen), model.macs)


def forward_macs(config: Config, n_new: int, n_keys: int) -> int:
    """Multiply-adds of one forward pass over `n_new` tokens that attend to `n_keys` keys
    (the cached ones and their own): per layer the Q, K, V and output projections (4·d² per
    token), the MLP (2·d·d_ff per token), the scores and the weighted sum (n_keys·d each per
    token, over all heads); then the logits (d·vocab per token)."""
    d, c = config.d_model, config
    per_layer = n_new * (4 * d * d + 2 * d * c.d_ff) + 2 * n_new * n_keys * d
    return c.n_layers * per_layer + n_new * d * c.vocab


def generation_macs(config: Config, n_prompt: int, n_new: int, use_cache: bool) -> int:
    """The multiply-adds `generate` does, counted by formula: the first step runs the prompt;
    step s ≥ 1 runs the whole n_prompt + s tokens (no cache) or the one new token (cache)."""
    total = forward_macs(config, n_prompt, n_prompt)
    for s in range(1, n_new):
        t = n_prompt + s
        total += forward_macs(config, 1 if use_cache else t, t)
    return total


def kv_cache_bytes(
    n_layers: int, d_model: int, n_tokens: int, bytes_per_number: int = 4
) -> int:
    """A key and a value vector of d_model numbers per token and layer."""
    return 2 * n_layers * n_tokens * d_model * bytes_per_number


def vocabulary(text: str = SENTENCE) -> list[str]:
    return sorted(set(text.split()))


def encode(text: str, words: list[str]) -> list[int]:
    return [words.index(w) for w in text.split()]


def decode(tokens: list[int], words: list[str]) -> str:
    """The words, a space between them but none before punctuation."""
    text = " ".join(words[t] for t in tokens)
    return re.sub(r" ([,.;:!?])", r"\1", text)


def train_on_sentence(steps: int = 100, window: int = 24, batch: int = 16) -> Decoder:
    """A Decoder that has learnt SENTENCE, repeated, by heart: next-token cross-entropy on
    random windows of the repetition (Adam, a few seconds on a CPU). Seeded by the caller."""
    words = vocabulary()
    text = torch.tensor(encode(SENTENCE, words))
    stream = text.repeat(window // len(text) + 3)
    model = Decoder(Config(vocab=len(words), context=64))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        starts = torch.randint(0, len(text), (batch,)).tolist()
        loss = 0.0
        for s in starts:
            piece = stream[s : s + window + 1]
            logits = model(piece[:-1])
            loss = loss + nn.functional.cross_entropy(logits, piece[1:])
        optimizer.zero_grad()
        (loss / batch).backward()
        optimizer.step()
    return model.eval()


def time_generation(
    model: Decoder, prompt: list[int], lengths: list[int], repeats: int = 3
) -> dict[str, list[float]]:
    """Median wall-clock seconds of `generate` for each number of new tokens, without and
    with the cache, the two runs interleaved so that a busy machine slows both alike."""
    out: dict[str, list[float]] = {"uncached": [], "cached": []}
    for n in lengths:
        runs: dict[str, list[float]] = {"uncached": [], "cached": []}
        for _ in range(repeats):
            for name in runs:
                start = time.perf_counter()
                generate(model, prompt, n, use_cache=name == "cached")
                runs[name].append(time.perf_counter() - start)
        for name in runs:
            out[name].append(statistics.median(runs[name]))
    return out
