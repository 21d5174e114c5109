// Widget kind "softmax-scaling": a √d_k slider, softmax with and without scaling (content/transformer: bundled into assets/widgets.js after the engine's runtime.js).
(function () {
  "use strict";
  var lib = window.deckWidgets.helpers;
  var T = lib.strings({
    en: { name: "Scaling by √d_k", dk: "d_k", unscaled: "Unscaled: softmax(q·k)",
      scaled: "Scaled: softmax(q·k / √d_k)", unscaledShort: "unscaled", scaledShort: "scaled",
      max: "max weight", entropy: "entropy", uniform: "uniform" },
    zh: { name: "√d_k 缩放演示", dk: "d_k", unscaled: "不缩放：softmax(q·k)",
      scaled: "缩放：softmax(q·k / √d_k)", unscaledShort: "不缩放", scaledShort: "缩放后",
      max: "最大权重", entropy: "熵", uniform: "均匀" },
  });
  var el = lib.el;
  var fixed = lib.fixed;
  var entropy = lib.entropy;
  var labelled = lib.labelled;
  var range = lib.range;
  var barChart = lib.barChart;

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

  window.deckWidgets.register("softmax-scaling", { label: T.name, live: softmaxScaling.live, paper: softmaxScaling.paper });
})();
