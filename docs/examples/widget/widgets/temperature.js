// Widget kind "temperature": a slider picks the temperature, bars show softmax(scores / T).
(function () {
  "use strict";
  var lib = window.deckWidgets.helpers;
  var T = lib.strings({ en: { name: "Softmax at a temperature", t: "temperature" } });

  function softmax(scores, t) {
    var top = Math.max.apply(null, scores);
    var e = scores.map(function (x) { return Math.exp((x - top) / t); });
    var sum = e.reduce(function (a, b) { return a + b; }, 0);
    return e.map(function (x) { return x / sum; });
  }

  function chart(body, data) {
    var bars = lib.barChart(480, 240, data.scores.length, data.labels, [0, 0.5, 1], true);
    body.appendChild(bars.svg);
    return function (t) { bars.update(softmax(data.scores, t), "T = " + t); };
  }

  window.deckWidgets.register("temperature", {
    label: T.name,
    live: function (body, data) {
      var slider = lib.el("input", { type: "range", min: "0",
        max: String(data.temperatures.length - 1), step: "1", value: "0" });
      body.appendChild(lib.labelled(T.t, slider));
      var draw = chart(body, data);
      slider.addEventListener("input", function () {
        draw(data.temperatures[Number(slider.value)]);
      });
      draw(data.temperatures[0]);
    },
    paper: function (body, data) { chart(body, data)(data.temperatures[0]); },
  });
})();
