"""位置编码：正弦/余弦编码（论文公式）、可学习位置嵌入，以及相对位置的旋转矩阵 M_k。

PE(pos, 2i)   = sin(pos / 10000^(2i / d_model))
PE(pos, 2i+1) = cos(pos / 10000^(2i / d_model))
"""

import torch
from torch import nn


def frequencies(d_model: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """每一对 (sin, cos) 维度的角频率 w_i = 1 / 10000^(2i / d_model)，长度 ceil(d_model / 2)。"""
    two_i = torch.arange(0, d_model, 2, dtype=dtype)
    return 1.0 / (10000.0 ** (two_i / d_model))


def sinusoidal_encoding(
    max_len: int, d_model: int, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """正弦位置编码表，形状 (max_len, d_model)；偶数列放 sin，奇数列放 cos。

    d_model 为奇数时，最后一列是一个单独的 sin 列。内部用 float64 计算，最后再转成 dtype。
    """
    pos = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)  # (max_len, 1)
    w = frequencies(d_model, torch.float64)  # (ceil(d_model/2),)
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * w)
    pe[:, 1::2] = torch.cos(pos * w[: d_model // 2])
    return pe.to(dtype)


class SinusoidalPositionalEncoding(nn.Module):
    """把固定的正弦编码加到输入上：x + PE[:n]。没有可学习参数。"""

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        self.register_buffer("pe", sinusoidal_encoding(max_len, d_model), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (batch, n, d_model) -> (batch, n, d_model)"""
        return x + self.pe[: x.size(1)]


class LearnedPositionalEncoding(nn.Module):
    """可学习位置嵌入（BERT/GPT 的做法）：max_len × d_model 个参数，超过 max_len 就无法外推。"""

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        self.table = nn.Embedding(max_len, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (batch, n, d_model) -> (batch, n, d_model)"""
        positions = torch.arange(x.size(1), device=x.device)
        return x + self.table(positions)


def relative_position_matrix(
    k: int, d_model: int, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """相对位置矩阵 M_k（d_model × d_model），满足 PE(pos + k) = M_k · PE(pos)，与 pos 无关。

    每一对 (sin, cos) 维度是一个 2×2 旋转块：
        [sin((p+k)w)]   [ cos(kw)  sin(kw)] [sin(pw)]
        [cos((p+k)w)] = [-sin(kw)  cos(kw)] [cos(pw)]
    d_model 必须是偶数（奇数时最后的单独 sin 列无法由自身线性得到）。
    """
    if d_model % 2 != 0:
        raise ValueError("relative_position_matrix 需要偶数 d_model")
    M = torch.zeros(d_model, d_model, dtype=dtype)
    for i, w in enumerate(frequencies(d_model, dtype)):
        c, s = torch.cos(k * w), torch.sin(k * w)
        M[2 * i, 2 * i], M[2 * i, 2 * i + 1] = c, s
        M[2 * i + 1, 2 * i], M[2 * i + 1, 2 * i + 1] = -s, c
    return M
