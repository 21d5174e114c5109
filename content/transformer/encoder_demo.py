"""第五部分（编码器）用到、其他模块没有的小实验：去掉残差后各位置的表示是否「塌缩」成同一个向量。"""

import torch
import torch.nn.functional as F

from experiments_training import SortModel, reproducible, sort_batch


def mean_position_similarity(h: torch.Tensor) -> float:
    """h: (batch, n, d)。同一序列内不同位置两两之间余弦相似度的平均（不含自己与自己）。"""
    z = F.normalize(h, dim=-1)
    sim = z @ z.transpose(1, 2)  # (batch, n, n)
    n = sim.size(1)
    off_diagonal = sim.sum(dim=(1, 2)) - sim.diagonal(dim1=1, dim2=2).sum(dim=1)
    return float((off_diagonal / (n * (n - 1))).mean())


@torch.no_grad()
def position_similarity(num_layers: int = 6, batch: int = 256, seed: int = 0) -> dict:
    """与 residual_ablation 相同的两个模型（同一种子）在初始化时：嵌入 + 位置编码之后、
    每一层之后，同一序列内各位置表示的平均余弦相似度。

    没有残差时，每层输出只剩「注意力对各位置的加权平均」，几层之后所有位置几乎是同一个向量，
    逐位置的信息（以及回传给各位置的梯度信号）都丢了。
    返回 {"layer": [0..N]（0 = 编码器的输入）, "with_residual": [...], "without_residual": [...]}
    """
    x, _ = sort_batch(torch.Generator().manual_seed(seed + 1), batch)
    result = {"layer": list(range(num_layers + 1))}
    for name, residual in (("with_residual", True), ("without_residual", False)):
        with reproducible(seed):
            model = SortModel(num_layers, residual).eval()
        h = model.position(model.embed(x))
        sims = [mean_position_similarity(h)]
        for layer in model.encoder.layers:
            h, _ = layer(h)
            sims.append(mean_position_similarity(h))
        result[name] = sims
    return result
