// Widget runtime: shared helpers, the kind registry, and starting the widgets.
//
// deck/blocks/widgetembed.py checks each `::: {.widget kind=… data=…}`'s data and embeds it as
// JSON beside an empty `<div class="widget" data-widget="kind">`; the kind registered under
// that name draws it (the lesson defines its kinds: one script each, calling
// `deckWidgets.register`, with its own UI strings). On screen a widget is live, with controls that work by keyboard
// alone; with `?print-pdf` (the slides PDF and the handouts) it draws its default state as a
// static figure, with no controls. Controls are plain buttons, inputs and selects built in a
// fixed order from the data, so present.js mirrors every click and input between the
// projector and the speaker view's previews (it addresses a control by its index in the
// slide: the number of controls never changes after start).
//
// deck/publish/assets.py assembles assets/widgets.js from this file, the lesson's kind scripts,
// start.js (which starts the widgets once every kind is registered) and ../provenance.js.
(function () {
  "use strict";
  // True when the page is printed (slides PDF, handouts): a kind's `paper` draws then.
  var printing = /print-pdf/i.test(window.location.search);
  var lang = String(document.documentElement.lang || "en").split("-")[0].toLowerCase();
  var SVG = "http://www.w3.org/2000/svg";
  // A kind's UI strings for the page's language, from {en: {...}, zh: {...}, …}: the table of
  // the page's language, English for a language the kind has none for.
  function strings(table) {
    return table.hasOwnProperty(lang) ? table[lang] : table.en;
  }

  // ---- helpers ---------------------------------------------------------------------------

  // An HTML element `tag` with attributes `attrs` ({name: value}) and, if given, `text` as
  // its text (never markup).
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // An SVG element `tag` (in the SVG namespace) with attributes `attrs`.
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }

  // `x` with `digits` decimals, as text; never "-0.00".
  function fixed(x, digits) {
    var text = x.toFixed(digits);
    return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
  }

  // A fraction as a percentage with one decimal: 0.256 → "25.6%".
  function pct(x) {
    return (100 * x).toFixed(1) + "%";
  }

  // The entropy of the weights `p` in nats (zero weights count nothing).
  function entropy(p) {
    return p.reduce(function (s, w) { return w > 0 ? s - w * Math.log(w) : s; }, 0);
  }

  // The index of the largest of `xs` (the first of equal ones).
  function argmax(xs) {
    return xs.reduce(function (best, x, k) { return x > xs[best] ? k : best; }, 0);
  }

  // A control with its visible name before it, as one `<label>` (so a click on the name
  // focuses the control, and screen readers read the name).
  function labelled(text, control) {
    var label = el("label", { class: "widget-control" });
    label.appendChild(el("span", { class: "widget-control-name" }, text));
    label.appendChild(control);
    return label;
  }

  // A `<select>` of the texts `options`, their indices as values, `value` (an index)
  // selected.
  function select(options, value) {
    var box = el("select");
    options.forEach(function (text, k) {
      var option = el("option", { value: String(k) }, text);
      if (k === value) option.selected = true;
      box.appendChild(option);
    });
    return box;
  }

  // [0, 1, …, n - 1].
  function range(n) {
    var out = [];
    for (var k = 0; k < n; k++) out.push(k);
    return out;
  }

  // A bar chart of `n` weights in [0, 1], `width` × `height` px, with optional bar `labels`,
  // y-axis `ticks` (default [0, 0.5, 1]) and a line above the bars for a note when `noted`:
  // returns {svg, update(weights, note)}, the SVG to place and the function that redraws it
  // (the largest bar marked). The SVG's `data-scale` is its pixels per unit of weight.
  function barChart(width, height, n, labels, ticks, noted) {
    var pad = { l: 52, r: 6, t: noted ? 26 : 10, b: labels ? 30 : 6 };
    var w = width - pad.l - pad.r;
    var h = height - pad.t - pad.b;
    var root = svg("svg", { viewBox: "0 0 " + width + " " + height, width: width,
      height: height, role: "img", class: "widget-bars", "data-scale": String(h) });
    var corner = svg("text", { x: width - pad.r, y: 18, class: "widget-tick",
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
    // Tick text is 20 px (8 pt in a two-up handout); labels too wide for a bar show every few
    // (each bar still has its label as its title).
    var widest = Math.max.apply(null, (labels || [""]).map(function (l) { // px: a wide character
      return Array.from(String(l)).reduce(function (w, c) { return w + (c >= "\u2e80" ? 20 : 12); }, 0);
    })); // (CJK) is 20, another about 12
    var every = Math.max(1, Math.ceil((widest + 4) / step));
    var bars = range(n).map(function (k) {
      var rect = svg("rect", { x: pad.l + k * step + gap / 2, width: step - gap, y: pad.t + h,
        height: 0, class: "widget-bar" });
      root.appendChild(rect);
      if (labels) rect.appendChild(svg("title")).textContent = labels[k]; // every bar named
      if (labels && k % every === 0) {
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

  // ---- registry and start ------------------------------------------------------------------

  var KINDS = {};

  // `kind` is {label: its name for screen readers, live: function (body, data),
  // paper: function (body, data)}: live on screen, drawn still for print.
  function register(name, kind) {
    KINDS[name] = kind;
  }

  function start(root) {
    if (root.dataset.widgetState) return;
    var kind = KINDS[root.dataset.widget];
    var body = el("div", { class: "widget-body" });
    try {
      if (!kind) throw new Error("unknown widget kind " + root.dataset.widget);
      var data = JSON.parse(root.querySelector(":scope > script.widget-data").textContent);
      root.setAttribute("role", "group");
      root.setAttribute("aria-label", kind.label || root.dataset.widget);
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

  // Starts the widgets on the page, then those of slides swapped in later (called once, by
  // start.js, after every kind file has registered its kind).
  function startPage() {
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
  }

  window.deckWidgets = {
    kinds: KINDS,
    register: register,
    start: start,
    startAll: startAll,
    startPage: startPage,
    helpers: { strings: strings, printing: printing, el: el, svg: svg, fixed: fixed, pct: pct,
      entropy: entropy, argmax: argmax, labelled: labelled, select: select, range: range,
      barChart: barChart },
  };
})();
