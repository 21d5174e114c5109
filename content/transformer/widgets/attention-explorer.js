// Widget kind "attention-explorer": a model's attention, by sentence, layer and head (content/transformer: bundled into assets/widgets.js after the engine's runtime.js).
(function () {
  "use strict";
  var lib = window.deckWidgets.helpers;
  var T = lib.strings({
    en: { name: "Attention explorer", sentence: "Sentence", layer: "Layer", head: "Head",
      layerN: function (n) { return "layer " + n; }, headN: function (n) { return "head " + n; },
      queries: "Query tokens (hover, focus or press to pin)", keys: "Attended tokens",
      matrix: "The head's weights: a row per query, a column per key",
      hint: "Hover or focus a token to see where it attends; Enter pins it.",
      attends: function (t) { return "“" + t + "” attends to: "; } },
    zh: { name: "注意力浏览器", sentence: "句子", layer: "层", head: "头",
      layerN: function (n) { return "第 " + n + " 层"; },
      headN: function (n) { return "第 " + n + " 头"; },
      queries: "查询词（悬停、聚焦或按下固定）", keys: "被关注的词",
      matrix: "该头的权重矩阵：每行一个查询词，每列一个键",
      hint: "悬停或用 Tab 聚焦一个词，看它关注哪里；回车固定。",
      attends: function (t) { return "“" + t + "”关注："; } },
  });
  var el = lib.el;
  var svg = lib.svg;
  var fixed = lib.fixed;
  var labelled = lib.labelled;
  var range = lib.range;
  var select = lib.select;

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

  window.deckWidgets.register("attention-explorer", { label: T.name, live: attentionExplorer.live, paper: attentionExplorer.paper });
})();
