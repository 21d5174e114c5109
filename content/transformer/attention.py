"""缩放点积注意力：NumPy 版与 PyTorch 版，以及两种掩码。

掩码约定（与 torch.nn.functional.scaled_dot_product_attention 的布尔掩码相同）：
    True  = 这个 query 可以看这个 key
    False = 屏蔽（分数设为 -inf，softmax 后权重为 0）
掩码可广播到 (batch, heads, q_len, k_len)。
若某一行的 key 全被屏蔽，本实现约定该行权重全为 0、输出也为 0（而不是 NaN）。
"""

import math

import numpy as np
import torch


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """数值稳定的 softmax：先减去每行最大值，再取指数、归一化。"""
    exp_x = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exp_x / np.sum(exp_x, axis=axis, keepdims=True)


def masked_softmax(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """只在 mask 为 True 的位置上做 softmax；整行被屏蔽时返回全 0。"""
    scores = np.where(mask, scores, -np.inf)
    row_max = np.max(scores, axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)  # 整行 -inf：避免 -inf - (-inf)
    exp_s = np.exp(scores - row_max)  # 被屏蔽处 exp(-inf) = 0
    total = np.sum(exp_s, axis=-1, keepdims=True)
    return exp_s / np.where(total > 0, total, 1.0)


def self_attention_np(
    Q: np.ndarray, K: np.ndarray, V: np.ndarray, mask: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """NumPy 版 Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V。

    ① 线性变换在函数外完成：Q = X W^Q，K = X W^K，V = X W^V。
    Q: (..., n_q, d_k)，K: (..., n_k, d_k)，V: (..., n_k, d_v)
    返回 output (..., n_q, d_v) 和 weights (..., n_q, n_k)。
    """
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)  # ② 打分并缩放
    if mask is None:
        weights = softmax(scores, axis=-1)  # ③ 每行 softmax 归一化
    else:
        weights = masked_softmax(scores, mask)
    output = weights @ V  # ④ 对 V 加权求和
    return output, weights


def attention_steps(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> dict[str, np.ndarray]:
    """逐步展示（NumPy，无掩码）：返回每一步的中间矩阵，便于在幻灯片上列表。

    {"scores": Q Kᵀ, "scaled": Q Kᵀ / √d_k, "weights": softmax(按行), "output": weights · V}
    """
    scores = Q @ K.T
    scaled = scores / np.sqrt(K.shape[-1])
    weights = softmax(scaled, axis=-1)
    return {"scores": scores, "scaled": scaled, "weights": weights, "output": weights @ V}


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """PyTorch 版缩放点积注意力。

    q: (..., n_q, d_k)，k: (..., n_k, d_k)，v: (..., n_k, d_v)，mask: 布尔，True = 可见。
    返回 output (..., n_q, d_v) 和 weights (..., n_q, n_k)。
    """
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        # 整行被屏蔽时 softmax 给出 NaN；这些位置本来就该是 0
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ v, weights


def padding_mask(tokens: torch.Tensor, pad_id: int = 0) -> torch.Tensor:
    """Padding 掩码：(batch, n) 的 token id -> (batch, 1, 1, n)，非 PAD 的 key 为 True。

    只屏蔽 key：PAD 位置自己作为 query 仍会算出输出，后续忽略即可。
    """
    return (tokens != pad_id)[:, None, None, :]


def causal_mask(n: int) -> torch.Tensor:
    """因果掩码：(n, n) 下三角为 True，第 i 个位置只能看 0..i。"""
    return torch.tril(torch.ones(n, n, dtype=torch.bool))
