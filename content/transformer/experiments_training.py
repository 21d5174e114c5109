"""需要在构建时训练小模型的对比实验：关掉注意力头、去掉残差、LayerNorm 的位置、去掉位置编码。

每个实验都在 reproducible(seed) 里运行：固定随机种子和线程数（默认 THREADS = 1 个线程：同一台机器上
每次结果逐位相同），结束后恢复全局随机状态。换一台 CPU（或换线程数）浮点运算的路径会变，训练曲线的
具体步数和最后几位数字随之变化；幻灯片上的结论用不依赖这些细节的判据（claims.py）。
返回值都是普通数据（可 JSON 序列化）。
"""

import math
from collections.abc import Callable
from contextlib import contextmanager
from itertools import combinations

import torch
import torch.nn.functional as F
from torch import nn

from encoder import Encoder
from encoding import SinusoidalPositionalEncoding
from multihead import MultiHeadAttention

SEEDS = (0, 1, 2)  # 训练得出的结论都在这几个种子上各跑一次，报告全部结果的范围
THREADS = 1  # 训练用的线程数；稳健性检查（tests/content/robustness.py）也用 2 个线程重跑
DIVERGE_FACTOR = 10  # 训练损失非有限、或超过随机猜测的这么多倍，就算发散


@contextmanager
def reproducible(seed: int, threads: int | None = None):
    """固定随机种子与线程数（默认 THREADS）；退出时恢复调用者的随机状态和线程数。"""
    old_threads = torch.get_num_threads()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        torch.set_num_threads(threads or THREADS)
        try:
            yield
        finally:
            torch.set_num_threads(old_threads)


def train(
    model: nn.Module,
    make_batch: Callable,
    compute_loss: Callable,
    steps: int,
    lr: float,
    seed: int,
    diverge_above: float = math.inf,
) -> list[float]:
    """Adam 训练 steps 步，每步取一个新的随机批次；返回每一步的损失。

    损失变成 NaN/inf、或超过 diverge_above（训练发散）时立即停止：返回的列表比 steps 短，
    最后一个是发散前的损失。只看 NaN 不够：发散的损失可能停在 1e10 附近、很久都不变成 NaN，
    何时变成 NaN 取决于机器的浮点路径。
    """
    gen = torch.Generator().manual_seed(seed)
    # foreach=True：一次更新全部参数张量。逐元素的运算与默认实现相同、结果逐位相同，只是小模型上
    # 少了上百次小运算的开销（训练快约 10%）
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, foreach=True)
    losses = []
    for _ in range(steps):
        loss = compute_loss(model, *make_batch(gen))
        if not torch.isfinite(loss) or loss.item() > diverge_above:
            break
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


# ---------- 1. 关掉注意力头：不同的头负责不同的关系 ----------

RELATIONS = ("previous", "next", "first")  # 复制前一个词 / 后一个词 / 第一个词
VOCAB, SEQ_LEN = 10, 8


def relation_batch(gen: torch.Generator, batch: int = 64) -> tuple[torch.Tensor, ...]:
    """随机序列 x 与每个位置的关系类型 r；目标 y_i = x_{i-1} / x_{i+1} / x_0。"""
    x = torch.randint(0, VOCAB, (batch, SEQ_LEN), generator=gen)
    r = torch.randint(0, 3, (batch, SEQ_LEN), generator=gen)
    r[:, 0] = torch.where(r[:, 0] == 0, 1, r[:, 0])  # 第一个位置没有「前一个词」
    r[:, -1] = torch.where(r[:, -1] == 1, 0, r[:, -1])  # 最后一个位置没有「后一个词」
    previous, following = torch.roll(x, 1, dims=1), torch.roll(x, -1, dims=1)
    first = x[:, :1].expand(-1, SEQ_LEN)
    y = torch.where(r == 0, previous, torch.where(r == 1, following, first))
    return x, r, y


class RelationModel(nn.Module):
    """一层多头注意力。关系类型只在注意力之后才加进来，所以注意力模式无法依赖它：
    三种关系需要三种不同的注意力模式，只能由不同的头分别承担。"""

    def __init__(self, d_model: int = 64, num_heads: int = 4):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, d_model)
        self.position = SinusoidalPositionalEncoding(SEQ_LEN, d_model)
        self.attn = MultiHeadAttention(d_model, num_heads)
        self.relation = nn.Embedding(len(RELATIONS), d_model)
        self.readout = nn.Sequential(
            nn.LayerNorm(d_model), nn.Linear(d_model, 128), nn.ReLU(), nn.Linear(128, VOCAB)
        )

    def forward(self, x, r, head_mask=None) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.position(self.embed(x))
        out, weights = self.attn(h, h, h, head_mask=head_mask)
        return self.readout(out + self.relation(r)), weights


def relation_loss(model: RelationModel, x, r, y) -> torch.Tensor:
    logits, _ = model(x, r)
    return F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))


def accuracy_per_relation(logits: torch.Tensor, r: torch.Tensor, y: torch.Tensor) -> list[float]:
    correct = logits.argmax(-1) == y
    return [float(correct[r == i].float().mean()) for i in range(len(RELATIONS))]


def head_focus(weights: torch.Tensor) -> list[dict]:
    """每个头平均放在「前一个词 / 后一个词 / 第一个词」上的注意力。

    query 只取位置 2..n-2，这样三类位置互不重叠。
    """
    i = torch.arange(2, SEQ_LEN - 1)
    focus = []
    for w in weights.mean(dim=0):  # 对批次平均后，每个头一个 (n, n)
        focus.append(
            {
                "previous": float(w[i, i - 1].mean()),
                "next": float(w[i, i + 1].mean()),
                "first": float(w[i, 0].mean()),
            }
        )
    return focus


def head_ablation(steps: int = 400, num_heads: int = 4, n_test: int = 2000, seed: int = 0) -> dict:
    """训练 RelationModel，然后逐个关掉每个头，测每种关系的准确率。

    幻灯片据此说的结论与判据见 claims.py（"heads.*"）。哪个头负责哪种关系取决于初始化，不做保证。
    返回 {"relations", "num_heads", "losses", "full_accuracy": [R], "ablated_accuracy": H×R,
          "drop": H×R, "head_focus": [H 个 {previous, next, first}],
          "specialist": {关系: 关掉后该关系下降最多的头}}
    """
    with reproducible(seed):
        model = RelationModel(num_heads=num_heads)
        losses = train(model, relation_batch, relation_loss, steps, lr=3e-3, seed=seed)
        x, r, y = relation_batch(torch.Generator().manual_seed(seed + 1), n_test)
        with torch.no_grad():
            logits, weights = model(x, r)
            full = accuracy_per_relation(logits, r, y)
            ablated = []
            for head in range(num_heads):
                head_mask = torch.ones(num_heads)
                head_mask[head] = 0.0
                ablated.append(accuracy_per_relation(model(x, r, head_mask)[0], r, y))
    drop = [[f - a for f, a in zip(full, row, strict=True)] for row in ablated]
    specialist = {
        name: max(range(num_heads), key=lambda h: drop[h][j]) for j, name in enumerate(RELATIONS)
    }
    return {
        "relations": list(RELATIONS),
        "num_heads": num_heads,
        "losses": losses,
        "full_accuracy": full,
        "ablated_accuracy": ablated,
        "drop": drop,
        "head_focus": head_focus(weights),
        "specialist": specialist,
    }


# ---------- 2. 残差连接与 LayerNorm ----------


def sort_batch(gen: torch.Generator, batch: int = 32) -> tuple[torch.Tensor, torch.Tensor]:
    """排序任务：输入 8 个 0..9 的数，每个位置输出排序后该位置上的数。"""
    x = torch.randint(0, VOCAB, (batch, SEQ_LEN), generator=gen)
    return x, x.sort(dim=1).values


class SortModel(nn.Module):
    """嵌入 + 正弦位置编码 → N 层编码器（默认 Post-LN）→ 每个位置分类。

    layer_options 传给 EncoderLayer（residual、norm_first、layer_norm）；final_norm 见 Encoder。
    """

    def __init__(
        self, num_layers: int, residual: bool = True, d_model: int = 32, final_norm: bool = False,
        **layer_options,
    ):  # fmt: skip
        super().__init__()
        self.embed = nn.Embedding(VOCAB, d_model)
        self.position = SinusoidalPositionalEncoding(SEQ_LEN, d_model)
        self.encoder = Encoder(
            num_layers, d_model, 4, 2 * d_model, final_norm, residual=residual, **layer_options
        )
        self.out = nn.Linear(d_model, VOCAB)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.encoder(self.position(self.embed(x)))[0])


SORT_CHANCE = math.log(VOCAB)  # 排序任务上均匀随机猜测的交叉熵


def sort_loss(model: SortModel, x, y) -> torch.Tensor:
    return F.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))


def position_spread(h: torch.Tensor) -> float:
    """h: (batch, n, d)。各位置的向量离本序列各位置平均最远有多远（max |h_i − mean_j h_j|）。

    0 表示同一序列里所有位置是同一个向量：输出只能取决于「有哪些 token」，不能取决于位置。
    """
    return float((h - h.mean(dim=1, keepdim=True)).abs().max())


def order_free_floor() -> float:
    """排序任务里「只知道序列里有哪些数字、不知道每个位置该放第几小」时能达到的最低交叉熵。

    这样的模型对每个位置给出同一个分布，最好的是序列里数字的经验分布 (n_c / SEQ_LEN)，
    损失是它的熵；这里对所有可能的数字计数精确求期望（各数字独立均匀）。
    """
    total = 0.0
    # SEQ_LEN 个球放进 VOCAB 个盒子：用「隔板」枚举每一种计数 (n_0, …, n_9)
    for bars in combinations(range(SEQ_LEN + VOCAB - 1), VOCAB - 1):
        edges = (-1, *bars, SEQ_LEN + VOCAB - 1)
        counts = [b - a - 1 for a, b in zip(edges, edges[1:], strict=False)]
        ways = math.factorial(SEQ_LEN)
        for c in counts:
            ways //= math.factorial(c)
        entropy = -sum(c / SEQ_LEN * math.log(c / SEQ_LEN) for c in counts if c)
        total += ways * entropy
    return total / VOCAB**SEQ_LEN


def residual_ablation(num_layers: int = 6, steps: int = 200, seed: int = 0) -> dict:
    """同样的 6 层 Post-LN 编码器、同样的数据，有残差 vs 无残差，训练排序任务。

    返回 {"steps", "num_layers", "loss_with_residual": [...], "loss_without_residual": [...],
          "final_with_residual", "final_without_residual"（final = 最后 20 步的平均损失）,
          "spread_with_residual", "spread_without_residual"（训练后在新数据上，输出 logits 的
          position_spread：0 表示每个位置给出同一个预测）}
    """
    result = {"steps": steps, "num_layers": num_layers}
    for name, residual in (("with_residual", True), ("without_residual", False)):
        with reproducible(seed):
            model = SortModel(num_layers, residual)
            losses = train(model, sort_batch, sort_loss, steps, lr=1e-3, seed=seed)
            with torch.no_grad():
                x, _ = sort_batch(torch.Generator().manual_seed(seed + 1), 256)
                result[f"spread_{name}"] = position_spread(model(x))
        result[f"loss_{name}"] = losses
        result[f"final_{name}"] = sum(losses[-20:]) / 20
    return result


LN_VARIANTS = {  # 都有残差；只差 LayerNorm 放在哪里、有没有
    "post_ln": {},  # 论文：x = LN(x + F(x))
    "pre_ln": {"norm_first": True, "final_norm": True},  # x = x + F(LN(x))，末尾再加一个 LN
    "no_ln": {"layer_norm": False},  # x = x + F(x)
}


def layernorm_comparison(
    num_layers: int = 6, steps: int = 150, lrs: tuple[float, ...] = (1e-3, 3e-2), seed: int = 0
) -> dict:
    """同一个排序任务、同样的数据与种子：Post-LN、Pre-LN、无 LayerNorm 三种编码器，
    各用几种学习率训练。

    结果事先并不确定：小学习率下三者可能一样好，大学习率下可能有的发散、有的停滞。
    返回 {"steps", "num_layers", "lrs", "variants": [名字],
          "runs": {名字: [每个学习率一个 {"losses", "final", "diverged_at"}]}}
    final：最后 20 步的平均损失（发散则 None）；
    diverged_at：损失第一次非有限或超过随机猜测的 DIVERGE_FACTOR 倍的步数（没有发散则 None）。
    """
    runs = {name: [] for name in LN_VARIANTS}
    for lr in lrs:
        for name, options in LN_VARIANTS.items():
            with reproducible(seed):
                model = SortModel(num_layers, **options)
                limit = DIVERGE_FACTOR * SORT_CHANCE
                losses = train(model, sort_batch, sort_loss, steps, lr, seed, diverge_above=limit)
            diverged = len(losses) < steps
            runs[name].append(
                {
                    "losses": losses,
                    "final": None if diverged else sum(losses[-20:]) / 20,
                    "diverged_at": len(losses) + 1 if diverged else None,
                }
            )
    return {
        "steps": steps,
        "num_layers": num_layers,
        "lrs": list(lrs),
        "variants": list(LN_VARIANTS),
        "runs": runs,
    }


# ---------- 3. 去掉位置编码：与顺序有关的任务 ----------

A, B = 0, 1  # 两个特殊 token；其余 token 2..11 是填充


def order_batch(gen: torch.Generator, batch: int = 64) -> tuple[torch.Tensor, torch.Tensor]:
    """每个序列恰好含一个 A 和一个 B，标签 = A 是否出现在 B 之前。"""
    x = torch.randint(2, 12, (batch, SEQ_LEN), generator=gen)
    order = torch.argsort(torch.rand(batch, SEQ_LEN, generator=gen), dim=1)
    rows = torch.arange(batch)
    x[rows, order[:, 0]] = A
    x[rows, order[:, 1]] = B
    return x, (order[:, 0] < order[:, 1]).long()


class OrderModel(nn.Module):
    """嵌入（+ 可选的正弦位置编码）→ 1 层编码器 → 对所有位置取平均 → 二分类。"""

    def __init__(self, use_position: bool, d_model: int = 32):
        super().__init__()
        self.embed = nn.Embedding(12, d_model)
        self.position = SinusoidalPositionalEncoding(SEQ_LEN, d_model) if use_position else None
        self.encoder = Encoder(1, d_model, 4, 2 * d_model)
        self.out = nn.Linear(d_model, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        if self.position is not None:
            h = self.position(h)
        return self.out(self.encoder(h)[0].mean(dim=1))


def order_loss(model: OrderModel, x, y) -> torch.Tensor:
    return F.cross_entropy(model(x), y)


def swap_a_b(x: torch.Tensor) -> torch.Tensor:
    """交换 A 与 B 的位置：token 的集合不变，标签反转。"""
    swapped = x.clone()
    swapped[x == A], swapped[x == B] = B, A
    return swapped


def pe_ablation(steps: int = 150, n_test: int = 1000, seed: int = 0) -> dict:
    """「A 是否在 B 之前？」有位置编码 vs 没有位置编码。

    测试集由 n_test 个序列和它们交换 A、B 后的版本组成（标签正好相反）。没有位置编码时模型对
    置换不变，每一对都给出相同预测，所以准确率恰为 50%（机会水平）。
    返回 {"chance", "accuracy_with_pe", "accuracy_without_pe", "losses_with_pe",
          "losses_without_pe", "pair_agreement_with_pe", "pair_agreement_without_pe"}
    """
    x, y = order_batch(torch.Generator().manual_seed(seed + 1), n_test)
    x_test, y_test = torch.cat([x, swap_a_b(x)]), torch.cat([y, 1 - y])
    result = {"chance": 0.5}
    for name, use_position in (("with_pe", True), ("without_pe", False)):
        with reproducible(seed):
            model = OrderModel(use_position)
            losses = train(model, order_batch, order_loss, steps, lr=3e-3, seed=seed)
            with torch.no_grad():
                prediction = model(x_test).argmax(dim=-1)
        result[f"accuracy_{name}"] = float((prediction == y_test).float().mean())
        result[f"losses_{name}"] = losses
        same = prediction[:n_test] == prediction[n_test:]  # 原序列与交换后的序列预测是否相同
        result[f"pair_agreement_{name}"] = float(same.float().mean())
    return result


def order_batch_at(
    gen: torch.Generator, batch: int, n: int, lo: int, hi: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """长度 n 的序列，A、B 落在 [lo, hi) 里两个不同的随机位置；标签 = A 是否在 B 之前。"""
    x = torch.randint(2, 12, (batch, n), generator=gen)
    pos_a = torch.randint(lo, hi, (batch,), generator=gen)
    pos_b = torch.randint(lo, hi - 1, (batch,), generator=gen)
    pos_b = pos_b + (pos_b >= pos_a).long()  # 与 pos_a 不同，且在 [lo, hi) 里均匀
    rows = torch.arange(batch)
    x[rows, pos_a], x[rows, pos_b] = A, B
    return x, (pos_a < pos_b).long()


def pe_extrapolation(
    test_len: int = 2 * SEQ_LEN, steps: int = 150, n_test: int = 2000, seed: int = 0
) -> dict:
    """正弦编码「对任意位置都有定义」，模型就会外推吗？

    在长度 SEQ_LEN 的序列上训练「A 是否在 B 之前」（与 pe_ablation 的有位置编码模型相同），
    然后把位置表加长到 test_len（前 SEQ_LEN 行不变），在长度 test_len 的序列上测：
    A、B 都落在训练见过的位置 [0, SEQ_LEN)，或都落在没见过的位置 [SEQ_LEN, test_len)。
    两组序列一样长、填充词一样多，只差 A、B 的位置。
    返回 {"train_len", "test_len", "chance", "n_test", "accuracy_train",
          "accuracy_seen_positions", "accuracy_unseen_positions"}
    """
    with reproducible(seed):
        model = OrderModel(use_position=True)
        train(model, order_batch, order_loss, steps, lr=3e-3, seed=seed)
        d_model = model.embed.embedding_dim
        result = {"train_len": SEQ_LEN, "test_len": test_len, "chance": 0.5, "n_test": n_test}
        with torch.no_grad():
            gen = torch.Generator().manual_seed(seed + 1)
            x, y = order_batch_at(gen, n_test, SEQ_LEN, 0, SEQ_LEN)
            result["accuracy_train"] = float((model(x).argmax(-1) == y).float().mean())
            model.position = SinusoidalPositionalEncoding(test_len, d_model)  # 同一公式，表更长
            for name, (lo, hi) in (("seen", (0, SEQ_LEN)), ("unseen", (SEQ_LEN, test_len))):
                gen = torch.Generator().manual_seed(seed + 2)
                x, y = order_batch_at(gen, n_test, test_len, lo, hi)
                accuracy = float((model(x).argmax(-1) == y).float().mean())
                result[f"accuracy_{name}_positions"] = accuracy
    return result
