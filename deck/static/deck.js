// Deck behaviour: reveal.js set-up, quizzes, readiness flags for printing, handout layout.
(function () {
  "use strict";
  var printing = /print-pdf/i.test(window.location.search);

  document.querySelectorAll(".quiz").forEach(function (quiz) {
    var feedback = quiz.querySelector(".quiz-feedback");
    var explain = quiz.querySelector(".quiz-explain");
    quiz.querySelectorAll(".quiz-choice").forEach(function (button) {
      button.addEventListener("click", function () {
        var right = button.dataset.correct === "true";
        quiz.querySelectorAll(".quiz-choice").forEach(function (b) {
          b.classList.remove("chosen-right", "chosen-wrong");
        });
        button.classList.add(right ? "chosen-right" : "chosen-wrong");
        feedback.textContent = right ? "✓ 回答正确" : "✗ 再想想";
        if (right && explain) explain.hidden = false;
      });
    });
  });

  Reveal.on("ready", function () {
    document.documentElement.dataset.deckReady = "true";
  });
  Reveal.on("pdf-ready", function () {
    // Every printed page is "present": let the PDF's tags and bookmarks see all of them.
    document.querySelectorAll(".reveal .slides section").forEach(function (s) {
      s.removeAttribute("aria-hidden");
      s.removeAttribute("inert");
    });
    document.documentElement.dataset.pdfReady = "true";
  });

  // A .qmd's presentation options (slide-number, controls, progress) over the deck's own.
  Reveal.initialize(Object.assign({
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
    plugins: [RevealNotes],
  }, (window.deckOptions || {}).reveal));

  // Turns the printed slide pages into A4 handout pages: each slide scaled down as it is
  // (still vector), its speaker notes below. Called by the PDF printer after `pdf-ready`.
  window.deckHandout = function () {
    document.documentElement.classList.add("deck-handout");
    document.querySelectorAll("style").forEach(function (style) {
      if (/@page/.test(style.textContent)) style.remove();
    });
    var pages = Array.prototype.slice.call(document.querySelectorAll(".reveal .slides .pdf-page"));
    pages.forEach(function (page) {
      var wrap = document.createElement("div");
      wrap.className = "handout-page";
      if (page.querySelector("section.section-title")) wrap.classList.add("section-start");
      var frame = document.createElement("div");
      frame.className = "handout-frame";
      page.parentNode.insertBefore(wrap, page);
      frame.appendChild(page);
      wrap.appendChild(frame);
      page.querySelectorAll(".quiz").forEach(function (quiz) {
        quiz.classList.add("revealed");
        var explain = quiz.querySelector(".quiz-explain");
        if (explain) explain.hidden = false;
      });
      var notes = page.querySelector("aside.notes");
      var box = document.createElement("div");
      box.className = "handout-notes";
      box.innerHTML = notes ? notes.innerHTML : "";
      var quizzes = page.querySelectorAll(".quiz");
      quizzes.forEach(function (quiz) {
        var right = quiz.querySelector('.quiz-choice[data-correct="true"]');
        var explain = quiz.querySelector(".quiz-explain");
        var answer = document.createElement("div");
        answer.className = "handout-answer";
        answer.innerHTML = "<strong>答案：</strong>" + right.innerHTML +
          (explain ? "<div>" + explain.innerHTML + "</div>" : "");
        box.appendChild(answer);
      });
      wrap.appendChild(box);
    });
    return pages.length;
  };
})();
