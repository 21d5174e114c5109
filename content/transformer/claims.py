"""本课训练实验的每一条结论（claim）与它的判据，只写在这里一次。

构建时各节用 check(实验, 各种子的结果) 断言结论在幻灯片用的种子上成立；测试里的稳健性检查
（tests/content/robustness.py）在别的 CPU 内核（ATEN_CPU_CAPABILITY）、线程数和更多种子上重跑同样的
实验、用同样的判据，报告每条结论在多少种变化下成立。

判据不依赖一次混沌训练的精确路径：发散 = 损失非有限或超过随机猜测的 DIVERGE_FACTOR 倍；
比值、头数这类随种子变化的量，幻灯片写出所用种子上的范围，这里只断言范围的稳健一侧；
「没用的头」「分担」用明确的阈值 DROP_THRESHOLD 判断。
qualified=True 的结论在幻灯片上带了数量限定（「n/3 个种子」），不要求每种变化都成立。
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from encoder_demo import residual_at_initialisation
from experiments_training import (
    DIVERGE_FACTOR,
    SORT_CHANCE,
    head_ablation,
    layernorm_comparison,
    order_free_floor,
    pe_ablation,
    pe_extrapolation,
    residual_ablation,
)

DROP_THRESHOLD = 0.05  # 关掉一个头，某关系准确率下降 ≥ 5 个百分点才算「明显」
WIDE_HEADS = 8  # 「头比关系多」的模型的头数（4 个头的两倍）
COLLAPSED = 1e-5  # position_spread 低于它：各位置在 float32 分辨率上是同一个向量


def run_heads(seed: int) -> dict:
    narrow = head_ablation(seed=seed)
    return {"narrow": narrow, "wide": head_ablation(num_heads=WIDE_HEADS, seed=seed)}


EXPERIMENTS: dict[str, Callable[[int], dict]] = {
    "heads": run_heads,
    "residual": lambda seed: residual_ablation(seed=seed),
    "init": lambda seed: residual_at_initialisation(seed=seed),
    "layernorm": lambda seed: layernorm_comparison(seed=seed),
    "pe": lambda seed: pe_ablation(seed=seed),
    "pe_extrapolation": lambda seed: pe_extrapolation(seed=seed),
}


@dataclass(frozen=True)
class Claim:
    id: str
    experiment: str  # EXPERIMENTS 里的名字
    slide: str  # 说这句话的幻灯片
    text: str  # 幻灯片上的说法（对每个种子）
    holds: Callable[[dict], bool]  # 一个种子的实验结果 → 是否成立
    qualified: bool = False


# ---------- 每个种子的统计量（幻灯片上的范围也用它们） ----------


def drops(run: dict) -> np.ndarray:
    return np.array(run["drop"])  # (头, 关系)


def idle_heads(run: dict) -> int:
    """关掉后每种关系都掉不到 DROP_THRESHOLD 的头数。"""
    return int((drops(run).max(axis=1) < DROP_THRESHOLD).sum())


def sharers(run: dict) -> list[int]:
    """每种关系：关掉后该关系下降 ≥ DROP_THRESHOLD 的头数。"""
    return [int(n) for n in (drops(run) >= DROP_THRESHOLD).sum(axis=0)]


def specialist_side_effect(run: dict) -> float:
    """各关系的「负责头」关掉后，其余关系下降的最大值占该关系自身下降的比例（取最坏的关系）。"""
    d = drops(run)
    worst = 0.0
    for j, name in enumerate(run["relations"]):
        owner = run["specialist"][name]
        worst = max(worst, float(np.delete(d[owner], j).max()) / float(d[owner, j]))
    return worst


def collapsed_from(run: dict) -> int | None:
    """无残差时从第几层（1 起）起各位置塌缩成同一个向量；没有塌缩为 None。"""
    spread = run["without_residual"]["spread"]
    return next((i + 1 for i, s in enumerate(spread) if s < COLLAPSED), None)


def qk_grads(run: dict) -> tuple[float, float]:
    """塌缩那一层及之后：无残差时 W_Q、W_K 梯度的最大值，有残差时的最小值。"""
    start = (collapsed_from(run) or len(run["layer"])) - 1
    deep = range(start, len(run["layer"]) - 1)
    without = max((run["without_residual"]["qk_grad"][i] for i in deep), default=math.inf)
    with_ = min((run["with_residual"]["qk_grad"][i] for i in deep), default=0.0)
    return without, with_


def vo_ratios(run: dict) -> list[float]:
    """每一层：无残差 / 有残差时 W_V、W_O 梯度范数之比。"""
    pairs = zip(run["with_residual"]["vo_grad"], run["without_residual"]["vo_grad"], strict=True)
    return [b / a for a, b in pairs]


def ln_final(run: dict, name: str, lr_index: int) -> float | None:
    return run["runs"][name][lr_index]["final"]


def ln_diverged(run: dict, name: str, lr_index: int) -> bool:
    return run["runs"][name][lr_index]["diverged_at"] is not None


def small_lr_best(run: dict) -> str:
    return min(run["variants"], key=lambda name: ln_final(run, name, 0) or math.inf)


def extrapolation_noise(run: dict) -> float:
    """50% 附近抽样误差的 3 倍标准差（测试集 n_test 个序列）。"""
    return 3 * math.sqrt(0.25 / run["n_test"])


def _all_learned(run: dict) -> bool:
    return all(min(r["full_accuracy"]) >= 0.9 for r in (run["narrow"], run["wide"]))


def _finite_all(run: dict, lr_index: int) -> bool:
    finals = [ln_final(run, name, lr_index) for name in run["variants"]]
    return all(f is not None and f < 0.5 * SORT_CHANCE for f in finals)


HEADS = "互动演示：关闭某个头会怎样？"
RESIDUAL = "对比实验：去掉残差连接"
INIT = "为什么？表示塌缩，注意力模式的梯度随之消失"
LAYERNORM = "LayerNorm：放在哪里、要不要？"
EXTRA = "外推：公式有定义 ≠ 模型会外推"
PE = "思考题一：去掉位置编码会丢失什么？"

CLAIMS = [
    Claim("heads.learned", "heads", HEADS, "4 个头、8 个头的模型都学会了（每种关系准确率 ≥ 90%）",
          _all_learned),
    Claim("heads.specialist", "heads", HEADS,
          "4 个头：每种关系都有一个头，关掉它该关系掉 ≥ 20 个百分点",
          lambda run: drops(run["narrow"]).max(axis=0).min() >= 0.2),
    Claim("heads.side_effect", "heads", HEADS,
          "4 个头：关掉这个头，其余关系掉得不到该关系的三分之一",
          lambda run: specialist_side_effect(run["narrow"]) < 1 / 3),
    Claim("heads.wide_smaller", "heads", HEADS, "8 个头：关一个头的最大损失比 4 个头时小",
          lambda run: drops(run["wide"]).max() < drops(run["narrow"]).max()),
    Claim("heads.wide_costly", "heads", HEADS, "8 个头：关掉某个头仍让某种关系掉 20 个百分点以上",
          lambda run: drops(run["wide"]).max() > 0.2),
    Claim("heads.wide_idle", "heads", HEADS,
          "8 个头：至少一个头关掉后每种关系都掉不到 5 个百分点",
          lambda run: idle_heads(run["wide"]) >= 1),
    Claim("heads.wide_shared", "heads", HEADS,
          "8 个头：至少一种关系由两个以上的头分担（各掉 ≥ 5 个百分点）",
          lambda run: max(sharers(run["wide"])) >= 2),
    Claim("residual.with_learns", "residual", RESIDUAL, "有残差：学会排序（最终损失 < 0.3）",
          lambda run: run["final_with_residual"] < 0.3),
    Claim("residual.ratio", "residual", RESIDUAL, "无残差的最终损失是有残差的 5 倍以上",
          lambda run: run["final_without_residual"] > 5 * run["final_with_residual"]),
    Claim("residual.between", "residual", RESIDUAL,
          "无残差：低于随机猜测，但高于「只知道有哪些数字」的下限 + 0.2",
          lambda run: order_free_floor() + 0.2 < run["final_without_residual"] < SORT_CHANCE),
    Claim("residual.same_prediction", "residual", RESIDUAL,
          "无残差：训练后每个位置给出同一个预测（差 < 1e-4），有残差时不是",
          lambda run: run["spread_without_residual"] < 1e-4 < run["spread_with_residual"]),
    Claim("init.collapse_early", "init", INIT, "无残差：前 3 层内各位置塌缩成同一个向量",
          lambda run: (collapsed_from(run) or math.inf) <= 3),
    Claim("init.qk_vanish", "init", INIT,
          "塌缩之后 W_Q、W_K 的梯度：无残差 < 1e-5，有残差 > 1e-3",
          lambda run: qk_grads(run)[0] < 1e-5 < 1e-3 < qk_grads(run)[1]),
    Claim("init.vo_alive", "init", INIT,
          "W_V、W_O 的梯度无残差时不消失（每层都超过有残差时的 0.1 倍）",
          lambda run: min(vo_ratios(run)) > 0.1),
    Claim("init.similarity", "init", INIT,
          "最后一层各位置的平均余弦相似度：无残差 > 0.99，有残差 < 0.7",
          lambda run: run["without_residual"]["similarity"][-1] > 0.99 > 0.7
          > run["with_residual"]["similarity"][-1]),
    Claim("layernorm.small_lr_trains", "layernorm", LAYERNORM,
          "小学习率：三种都训练得动（最终损失 < 随机猜测的一半）",
          lambda run: _finite_all(run, 0)),
    Claim("layernorm.small_lr_no_ln_best", "layernorm", LAYERNORM,
          "小学习率：无 LayerNorm 的损失最低", lambda run: small_lr_best(run) == "no_ln"),
    Claim("layernorm.no_ln_diverges", "layernorm", LAYERNORM,
          f"大学习率：无 LayerNorm 发散（损失非有限或超过随机猜测的 {DIVERGE_FACTOR} 倍）",
          lambda run: ln_diverged(run, "no_ln", -1)),
    Claim("layernorm.post_ln_stalls", "layernorm", LAYERNORM,
          "大学习率：Post-LN 停在随机猜测（> 0.95 倍）",
          lambda run: (ln_final(run, "post_ln", -1) or 0.0) > 0.95 * SORT_CHANCE),
    Claim("layernorm.pre_ln_learns", "layernorm", LAYERNORM,
          "大学习率：Pre-LN 仍在学（最终损失 < 随机猜测的 3/4）",
          lambda run: (ln_final(run, "pre_ln", -1) or math.inf) < 0.75 * SORT_CHANCE),
    Claim("pe.without_is_chance", "pe", PE, "无位置编码：准确率恰为 50%，交换 A、B 预测不变",
          lambda run: run["accuracy_without_pe"] == run["chance"]
          and run["pair_agreement_without_pe"] == 1.0),
    Claim("pe.with_learns", "pe", PE, "有位置编码：准确率 ≥ 95%",
          lambda run: run["accuracy_with_pe"] >= 0.95),
    Claim("pe.without_loss_ln2", "pe", PE, "无位置编码：损失停在 ln 2（最后 20 步平均差 < 0.05）",
          lambda run: abs(sum(run["losses_without_pe"][-20:]) / 20 - math.log(2)) < 0.05),
    Claim("extra.train", "pe_extrapolation", EXTRA, "训练长度上学会了（≥ 95%）",
          lambda run: run["accuracy_train"] >= 0.95),
    Claim("extra.seen", "pe_extrapolation", EXTRA, "更长的序列、A、B 在见过的位置：≥ 80%",
          lambda run: run["accuracy_seen_positions"] >= 0.8),
    Claim("extra.unseen", "pe_extrapolation", EXTRA,
          "A、B 在没见过的位置：比 50% 低出抽样误差的 3 倍以上",
          lambda run: run["accuracy_unseen_positions"]
          < run["chance"] - extrapolation_noise(run)),
]  # fmt: skip


def claims_of(experiment: str) -> list[Claim]:
    found = [c for c in CLAIMS if c.experiment == experiment]
    if not found:
        raise KeyError(f"没有实验 {experiment!r} 的结论；有：{', '.join(EXPERIMENTS)}")
    return found


def failures(experiment: str, runs: list[dict], seeds) -> list[str]:
    """各种子上不成立的结论，每条写成「id（种子 s）：说法」。"""
    return [
        f"{claim.id}（种子 {seed}）：{claim.text}"
        for claim in claims_of(experiment)
        for seed, run in zip(seeds, runs, strict=True)
        if not claim.holds(run)
    ]


def check(experiment: str, runs: list[dict], seeds) -> None:
    """断言实验的每条结论在每个种子上都成立；不成立时列出哪条、哪个种子。"""
    failed = failures(experiment, runs, seeds)
    assert not failed, "结论不成立：" + "；".join(failed)
