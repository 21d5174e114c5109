// Plain text of a formula, read from the MathML that KaTeX puts beside its visual copy:
// √d_k, QKᵀ, d_model, a²+b²=c². Used where only text fits: PDF bookmarks, the menu, the
// accessible name of a formula in the speaker notes.
(function () {
  "use strict";
  var SUPERSCRIPT = {
    "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸",
    "9": "⁹", "+": "⁺", "-": "⁻", "−": "⁻", "=": "⁼", "(": "⁽", ")": "⁾", "n": "ⁿ", "i": "ⁱ",
    "T": "ᵀ", "⊤": "ᵀ", "′": "′", "*": "*",
  };
  var ACCENTS = { "^": "\u0302", "ˆ": "\u0302", "~": "\u0303", "˜": "\u0303", "¯": "\u0304",
    "‾": "\u0305", "→": "\u20d7", "˙": "\u0307", "¨": "\u0308" };
  var OPERATOR = /[+\-−=±×·÷/<>≤≥≈≠,;:\s]/;

  function children(node) {
    return Array.prototype.filter.call(node.children, function (c) {
      return c.localName !== "annotation" && c.localName !== "annotation-xml";
    });
  }

  // A group that reads as one token needs no parentheses: d_k, QKᵀ, 12, (a+b).
  function group(node) {
    var text = toText(node);
    var wrapped = /^\(.*\)$/.test(text) || /^\[.*\]$/.test(text);
    return OPERATOR.test(text) && !wrapped ? "(" + text + ")" : text;
  }

  function superscript(node) {
    var text = toText(node);
    var out = "";
    for (var k = 0; k < text.length; k++) {
      if (!(text[k] in SUPERSCRIPT)) return "^" + (text.length > 1 ? "(" + text + ")" : text);
      out += SUPERSCRIPT[text[k]];
    }
    return out;
  }

  function toText(node) {
    var kids = children(node);
    switch (node.localName) {
      case "annotation":
      case "annotation-xml":
      case "mphantom":
        return "";
      case "mi":
      case "mn":
      case "mo":
      case "mtext":
      case "ms":
        return node.textContent.replace(/\s+/g, " ");
      case "mspace":
        return "";
      case "msub":
        return group(kids[0]) + "_" + toText(kids[1]);
      case "msup":
        return group(kids[0]) + superscript(kids[1]);
      case "msubsup":
        return group(kids[0]) + "_" + toText(kids[1]) + superscript(kids[2]);
      case "mfrac":
        return group(kids[0]) + "/" + group(kids[1]);
      case "msqrt":
        return "√" + group(kids.length === 1 ? kids[0] : wrap(kids));
      case "mroot":
        return toText(kids[1]) + "√" + group(kids[0]);
      case "mover":
      case "munder":
      case "munderover": {
        var base = toText(kids[0]);
        var mark = kids[kids.length - 1] ? toText(kids[kids.length - 1]).trim() : "";
        if (node.localName === "mover" && mark in ACCENTS) return base + ACCENTS[mark];
        if (/^[∑∏∫⋃⋂]/.test(base)) {
          var under = node.localName !== "mover" ? toText(kids[1]) : "";
          var over = node.localName !== "munder" ? toText(kids[kids.length - 1]) : "";
          return base + (under ? "_" + group(kids[1]) : "") + (over ? superscript(kids[kids.length - 1]) : "");
        }
        return base;
      }
      case "mtable":
        return "[" + kids.map(toText).join("; ") + "]";
      case "mtr":
        return kids.map(toText).join(", ");
      default:
        return kids.map(toText).join("");
    }
  }

  function wrap(kids) {
    return { localName: "mrow", children: kids, textContent: "" };
  }

  // The plain text of one KaTeX formula (a `.katex` or `.katex-display` element).
  function formulaText(katex) {
    var math = katex.querySelector("math");
    return math ? toText(math).replace(/\s+/g, " ").trim() : katex.textContent;
  }

  // An element's text with each formula in its plain form.
  function plainText(element) {
    var copy = element.cloneNode(true);
    copy.querySelectorAll(".deck-plain").forEach(function (e) { e.remove(); });
    copy.querySelectorAll(".katex").forEach(function (k) {
      k.replaceWith(document.createTextNode(formulaText(k)));
    });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }

  window.deckMath = { formulaText: formulaText, plainText: plainText };
})();
