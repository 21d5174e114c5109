"""The lesson's MiniLM (own encoder + own WordPiece) vs Hugging Face transformers, same files.

transformers is a test-only dependency here; the lesson code never imports it.
"""

import sys

import numpy as np
import pytest
import torch

from pretrained import analyze, load_model, load_tokenizer, model_dir

SENTENCES = [
    "The animal didn't cross the street because it was too tired",
    "The cat sat on the mat",
    "Héllo, WORLD!! Transformers are AMAZING; naïve café costs 3.14 e-mail",
    "xqzjvbkw unbelievably-long-wordpiece splitting: qwertyuiop?",
    "Emoji 🤗 and 中文 注意力 and tabs\tand\nnew lines, \u00a0nbsp \u200bzero-width — “quotes”",
    "a" * 120 + " ok",
]


@pytest.fixture(scope="module")
def hf_model():
    from transformers import BertModel

    model = BertModel.from_pretrained(
        str(model_dir()), attn_implementation="eager", local_files_only=True
    )
    return model.eval()


def test_model_files_present():
    for name in ("config.json", "model.safetensors", "vocab.txt"):
        assert (model_dir() / name).is_file()


@pytest.mark.slow
def test_tokenizer_matches_bert_tokenizers():
    from transformers import BertTokenizer
    from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

    slow = BertTokenizerLegacy(vocab_file=str(model_dir() / "vocab.txt"))  # pure-Python reference
    fast = BertTokenizer.from_pretrained(str(model_dir()), local_files_only=True)  # tokenizers
    ours = load_tokenizer()
    for sentence in SENTENCES:
        ids = ours.encode(sentence)
        assert ids == slow(sentence)["input_ids"], sentence
        assert ids == fast(sentence)["input_ids"], sentence
        assert ours.tokenize(sentence) == slow.convert_ids_to_tokens(ids)
    assert ours.tokenize("didn't")[1:-1] == ["didn", "'", "t"]
    assert "[UNK]" in ours.tokenize("🤗")


def test_encoder_matches_bert_model(hf_model):
    for sentence in SENTENCES:
        ours = analyze(sentence)
        with torch.no_grad():
            ref = hf_model(
                torch.tensor([ours.ids]), output_attentions=True, output_hidden_states=True
            )
        n = len(ours.ids)
        assert ours.attentions.shape == (6, 12, n, n)
        assert ours.hidden_states.shape == (7, n, 384)
        for layer in range(6):
            err = np.abs(ours.attentions[layer] - ref.attentions[layer][0].numpy()).max()
            assert err <= 1e-5, (sentence, layer, err)
        for layer in range(7):
            expected = ref.hidden_states[layer][0].numpy()
            # Hidden states reach |h| of several units after the post-LN affine transform; float32
            # keeps ~7 significant digits, so the bound is 1e-5 relative to the largest magnitude.
            scale = max(1.0, float(np.abs(expected).max()))
            err = np.abs(ours.hidden_states[layer] - expected).max()
            assert err <= 1e-5 * scale, (sentence, layer, err)
        pooled = ref.last_hidden_state[0].mean(dim=0).numpy()
        assert np.abs(ours.embedding - pooled).max() <= 1e-5


def test_attention_rows_sum_to_one():
    result = analyze(SENTENCES[0])
    assert np.allclose(result.attentions.sum(axis=-1), 1.0, atol=1e-5)
    assert result.tokens[0] == "[CLS]" and result.tokens[-1] == "[SEP]"


def test_model_is_cached_and_transformers_not_needed():
    assert load_model() is load_model()
    assert load_tokenizer() is load_tokenizer()
    import pretrained

    source = open(pretrained.__file__, encoding="utf-8").read()
    assert "import transformers" not in source and "from transformers" not in source
    assert "sentence_transformers" not in source
    assert sys.modules.get("pretrained") is pretrained


def copied_untrained(seed: int, init_std: float) -> torch.nn.Module:
    """The untrained control built the plain way: a MiniLM of its own with the trained
    embeddings copied in and every encoder weight drawn from `seed` in module order."""
    import json

    from torch import nn

    from pretrained import MiniLM

    config = json.loads((model_dir() / "config.json").read_text())
    model = MiniLM(config)
    trained = load_model().state_dict()
    embeddings = {k: v for k, v in trained.items() if not k.startswith("encoder.")}
    model.load_state_dict(embeddings, strict=False)
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in model.encoder.modules():
            if isinstance(module, nn.Linear):
                module.weight.normal_(0.0, init_std, generator=gen)
                module.bias.zero_()
            elif isinstance(module, nn.LayerNorm):
                module.weight.fill_(1.0)
                module.bias.zero_()
    return model.eval()


@pytest.mark.slow
def test_untrained_model_shares_the_trained_embeddings_and_draws_the_same_encoder():
    """The control model holds no copy of the 45 MB embedding table (the lesson keeps two
    controls alive at once) and is, weight for weight, the model a copy would have made."""
    from pretrained import EMBEDDING_MODULES, untrained_model

    trained = load_model()
    before = {k: v.clone() for k, v in trained.state_dict().items()}
    reused = None
    for seed, init_std in ((0, 0.02), (3, 0.1)):
        model = untrained_model(seed=seed, init_std=init_std)
        for name in EMBEDDING_MODULES:
            assert getattr(model, name) is getattr(trained, name)
        expected = copied_untrained(seed, init_std).state_dict()
        got = model.state_dict()
        assert got.keys() == expected.keys()
        assert all(torch.equal(got[k], expected[k]) for k in expected)
        reused = untrained_model(seed=seed, init_std=init_std, reuse=reused)
        assert all(torch.equal(v, expected[k]) for k, v in reused.state_dict().items())
        ours, copied = (analyze(SENTENCES[0], m) for m in (model, copied_untrained(seed, init_std)))
        assert np.array_equal(ours.hidden_states, copied.hidden_states)
    after = trained.state_dict()
    assert all(torch.equal(after[k], before[k]) for k in before)  # the trained model untouched
