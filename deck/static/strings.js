// The deck's UI strings, one table per language (by `lang:` of lesson.yml, `de-CH` → `de`),
// all in deck/static/strings.json (the engine's Python reads the same file: deck/strings.py).
// The deck's assets/strings.js is the page's parts of those tables (`window.deckStringTables`,
// written by deck.strings.page_script) followed by this script: no fetch, offline. Adding a
// language is one more table there. A language without a table, or a string its table lacks,
// is English. deck.js, handout.js, provenance.js, present.js (reveal's speaker view's own
// labels), the widgets and the live preview ask `deckStrings(part)` for theirs; a message (an
// object with `args` in English) becomes a function of those arguments (deck/strings.py says
// how its text is chosen). (A note's minutes are read in any language: deck.js.)
(function () {
  "use strict";
  var TABLES = window.deckStringTables || { en: {} };
  var asked = String(document.documentElement.lang || "en").split("-")[0].toLowerCase();
  var lang = TABLES.hasOwnProperty(asked) ? asked : "en";
  var rules = null;
  try {
    rules = new Intl.PluralRules(lang);
  } catch (e) {
    rules = null; // (no Intl: one is 1, anything else other)
  }
  var list = ((TABLES[lang].format || {}).list || (TABLES.en.format || {}).list || ", ");

  function category(n) {
    return rules ? rules.select(n) : n === 1 ? "one" : "other";
  }

  function fill(text, names, args) {
    return String(text).replace(/\{(\w+)\}/g, function (whole, name) {
      var k = names.indexOf(name);
      if (k < 0) return whole;
      var value = args[k];
      return Array.isArray(value) ? value.join(list) : String(value);
    });
  }

  // A message as a function of `names` (English's `args`): its text, or the form its count picks.
  function message(own, names) {
    var m = typeof own === "string" ? { text: own } : own;
    return function () {
      var args = arguments;
      var form = "text";
      if (m.count) {
        var value = args[names.indexOf(m.count)];
        var n = Array.isArray(value) ? value.length : Number(value);
        form = !n && m.hasOwnProperty("=0") ? "=0" : category(n);
      }
      var text = m.hasOwnProperty(form) ? m[form] : m.hasOwnProperty("other") ? m.other : m.text;
      return fill(text, names, args);
    };
  }

  // English's keys, each from `own` where it has it (a nested table key by key).
  function merged(english, own) {
    var out = {};
    own = own && typeof own === "object" ? own : {};
    Object.keys(english).forEach(function (key) {
      var en = english[key];
      var mine = own.hasOwnProperty(key) ? own[key] : en;
      var table = en && typeof en === "object";
      if (table && en.args) out[key] = message(mine, en.args);
      else if (table) out[key] = merged(en, mine);
      else out[key] = mine;
    });
    return out;
  }

  // `part`'s strings in the deck's language, each one it lacks in English.
  function deckStrings(part) {
    return merged(TABLES.en[part] || {}, TABLES[lang][part]);
  }
  deckStrings.lang = lang; // the table in use ("en" for a language without one)
  deckStrings.tables = TABLES;
  window.deckStrings = deckStrings;
})();
