// Quarto's reveal.js behaviour: the themes and tab sets. Loaded before deck.js, which starts
// reveal.js with `window.deckOptions.reveal` over its own settings.
(function () {
  "use strict";
  var options = window.deckOptions || {};
  // `theme: sky`… (quarto.css draws each); `theme: [default, custom.scss]` adds the author's
  if (options.theme && options.theme !== "default") {
    document.documentElement.classList.add("deck-theme-" + options.theme);
  }
  if (options.customTheme) document.documentElement.classList.add("deck-theme-custom");

  // `::: panel-tabset`: a tab's button shows its panel, hides the others of its set.
  document.querySelectorAll(".reveal .panel-tabset").forEach(function (tabset) {
    var links = Array.prototype.slice.call(tabset.querySelectorAll(".panel-tabset-tabby button"));
    var panes = Array.prototype.slice.call(
      tabset.querySelectorAll(":scope > .tab-content > .tab-pane"));
    function show(index) {
      links.forEach(function (link, k) {
        link.classList.toggle("active", k === index);
        link.setAttribute("aria-selected", k === index ? "true" : "false");
      });
      panes.forEach(function (pane, k) { pane.classList.toggle("active", k === index); });
      if (window.Reveal && Reveal.isReady && Reveal.isReady()) Reveal.layout();
    }
    links.forEach(function (link, k) {
      link.addEventListener("click", function () { show(k); });
    });
  });
})();
