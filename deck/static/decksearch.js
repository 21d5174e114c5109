// Search (reveal's plugin, Ctrl+Shift+F), after deck.js in the deck's assets/deck.js
// (deck.publish.assets: one script). The plugin also searches the speaker notes, which the
// slide does not show: when the slide it turned to matches only there, say so beside the
// box. Esc in the box closes it.
(function () {
  "use strict";
  var SEARCH = window.deckStrings("search");
  function searchMarks(section) {
    return Array.prototype.slice.call(section.querySelectorAll("em")).filter(function (em) {
      return em.style.backgroundColor && em.style.fontStyle === "inherit";
    });
  }
  function labelSearch() {
    var box = document.querySelector(".reveal .searchbox");
    var slide = Reveal.getCurrentSlide();
    if (!box || !slide) return;
    var label = box.querySelector(".deck-search-where");
    if (!label) {
      label = document.createElement("span");
      label.className = "deck-search-where";
      label.setAttribute("role", "status");
      box.appendChild(label);
    }
    var marks = searchMarks(slide);
    // Shown: laid out, not in the notes (a handout block, a formula's MathML are matched too).
    var shown = marks.filter(function (m) {
      return !m.closest("aside.notes") && m.getClientRects().length > 0;
    });
    var notes = marks.some(function (m) { return m.closest("aside.notes"); });
    label.textContent = !marks.length || shown.length ? "" : notes ? SEARCH.notesOnly
      : SEARCH.hiddenOnly;
    label.hidden = !label.textContent;
  }
  document.addEventListener("keyup", function (event) {
    if (event.keyCode === 13 && event.target.matches && event.target.matches(".searchinput")) {
      labelSearch();
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || !event.target.matches || !event.target.matches(".searchinput")) {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    var search = Reveal.getPlugin("search");
    if (search) search.close();
    event.target.blur();
  }, true);
})();
