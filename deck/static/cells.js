// Live cells' slides, in every copy of the deck a server with a presenter serves (deck/classroom:
// the classroom's, and the preview's with --serve alone), never in dist/. The slides a live run
// changed (the build's own render of them: deck/classroom/live.py) replace the page's, reveal
// staying where it was. The main window takes them from its stream (its own, `config.stream`,
// in the preview; the room's, handed on by room.js, in the classroom) and passes them on to
// the speaker view's slide previews (present.js), which open no stream of their own. When a
// build replaces the run's slides, a copy that shows them loads the page again. celledit.js
// adds the presenter's controls.
(function () {
  "use strict";
  // (the preview's layout check lays the page out in a hidden frame: measured, never patched)
  if (/print-pdf/i.test(location.search)) return;
  var config = window.DECK_CELLS; // {lesson, room, lead, live, text, stream?}
  var receiver = /(^|[?&])receiver/i.test(location.search);
  var cells = (window.deckCells = {
    config: config, lead: config.lead, receiver: receiver, patching: false, messages: 0,
    listeners: [],
  });

  document.addEventListener("DOMContentLoaded", function () {
    var tables = window.deckStringTables || {};
    Object.keys(config.text).forEach(function (lang) {
      if (tables[lang]) tables[lang].cells = config.text[lang];
    });
  });

  cells.post = function (route, body) {
    return fetch(config.room + route, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(Object.assign({ lesson: config.lesson }, body)),
    });
  };

  var patched = {}; // slide → the HTML put there
  function patch(live) {
    var gone = Object.keys(patched).some(function (k) { return !(k in live); });
    if (gone) return location.reload(); // back to the build's own slides
    var sections = document.querySelectorAll(".reveal .slides > section");
    var fresh = [];
    Object.keys(live).forEach(function (k) {
      if (patched[k] === live[k] || !sections[k]) return;
      var old = sections[k];
      var box = document.createElement("div");
      box.innerHTML = live[k]; // the build's render of the slide (deck/classroom/live.py)
      var slide = box.firstElementChild;
      slide.className = old.className; // (present, past, future: reveal's)
      slide.slideBackgroundElement = old.slideBackgroundElement;
      slide.slideBackgroundContentElement = old.slideBackgroundContentElement;
      old.replaceWith(slide);
      patched[k] = live[k];
      fresh.push(slide);
    });
    if (!fresh.length) return;
    var at = Reveal.getIndices();
    fresh.forEach(Reveal.syncSlide);
    cells.patching = true; // (a follower does not stop following: room.js)
    try {
      Reveal.slide(at.h, at.v, at.f);
    } finally {
      cells.patching = false;
    }
    Reveal.layout();
    cells.listeners.forEach(function (fn) { fn("patched", fresh); });
  }

  // The main window's slides, here and in the speaker view's previews (a preview that opens
  // later is given the last of them).
  cells.take = function (live) {
    if (!receiver) window.deckPresent.perform({ kind: "cells", live: live });
  };
  document.addEventListener("DOMContentLoaded", function () {
    window.deckPresent.handle("cells", function (action) { patch(action.live); });
  });

  function connect() {
    var source = new EventSource(config.stream);
    source.onmessage = function (event) {
      var message = JSON.parse(event.data);
      cells.messages += 1;
      if (message.live) cells.take(message.live);
      cells.listeners.forEach(function (fn) { fn("message", message); });
    };
  }
  if (config.stream && !receiver) {
    document.addEventListener("DOMContentLoaded", function () {
      if (Reveal.isReady()) connect();
      else Reveal.on("ready", connect);
    });
  }
})();
