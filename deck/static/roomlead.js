// The presenter's part of the classroom client (after room.js, in the pages the classroom
// serves to the presenter's browser only): the slide and fragment sent to the room as they
// change, `A` and `R` steering the current quiz's poll (open → votes shown → answer shown;
// reset), the speaker view's join QR code, devices and live counts, the ink sent as it is
// drawn and saved a second after the pen stops (restored on reload). The speaker view's slide
// previews (`?receiver`) only steer polls: they never move the room.
(function () {
  "use strict";
  var room = window.deckRoom;
  if (!room || !room.lead) return;
  var config = room.config;
  var main = !room.receiver;
  var TEXT = null;
  document.addEventListener("DOMContentLoaded", function () { TEXT = window.deckStrings("room"); });

  // Posts one at a time, in order; of the slide changes waiting only the last is sent.
  var chain = Promise.resolve();
  function send(route, body) {
    var sent = chain.then(function () {
      return room.post(route, body).then(function (r) {
        if (!r.ok) throw new Error(route + ": " + r.status);
        return r.json();
      });
    });
    chain = sent.catch(function (error) { console.error("deck classroom:", error); });
    return sent;
  }
  var position = null;
  function publish() {
    var at = Reveal.getIndices();
    var next = { h: at.h, v: at.v || 0, f: at.f === undefined ? null : at.f };
    var waiting = position !== null;
    position = next;
    if (waiting) return;
    flushInk();
    chain = chain.then(function () {
      var body = position;
      position = null;
      return room.post("position", body);
    }).catch(function (error) { console.error("deck classroom:", error); });
  }

  // ---- polls -------------------------------------------------------------------------------
  function currentQuiz() {
    var slide = Reveal.getCurrentSlide();
    var quiz = slide && slide.querySelector(".quiz");
    if (!quiz) return -1;
    return Array.prototype.indexOf.call(document.querySelectorAll(".reveal .slides .quiz"), quiz);
  }
  function steer(action) {
    var k = currentQuiz();
    if (k >= 0) send("poll", { quiz: k, action: action });
  }
  room.steer = steer;
  // `A` and `R` here steer the room's poll, not this window's copy (deck.js's own keys).
  window.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
      return;
    }
    var action = event.keyCode === 65 ? "step" : event.keyCode === 82 ? "reset" : null;
    if (!action || currentQuiz() < 0) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    steer(action);
  }, true);

  // ---- the speaker view ------------------------------------------------------------------
  var STEP = { open: "showVotes", closed: "showVotes", shown: "showAnswer", answered: "hideAnswer" };
  function part() {
    return {
      name: "room",
      build: function (doc, box) {
        var style = doc.createElement("style");
        style.textContent = ".deck-speaker-poll, .speaker-controls-deck:has(> .deck-speaker-button)" +
          " { display: none !important; }\n.deck-room-join { display: flex; gap: 12px; " +
          "align-items: center; } .deck-room-join img { width: 132px; height: 132px; }\n" +
          ".deck-room-address { font: 700 20px/1.3 monospace; } .deck-room-poll button " +
          "{ margin: 4px 6px 0 0; } .deck-room-poll li { font-variant-numeric: tabular-nums; }";
        doc.head.appendChild(style);
        var join = box.appendChild(doc.createElement("div"));
        join.className = "deck-room-join";
        var img = join.appendChild(doc.createElement("img"));
        img.src = new URL(config.qr, location.href).href;
        img.alt = TEXT.qr;
        var words = join.appendChild(doc.createElement("div"));
        words.appendChild(doc.createElement("div")).textContent = TEXT.join;
        var address = words.appendChild(doc.createElement("div"));
        address.className = "deck-room-address";
        address.textContent = config.join.replace(/^http:\/\//, "");
        words.appendChild(doc.createElement("div")).className = "deck-room-devices";
        var poll = box.appendChild(doc.createElement("div"));
        poll.className = "deck-room-poll";
        poll.appendChild(doc.createElement("h4")).textContent = TEXT.poll;
        poll.appendChild(doc.createElement("ol")).className = "deck-room-counts";
        poll.appendChild(doc.createElement("div")).className = "deck-room-stage";
        [["step", "deck-room-step"], ["close", "deck-room-close"], ["reset", "deck-room-reset"]]
          .forEach(function (b) {
            var button = poll.appendChild(doc.createElement("button"));
            button.type = "button";
            button.className = b[1];
            button.addEventListener("click", function () { steer(b[0]); });
          });
      },
      refresh: function (box) {
        var state = room.state;
        var doc = box.ownerDocument;
        box.querySelector(".deck-room-devices").textContent = TEXT.devices(state ? state.devices : 0);
        var k = currentQuiz();
        var poll = state && k >= 0 ? state.polls[k] : null;
        var section = box.querySelector(".deck-room-poll");
        section.hidden = !poll;
        if (!poll) return;
        var list = box.querySelector(".deck-room-counts");
        list.textContent = "";
        var quiz = document.querySelectorAll(".reveal .slides .quiz")[k];
        quiz.querySelectorAll(".quiz-choice").forEach(function (choice, j) {
          var item = list.appendChild(doc.createElement("li"));
          item.textContent = String.fromCharCode(65 + j) + "  " +
            window.deckStrings("deck").votes(poll.all[j]) +
            (choice.dataset.correct === "true" ? "  " + window.deckStrings("deck").answer : "");
        });
        box.querySelector(".deck-room-stage").textContent = TEXT.stages[poll.stage];
        box.querySelector(".deck-room-step").textContent = TEXT[STEP[poll.stage]];
        box.querySelector(".deck-room-close").textContent =
          poll.stage === "closed" ? TEXT.openVoting : TEXT.closeVoting;
        box.querySelector(".deck-room-close").disabled = poll.stage !== "open" &&
          poll.stage !== "closed";
        box.querySelector(".deck-room-reset").textContent = TEXT.reset;
      },
    };
  }

  // ---- ink: sent as drawn (for the devices), saved a second after the pen stops ------------
  var inkBatch = [];
  var inkTimer = null;
  var saveTimer = null;
  var inkSeq = 0;
  function flushInk() {
    clearTimeout(inkTimer);
    inkTimer = null;
    if (!inkBatch.length) return;
    var events = inkBatch;
    inkBatch = [];
    send("ink", { events: events }).then(function (answer) { inkSeq = answer.seq; });
    clearTimeout(saveTimer);
    saveTimer = setTimeout(saveInk, 1000);
  }
  function saveInk() {
    if (inkBatch.length) return flushInk(); // (it saves a second later)
    var storage = JSON.parse(window.RevealChalkboard.getData());
    chain.then(function () {
      return send("ink/save", { storage: storage, upto: inkSeq });
    }).then(function () {
      room.listeners.forEach(function (fn) { fn("saved", inkSeq); });
    });
  }
  room.saveInk = function () { flushInk(); clearTimeout(saveTimer); saveInk(); };
  document.addEventListener("broadcast", function (event) {
    var content = event.content;
    if (!main || !content || content.sender !== "chalkboard-plugin") return;
    inkBatch.push(content);
    if (!inkTimer) inkTimer = setTimeout(flushInk, 100);
  });
  function restoreInk() {
    fetch(config.ink, { cache: "no-store" }).then(function (r) { return r.json(); })
      .then(function (ink) {
        inkSeq = ink.seq;
        if (!ink.storage) return;
        var event = new CustomEvent("received");
        event.content = { sender: "chalkboard-plugin", type: "init", timestamp: 0, mode: 0,
          board: 0, storage: JSON.parse(ink.storage) };
        document.dispatchEvent(event);
      }).catch(function (error) { console.error("deck classroom: ink:", error); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    window.deckPresent.speakerPart(part());
    room.listeners.push(function (kind) {
      if (kind === "message") window.deckPresent.refreshSpeaker();
    });
    var ready = function () {
      if (!main) return;
      ["slidechanged", "fragmentshown", "fragmenthidden"].forEach(function (name) {
        Reveal.on(name, publish);
      });
      publish();
      if (window.RevealChalkboard) restoreInk();
    };
    if (Reveal.isReady()) ready();
    else Reveal.on("ready", ready);
  });
})();
