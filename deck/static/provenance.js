// The "where does this number come from?" popover of computed values (end of assets/widgets.js).
//
// Every computed inline value on a slide is a `<span class="value">` carrying its expression,
// its file:line and the cells that bound the names it uses (their code is in the slide's
// `script.value-sources`, see deck/render/provenance.py). A click, or Enter on it, opens a
// small dialog telling all that. Never in print.
(function () {
  "use strict";
  if (/print-pdf/i.test(window.location.search)) return;
  var T = window.deckStrings("popover"); // (strings.js)

  // Navigation keys: arrows, PageUp/PageDown and space (what clickers send), Home/End, "."
  // (reveal's pause: a blank screen) and "b" (the blackboard).
  var NAV_KEYS = ["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "PageUp", "PageDown", " ",
    "Home", "End", ".", "b", "B"];
  var popover = null;
  var opener = null;
  var LARGE = "deck-popover-large"; // sessionStorage: the "larger" toggle, for the session

  function large() {
    try {
      return window.sessionStorage.getItem(LARGE) === "1";
    } catch (e) {
      return false;
    }
  }

  function setLarge(on) {
    try {
      window.sessionStorage.setItem(LARGE, on ? "1" : "0");
    } catch (e) {
      /* storage refused: the toggle still works for this popover */
    }
  }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }

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
    popover.classList.toggle("value-popover-large", large());
    var largeButton = popover.appendChild(el("button", { type: "button",
      class: "value-popover-larger", "aria-pressed": String(large()) }, T.larger));
    largeButton.addEventListener("click", function () {
      var on = !popover.classList.contains("value-popover-large");
      setLarge(on);
      popover.classList.toggle("value-popover-large", on);
      largeButton.setAttribute("aria-pressed", String(on));
      place(opener);
      showMarks(scroll);
    });
    popover.appendChild(el("h3", {}, T.popover));
    var expr = popover.appendChild(el("p", { class: "value-expr" }));
    expr.appendChild(el("span", { class: "value-label" }, T.expr + " "));
    expr.appendChild(el("code", {}, value.dataset.expr));
    var at = popover.appendChild(el("p", { class: "value-at" }));
    at.appendChild(el("span", { class: "value-label" }, T.at + " "));
    at.appendChild(el("code", {}, value.dataset.loc));
    var sources = sourcesOf(value);
    var cells = (value.dataset.cells || "").split(" ").filter(function (c) { return sources[c]; });
    var marks = marksOf(value);
    var scroll = [];
    cells.forEach(function (loc) {
      var entry = sources[loc];
      var last = entry.first + entry.code.split("\n").length - 1;
      var head = popover.appendChild(el("p", { class: "value-cell" }));
      head.appendChild(el("span", { class: "value-label" }, T.cellAt + " "));
      head.appendChild(el("code", {}, loc));
      head.appendChild(document.createTextNode(" " + T.lines(entry.first, last)));
      var block = codeBlock(entry, marksIn(marks, loc));
      popover.appendChild(block.node);
      scroll.push(block);
    });
    if (!cells.length) popover.appendChild(el("p", { class: "value-none" }, T.noCell));
    document.body.appendChild(popover);
    place(value);
    showMarks(scroll);
    popover.addEventListener("keydown", function (event) {
      // What a clicker sends turns the page and closes the popover (the projector must never
      // look frozen); other keys typed here do not drive the slides.
      if (NAV_KEYS.indexOf(event.key) >= 0 && !event.ctrlKey && !event.altKey && !event.metaKey) {
        close(false);
        return;
      }
      event.stopPropagation();
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

  // Each code box scrolled so its first highlighted line sits a third of the way down: the
  // line's offset is measured from the code box (the popover holds headings above it), and
  // the popover itself scrolls to the first box's line if it has to.
  function showMarks(blocks) {
    blocks.forEach(function (block, k) {
      if (!block.first) return;
      var pre = block.node;
      var offset = block.first.getBoundingClientRect().top - pre.getBoundingClientRect().top +
        pre.scrollTop;
      pre.scrollTop = Math.max(0, offset - pre.clientHeight / 3);
      if (k > 0) return;
      var line = block.first.getBoundingClientRect();
      var frame = popover.getBoundingClientRect();
      if (line.bottom > frame.bottom - 8 || line.top < frame.top + 8) {
        popover.scrollTop += line.top - frame.top - popover.clientHeight / 3;
      }
    });
  }

  // Never over its opener: below the value if it fits, else above, else beside it (right,
  // then left), else in the taller of the spaces above and below, shortened to fit there.
  function place(value) {
    var M = 8;
    var box = value.getBoundingClientRect();
    var W = window.innerWidth;
    var H = window.innerHeight;
    popover.style.maxHeight = "";
    var width = popover.offsetWidth;
    var height = popover.offsetHeight;
    var below = H - box.bottom - 2 * M;
    var above = box.top - 2 * M;
    var left = Math.max(M, Math.min(box.left, W - width - M));
    var top;
    if (height <= below) {
      top = box.bottom + M;
    } else if (height <= above) {
      top = box.top - height - M;
    } else if (width <= W - box.right - 2 * M || width <= box.left - 2 * M) {
      left = width <= W - box.right - 2 * M ? box.right + M : box.left - width - M;
      top = Math.max(M, Math.min(box.top + box.height / 2 - height / 2, H - height - M));
    } else {
      popover.style.maxHeight = Math.max(below, above) + "px";
      height = popover.offsetHeight;
      top = below >= above ? box.bottom + M : box.top - height - M;
    }
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

  // ---- the speaker view: the current slide's values, each with its expression, its
  // file:line and the code lines binding what it uses, so the lecturer can say where a number
  // comes from without opening a popover on the projector. Text only (textContent).
  // [first, last, file] of each line range marked ("3-5", or "content/x/common.py:3-5" when
  // the cells are in more than one file; file "" then stands for any).
  function marksOf(value) {
    return (value.dataset.marks || "").split(" ").filter(Boolean).map(function (m) {
      var at = m.lastIndexOf(":");
      return m.slice(at + 1).split("-").map(Number).concat([at < 0 ? "" : m.slice(0, at)]);
    });
  }

  function marksIn(marks, loc) {
    var file = loc.slice(0, loc.lastIndexOf(":"));
    return marks.filter(function (m) { return !m[2] || m[2] === file; });
  }

  function bindingLines(value, sources) {
    var cells = (value.dataset.cells || "").split(" ").filter(function (c) { return sources[c]; });
    var out = [];
    marksOf(value).forEach(function (mark) {
      cells.forEach(function (loc) {
        if (!marksIn([mark], loc).length) return;
        var entry = sources[loc];
        var lines = entry.code.split("\n");
        if (mark[0] < entry.first || mark[1] > entry.first + lines.length - 1) return;
        var file = loc.slice(0, loc.lastIndexOf(":"));
        out.push({ at: file + ":" + mark[0],
          code: lines.slice(mark[0] - entry.first, mark[1] - entry.first + 1).join("\n") });
      });
    });
    return out;
  }

  function fillSpeaker(box) {
    var doc = box.ownerDocument;
    var list = box.querySelector("ul");
    list.textContent = "";
    var slide = window.Reveal && Reveal.isReady && Reveal.isReady() && Reveal.getCurrentSlide();
    var seen = {};
    var values = slide ? slide.querySelectorAll(".value[data-expr]") : [];
    Array.prototype.forEach.call(values, function (value) {
      var key = value.dataset.expr + "\u0000" + value.dataset.loc;
      if (seen[key]) return;
      seen[key] = true;
      var item = list.appendChild(doc.createElement("li"));
      item.className = "deck-speaker-value";
      var head = item.appendChild(doc.createElement("div"));
      head.appendChild(doc.createElement("span")).className = "deck-value-text";
      head.lastChild.textContent = value.textContent;
      head.appendChild(doc.createTextNode(" = "));
      head.appendChild(doc.createElement("code")).textContent = value.dataset.expr;
      head.appendChild(doc.createTextNode("  "));
      head.appendChild(doc.createElement("code")).textContent = value.dataset.loc;
      head.lastChild.className = "deck-value-loc";
      bindingLines(value, sourcesOf(value)).forEach(function (line) {
        var pre = item.appendChild(doc.createElement("pre"));
        pre.className = "deck-value-code";
        pre.textContent = T.from + " " + line.at + "\n" + line.code;
      });
    });
    box.hidden = list.children.length === 0;
  }

  if (window.deckPresent && window.deckPresent.speakerPart && !window.deckPresent.receiver) {
    window.deckPresent.speakerPart({
      name: "values",
      after: true,
      build: function (doc, box) {
        box.appendChild(doc.createElement("h4")).textContent = T.speaker;
        box.appendChild(doc.createElement("ul"));
      },
      refresh: fillSpeaker,
    });
  }

  if (window.Reveal && Reveal.on) {
    Reveal.on("slidechanged", function () { close(false); });
    Reveal.on("overviewshown", function () { close(false); });
  }
  window.addEventListener("resize", function () { if (popover && opener) place(opener); });
})();
