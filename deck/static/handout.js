// Handouts, laid out from the deck's print layout (`index.html?print-pdf`, after reveal's
// `pdf-ready`) and then printed on A4 by the PDF printer:
//   deckHandout("student")  slides, quizzes without answers, ruled space to write; no speaker
//                           notes, only what a slide's `::: handout` block says;
//   deckHandout("lecturer") slides, speaker notes with their minutes, and an answer key at the
//                           end (answer, explanation, the file:line behind each quiz).
// Slides stay vector (CSS zoom). Items are packed onto pages by their measured height, two
// slides to a page wherever they fit. `deckHandout()` alone means "lecturer". Each call starts
// from the print layout, so one page can lay out (and print) one handout after another.
(function () {
  "use strict";
  // A4 at 96 px/in minus the printer's margins (15 mm each side, 14 mm top, 16 mm bottom).
  var PAGE = { width: 680, height: 1009 };
  var GAP = 14;
  var LINE = 25; // px between ruled lines (deck.css: .handout-lines > div)
  var KINDS = {
    student: { slideWidth: 620, lines: 4, notes: false },
    lecturer: { slideWidth: 600, lines: 0, notes: true },
  };
  var english = /^en/i.test(document.documentElement.lang);
  var TEXT = english
    ? { slide: "Slide", min: "min", sofar: "so far", answer: "Answer: ", key: "Answer key",
        quiz: "Quiz", source: "Computed at", explain: "Why: ", inClass: "(Answer given in class.)",
        shown: "Answer shown in class: ",
        optional: "optional, not in the plan", plan: "Planned: ", optionalAdd: "optional slides add " }
    : { slide: "幻灯片", min: "分钟", sofar: "累计", answer: "答案：", key: "测验答案",
        quiz: "测验", source: "计算出处", explain: "解析：", inClass: "（答案课上给出。）",
        shown: "课上揭示的答案：",
        optional: "可跳过，不计入计划", plan: "计划：", optionalAdd: "可跳过的页另加 " };

  function letter(n) {
    return String.fromCharCode(65 + n);
  }

  // An element holding `parts` in order: strings as text, nodes as copies of the deck's own
  // (never markup from strings: what the slides show as text stays text here).
  function el(tag, className) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    Array.prototype.slice.call(arguments, 2).forEach(function (part) {
      e.appendChild(typeof part === "string" ? document.createTextNode(part) : part);
    });
    return e;
  }

  // Copies of an element's children, as one fragment.
  function contents(node) {
    var fragment = document.createDocumentFragment();
    node.childNodes.forEach(function (child) { fragment.appendChild(child.cloneNode(true)); });
    return fragment;
  }

  function strong(text) {
    return el("strong", null, text);
  }

  function rightChoice(quiz) {
    var choices = Array.prototype.slice.call(quiz.querySelectorAll(".quiz-choice"));
    var k = choices.findIndex(function (b) { return b.dataset.correct === "true"; });
    return { index: k, node: k >= 0 ? choices[k] : document.createElement("span") };
  }

  function minutes(section) {
    return (parseInt(section.dataset.timing || "0", 10) || 0) / 60;
  }

  // A slide marked `{.optional}`: its own minutes, kept out of the plan (deck.js).
  function optionalMinutes(section) {
    return (parseInt(section.dataset.optionalTiming || "0", 10) || 0) / 60;
  }

  function item(page, n, kind, clock) {
    var spec = KINDS[kind];
    var section = page.querySelector("section");
    var wrap = el("div", "handout-item");
    var frame = el("div", "handout-frame");
    frame.style.width = spec.slideWidth + "px";
    frame.style.height = (spec.slideWidth * 9) / 16 + "px";
    page.style.zoom = String(spec.slideWidth / 1280);
    page.parentNode.insertBefore(wrap, page);
    frame.appendChild(page);
    wrap.appendChild(frame);

    var text = el("div", "handout-text");
    page.querySelectorAll(".handout").forEach(function (block) {
      text.appendChild(el("div", "handout-block", contents(block)));
      block.remove();
    });
    var notes = page.querySelector("aside.notes");
    var quizzes = page.querySelectorAll(".quiz");
    // `::: answer` blocks: the lecturer reads them with the notes; students get a line instead.
    var answers = Array.prototype.slice.call(page.querySelectorAll(".deck-answer"));
    answers.forEach(function (block) {
      if (spec.notes) {
        var moved = el("div", "handout-answer-block");
        moved.appendChild(el("strong")).textContent = TEXT.shown;
        while (block.firstChild) moved.appendChild(block.firstChild);
        block.remove();
        answers[answers.indexOf(block)] = moved;
      } else {
        var line = el("p", "deck-answer-omitted");
        line.textContent = TEXT.inClass;
        block.replaceWith(line);
      }
    });
    if (spec.notes) {
      var meta = TEXT.slide + " " + (n + 1);
      if (minutes(section)) {
        meta += " · " + minutes(section) + " " + TEXT.min + " · " + TEXT.sofar + " " + clock.done +
          " / " + clock.total + " " + TEXT.min;
      } else if (section.classList.contains("optional")) {
        meta += " · " + TEXT.optional;
        if (optionalMinutes(section)) meta += " · " + optionalMinutes(section) + " " + TEXT.min;
      }
      text.insertBefore(el("div", "handout-meta", meta), text.firstChild);
      if (n === 0 && clock.total) {
        var plan = TEXT.plan + clock.total + " " + TEXT.min;
        if (clock.optional) plan += " · " + TEXT.optionalAdd + clock.optional + " " + TEXT.min;
        text.insertBefore(el("div", "handout-meta handout-plan"), text.firstChild).textContent = plan;
      }
      if (notes) text.appendChild(el("div", "handout-notes", contents(notes)));
      answers.forEach(function (moved) { text.appendChild(moved); });
      quizzes.forEach(function (quiz) {
        var right = rightChoice(quiz);
        text.appendChild(el("div", "handout-answer",
          strong(TEXT.answer + letter(right.index) + "."), " ", contents(right.node)));
      });
    } else {
      // Nothing a student should not read yet stays in the page, printed or not.
      if (notes) notes.remove();
      quizzes.forEach(function (quiz) {
        quiz.querySelectorAll(".quiz-explain, .quiz-feedback").forEach(function (e) { e.remove(); });
        quiz.querySelectorAll("[data-correct]").forEach(function (b) { b.removeAttribute("data-correct"); });
        quiz.removeAttribute("data-source");
      });
    }
    if (text.childNodes.length) wrap.appendChild(text);
    if (spec.lines) {
      var lines = el("div", "handout-lines");
      lines.setAttribute("aria-hidden", "true");
      for (var k = 0; k < spec.lines; k++) lines.appendChild(el("div"));
      wrap.appendChild(lines);
    }
    return wrap;
  }

  function answerKey(pages) {
    var key = el("div", "handout-key");
    key.appendChild(el("h1", null, TEXT.key));
    var n = 0;
    pages.forEach(function (page, p) {
      var section = page.querySelector("section");
      page.querySelectorAll(".quiz").forEach(function (quiz) {
        n += 1;
        var right = rightChoice(quiz);
        var entry = el("div", "handout-key-entry");
        entry.appendChild(el("div", "handout-key-title",
          strong(TEXT.quiz + " " + n), " · " + TEXT.slide + " " + (p + 1)));
        var question = quiz.querySelector(".quiz-question");
        if (question) entry.appendChild(el("div", "handout-key-question", contents(question)));
        entry.appendChild(el("div", "handout-key-answer",
          strong(TEXT.answer + letter(right.index) + "."), " ", contents(right.node)));
        var explain = quiz.querySelector(".quiz-explain");
        if (explain) {
          entry.appendChild(el("div", "handout-key-explain",
            strong(TEXT.explain), contents(explain)));
        }
        var source = quiz.dataset.source || section.dataset.source || "";
        var where = el("div", "handout-key-source");
        where.appendChild(el("strong", null, TEXT.source + " "));
        where.appendChild(el("code")).textContent = source;
        entry.appendChild(where);
        key.appendChild(entry);
      });
    });
    return n ? key : null;
  }

  // Groups the items into pages: as many as fit by height, in order. All heights are read
  // before anything moves (one layout, not one per item).
  function pack(container, items, height) {
    var heights = items.map(function (it) { return it.getBoundingClientRect().height; });
    var sheets = [];
    var sheet = null;
    var used = 0;
    items.forEach(function (it, k) {
      var h = heights[k];
      if (!sheet || used + GAP + h > height) {
        sheet = el("div", "handout-sheet");
        container.insertBefore(sheet, it);
        sheets.push(sheet);
        used = h;
      } else {
        used += GAP + h;
      }
      sheet.appendChild(it);
      sheet.dataset.used = String(used);
    });
    return sheets;
  }

  // What a page has left goes to the writing space of its slides, in whole lines.
  function moreLines(sheets, height) {
    sheets.forEach(function (sheet) {
      var boxes = sheet.querySelectorAll(".handout-lines");
      var spare = height - parseFloat(sheet.dataset.used) - 2;
      var each = boxes.length ? Math.floor(spare / boxes.length / LINE) : 0;
      boxes.forEach(function (box) {
        for (var k = 0; k < each; k++) box.appendChild(el("div"));
      });
    });
  }

  // The print layout as it was before the first handout, so that one loaded page can print
  // the slides and then each handout in turn (`deckHandout` starts from it every time).
  var saved = null;

  function restore() {
    var root = document.documentElement;
    root.classList.remove("deck-handout", "deck-handout-student", "deck-handout-lecturer");
    delete root.dataset.handoutSheets;
    document.querySelectorAll(".handout-key").forEach(function (key) { key.remove(); });
    var fresh = saved.slides.cloneNode(true);
    document.querySelector(".reveal .slides").replaceWith(fresh);
    saved.styles.forEach(function (style) { document.head.appendChild(style); });
  }

  window.deckHandout = function (kind, options) {
    kind = KINDS[kind] ? kind : "lecturer";
    var height = (options && options.pageHeight) || PAGE.height;
    var root = document.documentElement;
    if (saved) {
      restore();
    } else {
      saved = { slides: document.querySelector(".reveal .slides").cloneNode(true), styles: [] };
      document.querySelectorAll("style").forEach(function (style) {
        if (/@page/.test(style.textContent)) saved.styles.push(style);
      });
    }
    root.classList.add("deck-handout", "deck-handout-" + kind);
    saved.styles.forEach(function (style) { style.remove(); });
    var container = document.querySelector(".reveal .slides");
    var pages = Array.prototype.slice.call(container.querySelectorAll(".pdf-page"));
    var total = pages.reduce(function (s, p) { return s + minutes(p.querySelector("section")); }, 0);
    var optional = pages.reduce(function (s, p) {
      return s + optionalMinutes(p.querySelector("section"));
    }, 0);
    var clock = { done: 0, total: total, optional: optional };
    var key = kind === "lecturer" ? answerKey(pages) : null;
    var items = pages.map(function (page, n) {
      clock.done += minutes(page.querySelector("section"));
      return item(page, n, kind, clock);
    });
    var sheets = pack(container, items, height);
    moreLines(sheets, height);
    if (key) document.body.appendChild(key);
    root.dataset.handoutSheets = String(sheets.length);
    return pages.length;
  };
})();
