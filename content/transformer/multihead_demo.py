"""第四部分（多头注意力）幻灯片用的小工具：记录前向过程中每一步的形状，生成「关掉一个头」的互动组件。"""

import html
import json
from itertools import count

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


_ids = count(1)

_STYLE = """
.mh-ablation .mh-buttons { display: flex; gap: 12px; flex-wrap: wrap; margin: 6px 0 14px; }
.mh-ablation button { font: inherit; font-size: 22px; padding: 6px 16px; cursor: pointer;
  background: #f4f6f9; border: 2px solid #c9d1db; border-radius: 8px; color: inherit; }
.mh-ablation button.active { background: #1a5fb4; border-color: #1a5fb4; color: #fff; }
.mh-ablation .mh-row { display: flex; align-items: center; gap: 14px; margin: 0 0 16px;
  font-size: 26px; }
.mh-ablation .mh-name { width: 150px; }
.mh-ablation .mh-track { flex: 0 0 620px; height: 40px; background: #eef2f7;
  border-radius: 6px; position: relative; overflow: hidden; }
.mh-ablation .mh-bar { height: 100%; background: #1a5fb4; transition: width 0.3s; }
.mh-ablation .mh-bar.hurt { background: #c01c28; }
.mh-ablation .mh-full { position: absolute; top: 0; bottom: 0; width: 3px; background: #1c2733; }
.mh-ablation .mh-value { width: 260px; font-family: var(--r-code-font); font-size: 22px; }
.mh-ablation .mh-focus { font-size: 22px; color: #5a6472; min-height: 1.5em; margin: 4px 0 10px; }
.mh-ablation .mh-print { display: none; }
.mh-ablation td.hurt { color: #c01c28; font-weight: 700; }
html.reveal-print .mh-ablation .mh-live { display: none; }
html.reveal-print .mh-ablation .mh-print { display: block; }
"""

_SCRIPT = """
(function () {
  var root = document.getElementById("%(id)s");
  var data = JSON.parse(root.querySelector(".mh-data").textContent);
  var rows = root.querySelectorAll(".mh-row");
  var buttons = root.querySelectorAll("button");
  var focus = root.querySelector(".mh-focus");
  function pct(x) { return (100 * x).toFixed(1) + "%%"; }
  function signed(d) {  // 百分点，保留一位小数
    var text = Math.abs(d).toFixed(1);
    return (text === "0.0" ? "±" : d > 0 ? "+" : "−") + text;
  }
  function show(head) {
    buttons.forEach(function (b) {
      b.classList.toggle("active", Number(b.dataset.head) === head);
    });
    data.relations.forEach(function (name, j) {
      var full = data.full[j];
      var acc = head < 0 ? full : data.ablated[head][j];
      var hurt = full - acc >= data.threshold;
      var bar = rows[j].querySelector(".mh-bar");
      bar.style.width = pct(acc);
      bar.classList.toggle("hurt", hurt);
      rows[j].querySelector(".mh-full").style.left = pct(full);
      rows[j].querySelector(".mh-value").textContent =
        head < 0 ? pct(acc) : pct(acc) + "（" + signed(100 * (acc - full)) + "）";
    });
    focus.textContent = describe(head);
  }
  function describe(head) {
    if (head < 0) return "点一个按钮，关掉那个头（把它的输出置零后再拼接）";
    return "头 " + (head + 1) + " 平时的注意力：" + data.relations.map(function (name, j) {
      return data.names[j] + " " + data.focus[head][name].toFixed(2);
    }).join(" · ");
  }
  buttons.forEach(function (b) {
    b.addEventListener("click", function () { show(Number(b.dataset.head)); });
  });
  show(-1);
})();
"""


def ablation_widget(result: dict, relation_names: dict[str, str], threshold: float = 0.05) -> str:
    """head_ablation() 的结果做成互动组件：每个头一个按钮，点击后显示关掉它时各关系的准确率。

    数据以 JSON 嵌在组件里，离线可用；打印（PDF）时改为显示完整的「头 × 关系」准确率表，
    下降 ≥ threshold 的格子标红。返回 HTML 字符串（交给 deck.show.HTML）。
    """
    wid = f"mh-ablation-{next(_ids)}"
    names = [relation_names[r] for r in result["relations"]]
    data = {
        "relations": result["relations"],
        "names": names,
        "focus": result["head_focus"],
        "full": result["full_accuracy"],
        "ablated": result["ablated_accuracy"],
        "threshold": threshold,
    }
    buttons = ['<button data-head="-1">全部开启</button>'] + [
        f'<button data-head="{h}">关掉头 {h + 1}</button>' for h in range(result["num_heads"])
    ]
    rows = "".join(
        f'<div class="mh-row"><span class="mh-name">{html.escape(name)}</span>'
        '<span class="mh-track"><span class="mh-bar" style="display:block"></span>'
        '<span class="mh-full"></span></span><span class="mh-value"></span></div>'
        for name in names
    )

    def cell(full: float, acc: float) -> str:
        hurt = ' class="hurt"' if full - acc >= threshold else ""
        return f"<td{hurt}>{100 * acc:.1f}%</td>"

    def looks_at(h: int) -> str:
        focus = result["head_focus"][h]
        best = max(result["relations"], key=lambda r: focus[r])
        return f"<td>{html.escape(relation_names[best])} {focus[best]:.2f}</td>"

    head = "".join(f"<th>{html.escape(n)}</th>" for n in names) + "<th>该头平时主要看</th>"
    body = "<tr><th>全部开启</th>" + "".join(cell(1.0, a) for a in result["full_accuracy"])
    body += "<td></td></tr>"
    for h, row in enumerate(result["ablated_accuracy"]):
        cells = "".join(cell(f, a) for f, a in zip(result["full_accuracy"], row, strict=True))
        body += f"<tr><th>关掉头 {h + 1}</th>{cells}{looks_at(h)}</tr>"
    table = (
        f'<table class="data"><thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table>'
    )
    return (
        f'<div class="mh-ablation" id="{wid}"><style>{_STYLE}</style>'
        f'<script type="application/json" class="mh-data">{json.dumps(data)}</script>'
        f'<div class="mh-live"><div class="mh-buttons">{"".join(buttons)}</div>'
        f'<p class="mh-focus"></p>{rows}</div>'
        f'<div class="mh-print">{table}</div>'
        f"<script>{_SCRIPT % {'id': wid}}</script></div>"
    )
