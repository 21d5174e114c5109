// Live cells' controls, in the presenter's deck only (deck/classroom/live.py; the classroom's
// and the preview's): each cell shown with its code gets an "Edit" button; its code opens in a
// text box on the slide, "Run" runs it again in the build's worker (its section, with the
// lesson's limits) and the server's stream brings every copy of the deck the slides it changed
// (cells.js); "Save" writes the code that ran into the lesson's file (which rebuilds it),
// "Cancel" leaves the lesson as it is. What the server answers (errors) is shown as text.
(function () {
  "use strict";
  var cells = window.deckCells;
  if (!cells || !cells.lead || cells.receiver || !cells.config.live) return;
  var config = cells.config;
  var TEXT = null;
  var editing = {}; // cell → {code, ran, status}

  function shown() {
    return document.querySelectorAll(".reveal .slides [data-cell]");
  }
  function named(cell) {
    return Array.prototype.filter.call(shown(), function (el) {
      return el.getAttribute("data-cell") === cell;
    })[0];
  }
  function button(box, label, act) {
    var b = box.appendChild(document.createElement("button"));
    b.type = "button";
    b.textContent = label;
    b.addEventListener("click", function (event) {
      event.stopPropagation();
      act(b);
    });
    return b;
  }

  function dress(el) {
    if (el.querySelector(":scope > .deck-cell-edit")) return;
    var cell = el.getAttribute("data-cell");
    var edit = button(el, TEXT.edit, function () { open(cell); });
    edit.className = "deck-cell-edit";
    edit.setAttribute("aria-label", TEXT.edit + " " + cell);
    if (editing[cell]) attach(el, cell);
  }

  function open(cell) {
    if (editing[cell]) return;
    fetch(config.room + "cell?lesson=" + encodeURIComponent(config.lesson) + "&cell=" +
      encodeURIComponent(cell), { cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.json();
    }).then(function (answer) {
      editing[cell] = { code: answer.code, ran: false, status: "" };
      var el = named(cell);
      if (el) attach(el, cell);
    }).catch(function (error) { console.error("deck: live cell:", error); });
  }

  function attach(el, cell) {
    var state = editing[cell];
    var old = el.querySelector(":scope > .deck-cell-editor");
    if (old) old.remove();
    var box = document.createElement("div");
    box.className = "deck-cell-editor";
    var area = box.appendChild(document.createElement("textarea"));
    area.value = state.code;
    area.spellcheck = false;
    area.rows = Math.min(16, state.code.split("\n").length + 1);
    area.setAttribute("aria-label", TEXT.codeLabel);
    area.addEventListener("input", function () { state.code = area.value; });
    var row = box.appendChild(document.createElement("div"));
    row.className = "deck-cell-buttons";
    var run = button(row, TEXT.run, function () { go("run", cell); });
    run.className = "deck-cell-run";
    var save = button(row, TEXT.save, function () { go("save", cell); });
    save.className = "deck-cell-save";
    save.disabled = !state.ran;
    button(row, TEXT.cancel, function () { close(cell); }).className = "deck-cell-cancel";
    var status = box.appendChild(document.createElement("pre"));
    status.className = "deck-cell-status";
    status.setAttribute("role", "status");
    status.textContent = state.status;
    el.insertBefore(box, el.firstChild);
    el.classList.add("deck-cell-editing");
  }

  function say(cell, text) {
    var state = editing[cell];
    if (state) state.status = text;
    var el = named(cell);
    var status = el && el.querySelector(".deck-cell-status");
    if (status) status.textContent = text;
  }

  function go(action, cell) {
    var state = editing[cell];
    if (!state) return;
    say(cell, TEXT.running);
    var body = action === "run" ? { cell: cell, code: state.code } : { cell: cell };
    cells.post(action, body).then(function (r) {
      return r.json().catch(function () { return { errors: ["HTTP " + r.status] }; })
        .then(function (answer) {
          if (!r.ok) throw new Error((answer.errors || []).join("\n") || "HTTP " + r.status);
          return answer;
        });
    }).then(function (answer) {
      if (action === "save") {
        say(cell, TEXT.saved(answer.saved));
        delete editing[cell];
        return;
      }
      state.ran = !answer.errors.length;
      say(cell, answer.errors.length ? answer.errors.join("\n") : TEXT.ran);
      var el = named(cell);
      var save = el && el.querySelector(".deck-cell-save");
      if (save) save.disabled = !state.ran;
    }).catch(function (error) { say(cell, String(error.message || error)); });
  }

  function close(cell) {
    delete editing[cell];
    var el = named(cell);
    if (!el) return;
    var box = el.querySelector(":scope > .deck-cell-editor");
    if (box) box.remove();
    el.classList.remove("deck-cell-editing");
  }

  document.addEventListener("DOMContentLoaded", function () {
    TEXT = window.deckStrings("cells");
    shown().forEach(dress);
    // a live run's slides replace the old ones: dress them (an open editor stays open)
    cells.listeners.push(function (kind) {
      if (kind === "patched") shown().forEach(dress);
    });
  });
})();
