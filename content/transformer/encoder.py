"""编码器层与 N 层编码器（Post-LN 为论文原版，可选 Pre-LN），以及参数量的解析计算。"""

import torch
import torch.nn.functional as F
from torch import nn

from multihead import MultiHeadAttention, load_from_torch

# 论文 Table 3 的两种配置（论文把大模型叫 "big"）
PAPER_CONFIGS = {
    "base": {"num_layers": 6, "d_model": 512, "num_heads": 8, "d_ff": 2048},
    "large": {"num_layers": 6, "d_model": 1024, "num_heads": 16, "d_ff": 4096},
}


class FeedForward(nn.Module):
    """逐位置前馈网络：Linear(d_model → d_ff) → 激活 → Linear(d_ff → d_model)。"""

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu", bias: bool = True):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff, bias=bias)
        self.linear2 = nn.Linear(d_ff, d_model, bias=bias)
        self.activation = nn.GELU() if activation == "gelu" else nn.ReLU()  # GELU 为精确 erf 版

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear2(self.activation(self.linear1(x)))


class EncoderLayer(nn.Module):
    """一个编码器层 = 多头自注意力 + 前馈网络，每个子层都带残差连接和 LayerNorm。

    Post-LN（论文，默认）: x = LN(x + Sublayer(x))
    Pre-LN（norm_first=True）: x = x + Sublayer(LN(x))
    residual=False 去掉残差，layer_norm=False 去掉 LayerNorm（仅用于对比实验）。
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        norm_first: bool = False,
        residual: bool = True,
        layer_norm: bool = True,
        activation: str = "relu",
        eps: float = 1e-5,
        bias: bool = True,
    ):
        super().__init__()
        self.norm_first = norm_first
        self.residual = residual
        self.self_attn = MultiHeadAttention(d_model, num_heads, bias=bias)
        self.ffn = FeedForward(d_model, d_ff, activation, bias=bias)
        self.norm1 = nn.LayerNorm(d_model, eps=eps, bias=bias) if layer_norm else nn.Identity()
        self.norm2 = nn.LayerNorm(d_model, eps=eps, bias=bias) if layer_norm else nn.Identity()

    def add(self, x: torch.Tensor, sublayer_out: torch.Tensor) -> torch.Tensor:
        """残差连接 x + Sublayer(x)；关掉残差时只保留 Sublayer(x)。"""
        return x + sublayer_out if self.residual else sublayer_out

    def forward(
        self,
        x: torch.Tensor,
        mask: torch.Tensor | None = None,
        head_mask: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """x: (batch, n, d_model) -> (输出 (batch, n, d_model), 注意力权重 (batch, h, n, n))"""
        if self.norm_first:  # Pre-LN
            h = self.norm1(x)
            attn_out, weights = self.self_attn(h, h, h, mask, head_mask)
            x = self.add(x, attn_out)
            x = self.add(x, self.ffn(self.norm2(x)))
        else:  # Post-LN（论文）
            attn_out, weights = self.self_attn(x, x, x, mask, head_mask)
            x = self.norm1(self.add(x, attn_out))
            x = self.norm2(self.add(x, self.ffn(x)))
        return x, weights


class Encoder(nn.Module):
    """N 个编码器层的堆叠，每层参数相互独立。

    final_norm=True 时末尾再加一个 LayerNorm（Pre-LN 常用）。
    """

    def __init__(
        self,
        num_layers: int,
        d_model: int,
        num_heads: int,
        d_ff: int,
        final_norm: bool = False,
        **layer_options,
    ):
        super().__init__()
        self.layers = nn.ModuleList(
            [EncoderLayer(d_model, num_heads, d_ff, **layer_options) for _ in range(num_layers)]
        )
        eps = layer_options.get("eps", 1e-5)
        self.norm = nn.LayerNorm(d_model, eps=eps) if final_norm else nn.Identity()

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """返回最终输出 (batch, n, d_model) 和每层的注意力权重列表。"""
        all_weights = []
        for layer in self.layers:
            x, weights = layer(x, mask)
            all_weights.append(weights)
        return self.norm(x), all_weights


# ---------- 从 PyTorch 官方实现复制权重 ----------


@torch.no_grad()
def load_layer_from_torch(layer: nn.TransformerEncoderLayer) -> EncoderLayer:
    """把 nn.TransformerEncoderLayer 的权重复制进我们的 EncoderLayer。"""
    gelu = layer.activation is F.gelu or isinstance(layer.activation, nn.GELU)
    ours = EncoderLayer(
        d_model=layer.linear1.in_features,
        num_heads=layer.self_attn.num_heads,
        d_ff=layer.linear1.out_features,
        norm_first=layer.norm_first,
        activation="gelu" if gelu else "relu",
        eps=layer.norm1.eps,
        bias=layer.linear1.bias is not None,
    )
    ours.self_attn = load_from_torch(layer.self_attn)
    ours.ffn.linear1.load_state_dict(layer.linear1.state_dict())
    ours.ffn.linear2.load_state_dict(layer.linear2.state_dict())
    ours.norm1.load_state_dict(layer.norm1.state_dict())
    ours.norm2.load_state_dict(layer.norm2.state_dict())
    return ours


@torch.no_grad()
def load_encoder_from_torch(encoder: nn.TransformerEncoder) -> Encoder:
    """把 nn.TransformerEncoder（含可选的末尾 norm）的权重复制进我们的 Encoder。"""
    first = encoder.layers[0]
    ours = Encoder(
        num_layers=len(encoder.layers),
        d_model=first.linear1.in_features,
        num_heads=first.self_attn.num_heads,
        d_ff=first.linear1.out_features,
        final_norm=encoder.norm is not None,
        eps=first.norm1.eps,
    )
    ours.layers = nn.ModuleList([load_layer_from_torch(layer) for layer in encoder.layers])
    if encoder.norm is not None:
        ours.norm.load_state_dict(encoder.norm.state_dict())
    return ours


# ---------- 参数量：解析公式 ----------


def count_parameters(module: nn.Module) -> int:
    """实际模块的参数个数 sum(p.numel())。"""
    return sum(p.numel() for p in module.parameters())


def encoder_layer_parameters(d_model: int, d_ff: int, bias: bool = True) -> dict[str, int]:
    """一个编码器层的参数量（与头数 h 无关）。

    注意力: W_Q, W_K, W_V, W_O 各 d_model² (+ d_model 偏置)
    前馈:   2 · d_model · d_ff (+ d_ff + d_model 偏置)
    LayerNorm ×2: 各有 γ、β 共 2·d_model（bias=False 时只有 γ）
    bias=False 与 PyTorch 的 bias=False 含义一致：线性层和 LayerNorm 都不带偏置。
    """
    attention = 4 * d_model * d_model + (4 * d_model if bias else 0)
    ffn = 2 * d_model * d_ff + (d_ff + d_model if bias else 0)
    layer_norm = 2 * (2 * d_model if bias else d_model)
    return {
        "attention": attention,
        "ffn": ffn,
        "layer_norm": layer_norm,
        "total": attention + ffn + layer_norm,
    }


def encoder_parameters(num_layers: int, d_model: int, d_ff: int, bias: bool = True) -> int:
    """N 层编码器（不含嵌入层、不含末尾 norm）的参数量 = N × 每层参数量。"""
    return num_layers * encoder_layer_parameters(d_model, d_ff, bias)["total"]


def paper_parameter_table() -> list[dict]:
    """论文 base / large 配置的编码器参数量表（每层、N 层；含偏置与不含偏置）。"""
    rows = []
    for name, cfg in PAPER_CONFIGS.items():
        per_layer = encoder_layer_parameters(cfg["d_model"], cfg["d_ff"])
        rows.append(
            {
                "name": name,
                **cfg,
                "d_k": cfg["d_model"] // cfg["num_heads"],
                "attention_per_layer": per_layer["attention"],
                "ffn_per_layer": per_layer["ffn"],
                "layer_norm_per_layer": per_layer["layer_norm"],
                "per_layer": per_layer["total"],
                "encoder": encoder_parameters(cfg["num_layers"], cfg["d_model"], cfg["d_ff"]),
                "encoder_no_bias": encoder_parameters(
                    cfg["num_layers"], cfg["d_model"], cfg["d_ff"], bias=False
                ),
            }
        )
    return rows
