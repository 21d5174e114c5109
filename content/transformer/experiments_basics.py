"""不需要训练的实验：梯度路径、√d_k 缩放、置换等变、相对位置、计算开销。

每个函数都固定随机种子、只返回普通数据（list/dict/float/int/str，可直接 JSON 序列化）。
"""

import math
import os
import time
import tracemalloc

import numpy as np
import torch
from torch.autograd.functional import jacobian

from attention import scaled_dot_product_attention, self_attention_np, softmax
from encoding import relative_position_matrix, sinusoidal_encoding

# ---------- 1. RNN 的梯度随距离衰减，自注意力的路径长度始终为 1 ----------


def rnn_last_state(x: torch.Tensor, W_x: torch.Tensor, W_h: torch.Tensor) -> torch.Tensor:
    """朴素 tanh RNN：h_t = tanh(x_t W_x + h_{t-1} W_h)，返回最后一个隐状态 h_T。"""
    h = torch.zeros(W_h.size(0), dtype=x.dtype)
    for x_t in x:  # 只能一步一步地算
        h = torch.tanh(x_t @ W_x + h @ W_h)
    return h


def attention_last_output(x: torch.Tensor, W_q, W_k, W_v) -> torch.Tensor:
    """单头自注意力在最后一个位置的输出：它与每个输入只隔一步。"""
    out, _ = scaled_dot_product_attention(x @ W_q, x @ W_k, x @ W_v)
    return out[-1]


def rnn_gradient_vs_distance(
    seq_len: int = 40,
    d: int = 16,
    hidden: int = 32,
    n_trials: int = 8,
    seed: int = 0,
    gain: float = 1.0,
) -> dict:
    """‖∂h_T/∂x_t‖（雅可比矩阵的 Frobenius 范数）随距离 T−t 的变化，RNN 与自注意力对比。

    未训练的随机权重；RNN 的 W_h ~ N(0, 1/hidden) 再乘 gain（gain 越大，梯度衰减越慢）。
    对 n_trials 条随机序列取平均。
    返回 {"distance": [0..seq_len-1], "rnn": [...], "attention": [...]}。
    """
    gen = torch.Generator().manual_seed(seed)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    W_x, W_h = randn(d, hidden) / math.sqrt(d), gain * randn(hidden, hidden) / math.sqrt(hidden)
    W_q, W_k, W_v = (randn(d, d) / math.sqrt(d) for _ in range(3))
    rnn_norms = torch.zeros(seq_len, dtype=torch.float64)
    attention_norms = torch.zeros(seq_len, dtype=torch.float64)
    for _ in range(n_trials):
        x = randn(seq_len, d)
        J_rnn = jacobian(lambda x: rnn_last_state(x, W_x, W_h), x, vectorize=True)  # (hidden, n, d)
        J_att = jacobian(lambda x: attention_last_output(x, W_q, W_k, W_v), x, vectorize=True)
        rnn_norms += J_rnn.norm(dim=(0, 2)) / n_trials
        attention_norms += J_att.norm(dim=(0, 2)) / n_trials
    return {  # 位置 t 对应距离 T - t，翻转后按距离从 0 开始排列
        "distance": list(range(seq_len)),
        "rnn": rnn_norms.flip(0).tolist(),
        "attention": attention_norms.flip(0).tolist(),
    }


def far_gradient_ratio(grad: dict, min_distance: int = 20) -> float:
    """距离 ≥ min_distance 处，自注意力的平均梯度范数是 RNN 的多少倍。"""
    far = [i for i, d in enumerate(grad["distance"]) if d >= min_distance]
    rnn = sum(grad["rnn"][i] for i in far) / len(far)
    return sum(grad["attention"][i] for i in far) / len(far) / rnn


def rnn_gradient_spread(seeds=range(5), min_distance: int = 20, gain: float = 1.0) -> dict:
    """同一个实验换几个随机种子（新的随机权重和序列）：far_gradient_ratio 的分布。

    单个种子的倍数只是一次抽样；幻灯片报告范围而不是一个精确到个位的数。
    返回 {"seeds": [...], "min_distance", "gain", "ratio": [每个种子一个]}
    """
    ratios = [
        far_gradient_ratio(rnn_gradient_vs_distance(seed=s, gain=gain), min_distance) for s in seeds
    ]
    return {"seeds": list(seeds), "min_distance": min_distance, "gain": gain, "ratio": ratios}


# ---------- 2. 为什么要除以 √d_k ----------

D_KS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


def dot_product_variance(d_ks=D_KS, n_samples: int = 10000, seed: int = 0) -> dict:
    """q、k 的分量独立 ~ N(0,1) 时，q·k 的方差 ≈ d_k；除以 √d_k 后 ≈ 1。

    返回 {"d_k": [...], "var_raw": [...], "var_scaled": [...]}（经验方差）。
    """
    rng = np.random.default_rng(seed)
    var_raw, var_scaled = [], []
    for d_k in d_ks:
        q = rng.standard_normal((n_samples, d_k))
        k = rng.standard_normal((n_samples, d_k))
        dots = np.sum(q * k, axis=1)
        var_raw.append(float(np.var(dots)))
        var_scaled.append(float(np.var(dots / np.sqrt(d_k))))
    return {"d_k": list(d_ks), "var_raw": var_raw, "var_scaled": var_scaled}


def softmax_jacobian(p: np.ndarray) -> np.ndarray:
    """softmax 对输入分数的雅可比：J = diag(p) − p pᵀ，p: (..., n) -> (..., n, n)。"""
    return p[..., :, None] * np.eye(p.shape[-1]) - p[..., :, None] * p[..., None, :]


def softmax_stats(scores: np.ndarray) -> dict:
    """一批分数行 (batch, n) 的 softmax：平均最大权重、平均熵（nats）、平均梯度范数 ‖J‖_F。"""
    p = softmax(scores, axis=-1)
    entropy = -np.sum(p * np.log(np.maximum(p, 1e-300)), axis=-1)
    grad_norm = np.linalg.norm(softmax_jacobian(p), axis=(-2, -1))
    return {
        "max_weight": float(p.max(axis=-1).mean()),
        "entropy": float(entropy.mean()),
        "grad_norm": float(grad_norm.mean()),
    }


def softmax_saturation(d_ks=D_KS, n_keys: int = 16, n_samples: int = 2000, seed: int = 0) -> dict:
    """d_k 变大时，不缩放的 softmax 趋于 one-hot：最大权重 → 1，熵 → 0，梯度 → 0。

    返回 {"d_k", "n_keys", "uniform_entropy", "raw": {指标: [...]}, "scaled": {指标: [...]}}，
    指标为 max_weight / entropy / grad_norm。
    """
    rng = np.random.default_rng(seed)
    result = {"d_k": list(d_ks), "n_keys": n_keys, "uniform_entropy": math.log(n_keys)}
    result["raw"] = {"max_weight": [], "entropy": [], "grad_norm": []}
    result["scaled"] = {"max_weight": [], "entropy": [], "grad_norm": []}
    for d_k in d_ks:
        q = rng.standard_normal((n_samples, 1, d_k))
        K = rng.standard_normal((n_samples, n_keys, d_k))
        scores = np.sum(q * K, axis=-1)  # (n_samples, n_keys)，每行是一个 query 对各 key 的分数
        for name, s in (("raw", scores), ("scaled", scores / np.sqrt(d_k))):
            for metric, value in softmax_stats(s).items():
                result[name][metric].append(value)
    return result


def softmax_examples(d_ks=D_KS, n_keys: int = 16, seed: int = 0) -> dict:
    """每个 d_k 抽一个 query 和 n_keys 个 key（分量 ~ N(0,1)，与 softmax_saturation 同分布），
    给出这一行分数不缩放与除以 √d_k 后的 softmax 权重：看得见的「一行」，而不是平均值。

    返回 {"d_k": [...], "unscaled": [[n_keys 个权重] per d_k], "scaled": [[...] per d_k]}。
    """
    rng = np.random.default_rng(seed)
    unscaled, scaled = [], []
    for d_k in d_ks:
        q = rng.standard_normal(d_k)
        K = rng.standard_normal((n_keys, d_k))
        scores = K @ q
        unscaled.append(softmax(scores, axis=-1).tolist())
        scaled.append(softmax(scores / np.sqrt(d_k), axis=-1).tolist())
    return {"d_k": list(d_ks), "unscaled": unscaled, "scaled": scaled}


# ---------- 3. 位置编码 ----------


def permutation_equivariance(n: int = 6, d: int = 16, seed: int = 0) -> dict:
    """打乱输入顺序：没有位置编码时输出只是跟着同样打乱（误差 ≈ 0）；加上位置编码后不再如此。

    返回 {"permutation", "error_without_pe", "error_with_pe"}，误差为 max|Attn(X[π]) − Attn(X)[π]|。
    """
    gen = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=gen)
    W_q, W_k, W_v = (torch.randn(d, d, generator=gen) / math.sqrt(d) for _ in range(3))
    perm = torch.randperm(n, generator=gen)

    def attend(x: torch.Tensor) -> torch.Tensor:
        return scaled_dot_product_attention(x @ W_q, x @ W_k, x @ W_v)[0]

    pe = sinusoidal_encoding(n, d)
    error_without = (attend(X[perm]) - attend(X)[perm]).abs().max()
    error_with = (attend(X[perm] + pe) - attend(X + pe)[perm]).abs().max()
    return {
        "permutation": perm.tolist(),
        "error_without_pe": float(error_without),
        "error_with_pe": float(error_with),
    }


def relative_position_check(d_model: int = 64, max_pos: int = 100, ks=(1, 2, 5, 10, 50)) -> dict:
    """验证 PE(pos + k) = M_k · PE(pos)（float64），对所有 pos < max_pos 取最大误差。

    返回 {"k": [...], "max_error": [...], "orthogonality_error": [...]}（M_k 是正交矩阵）。
    """
    pe = sinusoidal_encoding(max_pos + max(ks), d_model, dtype=torch.float64)
    errors, orthogonality = [], []
    for k in ks:
        M = relative_position_matrix(k, d_model)
        predicted = pe[:max_pos] @ M.T  # 每一行: M_k · PE(pos)
        errors.append(float((predicted - pe[k : k + max_pos]).abs().max()))
        orthogonality.append(float((M.T @ M - torch.eye(d_model, dtype=torch.float64)).abs().max()))
    return {"k": list(ks), "max_error": errors, "orthogonality_error": orthogonality}


def pe_similarity_vs_distance(
    d_model: int = 64, n_positions: int = 50, max_distance: int = 50
) -> dict:
    """点积 PE(pos)·PE(pos+k) 只取决于距离 k（= Σ_i cos(k·w_i)），与 pos 无关。

    返回 {"distance", "similarity"（对 pos 取平均）, "spread"（不同 pos 的最大差）, "cosine"}。
    """
    pe = sinusoidal_encoding(n_positions + max_distance + 1, d_model, dtype=torch.float64)
    similarity, spread, cosine = [], [], []
    for k in range(max_distance + 1):
        dots = (pe[:n_positions] * pe[k : k + n_positions]).sum(dim=1)  # 每个 pos 一个点积
        norms = pe[:n_positions].norm(dim=1) * pe[k : k + n_positions].norm(dim=1)
        similarity.append(float(dots.mean()))
        spread.append(float(dots.max() - dots.min()))
        cosine.append(float((dots / norms).mean()))
    return {
        "distance": list(range(max_distance + 1)),
        "similarity": similarity,
        "spread": spread,
        "cosine": cosine,
    }


# ---------- 4. 计算开销：注意力矩阵是 n × n ----------


def rnn_steps_np(x: np.ndarray, W_x: np.ndarray, W_h: np.ndarray) -> np.ndarray:
    """NumPy 版 tanh RNN：n 个必须依次执行的小矩阵乘。"""
    h = np.zeros(W_h.shape[0], dtype=x.dtype)
    for x_t in x:
        h = np.tanh(x_t @ W_x + h @ W_h)
    return h


def median_seconds(repeats: int, fn, *args) -> float:
    """运行 fn(*args) repeats 次，返回耗时的中位数（秒）。"""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def attention_cost(ns=(128, 256, 512, 1024, 2048), d: int = 64, seed: int = 0) -> dict:
    """注意力的计算量与内存随序列长度 n 的变化（NumPy，float32，单头）。不计时。

    计数（一次乘加算 2 次运算）："score_matrix_bytes" = 4·n²；
    "attention_flops" = 4·n²·d + 8·n·d²（QKᵀ 与 权重·V 各 2·n²·d，
    加上 Q、K、V、O 四个投影各 2·n·d²：
    RNN 的输入投影 x_t W_x 也算在它的计数里，两边要按同样的口径数）；
    "rnn_flops" = 4·n·d²（每步 x_t W_x 与 h W_h 各 2·d²）；"rnn_sequential_steps" = n。
    实测："attention_peak_bytes"：tracemalloc 记录的 self_attention_np 峰值内存
    （由 n×n 的数组主导；不同进程之间可能相差几百字节）。
    """
    rng = np.random.default_rng(seed)
    result = {"n": list(ns), "d": d, "score_matrix_bytes": [], "attention_flops": []}
    result["rnn_flops"], result["rnn_sequential_steps"], result["attention_peak_bytes"] = [], [], []
    for n in ns:
        Q, K, V = (rng.standard_normal((n, d)).astype(np.float32) for _ in range(3))
        result["score_matrix_bytes"].append(n * n * 4)
        result["attention_flops"].append(4 * n * n * d + 8 * n * d * d)
        result["rnn_flops"].append(4 * n * d * d)
        result["rnn_sequential_steps"].append(n)
        tracemalloc.start()
        self_attention_np(Q, K, V)
        result["attention_peak_bytes"].append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return result


def attention_timing(
    ns=(128, 256, 512, 1024, 2048), d: int = 64, repeats: int = 3, seed: int = 0
) -> dict:
    """本机实测：NumPy 单头注意力与 n 步 tanh RNN 的耗时（中位数，秒）。每次运行都不同。

    本课只在一处计时（第一部分），其他地方只用 attention_cost 的确定量。
    返回 {"n", "d", "cpu_count"（os.cpu_count()）, "attention_seconds", "rnn_seconds"}
    """
    rng = np.random.default_rng(seed)
    W_x, W_h = (rng.standard_normal((d, d)).astype(np.float32) / np.sqrt(d) for _ in range(2))
    result = {"n": list(ns), "d": d, "cpu_count": os.cpu_count()}
    result["attention_seconds"], result["rnn_seconds"] = [], []
    for n in ns:
        X, Q, K, V = (rng.standard_normal((n, d)).astype(np.float32) for _ in range(4))
        result["attention_seconds"].append(median_seconds(repeats, self_attention_np, Q, K, V))
        result["rnn_seconds"].append(median_seconds(repeats, rnn_steps_np, X, W_x, W_h))
    return result
