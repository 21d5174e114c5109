"""用真实的 all-MiniLM-L6-v2 看注意力：「it」指向谁（带对照句），各个头在做什么。

层号、头号都从 0 开始计数。返回值都是普通数据（可 JSON 序列化）。
"""

import numpy as np
import torch

from pretrained import analyze, load_model, load_tokenizer, untrained_model

IT_SENTENCE = "The animal didn't cross the street because it was too tired"
# 对照句：只改最后一个词，"it" 就指 street 了
CONTROL_SENTENCE = "The animal didn't cross the street because it was too wide"
CAT_SENTENCE = "The cat sat on the mat"


def coreference_control(sentence: str = IT_SENTENCE, control: str = CONTROL_SENTENCE) -> dict:
    """在原句里找出「it」→「animal」权重最大的头，再在对照句（it = street）里看同一个头。

    若这个头在做指代消解，对照句里它应当转向 street；若它只是「大家都看 animal」（列模式），
    对照句里它仍然看 animal，而且句中其他词也都看 animal。
    返回 {"tokens": {"original", "control"}, "query", "animal", "street",
          "top": {"layer", "head"}（从 0 计数，在原句上选出），
          "original"/"control": {"it_to_animal", "it_to_street"（该头），
              "others_to_animal"（该头里除 it 外的词对 animal 的平均权重），
              "weights"（该头 n×n），"animal_share"（每个头 it→animal /(animal+street)，L×H），
              "mean_animal_share"},
          "n_heads", "right_in_both"（原句偏向 animal 且对照句偏向 street 的头数），
          "right_in_both_max"（这些头给正确词的最大权重，没有则为 0）}
    """
    runs = {"original": analyze(sentence), "control": analyze(control)}
    tokens = runs["original"].tokens
    it, animal, street = tokens.index("it"), tokens.index("animal"), tokens.index("street")
    assert [runs["control"].tokens.index(w) for w in ("it", "animal", "street")] == [
        it,
        animal,
        street,
    ]
    to_animal = runs["original"].attentions[:, :, it, animal]
    layer, head = (int(i) for i in np.unravel_index(np.argmax(to_animal), to_animal.shape))
    others = [i for i in range(1, len(tokens) - 1) if i != it]  # 句中其他词（不含 [CLS]/[SEP]）
    result = {
        "tokens": {name: run.tokens for name, run in runs.items()},
        "query": it,
        "animal": animal,
        "street": street,
        "top": {"layer": layer, "head": head},
        "n_heads": int(to_animal.size),
    }
    prefers = {}
    for name, run in runs.items():
        w = run.attentions[layer, head]
        a, s = run.attentions[:, :, it, animal], run.attentions[:, :, it, street]
        share = a / (a + s)
        prefers[name] = a > s
        result[name] = {
            "it_to_animal": float(w[it, animal]),
            "it_to_street": float(w[it, street]),
            "others_to_animal": float(w[others, animal].mean()),
            "weights": w.tolist(),
            "animal_share": share.tolist(),
            "mean_animal_share": float(share.mean()),
        }
    right = prefers["original"] & ~prefers["control"]
    orig, ctrl = runs["original"].attentions, runs["control"].attentions
    correct = np.maximum(orig[:, :, it, animal], ctrl[:, :, it, street])
    result["right_in_both"] = int(right.sum())
    result["right_in_both_max"] = float(correct[right].max()) if right.any() else 0.0
    return result


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


# 多义词：每个词两种词义、每种词义两句话；词都在同一个位置（"the" 之后），进编码器前完全相同
SENSE_SETS = {
    "bank": (
        ("the bank of the river was muddy", "the bank of the stream was steep"),
        ("the bank raised interest rates", "the bank approved the loan"),
    ),
    "bat": (
        ("the bat flew out of the cave", "the bat slept in the barn"),
        ("the bat hit the ball hard", "the bat was made of wood"),
    ),
    "plant": (
        ("the plant needs water and sunlight", "the plant grew new leaves"),
        ("the plant closed after the strike", "the plant hired new workers"),
    ),
    "pitcher": (
        ("the pitcher threw a fast ball", "the pitcher won the game"),
        ("the pitcher of milk was empty", "the pitcher of water was cold"),
    ),
    "bark": (
        ("the bark of the tree was rough", "the bark peeled off the trunk"),
        ("the bark of the dog was loud", "the bark woke the neighbours"),
    ),
}
MIXING_INIT_STD = 0.1  # 随机编码器的初始化标准差：比 BERT 的 0.02 大，随机层才真正混进上下文


@torch.no_grad()
def last_layer_states(sentences: list[str], model=None) -> list[np.ndarray]:
    """每句话最后一层的隐状态 (n, d)。一样长的句子放进同一批前向（不需要填充，结果与逐句
    前向相同，只差浮点舍入）。"""
    tokenizer, model = load_tokenizer(), model or load_model()
    ids = [tokenizer.encode(s) for s in sentences]
    states: list[np.ndarray | None] = [None] * len(sentences)
    for n in sorted({len(i) for i in ids}):
        rows = [k for k, i in enumerate(ids) if len(i) == n]
        hidden = model(torch.tensor([ids[k] for k in rows]))[0][-1].numpy()  # (batch, n, d)
        for k, h in zip(rows, hidden, strict=True):
            states[k] = h
    return states


def sense_gaps(model=None, sets: dict = SENSE_SETS) -> dict:
    """最后一层：同一个词在四句话里的表示，两两余弦相似度。

    返回 {词: {"gap"：同词义两对的平均 − 跨词义四对的平均（> 0 = 按词义分开），
               "mean_similarity"：六对的平均（接近 1 = 几乎没混进上下文）}}
    """
    tokenizer = load_tokenizer()
    sentences = [s for first, second in sets.values() for s in (*first, *second)]
    states = iter(last_layer_states(sentences, model))
    result = {}
    for word, (first, second) in sets.items():
        tokens = [tokenizer.tokenize(s) for s in (*first, *second)]
        pos = tokens[0].index(word)
        assert all(t[pos] == word for t in tokens)  # 同一个词、同一个位置
        vectors = [next(states)[pos] for _ in tokens]  # tokens 里含句首的 [CLS]
        unit = [v / np.linalg.norm(v) for v in vectors]
        sim = np.array([[float(a @ b) for b in unit] for a in unit])
        within = (sim[0, 1] + sim[2, 3]) / 2
        across = float(sim[:2, 2:].mean())
        result[word] = {
            "gap": float(within - across),
            "mean_similarity": float(sim[np.triu_indices(4, 1)].mean()),
        }
    return result


def sense_against_random(seeds, init_std: float = MIXING_INIT_STD, sets: dict = SENSE_SETS) -> dict:
    """训练后的模型 vs 一组随机编码器（每个种子一个，untrained_model(seed, init_std)）。

    每个词：训练后的差值超过了多少比例的随机编码器在同一个词上的差值。一次只看几个随机编码器
    时「超过全部随机结果」很容易碰巧成立；抽得越多，比例越稳定。
    返回 {"seeds": [...], "trained": sense_gaps(), "random": [每个种子的 sense_gaps],
          "fraction": {词: 超过的比例}}
    """
    seeds = list(seeds)
    trained = sense_gaps(sets=sets)
    random, model = [], None
    for seed in seeds:  # 同一个模型对象，每个种子就地重新抽取编码器
        model = untrained_model(seed=seed, init_std=init_std, reuse=model)
        random.append(sense_gaps(model, sets))
    fraction = {
        word: sum(trained[word]["gap"] > r[word]["gap"] for r in random) / len(random)
        for word in trained
    }
    return {"seeds": seeds, "trained": trained, "random": random, "fraction": fraction}


# 同一句话换最后一个词：前 6 个 it 指 animal，后 6 个 it 指 street（都是一个 WordPiece）
ENDINGS = {
    "animal": ("tired", "hungry", "scared", "sleepy", "weak", "slow"),
    "street": ("wide", "narrow", "busy", "crowded", "dark", "long"),
}
ENDING_STEM = "The animal didn't cross the street because it was too "


def coreference_endings(layer: int, head: int, endings: dict = ENDINGS) -> dict:
    """换多个结尾：给定的头在每句里的 it→animal / it→street / 其他词→animal，
    以及「翻转头数」（在前一句偏向 animal、后一句偏向 street 的头的个数）：
    指代真的变了的句对（animal 结尾 → street 结尾）与指代没变的句对（同组两个结尾）各算一遍。

    返回 {"head": {指代: {"it_to_animal": [...], "it_to_street": [...], "others_to_animal": [...]}},
          "flips_changed": [...], "flips_same": [...],
          "weakest_right": [...]（指代变了的句对里，翻转头给正确词的权重取两句中较小者，再取最大）}
    """
    runs = {g: [analyze(ENDING_STEM + w) for w in words] for g, words in endings.items()}
    tokens = runs["animal"][0].tokens
    it, animal, street = tokens.index("it"), tokens.index("animal"), tokens.index("street")
    others = [i for i in range(1, len(tokens) - 1) if i != it]
    for run in (*runs["animal"], *runs["street"]):
        assert run.tokens[:-2] == tokens[:-2] and len(run.tokens) == len(tokens)
    result = {"head": {}}
    for group, group_runs in runs.items():
        w = [run.attentions[layer, head] for run in group_runs]
        result["head"][group] = {
            "it_to_animal": [float(x[it, animal]) for x in w],
            "it_to_street": [float(x[it, street]) for x in w],
            "others_to_animal": [float(x[others, animal].mean()) for x in w],
        }

    def prefers_animal(run) -> np.ndarray:
        return run.attentions[:, :, it, animal] > run.attentions[:, :, it, street]

    changed, weakest = [], []
    for a in runs["animal"]:
        for s in runs["street"]:
            flips = prefers_animal(a) & ~prefers_animal(s)
            changed.append(int(flips.sum()))
            right = np.minimum(a.attentions[:, :, it, animal], s.attentions[:, :, it, street])
            weakest.append(float(right[flips].max()) if flips.any() else 0.0)
    same = [
        int((prefers_animal(a) & ~prefers_animal(b)).sum())
        for group_runs in runs.values()
        for a in group_runs
        for b in group_runs
        if a is not b
    ]
    result.update({"flips_changed": changed, "flips_same": same, "weakest_right": weakest})
    return result
