// Widget kind "causal-attention": one head's attention weights as a heat map, the causal mask
// switched on and off, one query's row read out (content/decoder: bundled into
// assets/widgets.js after the engine's runtime.js). The data gives the scores QKᵀ/√d_k before
// the mask; the weights are their softmax, row by row, over the keys the mask leaves visible.
(function () {
  "use strict";
  var lib = window.deckWidgets.helpers;
  var T = lib.strings({
    en: {
      name: "Causal attention weights",
      maskOn: "Causal mask: on",
      maskOff: "Causal mask: off",
      query: "Query",
      keys: "key (looked at)",
      queries: "query (looking)",
      hidden: function (n) {
        return n === 1 ? "1 later token masked (grey)" : n + " later tokens masked (grey)";
      },
      sees: function (word) { return "“" + word + "” attends to: "; },
    },
    zh: {
      name: "因果注意力权重",
      maskOn: "因果掩码：开",
      maskOff: "因果掩码：关",
      query: "query",
      keys: "key（被关注）",
      queries: "query（发出关注）",
      hidden: function (n) { return "后面 " + n + " 个 token 被掩码屏蔽（灰色）"; },
      sees: function (word) { return "“" + word + "” 的权重："; },
    },
  });
  var el = lib.el;
  var svg = lib.svg;
  var fixed = lib.fixed;
  var CELL = 56; // px per cell; every text is 20 px, the least the handout prints at 8 pt
  var TEXT = 20;
  var CHAR = 12; // px a character of a label takes, about

  // Row-wise softmax of `scores`; with `masked`, key j is hidden from query i when j > i
  // (its weight is 0, the visible weights add up to 1).
  function causalWeights(scores, masked) {
    return scores.map(function (row, i) {
      var visible = row.map(function (_, j) { return !masked || j <= i; });
      var top = Math.max.apply(null, row.filter(function (_, j) { return visible[j]; }));
      var e = row.map(function (x, j) { return visible[j] ? Math.exp(x - top) : 0; });
      var sum = e.reduce(function (a, b) { return a + b; }, 0);
      return e.map(function (x) { return x / sum; });
    });
  }

  function heatMap(tokens) {
    var n = tokens.length;
    var longest = Math.max.apply(null, tokens.map(function (t) { return t.length; }));
    var left = 12 + CHAR * longest;
    var top = 16 + Math.ceil(0.8 * CHAR * longest); // column labels turned 50°
    var width = left + n * CELL + Math.ceil(0.65 * CHAR * longest);
    var height = top + n * CELL + 4;
    var root = svg("svg", { viewBox: "0 0 " + width + " " + height, width: width,
      height: height, role: "img", class: "ca-map" });
    tokens.forEach(function (token, k) {
      var rowLabel = svg("text", { x: left - 8, y: top + (k + 0.5) * CELL + 7,
        "text-anchor": "end", "font-size": TEXT, fill: "#1c2733" });
      rowLabel.textContent = token;
      root.appendChild(rowLabel);
      var x = left + (k + 0.5) * CELL;
      var colLabel = svg("text", { x: x, y: top - 8, "text-anchor": "start", "font-size": TEXT,
        fill: "#1c2733", transform: "rotate(-50 " + x + " " + (top - 8) + ")" });
      colLabel.textContent = token;
      root.appendChild(colLabel);
    });
    var cells = tokens.map(function (_, i) {
      return tokens.map(function (_, j) {
        var x = left + j * CELL;
        var y = top + i * CELL;
        var rect = svg("rect", { x: x + 1, y: y + 1, width: CELL - 2, height: CELL - 2, rx: 3 });
        var label = svg("text", { x: x + CELL / 2, y: y + CELL / 2 + 7, "text-anchor": "middle",
          "font-size": TEXT });
        root.appendChild(rect);
        root.appendChild(label);
        return { rect: rect, label: label };
      });
    });
    var outline = svg("rect", { x: left - 2, width: n * CELL + 4, height: CELL, fill: "none",
      stroke: "#e66100", "stroke-width": 3, rx: 4 });
    root.appendChild(outline);
    function update(weights, masked, query) {
      weights.forEach(function (row, i) {
        row.forEach(function (w, j) {
          var cell = cells[i][j];
          var hidden = masked && j > i;
          cell.rect.setAttribute("fill", hidden ? "#e3e6ea" : "rgba(26, 95, 180, " +
            (0.08 + 0.92 * w).toFixed(3) + ")");
          cell.label.setAttribute("fill", hidden ? "#8a96a3" : w > 0.5 ? "#ffffff" : "#1c2733");
          cell.label.textContent = hidden ? "0" : fixed(w, 2);
        });
      });
      outline.setAttribute("y", String(top + query * CELL));
    }
    return { svg: root, update: update };
  }

  function draw(body, data, paper) {
    var tokens = data.tokens;
    var state = { masked: data.masked === undefined ? true : data.masked,
      query: data.query === undefined ? tokens.length - 1 : data.query };
    var toggle = null;
    var pick = null;
    var caption = data.caption ? el("span", { class: "widget-caption" }, data.caption) : null;
    if (!paper) { // the controls, and the caption on their line
      var controls = body.appendChild(el("div", { class: "widget-controls" }));
      toggle = controls.appendChild(el("button", { type: "button" }));
      pick = lib.select(tokens, state.query);
      controls.appendChild(lib.labelled(T.query, pick));
      if (caption) controls.appendChild(caption);
    } else if (caption) {
      body.appendChild(el("p", { class: "widget-caption" })).appendChild(caption);
    }
    var map = heatMap(tokens);
    body.appendChild(map.svg);
    var row = body.appendChild(el("p", { class: "ca-row", "aria-live": "polite",
      style: "font-size: " + TEXT + "px; margin: 4px 0 0; color: #1c2733;" }));

    function redraw() {
      var weights = causalWeights(data.scores, state.masked);
      map.update(weights, state.masked, state.query);
      var q = state.query;
      var parts = weights[q].map(function (w, j) { return tokens[j] + " " + fixed(w, 2); });
      var shown = state.masked ? parts.slice(0, q + 1) : parts;
      var hidden = tokens.length - 1 - q;
      row.textContent = T.sees(tokens[q]) + shown.join(" · ") +
        (state.masked && hidden ? "; " + T.hidden(hidden) : "");
      if (toggle) {
        toggle.textContent = state.masked ? T.maskOn : T.maskOff;
        toggle.setAttribute("aria-pressed", String(state.masked));
      }
    }

    if (!paper) {
      toggle.addEventListener("click", function () {
        state.masked = !state.masked;
        redraw();
      });
      pick.addEventListener("change", function () {
        state.query = Number(pick.value);
        redraw();
      });
    }
    redraw();
  }

  window.deckWidgets.causalWeights = causalWeights; // the arithmetic alone, for tests
  window.deckWidgets.register("causal-attention", {
    label: T.name,
    live: function (body, data) { draw(body, data, false); },
    paper: function (body, data) { draw(body, data, true); },
  });
})();
