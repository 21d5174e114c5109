// Widget kind "head-ablation": switch one head off, see the accuracy per relation (content/transformer: bundled into assets/widgets.js after the engine's runtime.js).
(function () {
  "use strict";
  var lib = window.deckWidgets.helpers;
  var T = lib.strings({
    en: { name: "Switching heads off", allOn: "All heads on",
      off: function (h) { return "Head " + h + " off"; },
      accuracy: "Accuracy per relation", looksAt: "usually attends to",
      focusHint: "Press a button to switch that head off (its output zeroed before concat).",
      focus: function (h) { return "Head " + h + " usually attends: "; } },
    zh: { name: "关掉注意力头", allOn: "全部开启", off: function (h) { return "关掉头 " + h; },
      accuracy: "各关系的准确率", looksAt: "该头平时主要看",
      focusHint: "按一个按钮，关掉那个头（把它的输出置零后再拼接）。",
      focus: function (h) { return "头 " + h + " 平时的注意力："; } },
  });
  var el = lib.el;
  var fixed = lib.fixed;
  var pct = lib.pct;
  var range = lib.range;

  function relationName(data, r) {
    return (data.relation_names && data.relation_names[r]) || r;
  }

  function hurt(data, full, acc) {
    return full - acc >= (data.threshold === undefined ? 0.05 : data.threshold);
  }

  function signedPoints(d) {
    var text = Math.abs(d).toFixed(1);
    return (text === "0.0" ? "±" : d > 0 ? "+" : "−") + text;
  }

  var headAblation = {
    live: function (body, data) {
      var buttons = el("div", { class: "widget-controls ha-buttons" });
      var pressed = [-1].concat(range(data.num_heads)).map(function (h) {
        var b = el("button", { type: "button", "aria-pressed": "false" },
          h < 0 ? T.allOn : T.off(h + 1));
        b.dataset.head = String(h);
        buttons.appendChild(b);
        return b;
      });
      body.appendChild(buttons);
      var focus = data.head_focus ? body.appendChild(el("p", { class: "widget-note ha-focus",
        "aria-live": "polite" })) : null;
      var rows = data.relations.map(function (r) {
        var row = body.appendChild(el("div", { class: "ha-row" }));
        row.appendChild(el("span", { class: "ha-name" }, relationName(data, r)));
        var track = row.appendChild(el("span", { class: "ha-track", "aria-hidden": "true" }));
        var bar = track.appendChild(el("span", { class: "ha-bar" }));
        var mark = track.appendChild(el("span", { class: "ha-full" }));
        var value = row.appendChild(el("span", { class: "ha-value" }));
        return { bar: bar, mark: mark, value: value };
      });
      function show(head) {
        pressed.forEach(function (b) {
          b.setAttribute("aria-pressed", String(Number(b.dataset.head) === head));
        });
        data.relations.forEach(function (r, j) {
          var full = data.full_accuracy[j];
          var acc = head < 0 ? full : data.ablated_accuracy[head][j];
          rows[j].bar.style.width = 100 * acc + "%";
          rows[j].bar.dataset.value = String(acc);
          rows[j].bar.classList.toggle("ha-hurt", hurt(data, full, acc));
          rows[j].mark.style.left = 100 * full + "%";
          rows[j].value.textContent = head < 0 ? pct(acc)
            : pct(acc) + "（" + signedPoints(100 * (acc - full)) + "）";
        });
        if (focus) {
          focus.textContent = head < 0 ? T.focusHint : T.focus(head + 1) +
            data.relations.map(function (r) {
              return relationName(data, r) + " " + fixed(data.head_focus[head][r], 2);
            }).join(" · ");
        }
      }
      pressed.forEach(function (b) {
        b.addEventListener("click", function () { show(Number(b.dataset.head)); });
      });
      show(-1);
    },
    // Paper: every state at once, a table of heads × relations, harmed cells marked.
    paper: function (body, data) {
      var table = el("table", { class: "widget-table ha-table" });
      table.appendChild(el("caption", {}, T.accuracy));
      var head = table.appendChild(el("tr"));
      head.appendChild(el("th"));
      data.relations.forEach(function (r) { head.appendChild(el("th", {}, relationName(data, r))); });
      if (data.head_focus) head.appendChild(el("th", {}, T.looksAt));
      [-1].concat(range(data.num_heads)).forEach(function (h) {
        var row = table.appendChild(el("tr"));
        row.appendChild(el("th", {}, h < 0 ? T.allOn : T.off(h + 1)));
        data.relations.forEach(function (r, j) {
          var full = data.full_accuracy[j];
          var acc = h < 0 ? full : data.ablated_accuracy[h][j];
          var td = row.appendChild(el("td", {}, pct(acc)));
          if (h >= 0 && hurt(data, full, acc)) td.className = "ha-hurt";
        });
        if (data.head_focus) {
          var cell = row.appendChild(el("td"));
          if (h >= 0) {
            var focus = data.head_focus[h];
            var best = data.relations.reduce(function (a, b) { return focus[b] > focus[a] ? b : a; });
            cell.textContent = relationName(data, best) + " " + fixed(focus[best], 2);
          }
        }
      });
      body.appendChild(table);
    },
  };

  window.deckWidgets.register("head-ablation", { label: T.name, live: headAblation.live, paper: headAblation.paper });
})();
