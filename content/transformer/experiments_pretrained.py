"""用真实的 all-MiniLM-L6-v2 看注意力：「it」指向谁，各个头在做什么。

层号、头号都从 0 开始计数。返回值都是普通数据（可 JSON 序列化）。
"""

import numpy as np

from pretrained import analyze

IT_SENTENCE = "The animal didn't cross the street because it was too tired"
CAT_SENTENCE = "The cat sat on the mat"


def it_animal_attention(sentence: str = IT_SENTENCE) -> dict:
    """每层每个头里，「it」对「animal」和「street」的注意力权重，以及最关注「animal」的那个头。

    返回 {"tokens", "query", "to_animal": L×H, "to_street": L×H, "layer_mean_to_animal": [L],
          "heads_preferring_animal": int, "top": {"layer", "head", "to_animal", "to_street"},
          "top_head_weights": n×n（该头的完整权重矩阵，画热力图用）}
    """
    result = analyze(sentence)
    tokens = result.tokens
    it, animal, street = tokens.index("it"), tokens.index("animal"), tokens.index("street")
    to_animal = result.attentions[:, :, it, animal]  # (layers, heads)
    to_street = result.attentions[:, :, it, street]
    layer, head = np.unravel_index(np.argmax(to_animal), to_animal.shape)
    return {
        "tokens": tokens,
        "query": it,
        "to_animal": to_animal.tolist(),
        "to_street": to_street.tolist(),
        "layer_mean_to_animal": to_animal.mean(axis=1).tolist(),
        "heads_preferring_animal": int((to_animal > to_street).sum()),
        "top": {
            "layer": int(layer),
            "head": int(head),
            "to_animal": float(to_animal[layer, head]),
            "to_street": float(to_street[layer, head]),
        },
        "top_head_weights": result.attentions[layer, head].tolist(),
    }


def head_statistics(weights: np.ndarray) -> dict:
    """一个头的 (n, n) 权重矩阵的统计量，只对真正的词（不含 [CLS]/[SEP]）做 query 平均。

    previous/next/self/cls/sep：平均落在前一个词、后一个词、自身、[CLS]、[SEP] 上的权重；
    entropy：每行的熵除以 log(n)（1 = 完全均匀）。
    """
    n = weights.shape[0]
    words = range(1, n - 1)
    row_entropy = -np.sum(weights * np.log(np.maximum(weights, 1e-12)), axis=1) / np.log(n)
    return {
        "previous": float(np.mean([weights[i, i - 1] for i in range(2, n - 1)])),
        "next": float(np.mean([weights[i, i + 1] for i in range(1, n - 2)])),
        "self": float(np.mean([weights[i, i] for i in words])),
        "cls": float(np.mean([weights[i, 0] for i in words])),
        "sep": float(np.mean([weights[i, n - 1] for i in words])),
        "entropy": float(np.mean(row_entropy[1 : n - 1])),
    }


PATTERNS = ("previous", "next", "self", "cls", "sep")  # 权重集中的位置类型
LABEL_NAMES = {  # 每个标签的中文名，供幻灯片使用
    "previous": "前一个词",
    "next": "后一个词",
    "self": "自身",
    "cls": "[CLS]",
    "sep": "[SEP]",
    "broad": "分散（熵高）",
    "mixed": "混合",
}


def classify_head(stats: dict, mass_threshold: float = 0.5, broad_threshold: float = 0.8) -> str:
    """权重有一半以上落在同一类位置 → 该类；否则熵很高 → "broad"；其余为 "mixed"。"""
    best = max(PATTERNS, key=lambda name: stats[name])
    if stats[best] >= mass_threshold:
        return best
    return "broad" if stats["entropy"] >= broad_threshold else "mixed"


def head_patterns(sentence: str = CAT_SENTENCE) -> dict:
    """给 MiniLM 的 6×12 个头逐一计算统计量并分类。

    返回 {"tokens", "heads": [{"layer", "head", previous/next/self/cls/sep/entropy, "label"}],
          "counts": {label: 个数}, "examples": {label: {"layer", "head", "weights": n×n}}}
    标签见 LABEL_NAMES。examples 里每类给出最典型的头（该类权重最大；broad/mixed 取熵最大）。
    """
    result = analyze(sentence)
    heads = []
    for layer, layer_weights in enumerate(result.attentions):
        for head, weights in enumerate(layer_weights):
            stats = head_statistics(weights)
            heads.append({"layer": layer, "head": head, **stats, "label": classify_head(stats)})
    counts, examples = {}, {}
    for label in sorted({h["label"] for h in heads}):
        members = [h for h in heads if h["label"] == label]
        key = "entropy" if label in ("broad", "mixed") else label
        best = max(members, key=lambda h: h[key])
        counts[label] = len(members)
        examples[label] = {
            "layer": best["layer"],
            "head": best["head"],
            "weights": result.attentions[best["layer"], best["head"]].tolist(),
        }
    return {"tokens": result.tokens, "heads": heads, "counts": counts, "examples": examples}
