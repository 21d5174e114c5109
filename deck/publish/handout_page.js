// The printer's script (deck/publish/pdf.py runs it in the loaded print layout): a handout as
// a page of its own, HTML text to save beside index.html and print in another tab while this
// one prints the slides. It holds the deck's stylesheets, the paper (@page rules and footer),
// the handout as handout.js lays it out, and no script; the print layout is left as it was.
([kind, options]) => {
  var made = window.deckHandoutBuild(kind, options);
  made.container.classList.remove("deck-handout-offstage");
  var head = Array.prototype.filter.call(document.head.children, function (e) {
    return e.matches('link[rel="stylesheet"]') ||
      (e.matches("style") && !/@page/.test(e.textContent)); // (reveal's own print paper)
  }).map(function (e) { return e.outerHTML; }).join("\n");
  var title = document.createElement("title");
  title.textContent = document.title;
  var paper = document.createElement("style");
  paper.textContent = window.deckHandoutPaper();
  var root = document.createElement("html");
  root.className = document.documentElement.className + " deck-handout deck-handout-" + kind;
  root.setAttribute("lang", document.documentElement.lang);
  var body = document.createElement("body"); // (its classes: reveal.js sets line heights)
  body.className = document.body.className;
  var reveal = document.createElement("div");
  reveal.className = document.querySelector(".reveal").className;
  reveal.appendChild(made.container); // (moved out of this page)
  var page = "<!DOCTYPE html>\n" + root.outerHTML.replace(/<\/html>$/, "") +
    '<head><meta charset="utf-8">' + title.outerHTML + head + paper.outerHTML +
    "</head>" + body.outerHTML.replace(/<\/body>$/, "") + reveal.outerHTML +
    (made.key ? made.key.outerHTML : "") + "</body></html>";
  return page;
}
