// Widgets fed by build-time data, and the "where does this number come from?" popover.
//
// Widgets: deck/widgets.py checks each `::: {.widget kind=… data=…}`'s data and embeds it as
// JSON beside an empty `<div class="widget" data-widget="kind">`; this draws it. On screen a
// widget is live, with controls that work by keyboard alone; with `?print-pdf` (the slides
// PDF and the handouts) it draws its default state as a static figure, with no controls.
// Controls are plain buttons, inputs and selects built in a fixed order from the data, so
// present.js mirrors every click and input between the projector and the speaker view's
// previews (it addresses a control by its index in the slide: the number of controls never
// changes after start).
//
// Values: every computed inline value on a slide is a `<span class="value">` carrying its
// expression, its file:line and the cells that bound the names it uses (their code is in the
// slide's `script.value-sources`, see deck/provenance.py). A click, or Enter on it, opens a
// small dialog telling all that. Never in print.
(function () {
  "use strict";
  var printing = /print-pdf/i.test(window.location.search);
  var english = /^en/i.test(document.documentElement.lang);
  var SVG = "http://www.w3.org/2000/svg";
  var T = english
    ? {
        names: { "softmax-scaling": "Scaling by √d_k", "attention-explorer": "Attention explorer",
          "attention-2x2": "2×2 attention, live", "head-ablation": "Switching heads off" },
        dk: "d_k", unscaled: "Unscaled: softmax(q·k)", scaled: "Scaled: softmax(q·k / √d_k)",
        unscaledShort: "unscaled", scaledShort: "scaled", max: "max weight", entropy: "entropy",
        uniform: "uniform", key: "key",
        sentence: "Sentence", layer: "Layer", head: "Head",
        layerN: function (n) { return "layer " + n; }, headN: function (n) { return "head " + n; },
        queries: "Query tokens (hover, focus or press to pin)", keys: "Attended tokens",
        matrix: "The head's weights: a row per query, a column per key",
        hint: "Hover or focus a token to see where it attends; Enter pins it.",
        attends: function (t) { return "“" + t + "” attends to: "; },
        scores: "Scores QKᵀ", scaledScores: "Scaled QKᵀ / √d_k", weights: "Weights softmax(·)",
        cell: function (m, i, j) { return m + " row " + i + " column " + j; },
        invalid: "Type a number in every box (d_k > 0).",
        allOn: "All heads on", off: function (h) { return "Head " + h + " off"; },
        accuracy: "Accuracy per relation", looksAt: "usually attends to",
        focusHint: "Press a button to switch that head off (its output zeroed before concat).",
        focus: function (h) { return "Head " + h + " usually attends: "; },
        popover: "Where this value comes from", expr: "Expression", at: "Written at",
        cellAt: "Computed in the cell at",
        lines: function (a, b) { return "(lines " + a + "–" + b + ")"; }, close: "Close",
        noCell: "No cell binds a name this expression uses: it is computed from the expression alone."
      }
    : {
        names: { "softmax-scaling": "√d_k 缩放演示", "attention-explorer": "注意力浏览器",
          "attention-2x2": "2×2 注意力：现场计算", "head-ablation": "关掉注意力头" },
        dk: "d_k", unscaled: "不缩放：softmax(q·k)", scaled: "缩放：softmax(q·k / √d_k)",
        unscaledShort: "不缩放", scaledShort: "缩放后", max: "最大权重", entropy: "熵",
        uniform: "均匀", key: "键",
        sentence: "句子", layer: "层", head: "头",
        layerN: function (n) { return "第 " + n + " 层"; },
        headN: function (n) { return "第 " + n + " 头"; },
        queries: "查询词（悬停、聚焦或按下固定）", keys: "被关注的词",
        matrix: "该头的权重矩阵：每行一个查询词，每列一个键",
        hint: "悬停或用 Tab 聚焦一个词，看它关注哪里；回车固定。",
        attends: function (t) { return "“" + t + "”关注："; },
        scores: "打分 QKᵀ", scaledScores: "缩放 QKᵀ / √d_k", weights: "权重 softmax(·)",
        cell: function (m, i, j) { return m + " 第 " + i + " 行第 " + j + " 列"; },
        invalid: "每个格子都要填数字（d_k > 0）。",
        allOn: "全部开启", off: function (h) { return "关掉头 " + h; },
        accuracy: "各关系的准确率", looksAt: "该头平时主要看",
        focusHint: "按一个按钮，关掉那个头（把它的输出置零后再拼接）。",
        focus: function (h) { return "头 " + h + " 平时的注意力："; },
        popover: "这个数从哪里来", expr: "表达式", at: "写在", cellAt: "计算它的单元格",
        lines: function (a, b) { return "（第 " + a + "–" + b + " 行）"; }, close: "关闭",
        noCell: "没有单元格绑定这个表达式用到的名字：它只由表达式本身算出。"
      };

  // ---- helpers ---------------------------------------------------------------------------

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }

  function fixed(x, digits) {
    var text = x.toFixed(digits);
    return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
  }

  function pct(x) {
    return (100 * x).toFixed(1) + "%";
  }

  function entropy(p) {
    return p.reduce(function (s, w) { return w > 0 ? s - w * Math.log(w) : s; }, 0);
  }

  function argmax(xs) {
    return xs.reduce(function (best, x, k) { return x > xs[best] ? k : best; }, 0);
  }

  function labelled(text, control) {
    var label = el("label", { class: "widget-control" });
    label.appendChild(el("span", { class: "widget-control-name" }, text));
    label.appendChild(control);
    return label;
  }

  function select(options, value) {
    var box = el("select");
    options.forEach(function (text, k) {
      var option = el("option", { value: String(k) }, text);
      if (k === value) option.selected = true;
      box.appendChild(option);
    });
    return box;
  }

  function range(n) {
    var out = [];
    for (var k = 0; k < n; k++) out.push(k);
    return out;
  }

  // A bar chart of weights in [0, 1], built once; `update(weights, note)` redraws it (a
  // chart made `noted` has a line above the bars for the note). The SVG's `data-scale` is its
  // pixels per unit of weight.
  function barChart(width, height, n, labels, ticks, noted) {
    var pad = { l: 48, r: 6, t: noted ? 22 : 8, b: labels ? 26 : 6 };
    var w = width - pad.l - pad.r;
    var h = height - pad.t - pad.b;
    var root = svg("svg", { viewBox: "0 0 " + width + " " + height, width: width,
      height: height, role: "img", class: "widget-bars", "data-scale": String(h) });
    var corner = svg("text", { x: width - pad.r, y: 14, class: "widget-tick",
      "text-anchor": "end" });
    (ticks || [0, 0.5, 1]).forEach(function (tick) {
      var y = pad.t + h - tick * h;
      root.appendChild(svg("line", { x1: pad.l - 4, x2: pad.l + w, y1: y, y2: y,
        class: tick ? "widget-grid" : "widget-axis" }));
      var text = svg("text", { x: pad.l - 8, y: y + 6, class: "widget-tick",
        "text-anchor": "end" });
      text.textContent = String(tick);
      root.appendChild(text);
    });
    var step = w / n;
    var gap = Math.min(4, step * 0.2);
    var bars = range(n).map(function (k) {
      var rect = svg("rect", { x: pad.l + k * step + gap / 2, width: step - gap, y: pad.t + h,
        height: 0, class: "widget-bar" });
      root.appendChild(rect);
      if (labels) {
        var text = svg("text", { x: pad.l + (k + 0.5) * step, y: height - 6,
          class: "widget-tick", "text-anchor": "middle" });
        text.textContent = labels[k];
        root.appendChild(text);
      }
      return rect;
    });
    root.appendChild(corner);
    function update(weights, note) {
      var top = argmax(weights);
      bars.forEach(function (rect, k) {
        var bar = weights[k] * h;
        rect.setAttribute("y", String(pad.t + h - bar));
        rect.setAttribute("height", String(bar));
        rect.classList.toggle("widget-bar-top", k === top);
      });
      corner.textContent = note || "";
    }
    return { svg: root, update: update };
  }

  // ---- softmax-scaling: a √d_k slider, softmax with and without scaling --------------------

  function weightStats(p) {
    return T.max + " " + fixed(Math.max.apply(null, p), 2) + " · " + T.entropy + " " +
      fixed(entropy(p), 2) + "（" + T.uniform + " " + fixed(Math.log(p.length), 2) + "）";
  }

  function scalingPanel(title, n, labels, width, height) {
    var figure = el("figure", { class: "ss-panel" });
    figure.appendChild(el("figcaption", {}, title));
    var chart = barChart(width, height, n, labels);
    figure.appendChild(chart.svg);
    var stat = el("p", { class: "widget-note" });
    figure.appendChild(stat);
    return {
      node: figure,
      update: function (p, dk) {
        chart.update(p);
        stat.textContent = weightStats(p);
        chart.svg.setAttribute("aria-label", title + "，d_k = " + dk + "：" + stat.textContent);
      },
    };
  }

  function scalingStats(data) {
    var table = el("table", { class: "widget-table ss-stats" });
    var head = el("tr");
    ["", T.unscaledShort, T.scaledShort].forEach(function (t) { head.appendChild(el("th", {}, t)); });
    table.appendChild(head);
    var cells = (data.stats || []).map(function (stat) {
      var row = el("tr");
      row.appendChild(el("th", {}, stat.label));
      var pair = [el("td"), el("td")];
      pair.forEach(function (td) { row.appendChild(td); });
      table.appendChild(row);
      return pair;
    });
    return {
      node: table,
      update: function (k) {
        (data.stats || []).forEach(function (stat, s) {
          cells[s][0].textContent = fixed(stat.unscaled[k], 3);
          cells[s][1].textContent = fixed(stat.scaled[k], 3);
        });
      },
    };
  }

  function initialDk(data) {
    var k = data.d_k.indexOf(data.initial);
    return k >= 0 ? k : 0;
  }

  var softmaxScaling = {
    live: function (body, data) {
      var n = data.unscaled[0].length;
      var start = initialDk(data);
      var slider = el("input", { type: "range", min: "0", max: String(data.d_k.length - 1),
        step: "1", value: String(start) });
      var shown = el("output", { class: "ss-dk" });
      var control = labelled("d_k = ", shown);
      control.appendChild(slider);
      body.appendChild(el("div", { class: "widget-controls" })).appendChild(control);
      var panels = el("div", { class: "ss-panels" });
      var left = scalingPanel(T.unscaled, n, data.keys, 540, 250);
      var right = scalingPanel(T.scaled, n, data.keys, 540, 250);
      panels.appendChild(left.node);
      panels.appendChild(right.node);
      body.appendChild(panels);
      var stats = data.stats && data.stats.length ? scalingStats(data) : null;
      if (stats) body.appendChild(stats.node);
      function draw() {
        var k = Number(slider.value);
        var dk = data.d_k[k];
        shown.textContent = String(dk);
        slider.setAttribute("aria-valuetext", "d_k = " + dk);
        left.update(data.unscaled[k], dk);
        right.update(data.scaled[k], dk);
        if (stats) stats.update(k);
      }
      slider.addEventListener("input", draw);
      slider.addEventListener("change", draw);
      draw();
    },
    // Paper: a row of both charts per d_k (at most six, evenly chosen), the stats beside.
    paper: function (body, data) {
      var n = data.unscaled[0].length;
      var count = data.d_k.length;
      var picks = count <= 6 ? range(count) : range(6).map(function (j) {
        return Math.round((j * (count - 1)) / 5);
      });
      var height = Math.max(56, Math.min(88, Math.floor(450 / picks.length) - 8));
      var stats = data.stats || [];
      var table = el("table", { class: "widget-table ss-paper" });
      var head = el("tr");
      [T.dk, T.unscaled, T.scaled].concat(stats.map(function (stat) { return stat.label; }))
        .forEach(function (t) { head.appendChild(el("th", {}, t)); });
      table.appendChild(head);
      picks.forEach(function (k) {
        var row = el("tr");
        row.appendChild(el("th", {}, String(data.d_k[k])));
        [data.unscaled[k], data.scaled[k]].forEach(function (p, side) {
          var chart = barChart(stats.length ? 330 : 420, height, n, null, [0, 1], true);
          chart.update(p, T.max + " " + fixed(Math.max.apply(null, p), 2) + " · " + T.entropy +
            " " + fixed(entropy(p), 2));
          chart.svg.setAttribute("aria-label", (side ? T.scaled : T.unscaled) + "，d_k = " +
            data.d_k[k] + "：" + weightStats(p));
          row.appendChild(el("td")).appendChild(chart.svg);
        });
        stats.forEach(function (stat) {
          row.appendChild(el("td", { class: "ss-pair" }, fixed(stat.unscaled[k], 3) + " → " +
            fixed(stat.scaled[k], 3)));
        });
        table.appendChild(row);
      });
      body.appendChild(table);
      if (stats.length) {
        body.appendChild(el("p", { class: "widget-note" }, T.unscaledShort + " → " +
          T.scaledShort));
      }
    },
  };

  // ---- attention-explorer: a model's attention, by sentence, layer and head ---------------

  var attentionExplorer = {
    live: function (body, data) { explorer(body, data, false); },
    paper: function (body, data) { explorer(body, data, true); },
  };

  function explorer(body, data, paper) {
    var sentences = data.sentences;
    var layers = sentences[0].attention.length;
    var heads = sentences[0].attention[0].length;
    var most = Math.max.apply(null, sentences.map(function (s) { return s.tokens.length; }));
    var state = { s: data.sentence || 0, l: data.layer || 0, h: data.head || 0,
      pinned: data.query === undefined ? null : data.query, hover: null };
    var controls = null;
    var caption = null;
    if (paper) {
      caption = body.appendChild(el("p", { class: "widget-caption" }));
    } else {
      controls = {
        s: select(sentences.map(function (s) { return s.name; }), state.s),
        l: select(range(layers).map(function (k) { return T.layerN(k + 1); }), state.l),
        h: select(range(heads).map(function (k) { return T.headN(k + 1); }), state.h),
      };
      var row = body.appendChild(el("div", { class: "widget-controls" }));
      row.appendChild(labelled(T.sentence, controls.s));
      row.appendChild(labelled(T.layer, controls.l));
      row.appendChild(labelled(T.head, controls.h));
    }
    var view = body.appendChild(el("div", { class: "ae-view" }));
    var queries = view.appendChild(el("div", { class: "ae-tokens ae-queries", role: "group",
      "aria-label": T.queries }));
    var width = 300;
    var lines = view.appendChild(svg("svg", { class: "ae-lines", width: width,
      "aria-hidden": "true" }));
    var keys = view.appendChild(el("div", { class: "ae-tokens ae-keys", role: "group",
      "aria-label": T.keys }));
    // The whole head as a matrix beside it, its rows level with the query tokens.
    var matrixBox = view.appendChild(el("figure", { class: "ae-matrix" }));
    var heat = matrixBox.appendChild(svg("svg", { "aria-hidden": "true" }));
    matrixBox.appendChild(el("figcaption", {}, T.matrix));
    // A fixed pool of token controls (as many as the longest sentence has tokens): the number
    // of controls in the slide never changes, so present.js's addresses stay valid.
    var queryNodes = range(most).map(function (q) {
      var node = paper ? el("span", { class: "ae-token" })
        : el("button", { type: "button", class: "ae-token", "aria-pressed": "false" });
      node.dataset.q = String(q);
      queries.appendChild(node);
      return node;
    });
    var keyNodes = range(most).map(function () {
      var node = el("span", { class: "ae-token" });
      node.appendChild(el("span", { class: "ae-word" }));
      node.appendChild(el("span", { class: "ae-weight" }));
      keys.appendChild(node);
      return node;
    });
    var status = paper ? null : body.appendChild(el("p", { class: "widget-note ae-status",
      "aria-live": "polite" }));

    function shown() {
      return state.hover !== null ? state.hover : state.pinned;
    }

    function draw() {
      var sentence = sentences[state.s];
      var tokens = sentence.tokens;
      var n = tokens.length;
      var matrix = sentence.attention[state.l][state.h];
      var rowHeight = Math.max(16, Math.min(36, Math.floor(430 / n)));
      var q = shown();
      if (q !== null && q >= n) q = null;
      view.style.setProperty("--ae-row", rowHeight + "px");
      lines.setAttribute("height", String(n * rowHeight));
      lines.setAttribute("viewBox", "0 0 " + width + " " + n * rowHeight);
      while (lines.firstChild) lines.removeChild(lines.firstChild);
      for (var i = 0; i < n; i++) {
        if (q !== null && i !== q) continue;
        for (var j = 0; j < n; j++) {
          var w = matrix[i][j];
          var line = svg("line", { x1: 0, y1: (i + 0.5) * rowHeight, x2: width,
            y2: (j + 0.5) * rowHeight, class: "ae-line", "stroke-opacity": String(w),
            "stroke-width": String(q === null ? 2 : 2 + 6 * w) });
          line.dataset.q = String(i);
          line.dataset.k = String(j);
          lines.appendChild(line);
        }
      }
      while (heat.firstChild) heat.removeChild(heat.firstChild);
      heat.setAttribute("width", String(n * rowHeight));
      heat.setAttribute("height", String(n * rowHeight));
      for (var a = 0; a < n; a++) {
        for (var b = 0; b < n; b++) {
          heat.appendChild(svg("rect", { x: b * rowHeight, y: a * rowHeight, width: rowHeight,
            height: rowHeight, class: "ae-cell", "fill-opacity": String(matrix[a][b]) }));
        }
      }
      heat.appendChild(svg("rect", { x: 0.5, y: 0.5, width: n * rowHeight - 1,
        height: n * rowHeight - 1, class: "ae-frame" }));
      if (q !== null) {
        heat.appendChild(svg("rect", { x: 1, y: q * rowHeight + 1, width: n * rowHeight - 2,
          height: rowHeight - 2, class: "ae-row" }));
      }
      queryNodes.forEach(function (node, i) {
        node.hidden = i >= n;
        node.textContent = i < n ? tokens[i] : "";
        node.classList.toggle("ae-active", i === q);
        if (!paper) node.setAttribute("aria-pressed", String(i === state.pinned));
      });
      keyNodes.forEach(function (node, j) {
        node.hidden = j >= n;
        var w = q !== null && j < n ? matrix[q][j] : null;
        node.querySelector(".ae-word").textContent = j < n ? tokens[j] : "";
        node.querySelector(".ae-weight").textContent = w === null ? "" : fixed(w, 2);
        node.style.backgroundColor = w === null ? "" : "rgba(26, 95, 180, " + (0.6 * w) + ")";
      });
      var where = sentence.name + " · " + T.layerN(state.l + 1) + " · " + T.headN(state.h + 1);
      if (caption) caption.textContent = where;
      if (status) status.textContent = q === null ? T.hint : describe(tokens, matrix[q], q);
    }

    function describe(tokens, row, q) {
      var order = range(row.length).sort(function (a, b) { return row[b] - row[a]; });
      return T.attends(tokens[q]) + order.slice(0, 3).map(function (j) {
        return tokens[j] + " " + fixed(row[j], 2);
      }).join(" · ");
    }

    if (!paper) {
      ["s", "l", "h"].forEach(function (key) {
        ["input", "change"].forEach(function (type) {
          controls[key].addEventListener(type, function () {
            state[key] = Number(controls[key].value);
            if (key === "s") state.pinned = null;
            draw();
          });
        });
      });
      queryNodes.forEach(function (node, i) {
        node.addEventListener("click", function () {
          state.pinned = state.pinned === i ? null : i;
          draw();
        });
        node.addEventListener("mouseenter", function () { state.hover = i; draw(); });
        node.addEventListener("mouseleave", function () { state.hover = null; draw(); });
        node.addEventListener("focus", function () { state.hover = i; draw(); });
        node.addEventListener("blur", function () { state.hover = null; draw(); });
        // Up and down walk the tokens (and do not turn the slide).
        node.addEventListener("keydown", function (event) {
          var step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
          if (!step) return;
          event.preventDefault();
          event.stopPropagation();
          var n = sentences[state.s].tokens.length;
          queryNodes[(i + step + n) % n].focus();
        });
      });
    }
    draw();
  }

  // ---- attention-2x2: type Q and K, see softmax(QKᵀ/√d_k) ---------------------------------

  function attention2x2(Q, K, dk) {
    var scores = [0, 1].map(function (i) {
      return [0, 1].map(function (j) { return Q[i][0] * K[j][0] + Q[i][1] * K[j][1]; });
    });
    var root = Math.sqrt(dk);
    var scaled = scores.map(function (row) { return row.map(function (x) { return x / root; }); });
    var weights = scaled.map(function (row) {
      var top = Math.max(row[0], row[1]);
      var e = row.map(function (x) { return Math.exp(x - top); });
      var sum = e[0] + e[1];
      return e.map(function (x) { return x / sum; });
    });
    return { scores: scores, scaled: scaled, weights: weights };
  }

  // A 2×2 matrix: a table of inputs (live) or of numbers (paper, results).
  function matrixTable(name, values, editable, cls) {
    var table = el("table", { class: "widget-table a2-matrix " + (cls || "") });
    table.appendChild(el("caption", {}, name));
    var cells = [0, 1].map(function (i) {
      var row = table.appendChild(el("tr"));
      return [0, 1].map(function (j) {
        var td = row.appendChild(el("td"));
        if (!editable) {
          td.textContent = values ? fixed(values[i][j], 4) : "";
          return td;
        }
        var input = el("input", { type: "number", step: "any", value: String(values[i][j]),
          "aria-label": T.cell(name, i + 1, j + 1) });
        td.appendChild(input);
        return input;
      });
    });
    return { node: table, cells: cells };
  }

  function showMatrix(cells, values) {
    cells.forEach(function (row, i) {
      row.forEach(function (td, j) {
        var x = values ? values[i][j] : NaN;
        td.textContent = isFinite(x) ? fixed(x, 4) : "—";
        td.dataset.value = isFinite(x) ? String(x) : "";
      });
    });
  }

  var attention2x2Widget = {
    live: function (body, data) { exercise(body, data, false); },
    paper: function (body, data) { exercise(body, data, true); },
  };

  function exercise(body, data, paper) {
    var dk = data.d_k === undefined ? 2 : data.d_k;
    var inputs = el("div", { class: "a2-inputs" });
    var q = matrixTable("Q", data.Q, !paper);
    var k = matrixTable("K", data.K, !paper);
    inputs.appendChild(q.node);
    inputs.appendChild(k.node);
    var dkInput = null;
    if (paper) {
      inputs.appendChild(el("p", { class: "a2-dk" }, "d_k = " + dk));
    } else {
      dkInput = el("input", { type: "number", step: "any", min: "0", value: String(dk) });
      inputs.appendChild(labelled("d_k", dkInput));
    }
    body.appendChild(inputs);
    var results = el("div", { class: "a2-results" });
    var scores = matrixTable(T.scores, null, false, "a2-scores");
    var scaled = matrixTable(T.scaledScores, null, false, "a2-scaled");
    var weights = matrixTable(T.weights, null, false, "a2-weights");
    [scores, scaled, weights].forEach(function (m) { results.appendChild(m.node); });
    body.appendChild(results);
    var status = paper ? null : body.appendChild(el("p", { class: "widget-note a2-status",
      "aria-live": "polite" }));

    function read(cells, initial) {
      return cells.map(function (row, i) {
        return row.map(function (cell, j) {
          return paper ? initial[i][j] : cell.value.trim() === "" ? NaN : Number(cell.value);
        });
      });
    }

    function draw() {
      var Q = read(q.cells, data.Q);
      var K = read(k.cells, data.K);
      var d = paper ? dk : dkInput.value.trim() === "" ? NaN : Number(dkInput.value);
      var ok = Q.concat(K).every(function (row) { return row.every(isFinite); }) &&
        isFinite(d) && d > 0;
      var out = ok ? attention2x2(Q, K, d) : null;
      showMatrix(scores.cells, out && out.scores);
      showMatrix(scaled.cells, out && out.scaled);
      showMatrix(weights.cells, out && out.weights);
      weights.cells.forEach(function (row) {
        row.forEach(function (td) {
          var w = Number(td.dataset.value);
          td.style.backgroundColor = td.dataset.value ? "rgba(26, 95, 180, " + 0.5 * w + ")" : "";
        });
      });
      if (status) status.textContent = ok ? "" : T.invalid;
      [].concat(q.cells[0], q.cells[1], k.cells[0], k.cells[1], dkInput ? [dkInput] : [])
        .forEach(function (input) {
          if (paper) return;
          var bad = input.value.trim() === "" || !isFinite(Number(input.value)) ||
            (input === dkInput && !(Number(input.value) > 0));
          input.setAttribute("aria-invalid", String(bad));
        });
    }

    if (!paper) {
      body.addEventListener("input", draw);
      body.addEventListener("change", draw);
    }
    draw();
  }

  // ---- head-ablation: switch one head off, see the accuracy per relation -----------------

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

  var KINDS = {
    "softmax-scaling": softmaxScaling,
    "attention-explorer": attentionExplorer,
    "attention-2x2": attention2x2Widget,
    "head-ablation": headAblation,
  };

  // ---- start ---------------------------------------------------------------------------

  function start(root) {
    if (root.dataset.widgetState) return;
    var kind = KINDS[root.dataset.widget];
    var body = el("div", { class: "widget-body" });
    try {
      if (!kind) throw new Error("unknown widget kind " + root.dataset.widget);
      var data = JSON.parse(root.querySelector(":scope > script.widget-data").textContent);
      root.setAttribute("role", "group");
      root.setAttribute("aria-label", T.names[root.dataset.widget]);
      root.insertBefore(body, root.querySelector(":scope > .widget-fallback"));
      // A select keeps its arrow keys: reveal.js (listening on the document) would also
      // turn the slide.
      root.addEventListener("keydown", function (event) {
        if (event.target.tagName === "SELECT" && /^(Arrow|Page|Home|End)/.test(event.key)) {
          event.stopPropagation();
        }
      });
      (printing ? kind.paper : kind.live)(body, data);
      root.dataset.widgetState = printing ? "paper" : "live";
    } catch (error) {
      body.remove(); // the fallback stays
      root.dataset.widgetState = "failed";
      console.error("deck widget at " + root.dataset.source + ":", error);
    }
  }

  function startAll(scope) {
    scope.querySelectorAll(".widget[data-widget]").forEach(start);
  }

  startAll(document);
  // The live preview (live.js) swaps in rebuilt slides: start the widgets they bring.
  var slides = document.querySelector(".reveal .slides");
  if (slides && window.MutationObserver) {
    new MutationObserver(function (records) {
      records.forEach(function (record) {
        record.addedNodes.forEach(function (node) {
          if (node.nodeType === 1) startAll(node);
        });
      });
    }).observe(slides, { childList: true });
  }
  window.deckWidgets = { kinds: KINDS, start: start, attention2x2: attention2x2 };

  // ---- where does this number come from? --------------------------------------------------

  if (printing) return;
  var popover = null;
  var opener = null;

  function sourcesOf(value) {
    var section = value.closest("section");
    var script = section && section.querySelector("script.value-sources");
    try {
      return script ? JSON.parse(script.textContent) : {};
    } catch (e) {
      return {};
    }
  }

  function codeBlock(entry, marks) {
    var pre = el("pre", { class: "value-code", tabindex: "0" });
    var code = pre.appendChild(el("code"));
    var first = null;
    entry.code.split("\n").forEach(function (text, k) {
      var line = entry.first + k;
      var marked = marks.some(function (m) { return line >= m[0] && line <= m[1]; });
      var row = code.appendChild(el("span", { class: "value-line" + (marked ? " value-mark" : ""),
        "data-line": String(line) }));
      row.appendChild(el("span", { class: "value-lineno", "aria-hidden": "true" }, String(line)));
      row.appendChild(document.createTextNode(text + "\n"));
      if (marked && first === null) first = row;
    });
    return { node: pre, first: first };
  }

  function close(refocus) {
    if (!popover) return;
    popover.remove();
    popover = null;
    if (opener) {
      opener.setAttribute("aria-expanded", "false");
      if (refocus) opener.focus();
    }
    opener = null;
  }

  function open(value) {
    close(false);
    opener = value;
    value.setAttribute("aria-expanded", "true");
    popover = el("div", { class: "value-popover", role: "dialog", "aria-label": T.popover,
      tabindex: "-1" });
    var closeButton = popover.appendChild(el("button", { type: "button",
      class: "value-popover-close", "aria-label": T.close }, "×"));
    closeButton.addEventListener("click", function () { close(true); });
    popover.appendChild(el("h3", {}, T.popover));
    var expr = popover.appendChild(el("p", { class: "value-expr" }));
    expr.appendChild(el("span", { class: "value-label" }, T.expr + " "));
    expr.appendChild(el("code", {}, value.dataset.expr));
    var at = popover.appendChild(el("p", { class: "value-at" }));
    at.appendChild(el("span", { class: "value-label" }, T.at + " "));
    at.appendChild(el("code", {}, value.dataset.loc));
    var sources = sourcesOf(value);
    var cells = (value.dataset.cells || "").split(" ").filter(function (c) { return sources[c]; });
    var marks = (value.dataset.marks || "").split(" ").filter(Boolean).map(function (m) {
      return m.split("-").map(Number);
    });
    var scroll = [];
    cells.forEach(function (loc) {
      var entry = sources[loc];
      var last = entry.first + entry.code.split("\n").length - 1;
      var head = popover.appendChild(el("p", { class: "value-cell" }));
      head.appendChild(el("span", { class: "value-label" }, T.cellAt + " "));
      head.appendChild(el("code", {}, loc));
      head.appendChild(document.createTextNode(" " + T.lines(entry.first, last)));
      var block = codeBlock(entry, marks);
      popover.appendChild(block.node);
      scroll.push(block);
    });
    if (!cells.length) popover.appendChild(el("p", { class: "value-none" }, T.noCell));
    document.body.appendChild(popover);
    place(value);
    scroll.forEach(function (block) {
      if (block.first) block.node.scrollTop = block.first.offsetTop - block.node.clientHeight / 3;
    });
    popover.addEventListener("keydown", function (event) {
      event.stopPropagation(); // keys typed here do not drive the slides
      if (event.key === "Escape") {
        event.preventDefault();
        close(true);
      }
    });
    popover.addEventListener("focusout", function (event) {
      if (popover && event.relatedTarget && !popover.contains(event.relatedTarget) &&
          event.relatedTarget !== opener) {
        close(false);
      }
    });
    popover.focus();
  }

  // Below the value if it fits, else above; kept inside the window.
  function place(value) {
    var box = value.getBoundingClientRect();
    var width = popover.offsetWidth;
    var height = popover.offsetHeight;
    var left = Math.max(8, Math.min(box.left, window.innerWidth - width - 8));
    var top = box.bottom + 8;
    if (top + height > window.innerHeight - 8) top = Math.max(8, box.top - height - 8);
    popover.style.left = left + "px";
    popover.style.top = top + "px";
  }

  function valueOf(target) {
    var value = target.closest && target.closest(".value[data-expr]");
    return value && value.closest(".reveal .slides") ? value : null;
  }

  document.addEventListener("click", function (event) {
    var value = valueOf(event.target);
    if (value) {
      if (opener === value) close(true);
      else open(value);
    } else if (popover && !popover.contains(event.target)) {
      close(false);
    }
  });

  document.addEventListener("keydown", function (event) {
    var value = valueOf(event.target);
    if (!value || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    if (opener === value) close(true);
    else open(value);
  });

  if (window.Reveal && Reveal.on) {
    Reveal.on("slidechanged", function () { close(false); });
    Reveal.on("overviewshown", function () { close(false); });
  }
  window.addEventListener("resize", function () { if (popover && opener) place(opener); });
})();
