"""第四部分（多头注意力）幻灯片用的小工具：记录前向过程中每一步的形状。"""

import torch

from multihead import MultiHeadAttention


def trace_shapes(mha: MultiHeadAttention, x: torch.Tensor) -> list[tuple[str, str, tuple]]:
    """真正运行一次 mha(x, x, x)，用钩子记下每个中间张量的形状。

    返回 [(步骤, 张量名, 形状)]，顺序与 forward 中的计算顺序一致（Q 一路，K、V 同形）。
    """
    seen: dict[str, tuple] = {}

    def keep(name: str, shape: torch.Size) -> None:
        seen.setdefault(name, tuple(shape))  # 只记第一次（Q 那一路）

    hook = mha.W_q.register_forward_hook(lambda m, i, out: keep("projected", out.shape))
    out_hook = mha.W_o.register_forward_hook(lambda m, i, out: keep("output", out.shape))
    split, merge = mha.split_heads, mha.merge_heads

    def traced_split(t: torch.Tensor) -> torch.Tensor:
        result = split(t)
        keep("split", result.shape)
        return result

    def traced_merge(t: torch.Tensor) -> torch.Tensor:
        keep("heads", t.shape)
        result = merge(t)
        keep("concat", result.shape)
        return result

    mha.split_heads, mha.merge_heads = traced_split, traced_merge
    try:
        with torch.no_grad():
            _, weights = mha(x, x, x)
    finally:
        hook.remove()
        out_hook.remove()
        del mha.split_heads, mha.merge_heads  # 恢复类上的方法
    return [
        ("输入", "x", tuple(x.shape)),
        ("① 线性投影", "W_q(x)", seen["projected"]),
        ("② 分头 split_heads", "Q（K、V 同形）", seen["split"]),
        ("③ 打分 + softmax", "weights", tuple(weights.shape)),
        ("④ 加权求和", "各头输出", seen["heads"]),
        ("⑤ 拼接 merge_heads", "concat", seen["concat"]),
        ("⑥ 输出投影 W_O", "output", seen["output"]),
    ]
