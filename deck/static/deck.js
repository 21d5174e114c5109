// Deck behaviour: formulas in plain text where only text fits, pacing from the notes, quizzes
// (students choose, the lecturer reveals), reveal.js and its plugins, readiness flags for
// printing. Loaded after mathtext.js, present.js and handout.js.
(function () {
  "use strict";
  var printing = /print-pdf/i.test(window.location.search);
  // The build's layout check measures only the slides it names (`?print-pdf&deck-measure=3,17`,
  // deck.publish.layoutcheck): the others are emptied but kept, so each slide keeps its place
  // and number, and the print layout takes a fraction of the whole deck's time.
  var measured = printing && /[?&]deck-measure=([\d,]+)/.exec(window.location.search);
  if (measured) {
    var keep = measured[1].split(",");
    document.querySelectorAll(".reveal .slides > section").forEach(function (section, i) {
      if (keep.indexOf(String(i + 1)) >= 0) return;
      section.innerHTML = "";
      Array.prototype.slice.call(section.attributes).forEach(function (a) {
        if (/^data-background/.test(a.name)) section.removeAttribute(a.name);
      });
    });
  }
  // the deck's language's strings (strings.js: English for a language without a table)
  var TEXT = window.deckStrings("deck");
  // a note's minutes, in any language: "2 分钟。…", "2 min. …", "(3 minutes) …", "3 Min. …"
  // (a `::: {.notes minutes=3}` note opens with its `.deck-minutes`, which says so)
  TEXT.minutes = /^\s*[(（]?\s*(\d+(?:\.\d+)?)\s*(?:分钟|min(?:ute)?s?\b\.?)/i;
  var sections = Array.prototype.slice.call(document.querySelectorAll(".reveal .slides section"));

  // ---- formulas as text -----------------------------------------------------------------
  // Headings: a painted (1 px, so invisible) plain-text copy that PDF bookmarks and screen
  // readers take; KaTeX's own copies are hidden from both. Notes: the visual copy only (the
  // speaker window shows every text it is given), named for screen readers.
  sections.forEach(function (section) {
    var heading = section.querySelector(":scope > h1, :scope > h2");
    if (!heading) return;
    heading.querySelectorAll(".katex").forEach(function (katex) {
      var plain = document.createElement("span");
      plain.className = "deck-plain";
      plain.textContent = window.deckMath.formulaText(katex);
      katex.parentNode.insertBefore(plain, katex);
      katex.setAttribute("aria-hidden", "true");
    });
  });
  // The slide menu puts a slide's title in as HTML: hand it the heading's text, escaped, so a
  // computed value in a title reads as computed there too (and runs nothing).
  function escapeHtml(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#039;");
  }
  sections.forEach(function (section) {
    var heading = section.querySelector(":scope > h1, :scope > h2") ||
      section.querySelector("h1, h2");
    if (heading) section.dataset.menuTitle = escapeHtml(window.deckMath.plainText(heading));
  });
  document.querySelectorAll(".reveal aside.notes .katex").forEach(function (katex) {
    katex.setAttribute("role", "img");
    katex.setAttribute("aria-label", window.deckMath.formulaText(katex));
    var mathml = katex.querySelector(".katex-mathml");
    if (mathml) mathml.remove();
    var html = katex.querySelector(".katex-html");
    if (html) html.removeAttribute("aria-hidden");
  });

  // ---- pacing: each note opens with its minutes ("2 分钟。…") -----------------------------
  // A slide marked `{.optional}` (its notes open with a mark saying so) is left out of the
  // plan: its `data-timing` is 0 for reveal's pacing, its own in `data-optional-timing`.
  var planned = 0;
  var optional = 0;
  function notesText(notes) {
    var copy = notes.cloneNode(true);
    copy.querySelectorAll(".deck-optional-mark").forEach(function (m) { m.remove(); });
    return copy.textContent;
  }
  // A slide's own `data-timing` (`## Title {timing="90"}`), in seconds, wins.
  // A note that gives no minutes is named in the plan (and warned about by the build).
  var unplanned = [];
  sections.forEach(function (section, i) {
    var notes = section.querySelector(":scope > aside.notes");
    var match = notes && TEXT.minutes.exec(notesText(notes));
    var seconds = match ? Math.round(parseFloat(match[1]) * 60) : 0;
    if (section.hasAttribute("data-timing")) seconds = parseInt(section.dataset.timing, 10) || 0;
    else if (notes && !match && notesText(notes).trim()) unplanned.push(i + 1);
    if (section.classList.contains("optional")) {
      section.dataset.optionalTiming = String(seconds);
      section.dataset.timing = "0";
      optional += seconds;
    } else {
      section.dataset.timing = String(seconds);
      planned += seconds;
    }
  });
  document.documentElement.dataset.deckMinutes = String(planned / 60);
  document.documentElement.dataset.deckOptionalMinutes = String(optional / 60);
  document.documentElement.dataset.deckUnplanned = unplanned.join(" ");
  if (planned > 0 || optional > 0) { // (a deck that plans nothing: no plan, no warning)
    window.deckPresent.speakerInfo(TEXT.plan(planned / 60, optional / 60) +
      (unplanned.length ? " ⚠ " + TEXT.unplanned(unplanned) : ""));
  }

  // ---- quizzes ---------------------------------------------------------------------------
  function quizzesOf(section) {
    return section ? Array.prototype.slice.call(section.querySelectorAll(".quiz")) : [];
  }

  // Two modes (`quiz: {mode: …}` in lesson.yml, `?quiz=poll|check` in the URL overrides):
  // `poll`, the room's show of hands: every click adds one to its choice's count, and nothing
  // says right or wrong until the lecturer reveals the answer; `check`, for self-study: each
  // click is judged at once.
  var asked = /(?:^|[?&])quiz=(poll|check)\b/.exec(window.location.search);
  var quizMode = asked ? asked[1] : ((window.deckOptions || {}).quiz || {}).mode || "poll";
  document.documentElement.dataset.quizMode = quizMode;

  function votes(button) { return parseInt(button.dataset.votes || "0", 10); }
  function setVotes(button, n) { // the count: a span of its own, text
    button.dataset.votes = String(n);
    var count = button.querySelector(".quiz-count") ||
      button.appendChild(document.createElement("span"));
    count.className = "quiz-count";
    count.textContent = TEXT.votes(n);
    count.hidden = n === 0;
  }
  function pollCounts(quiz) {
    return Array.prototype.map.call(quiz.querySelectorAll(".quiz-choice"), votes);
  }
  function showTotal(quiz) {
    var total = pollCounts(quiz).reduce(function (a, b) { return a + b; }, 0);
    quiz.querySelector(".quiz-feedback").textContent = total ? TEXT.total(total) : "";
  }

  document.querySelectorAll(".reveal .quiz").forEach(function (quiz) {
    var feedback = quiz.querySelector(".quiz-feedback");
    var explain = quiz.querySelector(".quiz-explain");
    quiz.querySelectorAll(".quiz-choice").forEach(function (button) {
      button.addEventListener("click", function () {
        if (quizMode === "poll") {
          setVotes(button, votes(button) + 1);
          showTotal(quiz);
          window.deckPresent.refreshSpeaker(); // (present.js published the click before this)
          return;
        }
        var right = button.dataset.correct === "true";
        quiz.querySelectorAll(".quiz-choice").forEach(function (b) {
          b.classList.remove("chosen-right", "chosen-wrong");
          b.setAttribute("aria-pressed", "false");
        });
        button.classList.add(right ? "chosen-right" : "chosen-wrong");
        button.setAttribute("aria-pressed", "true");
        // once the answer is shown, a verdict beside it says nothing more
        feedback.textContent = quiz.classList.contains("revealed") ? "" : right ? TEXT.right
          : TEXT.wrong;
        if (right && explain) explain.hidden = false;
      });
    });
  });

  window.deckPresent.handle("poll-reset", function (action) {
    quizzesOf(sections[action.s]).forEach(function (quiz) {
      quiz.querySelectorAll(".quiz-choice").forEach(function (b) { setVotes(b, 0); });
      showTotal(quiz);
    });
  });

  // The lecturer's reveal: the right choice marked, the explanation shown; what students
  // chose stays. Before that, no visible text or accessible name tells the answer.
  function setRevealed(quiz, on) {
    quiz.classList.toggle("revealed", on);
    var right = quiz.querySelector('.quiz-choice[data-correct="true"]');
    var badge = right && right.querySelector(".quiz-badge");
    if (on && right && !badge) {
      badge = document.createElement("span");
      badge.className = "quiz-badge";
      badge.textContent = TEXT.answer;
      right.appendChild(badge);
    } else if (!on && badge) {
      badge.remove();
    }
    var explain = quiz.querySelector(".quiz-explain");
    var chosenRight = quiz.querySelector(".quiz-choice.chosen-right");
    if (explain) explain.hidden = !(on || chosenRight);
    if (quizMode === "check") quiz.querySelector(".quiz-feedback").textContent = "";
  }

  window.deckPresent.handle("reveal", function (action) {
    quizzesOf(sections[action.s]).forEach(function (quiz) { setRevealed(quiz, action.on); });
  });

  function currentSlideIndex() {
    return sections.indexOf(Reveal.getCurrentSlide());
  }

  function toggleReveal() {
    var quizzes = quizzesOf(Reveal.getCurrentSlide());
    if (!quizzes.length) return;
    var on = !quizzes[0].classList.contains("revealed");
    window.deckPresent.perform({ kind: "reveal", s: currentSlideIndex(), on: on });
  }
  window.deckRevealQuiz = toggleReveal;

  window.deckPresent.speakerButton({
    state: function () {
      var quizzes = quizzesOf(Reveal.getCurrentSlide());
      var on = quizzes.length > 0 && quizzes[0].classList.contains("revealed");
      return {
        label: !quizzes.length ? TEXT.noQuiz : on ? TEXT.hide : TEXT.reveal,
        enabled: quizzes.length > 0,
        pressed: on,
      };
    },
    press: toggleReveal,
  });

  // The speaker view: the current quiz's votes (its answer marked), and a reset (button, `R`).
  function resetPoll() {
    if (quizzesOf(Reveal.getCurrentSlide()).length) {
      window.deckPresent.perform({ kind: "poll-reset", s: currentSlideIndex() });
    }
  }
  window.deckPresent.speakerPart({
    name: "poll",
    build: function (doc, box) {
      box.appendChild(doc.createElement("h4")).textContent = TEXT.poll;
      box.appendChild(doc.createElement("div")).className = "deck-poll-lists";
      var button = box.appendChild(doc.createElement("button"));
      Object.assign(button, { type: "button", className: "deck-poll-reset",
        textContent: TEXT.reset });
      button.addEventListener("click", resetPoll);
    },
    refresh: function (box) {
      var quizzes = quizzesOf(Reveal.getCurrentSlide());
      box.hidden = quizMode !== "poll" || !quizzes.length;
      var lists = box.querySelector(".deck-poll-lists");
      lists.textContent = "";
      quizzes.forEach(function (quiz) {
        var counts = pollCounts(quiz);
        var list = lists.appendChild(box.ownerDocument.createElement("ol"));
        quiz.querySelectorAll(".quiz-choice").forEach(function (choice, k) {
          var item = list.appendChild(box.ownerDocument.createElement("li"));
          item.textContent = String.fromCharCode(65 + k) + "  " + TEXT.votes(counts[k]) +
            (choice.dataset.correct === "true" ? "  " + TEXT.answer : "");
        });
      });
    },
  });

  // ---- reveal.js -------------------------------------------------------------------------
  function asset(path) {
    return (window.DECK_ASSETS && window.DECK_ASSETS[path]) || "assets/" + path;
  }
  function cursor(path) {
    return "url(" + asset(path) + "), auto";
  }
  var MARKERS = [["black", "rgba(100,100,100,1)"], ["blue", "rgba(30,144,255,1)"],
    ["red", "rgba(220,20,60,1)"], ["green", "rgba(50,205,50,1)"], ["orange", "rgba(255,140,0,1)"],
    ["purple", "rgba(150,0,150,1)"], ["yellow", "rgba(255,220,0,1)"]];
  var CHALKS = [["white", "rgba(255,255,255,0.5)"], ["blue", "rgba(96,154,244,0.5)"],
    ["red", "rgba(237,20,28,0.5)"], ["green", "rgba(20,237,28,0.5)"],
    ["orange", "rgba(220,133,41,0.5)"], ["purple", "rgba(220,0,220,0.5)"],
    ["yellow", "rgba(255,220,0,0.5)"]];

  Reveal.on("ready", function () {
    // reveal's pause overlay speaks English: its button in the deck's language
    var resume = document.querySelector(".reveal .pause-overlay .resume-button");
    if (resume) resume.textContent = TEXT.resume;
    document.documentElement.dataset.deckReady = "true";
  });
  Reveal.on("slidechanged", window.deckPresent.refreshSpeaker);
  // reveal.js-menu's icon-only button and its scrolling list, named and reachable by keyboard.
  Reveal.on("menu-ready", function () {
    var button = document.querySelector(".slide-menu-button a");
    if (button) {
      button.setAttribute("aria-label", TEXT.menu);
      button.setAttribute("role", "button");
    }
    document.querySelectorAll(".slide-menu-panel").forEach(function (panel) {
      panel.tabIndex = 0;
    });
  });
  Reveal.on("showhelp", function () {
    document.querySelectorAll(".r-overlay-help .r-overlay-content").forEach(function (box) {
      box.tabIndex = 0;
    });
  });
  Reveal.on("pdf-ready", function () {
    // Every printed page is "present": let the PDF's tags and bookmarks see all of them.
    document.querySelectorAll(".reveal .slides section").forEach(function (s) {
      s.removeAttribute("aria-hidden");
      s.removeAttribute("inert");
    });
    document.documentElement.dataset.pdfReady = "true";
  });

  // Space and Enter on a focused control in a slide (a quiz choice, a widget button) press it;
  // they do not also turn the page.
  function keyboardCondition(event) {
    var active = document.activeElement;
    var control = active && active.closest && active.closest(".reveal .slides") &&
      active.matches("button, [role=button], a[href], summary, select");
    return !(control && (event.keyCode === 32 || event.keyCode === 13));
  }

  var plugins = [RevealNotes];
  if (!printing) plugins.push(RevealSearch, RevealZoom, RevealMenu, RevealChalkboard);

  // A .qmd's presentation options (slide-number, controls, progress) over the deck's own.
  var revealConfig = Object.assign({
    width: 1280,
    height: 720,
    margin: printing ? 0 : 0.04,
    center: false,
    hash: true,
    slideNumber: "c/t",
    showSlideNumber: "all",
    pdfSeparateFragments: false,
    pdfMaxPagesPerSlide: 1,
    transition: "slide",
    // Pacing in the speaker view: each slide's `data-timing` (from its notes); 0 elsewhere.
    defaultTiming: planned > 0 ? 0 : null,
    plugins: plugins,
    keyboardCondition: keyboardCondition,
    zoomKey: "alt", // Alt+click zooms on every system (reveal's default is Ctrl on Linux)
    menu: {
      // The page links menu.css and the icons itself (so a single-file deck has them
      // inline): hand the plugin an empty stylesheet instead of a folder to load from.
      path: "data:text/css,/**/",
      loadIcons: false,
      titleSelector: "h1, h2",
      useTextContentForMissingTitles: true,
      themes: false,
      transitions: false,
      markers: true,
      openSlideNumber: true,
    },
    chalkboard: {
      boardmarkers: MARKERS.map(function (m) {
        return { color: m[1], cursor: cursor("chalkboard/img/boardmarker-" + m[0] + ".png") };
      }),
      chalks: CHALKS.map(function (c) {
        return { color: c[1], cursor: cursor("chalkboard/img/chalk-" + c[0] + ".png") };
      }),
      eraser: { src: asset("chalkboard/img/sponge.png"), radius: 20 },
      background: ["rgba(127,127,127,.1)", asset("chalkboard/img/blackboard.png")],
    },
  }, (window.deckOptions || {}).reveal);
  if (window.deckRevealTweak) window.deckRevealTweak(revealConfig); // the classroom's pages
  Reveal.initialize(revealConfig);

  if (!printing) {
    Reveal.addKeyBinding({ keyCode: 65, key: "A", description: TEXT.revealKey }, toggleReveal);
    Reveal.addKeyBinding({ keyCode: 82, key: "R", description: TEXT.resetKey }, resetPoll);
  }
})();
