// The classroom's page client (deck/classroom): injected by the classroom server into the pages
// it serves, never into dist/. Every copy of the deck listens to the room's stream (server-sent
// events: deck/classroom/routes.py) and shows what the room shares: each quiz's poll stage, its
// counts once the lecturer shows them, the answer once revealed, the slides a live cell
// changed (cells.js puts them in place). An audience device also follows the presenter's slide and fragment (a student may
// browse away and press "Follow" to come back), draws the presenter's ink as it comes, votes
// (one vote per quiz, changeable while voting is open) and, on a narrow screen, reads the
// slide as a page of text (no slide scaled to a third of a phone). Anything the server sends
// is shown as text, but for the slides' and explanations' HTML, which the build made.
// roomlead.js adds the presenter's part.
(function () {
  "use strict";
  // The print layout (the preview's layout check lays the page out in a hidden frame) is
  // measured, never part of the room: it would tell the room its first slide.
  if (/print-pdf/i.test(location.search)) return;
  var config = window.DECK_ROOM; // {role, lesson, room, stream, ink, text, join?, qr?}
  var lead = config.role === "lead";
  var receiver = /(^|[?&])receiver/i.test(location.search);
  var TEXT = null; // the room's words in the deck's language (installed once strings.js ran)
  var room = (window.deckRoom = {
    config: config, lead: lead, receiver: receiver, state: null, following: !lead,
    messages: 0, listeners: [],
  });
  // On a narrow screen the slide reads as text (`narrow`); the student may switch to the slide
  // as the projector shows it (its ink where it was drawn), small.
  var narrow = !lead && window.matchMedia("(max-width: 720px)").matches;
  var small = narrow; // the screen is narrow (reading or not)
  var inked = {}; // slides the lecturer drew on (a reader is told)
  if (narrow) document.documentElement.classList.add("deck-reader", "deck-small");
  if (!lead) document.documentElement.classList.add("deck-audience");

  // reveal's settings for this copy (deck.js calls this before Reveal.initialize).
  window.deckRevealTweak = function (reveal) {
    if (lead) return;
    reveal.scrollActivationWidth = null; // reveal's scroll view shrinks a slide to a third
    reveal.hash = false; // the presenter says where the deck is
    reveal.disableLayout = narrow;
    reveal.touch = !narrow; // on a phone the page scrolls; the bar below turns the page
    if (narrow) reveal.transition = "none";
    reveal.chalkboard = Object.assign({}, reveal.chalkboard, { readOnly: true });
  };

  document.addEventListener("DOMContentLoaded", function () {
    var tables = window.deckStringTables || {};
    Object.keys(config.text).forEach(function (lang) {
      if (tables[lang]) tables[lang].room = config.text[lang];
    });
    TEXT = window.deckStrings("room");
  });
  function whenReady(fn) {
    document.addEventListener("DOMContentLoaded", function () {
      if (Reveal.isReady()) fn();
      else Reveal.on("ready", fn);
    });
  }

  function post(route, body) {
    return fetch(config.room + route, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(Object.assign({ lesson: config.lesson }, body)),
    });
  }
  room.post = post;

  // ---- quizzes: the room's polls ----------------------------------------------------------
  function quizzes() {
    return Array.prototype.slice.call(document.querySelectorAll(".reveal .slides .quiz"));
  }
  function letter(k) { return String.fromCharCode(65 + k); }
  function say(quiz, text) {
    var feedback = quiz.querySelector(".quiz-feedback");
    if (feedback && feedback.textContent !== text) feedback.textContent = text;
  }

  function showPoll(quiz, poll) {
    var choices = quiz.querySelectorAll(".quiz-choice");
    var shown = !!poll.counts;
    quiz.dataset.roomStage = poll.stage;
    choices.forEach(function (button, k) {
      var n = poll.counts ? poll.counts[k] : null;
      if (lead && poll.all) n = poll.all[k];
      button.dataset.votes = String(n || 0);
      var count = button.querySelector(".quiz-count");
      if (!count) {
        count = button.appendChild(document.createElement("span"));
        count.className = "quiz-count";
      }
      count.textContent = window.deckStrings("deck").votes(n || 0);
      count.hidden = !shown;
      if (!lead) {
        button.disabled = poll.stage !== "open";
        var mine = poll.mine === k;
        button.setAttribute("aria-pressed", mine ? "true" : "false");
        button.classList.toggle("deck-mine", mine);
      }
      var right = poll.stage === "answered" && (lead ? button.dataset.correct === "true" :
        poll.answer === k);
      var badge = button.querySelector(".quiz-badge");
      if (right && !badge) {
        badge = button.appendChild(document.createElement("span"));
        badge.className = "quiz-badge";
        badge.textContent = window.deckStrings("deck").answer;
      } else if (!right && badge) {
        badge.remove();
      }
      button.classList.toggle("deck-right", right);
    });
    quiz.classList.toggle("revealed", poll.stage === "answered");
    var explain = quiz.querySelector(".quiz-explain");
    if (explain) {
      // the build's own markup of the explanation, sent once the lecturer revealed it
      if (!lead && poll.stage === "answered" && explain.dataset.filled !== "true") {
        explain.innerHTML = poll.explain || "";
        explain.dataset.filled = "true";
      }
      explain.hidden = poll.stage !== "answered";
    }
    var total = (poll.counts || poll.all || []).reduce(function (a, b) { return a + b; }, 0);
    if (lead) say(quiz, shown ? window.deckStrings("deck").total(total) : "");
    else if (poll.stage === "open") {
      say(quiz, poll.mine === null || poll.mine === undefined ? TEXT.voteHere
        : TEXT.yourVote(letter(poll.mine)));
    } else say(quiz, TEXT.closed + (poll.mine != null ? " " + TEXT.yourVote(letter(poll.mine)) : ""));
  }

  function showPolls() {
    var polls = (room.state && room.state.polls) || {};
    quizzes().forEach(function (quiz, k) { if (polls[k]) showPoll(quiz, polls[k]); });
  }

  // A click on a choice is a vote (audience) or nothing (the presenter's copies: the room
  // votes); deck.js's own counting never sees it.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".reveal .quiz-choice");
    if (!button) return;
    event.stopPropagation();
    event.preventDefault();
    if (lead) return;
    var quiz = button.closest(".quiz");
    var k = quizzes().indexOf(quiz);
    var choice = Array.prototype.indexOf.call(quiz.querySelectorAll(".quiz-choice"), button);
    say(quiz, TEXT.sending);
    post("vote", { quiz: k, choice: choice }).then(function (response) {
      var poll = room.state && room.state.polls[k];
      if (response.ok && poll) {
        poll.mine = choice;
        showPoll(quiz, poll);
      } else if (response.status === 429) say(quiz, TEXT.wait);
      else if (response.status === 409) say(quiz, TEXT.closed);
      else say(quiz, TEXT.failed);
    }, function () { say(quiz, TEXT.failed); });
  }, true);

  // ---- following the presenter ------------------------------------------------------------
  var moving = false; // a slide change this client made (not the student's)
  function goTo(position) {
    if (!position) return;
    var at = Reveal.getIndices();
    var f = position.f === null ? undefined : position.f;
    if (at.h === position.h && at.v === position.v && (at.f === f || f === undefined)) return;
    moving = true;
    try {
      Reveal.slide(position.h, position.v, f);
    } finally {
      moving = false;
    }
  }

  function follow(on) {
    room.following = on;
    document.documentElement.classList.toggle("deck-following", on);
    if (bar) {
      bar.follow.setAttribute("aria-pressed", on ? "true" : "false");
      bar.follow.textContent = on ? TEXT.following : TEXT.follow;
    }
    if (on && room.state) {
      goTo(room.state.position);
      loadInk();
    }
  }

  var bar = null;
  function buildBar() {
    var nav = document.createElement("nav");
    nav.className = "deck-room-bar";
    nav.setAttribute("aria-label", TEXT.bar);
    function button(label, name, act) {
      var b = nav.appendChild(document.createElement("button"));
      b.type = "button";
      b.textContent = label;
      b.setAttribute("aria-label", name);
      b.addEventListener("click", act);
      return b;
    }
    bar = {
      prev: button("◀", TEXT.previous, function () { Reveal.prev(); }),
      follow: button(TEXT.following, TEXT.follow, function () { follow(!room.following); }),
      next: button("▶", TEXT.next, function () { Reveal.next(); }),
    };
    if (small) bar.view = button(TEXT.slideView, TEXT.slideView, function () { read(!narrow); });
    document.body.appendChild(nav);
    follow(room.following);
    read(narrow);
  }

  function read(on) {
    narrow = on;
    document.documentElement.classList.toggle("deck-reader", on);
    Reveal.configure({ disableLayout: on, touch: !on });
    Reveal.layout();
    window.dispatchEvent(new Event("resize")); // (the chalkboard's canvases follow)
    markInk();
  }

  // In the text view, the view button says when the lecturer drew on this slide.
  function markInk() {
    if (!bar || !bar.view) return;
    var drawn = !!inked[Reveal.getIndices().h];
    bar.view.setAttribute("aria-pressed", narrow ? "false" : "true");
    bar.view.textContent = (drawn && narrow ? "✎ " : "") + TEXT.slideView;
    bar.view.classList.toggle("deck-inked", drawn && narrow);
  }
  function noteInk(content) {
    if (content && content.type === "draw") inked[Reveal.getIndices().h] = true;
    if (content && content.type === "init" && Array.isArray(content.storage)) {
      content.storage.forEach(function (canvas) {
        (canvas.data || []).forEach(function (d) {
          if (d.events && d.events.length && d.slide) inked[d.slide.h] = true;
        });
      });
    }
    markInk();
  }

  // ---- the presenter's ink (the chalkboard plugin's own messages, replayed) ----------------
  function receive(content) {
    noteInk(content);
    var event = new CustomEvent("received");
    event.content = content;
    document.dispatchEvent(event);
  }
  // Ink events are numbered: `to` is the last of `events`; inkSeq the last drawn here.
  var inkSeq = -1;
  var inkQueue = null; // what came while the ink loads
  function takeInk(events, to) {
    if (inkQueue) return inkQueue.push([events, to]);
    if (to <= inkSeq || !room.following) return;
    events.slice(Math.max(0, events.length - (to - inkSeq))).forEach(receive);
    inkSeq = to;
  }
  function loadInk() {
    if (lead || !window.RevealChalkboard || inkQueue) return;
    inkQueue = [];
    fetch(config.ink, { cache: "no-store" }).then(function (r) { return r.json(); })
      .then(function (ink) {
        if (ink.storage) {
          receive({ sender: "chalkboard-plugin", type: "init", timestamp: 0, mode: 0, board: 0,
            storage: JSON.parse(ink.storage) });
        }
        ink.events.forEach(receive);
        inkSeq = ink.seq;
      }).catch(function () { inkSeq = -1; }).then(function () {
        var queued = inkQueue;
        inkQueue = null;
        queued.forEach(function (q) { takeInk(q[0], q[1]); });
        room.listeners.forEach(function (fn) { fn("ink", inkSeq); });
      });
  }

  // ---- the stream ----------------------------------------------------------------------
  function onMessage(message) {
    room.messages += 1;
    if (!lead && message.page && config.page && message.page !== config.page) {
      return location.reload(); // a new build: the page as it is now
    }
    config.page = config.page || message.page;
    room.state = message;
    if (message.live) window.deckCells.take(message.live);
    showPolls();
    // the speaker view's slide previews show the room's polls too (present.js passes it on)
    if (lead) window.deckPresent.perform({ kind: "room", polls: message.polls });
    if (!lead) {
      if (message.ink === "reload") loadInk();
      else if (message.ink) takeInk(message.ink, message.inkTo);
      if (room.following) goTo(message.position);
    }
    room.listeners.forEach(function (fn) { fn("message", message); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    window.deckPresent.handle("room", function (action) {
      if (!receiver) return;
      room.state = { polls: action.polls };
      showPolls();
    });
  });

  function connect() {
    var source = new EventSource(config.stream);
    source.onmessage = function (event) { onMessage(JSON.parse(event.data)); };
    room.source = source;
  }

  whenReady(function () {
    if (!lead) {
      // reveal marks the deck an application: a screen reader then leaves its browse mode
      // (reveal.js#3772), and a student could not read the slide line by line
      document.querySelector(".reveal").removeAttribute("role");
      buildBar();
      var unfollow = function () {
        if (!moving && !window.deckCells.patching && room.following) follow(false);
      };
      Reveal.on("slidechanged", unfollow);
      Reveal.on("fragmentshown", unfollow);
      Reveal.on("fragmenthidden", unfollow);
      Reveal.on("slidechanged", markInk);
      loadInk();
    }
    // (The speaker view's slide previews listen to nothing: with the presenter's own two
    // streams, theirs would take the six connections a browser opens to one server.)
    if (!receiver) connect();
  });
})();
