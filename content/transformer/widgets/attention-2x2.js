// Widget kind "attention-2x2": type Q and K, see softmax(QKᵀ/√d_k) (content/transformer: bundled into assets/widgets.js after the engine's runtime.js).
(function () {
  "use strict";
  var lib = window.deckWidgets.helpers;
  var T = lib.strings({
    en: { name: "2×2 attention, live", scores: "Scores QKᵀ", scaledScores: "Scaled QKᵀ / √d_k",
      weights: "Weights softmax(·)",
      cell: function (m, i, j) { return m + " row " + i + " column " + j; },
      invalid: "Type a number in every box (d_k > 0)." },
    zh: { name: "2×2 注意力：现场计算", scores: "打分 QKᵀ", scaledScores: "缩放 QKᵀ / √d_k",
      weights: "权重 softmax(·)",
      cell: function (m, i, j) { return m + " 第 " + i + " 行第 " + j + " 列"; },
      invalid: "每个格子都要填数字（d_k > 0）。" },
  });
  var el = lib.el;
  var fixed = lib.fixed;
  var labelled = lib.labelled;

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

  window.deckWidgets.attention2x2 = attention2x2; // the arithmetic alone, for tests
  window.deckWidgets.register("attention-2x2", { label: T.name, live: attention2x2Widget.live, paper: attention2x2Widget.paper });
})();
