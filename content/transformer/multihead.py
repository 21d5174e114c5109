"""多头注意力：投影 → 分头 → 各头并行做缩放点积注意力 → 拼接 → W_O 投影。"""

import torch
from torch import nn

from attention import scaled_dot_product_attention


class MultiHeadAttention(nn.Module):
    """多头注意力，d_k = d_v = d_model / num_heads。

    forward 返回 (output, weights)：
        output:  (batch, n_q, d_model)
        weights: (batch, num_heads, n_q, n_k)，每个头各自的注意力权重
    """

    def __init__(self, d_model: int, num_heads: int, bias: bool = True):
        super().__init__()
        assert d_model % num_heads == 0, "d_model 必须能被 num_heads 整除"
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model, bias=bias)
        self.W_k = nn.Linear(d_model, d_model, bias=bias)
        self.W_v = nn.Linear(d_model, d_model, bias=bias)
        self.W_o = nn.Linear(d_model, d_model, bias=bias)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """(batch, n, d_model) -> (batch, num_heads, n, d_k)"""
        batch, n, _ = x.shape
        return x.view(batch, n, self.num_heads, self.d_k).transpose(1, 2)

    def merge_heads(self, x: torch.Tensor) -> torch.Tensor:
        """(batch, num_heads, n, d_k) -> (batch, n, d_model)，即把各头拼接起来"""
        batch, _, n, _ = x.shape
        return x.transpose(1, 2).reshape(batch, n, self.d_model)

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        mask: torch.Tensor | None = None,
        head_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """mask：布尔，True = 可见，可广播到 (batch, heads, n_q, n_k)。
        head_mask：形状 (num_heads,)，1 = 保留该头，0 = 关掉该头（其输出置 0 后再拼接）。
        """
        Q = self.split_heads(self.W_q(query))  # (batch, h, n_q, d_k)
        K = self.split_heads(self.W_k(key))  # (batch, h, n_k, d_k)
        V = self.split_heads(self.W_v(value))  # (batch, h, n_k, d_k)
        heads, weights = scaled_dot_product_attention(Q, K, V, mask)  # 所有头一起算
        if head_mask is not None:
            heads = heads * head_mask.view(1, -1, 1, 1)
        output = self.W_o(self.merge_heads(heads))
        return output, weights


@torch.no_grad()
def load_from_torch(mha: nn.MultiheadAttention) -> MultiHeadAttention:
    """把 torch.nn.MultiheadAttention 的权重复制进我们的 MultiHeadAttention。

    PyTorch 把 W_q、W_k、W_v 上下拼成一个 in_proj_weight (3·d_model, d_model)，按行切成三块即可。
    """
    assert mha._qkv_same_embed_dim and mha.bias_k is None, "只支持 q/k/v 同维、无 add_bias_kv"
    d_model = mha.embed_dim
    has_bias = mha.in_proj_bias is not None
    ours = MultiHeadAttention(d_model, mha.num_heads, bias=has_bias)
    w_q, w_k, w_v = mha.in_proj_weight.chunk(3, dim=0)
    ours.W_q.weight.copy_(w_q)
    ours.W_k.weight.copy_(w_k)
    ours.W_v.weight.copy_(w_v)
    ours.W_o.weight.copy_(mha.out_proj.weight)
    if has_bias:
        b_q, b_k, b_v = mha.in_proj_bias.chunk(3, dim=0)
        ours.W_q.bias.copy_(b_q)
        ours.W_k.bias.copy_(b_k)
        ours.W_v.bias.copy_(b_v)
        ours.W_o.bias.copy_(mha.out_proj.bias)
    return ours
