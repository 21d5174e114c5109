"""The numbers of the lesson `decoder`, recomputed here and compared with what its slides show
(`dist/decoder/values.json` and `index.html`, written by the build).

The recomputations are independent of the lesson's code: the decoder's forward pass is written
again in plain NumPy (float64, one head at a time, the causal mask as `np.tril`), the
multiply-adds in closed form (sums of t and t²) and checked against PyTorch's own FLOP
counter, the cache's bytes and the quiz's answer from their definitions. From the lesson come
only its trained weights (`decoder.train_on_sentence`, seeded as the section seeds it), read as
plain arrays, and the generation whose products the FLOP counter counts. Floats are compared
with tolerances (a slide's rounding, another CPU's last bits), never as printed digits;
timings are only checked to be reported.

Run: `bash test.sh -k decoder`.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

ROOT = Path(__file__).resolve().parents[2]
LESSON = "decoder"
LESSON_DIR = ROOT / "content" / LESSON
sys.path.insert(0, str(LESSON_DIR))  # the lesson's module, for its trained weights

NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")

# The architecture as the slides state it: the trained model (02) and the cost model (03).
LAYERS, D_MODEL, HEADS, D_FF = 2, 64, 4, 256
COST_VOCAB, COST_PROMPT, COST_LENGTHS = 1000, 8, [16, 32, 64, 128, 256]


# ---- the build ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built() -> dict:
    """The lesson built as `bash setup.sh` builds it, into dist/ with its PDFs: after setup.sh
    nothing has changed and the build returns at once (saying the last build's warnings
    again); after an edit, the cells that changed run again. Its layout is measured in
    Chromium while the PDFs print (the test suite turns the check off for other builds)."""
    env = {**os.environ, "DECK_LAYOUT_CHECK": "1"}
    command = [sys.executable, str(ROOT / "build.py"), LESSON]
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    deck = ROOT / "dist" / LESSON
    return {
        "values": json.loads((deck / "values.json").read_text("utf-8")),
        "html": (deck / "index.html").read_text("utf-8"),
        "log": proc.stdout + proc.stderr,
    }


def shown(built: dict, expr: str, section: str = "") -> str:
    """The text a slide shows for the inline expression `expr`, exactly as written."""
    texts = {
        v["text"]
        for v in built["values"]["values"]
        if v["expr"] == expr and v["section"].startswith(section)
    }
    assert len(texts) == 1, f"`{expr}` shows {texts or 'nothing'}"
    return texts.pop()


def shown_number(built: dict, expr: str, section: str = "") -> float:
    return float(shown(built, expr, section).replace(",", "").rstrip("×%"))


def output(built: dict, label: str) -> str:
    (text,) = [o["text"] for o in built["values"]["outputs"] if o["label"] == label]
    return text


def numbers(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in NUMBER.findall(text)]


def rounded(value: float, decimals: int, slack: float = 1e-3) -> object:
    """What a slide printing `value` to `decimals` decimals may show: within half a unit of
    its last digit, plus `slack` for the weights trained again here (another thread count)."""
    return pytest.approx(value, abs=0.5 * 10**-decimals + slack)


# ---- the trained model, and the decoder written again in NumPy ----------------------------


@pytest.fixture(scope="module")
def trained() -> dict:
    """The trained model's weights as float64 arrays, trained as the sections train it: the
    first use of torch's generator after the section seeds it with `exec.seed`."""
    from decoder import SENTENCE, train_on_sentence

    seed = yaml.safe_load((LESSON_DIR / "lesson.yml").read_text("utf-8"))["exec"]["seed"]
    torch.manual_seed(seed)
    model = train_on_sentence()
    weights = {k: v.detach().double().numpy() for k, v in model.state_dict().items()}
    words = sorted(set(SENTENCE.split()))
    return {"w": weights, "words": words, "sentence": [words.index(w) for w in SENTENCE.split()]}


def layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray) -> np.ndarray:
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + 1e-5) * gain + bias


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def reference(w: dict, tokens: list[int], causal: bool = True) -> tuple[np.ndarray, list]:
    """Logits (n, vocab) of the decoder for `tokens`, and every layer's per-head scores
    QKᵀ/√d_k before the mask: pre-LN blocks, one head at a time, no cache."""
    n, dk = len(tokens), D_MODEL // HEADS
    seen = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
    x = w["tokens"][tokens] + w["positions"][:n]
    scores = []
    for layer in range(LAYERS):
        p = f"blocks.{layer}."
        q, k, v = np.split(
            layer_norm(x, w[p + "norm1.weight"], w[p + "norm1.bias"]) @ w[p + "qkv"], 3, axis=1
        )
        heads, layer_scores = [], []
        for j in range(HEADS):
            part = slice(j * dk, (j + 1) * dk)
            s = q[:, part] @ k[:, part].T / math.sqrt(dk)
            layer_scores.append(s)
            e = np.where(seen, np.exp(s - np.where(seen, s, -np.inf).max(axis=1, keepdims=True)), 0)
            heads.append(e / e.sum(axis=1, keepdims=True) @ v[:, part])
        scores.append(layer_scores)
        x = x + np.concatenate(heads, axis=1) @ w[p + "out"]
        up = gelu(layer_norm(x, w[p + "norm2.weight"], w[p + "norm2.bias"]) @ w[p + "up"])
        x = x + up @ w[p + "down"]
    return layer_norm(x, w["norm.weight"], w["norm.bias"]) @ w["head"], scores


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


# ---- multiply-adds in closed form ----------------------------------------------------------


def sum_t(a: int, b: int) -> int:
    """1·a + … + b (0 when b < a)."""
    return (a + b) * (b - a + 1) // 2 if b >= a else 0


def sum_t2(a: int, b: int) -> int:
    def upto(m: int) -> int:
        return m * (m + 1) * (2 * m + 1) // 6

    return upto(b) - upto(a - 1) if b >= a else 0


def macs(vocab: int, prompt: int, new: int, cached: bool) -> int:
    """Greedy generation of `new` tokens after `prompt`: every token a forward pass reads costs
    L(4d² + 2·d·d_ff) + d·V; a query against T keys 2·L·T·d. Without a cache the step that
    reads t tokens runs all t queries (against t keys); with one, the prompt's queries once,
    then one query a step."""
    per_token = LAYERS * (4 * D_MODEL**2 + 2 * D_MODEL * D_FF) + D_MODEL * vocab
    per_key = 2 * LAYERS * D_MODEL
    last = prompt + new - 1  # the tokens the last step reads
    if not cached:
        return per_token * sum_t(prompt, last) + per_key * sum_t2(prompt, last)
    return per_token * last + per_key * (prompt**2 + sum_t(prompt + 1, last))


# ---- the tests ----------------------------------------------------------------------------


def test_the_build_warns_of_nothing(built):
    """No overflow, no figure text too small, no unknown key: the deck is as the author sees."""
    warnings = [line for line in built["log"].splitlines() if "warning" in line]
    assert warnings == []


def test_every_slide_has_notes_with_minutes(built):
    sections = re.findall(r"<section .*?</section>", built["html"], re.S)
    assert len(sections) == built["values"]["slides"]
    for section in sections:
        notes = re.search(r'<aside class="notes">(.*?)</aside>', section, re.S)
        assert notes, re.search(r'data-source="([^"]+)"', section).group(1)
        assert re.match(r"\d+ min\.", re.sub(r"<[^>]+>", "", notes.group(1)).strip())


def test_the_widget_holds_the_models_scores_and_the_mask_zeroes_the_future(built, trained):
    (data,) = [
        json.loads(text)
        for text in re.findall(
            r'data-widget="causal-attention"[^>]*>'
            r'<script type="application/json" class="widget-data">(.*?)</script>',
            built["html"],
            re.S,
        )
    ]
    words, first = trained["words"], trained["sentence"][:6]
    assert data["tokens"] == [words[t] for t in first]
    _, scores = reference(trained["w"], first)
    np.testing.assert_allclose(data["scores"], scores[0][0], atol=1e-4)  # layer 1, head 1
    # the weight the slide reads off row 3 ("reads"): a softmax over its 3 visible keys only
    row = softmax(np.asarray(data["scores"][2][:3]))
    assert shown_number(built, 'f"{row[1]:.2f}"') == rounded(row[1], 2, slack=1e-6)


def test_changing_the_last_word_moves_earlier_logits_only_without_the_mask(built, trained):
    w, sentence = trained["w"], trained["sentence"][:8]
    changed = sentence[:-1] + [trained["words"].index("again")]
    moved = {}
    for causal in (False, True):
        before, _ = reference(w, sentence, causal)
        after, _ = reference(w, changed, causal)
        moved[causal] = np.abs(before[:-1] - after[:-1]).max(axis=1)
    assert moved[True].max() < 1e-9  # float64: the masked positions never see the 8th word
    table = output(built, "mask-test")
    open_row, masked_row = (
        numbers(part) for part in table.split("no mask")[1].split("causal mask")
    )
    assert open_row == [rounded(x, 2) for x in moved[False]]
    assert masked_row == [rounded(0.0, 2, slack=1e-6)] * 7
    assert shown_number(built, 'f"{change_open:.2f}"', "01") == rounded(moved[False].max(), 2)


def test_the_generated_words_are_the_references_greedy_choices(built, trained):
    w, words, sentence = trained["w"], trained["words"], trained["sentence"]
    tokens, probabilities = sentence[:3], []  # the prompt "a decoder reads"
    while len(tokens) < len(sentence):  # no cache: the whole sequence, every step
        logits, _ = reference(w, tokens)
        probabilities.append(softmax(logits[-1]))
        tokens.append(int(logits[-1].argmax()))
    said = " ".join(words[t] for t in tokens[3:])  # and no space before punctuation
    assert shown(built, "decode(chosen, words)") == re.sub(r" ([,.])", r"\1", said)
    rows = output(built, "generation-steps").split("p(next)")[1]
    shown_p = [float(p) / 100 for p in re.findall(r"(\d+\.\d)%", rows)]
    expected = [probabilities[s][tokens[3 + s]] for s in range(5)]
    assert shown_p == [rounded(p, 3) for p in expected]


def test_the_multiply_add_formula_is_what_torch_counts():
    """PyTorch's FLOP counter (2 per multiply-add) on the lesson's own generation: the closed
    form here counts the products the model really does, with and without the cache."""
    from decoder import Config, Decoder, generate
    from torch.utils.flop_counter import FlopCounterMode

    model = Decoder(Config(vocab=50, context=32)).eval()
    for cached in (False, True):
        with FlopCounterMode(display=False) as counter:
            generate(model, [1, 2, 3], 6, use_cache=cached)
        assert counter.get_total_flops() == 2 * macs(50, 3, 6, cached)


def test_the_cache_check_shows_agreement_and_exact_counts(built):
    assert float(shown(built, 'f"{gap:.0e}"', "02")) < 1e-4
    vocab, prompt, new = 14, 3, 20  # the trained model: 14 words, "a decoder reads", 20 new
    assert shown_number(built, 'f"{slow.macs:,}"') == macs(vocab, prompt, new, cached=False)
    assert shown_number(built, 'f"{fast.macs:,}"') == macs(vocab, prompt, new, cached=True)
    tokens = prompt + new - 1  # what the cache holds when the last token is chosen
    assert shown_number(built, 'f"{cache_bytes:,}"') == 2 * LAYERS * tokens * D_MODEL * 4


def test_the_multiply_add_table(built):
    values = numbers(output(built, "macs-table"))
    rows = [values[k : k + 4] for k in range(0, len(values), 4)]
    assert [int(r[0]) for r in rows] == COST_LENGTHS
    for n, slow, fast, fewer in rows:
        exact = (
            macs(COST_VOCAB, COST_PROMPT, int(n), False),
            macs(COST_VOCAB, COST_PROMPT, int(n), True),
        )
        assert (slow, fast) == exact
        assert fewer == round(exact[0] / exact[1])


def test_timings_are_reported_as_measured_on_the_build_machine(built):
    """Only that they are there: a time depends on the machine and its load."""
    slow, fast = (shown_number(built, f'f"{{{name}[-1]:.0f}}"') for name in ("slow_ms", "fast_ms"))
    assert slow > 0 and fast > 0
    (figure,) = [f for f in built["values"]["figures"] if f["label"] == "cost"]
    assert built["values"]["build_host"]["cpu"] in figure["caption"]


def test_the_quiz_answer_is_the_kv_cache_of_gpt2_small(built):
    (quiz,) = built["values"]["quizzes"]
    n_bytes = 2 * 12 * 1024 * 768 * 4  # (key + value) × layers × tokens × d_model × float32
    assert quiz["answer_text"] == f"{n_bytes // 2**20} MiB" == "72 MiB"
    assert quiz["choices"][quiz["answer"]] == quiz["answer_text"]
    assert len(set(quiz["choices"])) == 4 and quiz["explanation"]


def test_the_exercise_and_the_summary(built):
    t = 200
    assert shown_number(built, 'f"{attention_cached:,}"') == 2 * LAYERS * t * D_MODEL
    assert shown_number(built, 'f"{attention_uncached:,}"') == 2 * LAYERS * t * t * D_MODEL
    one, late = 1, 500  # the step that reads 1 token, the one that reads 500
    per_token = LAYERS * (4 * D_MODEL**2 + 2 * D_MODEL * D_FF) + D_MODEL * COST_VOCAB
    step = per_token + 2 * LAYERS * D_MODEL * one
    cached = (per_token + 2 * LAYERS * D_MODEL * late) / step
    uncached = (late * per_token + 2 * LAYERS * D_MODEL * late * late) / step
    assert shown_number(built, 'f"{step_cached:.1f}"', "04") == rounded(cached, 1, 1e-9)
    assert shown_number(built, 'f"{step_uncached:.0f}"', "04") == rounded(uncached, 0, 1e-9)
