"""第五部分（编码器）用到、其他模块没有的小实验：去掉残差后，初始化时发生了什么。

两种常见解释：「梯度消失」（梯度传不回前面的层）与「秩塌缩」（同一序列里各位置的表示变成同一个
向量，Dong et al. 2021）。这里在初始化时把两者都量出来，梯度按矩阵分开：W_Q、W_K 决定注意力模式
（谁看谁），W_V、W_O 决定搬运的内容；合在一起的范数会被后者主导。
"""

import torch
import torch.nn.functional as F

from experiments_training import SortModel, position_spread, reproducible, sort_batch, sort_loss


def mean_position_similarity(h: torch.Tensor) -> float:
    """h: (batch, n, d)。同一序列内不同位置两两之间余弦相似度的平均（不含自己与自己）。"""
    z = F.normalize(h, dim=-1)
    sim = z @ z.transpose(1, 2)  # (batch, n, n)
    n = sim.size(1)
    off_diagonal = sim.sum(dim=(1, 2)) - sim.diagonal(dim1=1, dim2=2).sum(dim=1)
    return float((off_diagonal / (n * (n - 1))).mean())


def residual_at_initialisation(num_layers: int = 6, batch: int = 64, seed: int = 0) -> dict:
    """与 residual_ablation 相同的两个模型（同一种子）在训练开始前、同一批数据上：

    - "similarity"：编码器输入（第 0 层）和每一层之后，同一序列内各位置表示的平均余弦相似度；
      接近 1 表示所有位置塌缩成了同一个向量。
    - "spread"：每一层之后的 position_spread（各位置离序列平均最远多远；0 = 完全相同）；
    - "attention_grad"：损失对每一层注意力参数（W_Q、W_K、W_V、W_O 及偏置）的梯度范数；
    - "qk_grad" / "vo_grad"：同一梯度只算 W_Q、W_K（注意力模式）/ 只算 W_V、W_O（搬运的内容）。
    返回 {"layer": [0..N], "with_residual"/"without_residual": {"similarity": [N+1],
          "spread": [N], "attention_grad"/"qk_grad"/"vo_grad": [N]（第 1..N 层）, "loss"}}
    """
    x, y = sort_batch(torch.Generator().manual_seed(seed + 1), batch)
    result = {"layer": list(range(num_layers + 1))}
    for name, residual in (("with_residual", True), ("without_residual", False)):
        with reproducible(seed):
            model = SortModel(num_layers, residual)
        with torch.no_grad():
            h = model.position(model.embed(x))
            sims, spreads = [mean_position_similarity(h)], []
            for layer in model.encoder.layers:
                h, _ = layer(h)
                sims.append(mean_position_similarity(h))
                spreads.append(position_spread(h))
        loss = sort_loss(model, x, y)  # 同一批数据再前向一次，这次记录梯度
        loss.backward()
        grads = {"attention_grad": [], "qk_grad": [], "vo_grad": []}
        for layer in model.encoder.layers:
            a = layer.self_attn
            for key, parts in (
                ("attention_grad", (a.W_q, a.W_k, a.W_v, a.W_o)),
                ("qk_grad", (a.W_q, a.W_k)),
                ("vo_grad", (a.W_v, a.W_o)),
            ):
                squares = sum(float(p.grad.pow(2).sum()) for m in parts for p in m.parameters())
                grads[key].append(squares**0.5)
        result[name] = {"similarity": sims, "spread": spreads, **grads, "loss": loss.item()}
    return result
