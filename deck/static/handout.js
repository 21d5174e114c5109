// Handouts, laid out from the print layout (`index.html?print-pdf`, after `pdf-ready`).
// "student": slides, quizzes without answers, `::: handout` blocks, lines to write on, no text
// under 8 pt (each slide's smallest text sets its frame's least width; too dense for portrait:
// an A4 landscape page, CSS named page `wide`); section titles a line over their first slide.
// "lecturer": slides centred, notes and minutes flowing across pages, an answer key. {slots}:
// each frame holds only a link to https://deck.invalid/slide/N, whose rectangle the printer
// fills with page N of slides.pdf (compose.py); /picture/N (drawn: an `::: answer`), /band/N.
(function () {
  "use strict";
  var MM = 96 / 25.4;
  // The content box of each paper (paper()'s @page rules): A4 minus its margins, in px.
  var PORTRAIT = { width: Math.floor(182 * MM), height: Math.floor(271 * MM) - 4 };
  var WIDE = { width: Math.floor(277 * MM), height: Math.floor(187 * MM) - 4 };
  // The paper; the footer "title · page / pages" a margin box (cheaper than a footer template)
  function paper() {
    var footer = "@bottom-center { content: " + JSON.stringify(document.title + " · ") +
      " counter(page) \" / \" counter(pages); font-size: 11px; color: #555; " +
      "font-family: 'Noto Sans CJK SC', sans-serif; }";
    return "@page { size: A4; margin: 12mm 14mm 14mm 14mm; " + footer + " } " +
      "@page wide { size: A4 landscape; margin: 10mm 10mm 13mm 10mm; }";
  }
  var MIN_PT = 8; // (a frame's width rounds up)
  var GAP = 14;
  var LINE = 25; // px between ruled lines (deck.css: .handout-lines > div)
  var FIGURE_TEXT = 15 * 4 / 3; // px: a figure's text at its own size (its data-text-pt, or the matplotlibrc's)
  var BASE = { 1: PORTRAIT.width, 2: 560, 3: 380 }; // a frame's width by slides per page
  var LINES = { 1: 14, 2: 4, 3: 2 };
  var LECTURER_WIDTH = 520;
  // The deck's slide size (a .qmd's `width`/`height`; 1280×720 unless said): frames keep its
  // shape, and a slide drawn in one is zoomed from it.
  function slideSize() {
    var config = window.Reveal && Reveal.getConfig ? Reveal.getConfig() : {};
    return { width: Number(config.width) || 1280, height: Number(config.height) || 720 };
  }
  var UNPRINTED = "aside.notes, .handout, .quiz-explain, .deck-plain, .katex-mathml";
  var FURNITURE = ".footer, .slide-logo, .slide-number, .slide-number-pdf";
  // What shows an exercise's answer besides `::: answer`: a widget (or any block) marked
  // `.shows-answer` (its initial state draws the answer), the cells of a `::: exercise` (the
  // students' notebook blanks them). The student's handout prints the in-class line instead.
  var IN_CLASS = ".shows-answer, .exercise .cell, .cell.exercise";
  var TEXT = window.deckStrings("handout"); // (strings.js)

  function letter(n) { return String.fromCharCode(65 + n); }
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
  function contents(node) {
    var f = document.createDocumentFragment();
    node.childNodes.forEach(function (child) { f.appendChild(child.cloneNode(true)); });
    return f;
  }
  function strong(text) { return el("strong", null, text); }
  function mark(what) { var a = el("a", "handout-slot"); a.href = "https://deck.invalid/" + what; return a; }
  function rightChoice(quiz) {
    var choices = Array.prototype.slice.call(quiz.querySelectorAll(".quiz-choice"));
    var k = choices.findIndex(function (b) { return b.dataset.correct === "true"; });
    return { index: k, node: k >= 0 ? choices[k] : document.createElement("span") };
  }
  function seconds(value) { return (parseInt(value || "0", 10) || 0) / 60; }
  function minutes(section) { return seconds(section.dataset.timing); }
  function optionalMinutes(section) { return seconds(section.dataset.optionalTiming); }
  // The smallest text a printed page shows, in px at the slide's own width, and what it is:
  // every visible text (HTML, inline SVG), a figure's text at its engine size as it is shown.
  function smallestText(page) {
    var least = { size: Infinity, what: "", content: { size: Infinity, what: "" } }; // content: not the footer/number
    var take = function (size, what, own) {
      if (size < least.size) least = { size: size, what: what, content: least.content };
      if (own && size < least.content.size) least.content = { size: size, what: what };
    };
    var walker = document.createTreeWalker(page, NodeFilter.SHOW_TEXT);
    for (var n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!/[^\s\u200b]/.test(n.textContent)) continue;
      var e = n.parentElement;
      if (!e || e.closest(UNPRINTED) || !e.getClientRects().length) continue;
      var style = getComputedStyle(e);
      if (style.visibility === "hidden") continue;
      var m = e instanceof SVGElement && e.getScreenCTM();
      var said = n.textContent.trim().replace(/\s+/g, " ");
      var furniture = e.closest(".footer") ? "the footer" : e.closest(".slide-number, .slide-number-pdf") ? "the slide number" : "";
      var formula = e.closest(".katex"); // (at its own size: its scripts smaller in proportion, as in print)
      take(parseFloat(formula ? getComputedStyle(formula).fontSize : style.fontSize) * (m ? Math.hypot(m.c, m.d) : 1),
        furniture || "\u201c" + (said.length > 30 ? said.slice(0, 30) + "\u2026" : said) + "\u201d", !furniture);
    }
    page.querySelectorAll("img").forEach(function (img) {
      var src = img.getAttribute("src") || "";
      if (!/\.svg($|\?)/i.test(src) || !img.naturalWidth) return;
      var own = parseFloat(img.getAttribute("data-text-pt")) * 4 / 3 || FIGURE_TEXT, r = img.getBoundingClientRect();
      if (r.width) take((own * r.width) / img.naturalWidth, "the text of " + src.split("/").pop());
    });
    return least;
  }
  // A frame holding the slide (drawn, or an empty slot to fill from slides.pdf).
  function frame(page, n, width, drawn) {
    var box = el("div", "handout-frame");
    box.style.width = width + "px";
    var size = slideSize();
    box.style.height = (width * size.height) / size.width + "px";
    if (drawn) {
      page.style.zoom = String(width / size.width);
      box.appendChild(page);
      if (drawn === "picture") box.appendChild(mark("picture/" + (n + 1)));
    } else {
      box.appendChild(mark("slide/" + (n + 1)));
      page.remove();
    }
    return box;
  }
  // The text beside a slide: handout blocks (both), notes, answers (the lecturer's).
  function textOf(page, section, n, spec, clock) {
    var text = el("div", "handout-text");
    page.querySelectorAll(".handout").forEach(function (block) {
      text.appendChild(el("div", "handout-block", contents(block)));
      block.remove();
    });
    var answers = Array.prototype.slice.call(page.querySelectorAll(".deck-answer"));
    answers.forEach(function (block, k) {
      if (spec.notes) {
        var moved = el("div", "handout-answer-block", strong(TEXT.shown));
        while (block.firstChild) moved.appendChild(block.firstChild);
        block.remove();
        answers[k] = moved;
      } else {
        block.replaceWith(el("p", "deck-answer-omitted", TEXT.inClass));
      }
    });
    var notes = page.querySelector("aside.notes");
    var quizzes = page.querySelectorAll(".quiz");
    if (!spec.notes) {
      // Nothing a student should not read yet stays in the page, printed or not (IN_CLASS).
      page.querySelectorAll(IN_CLASS).forEach(function (e) {
        if (page.contains(e)) e.replaceWith(el("p", "deck-answer-omitted", TEXT.inClass));
      });
      if (notes) notes.remove();
      quizzes.forEach(function (quiz) {
        quiz.querySelectorAll(".quiz-explain, .quiz-feedback").forEach(function (e) { e.remove(); });
        quiz.querySelectorAll("[data-correct]").forEach(function (b) { b.removeAttribute("data-correct"); });
        quiz.removeAttribute("data-source");
      });
      return text;
    }
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
      text.insertBefore(el("div", "handout-meta handout-plan", plan), text.firstChild);
    }
    if (notes) text.appendChild(el("div", "handout-notes", contents(notes)));
    if (notes) notes.remove();
    answers.forEach(function (moved) { text.appendChild(moved); });
    quizzes.forEach(function (quiz) {
      var right = rightChoice(quiz);
      text.appendChild(el("div", "handout-answer",
        strong(TEXT.answer + letter(right.index) + "."), " ", contents(right.node)));
    });
    return text;
  }
  function ruled(count) {
    var lines = el("div", "handout-lines");
    lines.setAttribute("aria-hidden", "true");
    for (var k = 0; k < count; k++) lines.appendChild(el("div"));
    return lines;
  }
  // A section-title slide (a heading and a line or two): a band of text, not half a page.
  function isBand(section) {
    return section.classList.contains("section-title") &&
      !section.classList.contains("title-slide") &&
      !section.querySelector("img, svg, table, pre, .katex, .widget, .quiz, .deck-answer");
  }
  function band(page, section, n) {
    var heading = section.querySelector("h1, h2");
    var box = el("div", "handout-band", mark("band/" + (n + 1)));
    box.appendChild(el("div", "handout-band-title", heading ? contents(heading) : ""));
    var body = section.querySelector(".slide-body");
    if (body) body = el("div", "handout-band-body", contents(body));
    // (without the deck's furniture: a footer placed in the band would print over its title)
    if (body) body.querySelectorAll(FURNITURE).forEach(function (e) { e.remove(); });
    if (body && /[^\s\u200b]/.test(body.textContent)) box.appendChild(body);
    return box;
  }
  function item(page, n, kind, options, clock, least) {
    var spec = { notes: kind === "lecturer" };
    var section = page.querySelector("section");
    var wrap = el("div", "handout-item");
    page.parentNode.insertBefore(wrap, page);
    var differs = page.querySelector(".deck-answer") !== null ||
      (!spec.notes && page.querySelector(IN_CLASS) !== null);
    var text = textOf(page, section, n, spec, clock);
    if (isBand(section)) {
      wrap.classList.add("handout-item-band");
      wrap.appendChild(band(page, section, n));
      page.remove();
    } else {
      var width = LECTURER_WIDTH;
      if (!spec.notes) {
        // A slide drawn here is measured as drawn (what it leaves out sets no width).
        if (differs && options.slots) least = smallestText(page);
        if (options.perPage === 3 && least.content) least = least.content;
        var need = Math.ceil((MIN_PT * 4 / 3) * slideSize().width / least.size);
        width = Math.max(BASE[options.perPage], isFinite(need) ? need : 0);
        wrap.dataset.slide = String(n + 1);
        wrap.dataset.source = section.dataset.source || "";
        if (width > PORTRAIT.width) {
          wrap.classList.add("handout-item-wide");
          width = Math.min(width, WIDE.width);
          warn(wrap, { wide: need, what: least.what, size: +least.size.toFixed(1), most: PORTRAIT.width });
        } else if (options.perPage === 3 && width <= BASE[3]) {
          wrap.classList.add("handout-item-row");
        }
      }
      var drawn = !options.slots || (differs ? "picture" : "");
      wrap.appendChild(frame(page, n, width, drawn));
    }
    if (text.childNodes.length) wrap.appendChild(text);
    if (!spec.notes && !isBand(section)) wrap.appendChild(ruled(options.lines));
    return wrap;
  }
  function answerKey(pages) {
    var key = el("div", "handout-key");
    key.appendChild(el("h1", null, mark("key"), TEXT.key));
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
        if (explain) entry.appendChild(el("div", "handout-key-explain", strong(TEXT.explain), contents(explain)));
        var where = el("div", "handout-key-source", el("strong", null, TEXT.source + " "));
        where.appendChild(el("code")).textContent = quiz.dataset.source || section.dataset.source || "";
        entry.appendChild(where);
        key.appendChild(entry);
      });
    });
    return n ? key : null;
  }
  // A section's title band goes on top of its first slide, never alone at a page's foot.
  function keepBandsWithTheirSlide(items) {
    var isBandItem = function (it) { return it && it.classList.contains("handout-item-band"); };
    return items.filter(function (it, k) {
      if (!isBandItem(it) || !items[k + 1] || isBandItem(items[k + 1])) return true;
      items[k + 1].insertBefore(it.firstChild, items[k + 1].firstChild);
      it.remove();
      return false;
    });
  }
  function linesOf(it) { var b = it.querySelector(".handout-lines"); return b ? b.children.length : 0; }
  // The ruled lines an item gives up to share its page (all but one), or to fit it (all).
  function spare(it, all) { return Math.max(0, linesOf(it) - (all ? 0 : 1)); }
  function px(it, part) { var e = it.querySelector(part); return e ? Math.round(e.offsetHeight) : 0; }
  // The student's items on sheets, one sheet a printed page, in order: as many as fit by
  // height, and `perPage` where ruled lines given up make room; a wide item alone on a
  // landscape sheet; items too tall to share a page are said. Heights are read before
  // anything moves; an item taller than its sheet gives up lines until it fits.
  function pack(container, items, perPage) {
    var heights = items.map(function (it) { return it.getBoundingClientRect().height; });
    var drop = function (j) { items[j].querySelector(".handout-lines").lastChild.remove(); heights[j] -= LINE; };
    var wide = function (e) { return /handout-(item|sheet)-wide/.test(e.className); };
    items.forEach(function (it, j) {
      while (heights[j] > (wide(it) ? WIDE.height : PORTRAIT.height) && spare(it, true)) drop(j);
    });
    var share = Math.floor((PORTRAIT.height - GAP * (perPage - 1)) / perPage);
    var sheets = [], sheet = null, on = [];
    items.forEach(function (it, k) {
      var group = on.concat([k]);
      var over = group.reduce(function (s, j) { return s + heights[j] + GAP; }, -GAP) - PORTRAIT.height;
      var room = group.reduce(function (s, j) { return s + spare(items[j]) * LINE; }, 0);
      var portrait = sheet && !wide(it) && !wide(sheet);
      var join = portrait && (over <= 0 || (on.length < perPage && room >= over));
      if (portrait && !join && on.length < perPage) group.forEach(function (j) {
        var fewest = heights[j] - spare(items[j]) * LINE, e = items[j];
        if (fewest <= share || !e.dataset.slide || e.dataset.warned) return;
        e.dataset.warned = "tall";
        warn(e, { tall: Math.round(fewest), share: share, perPage: perPage, lines: Math.min(1, linesOf(e)),
          frame: px(e, ".handout-frame"), band: px(e, ".handout-band"), text: px(e, ".handout-text") });
      });
      for (; join && over > 0; over -= LINE) { // a line from the item with the most
        drop(group.reduce(function (a, b) { return spare(items[b]) > spare(items[a]) ? b : a; }));
      }
      if (!join) {
        sheet = el("div", wide(it) ? "handout-sheet handout-sheet-wide" : "handout-sheet");
        container.insertBefore(sheet, it);
        sheets.push(sheet);
        on = [];
      }
      on.push(k);
      sheet.appendChild(it);
    });
    return sheets;
  }
  // What a sheet has left goes to the writing space of its slides, in whole lines.
  function moreLines(sheets) {
    sheets.forEach(function (sheet) {
      var height = sheet.classList.contains("handout-sheet-wide") ? WIDE.height : PORTRAIT.height;
      var boxes = Array.prototype.filter.call(sheet.querySelectorAll(".handout-lines"),
        function (box) { return !box.closest(".handout-item-band"); });
      var spare = height - sheet.getBoundingClientRect().height - 2; // (as laid out now)
      var each = boxes.length ? Math.floor(spare / boxes.length / LINE) : 0;
      boxes.forEach(function (box) { for (var k = 0; k < each; k++) box.appendChild(el("div")); });
    });
  }
  // Each slide's smallest text, measured once in the print layout; the print layout itself
  // while a handout stands in its place (`deckHandout`).
  var least = null;
  var shown = null;
  // What the student's handout could not lay out as asked, by slide (deckHandoutWarnings).
  var warnings = [];

  var warn = function (it, why) {
    warnings.push(Object.assign({ slide: Number(it.dataset.slide), source: it.dataset.source }, why));
  };
  function settings(options) {
    options = options || {};
    var perPage = [1, 2, 3].indexOf(options.perPage) >= 0 ? options.perPage : 2;
    var lines = options.lines >= 0 ? Math.floor(options.lines) : LINES[perPage];
    return { slots: !!options.slots, perPage: perPage, lines: lines };
  }
  // The handout laid out in a container of its own beside the slides (`.reveal > .slides`
  // too, so the theme's rules reach it), from copies of the printed pages: the print layout
  // itself is left as it is. Returns the container and the answer key (lecturer).
  function build(kind, options, slides, beside) {
    var pages = Array.prototype.slice.call(slides.querySelectorAll(".pdf-page"));
    warnings = [];
    if (!least) least = pages.map(smallestText);
    var container = el("div", "slides deck-handout deck-handout-offstage deck-handout-" + kind + " deck-handout-per-" + options.perPage);
    beside.parentNode.appendChild(container);
    var sum = function (f) {
      return pages.reduce(function (s, p) { return s + f(p.querySelector("section")); }, 0);
    };
    var clock = { done: 0, total: sum(minutes), optional: sum(optionalMinutes) };
    var key = kind === "lecturer" ? answerKey(pages) : null;
    var items = pages.map(function (page, n) {
      clock.done += minutes(page.querySelector("section"));
      var copy = container.appendChild(page.cloneNode(true));
      return item(copy, n, kind, options, clock, least[n]);
    });
    var sheets = null;
    if (kind === "student") {
      items = keepBandsWithTheirSlide(items);
      sheets = pack(container, items, options.perPage);
      moreLines(sheets);
      if (sheets.length) sheets[sheets.length - 1].classList.add("handout-sheet-last");
    }
    return { container: container, key: key, sheets: sheets, count: pages.length };
  }
  // The handout shown in this page, in place of the print layout: to print the page itself,
  // or to look at it. From one handout to the next the print layout stays detached (each
  // slide's smallest text is measured on the first call), not put back and laid out again:
  // the lecturer's after the student's was built 20–40 ms sooner (measured).
  window.deckHandout = function (kind, options) {
    kind = kind === "student" ? "student" : "lecturer";
    var root = document.documentElement;
    if (shown) {
      root.classList.remove("deck-handout-student", "deck-handout-lecturer");
      delete root.dataset.handoutSheets;
      document.querySelectorAll(".handout-key").forEach(function (e) { e.remove(); });
    }
    var slides = shown ? shown.slides : document.querySelector(".reveal .slides");
    var made = build(kind, settings(options), slides, shown ? shown.container : slides);
    if (shown) {
      made.container.classList.remove("deck-handout-offstage");
      shown.container.replaceWith(made.container);
      shown.container = made.container;
    } else {
      var styles = Array.prototype.slice.call(document.querySelectorAll("style"));
      shown = { slides: slides, container: made.container,
                styles: styles.filter(function (style) { return /@page/.test(style.textContent); }) };
      made.container.classList.remove("deck-handout-offstage");
      shown.slides.replaceWith(made.container);
      shown.styles.forEach(function (style) { style.remove(); });
      document.head.appendChild(el("style", null, paper())).id = "deck-handout-paper";
    }
    root.classList.add("deck-handout", "deck-handout-" + kind);
    if (made.sheets) root.dataset.handoutSheets = String(made.sheets.length);
    if (made.key) document.body.appendChild(made.key);
    window.deckHandoutWarnings = warnings;
    return made.count;
  };
})();
