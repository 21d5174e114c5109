// Two windows, one lecture: the projector (the main deck) and reveal's speaker view, whose
// slide previews are more copies of the deck (`?receiver`). What a click, a key or an input
// changes in one copy (a quiz choice, a widget button, a revealed answer) is replayed in every
// other copy, so the lecturer can drive the projector from the preview and the other way round.
//
// The main window is the hub: a preview sends its actions to `parent.opener` (allowed across
// origins, so it works from file://) and the hub replays them and passes them on. A preview
// that connects late gets the whole log replayed. The hub also dresses the speaker window:
// the formula styles for the notes, and a button that reveals the current quiz's answer.
(function () {
  "use strict";
  var NS = "deck-sync";
  var CONTROLS = "button, input, select, textarea";
  var receiver = /(^|[?&])receiver/i.test(window.location.search);
  var replaying = false;
  var log = [];
  var previews = [];
  var handlers = {};
  var speakerWindow = null;
  var speakerButton = null;
  var speakerPlan = "";
  var speakerParts = []; // {name, after, build(doc, box), refresh(box)}: boxes of the speaker view

  function slides() {
    return document.querySelectorAll(".reveal .slides section");
  }

  function address(el) {
    var section = el.closest(".reveal .slides section");
    if (!section) return null;
    var s = Array.prototype.indexOf.call(slides(), section);
    var i = Array.prototype.indexOf.call(section.querySelectorAll(CONTROLS), el);
    return i < 0 ? null : { s: s, i: i };
  }

  function control(action) {
    var section = slides()[action.s];
    return section ? section.querySelectorAll(CONTROLS)[action.i] : null;
  }

  function hub() {
    try {
      return window.parent !== window ? window.parent.opener : window.opener;
    } catch (e) {
      return null;
    }
  }

  function isPreview(win) {
    try {
      return !!win && win.parent !== win && win.parent.opener === window;
    } catch (e) {
      return false;
    }
  }

  // Replays one action in this copy of the deck, without publishing it again.
  function apply(action) {
    replaying = true;
    try {
      var el = action.s === undefined ? null : control(action);
      if (action.kind === "click") {
        if (el) el.click();
      } else if (action.kind === "input" || action.kind === "change") {
        if (!el) return;
        if ("checked" in action) el.checked = action.checked;
        else el.value = action.value;
        el.dispatchEvent(new Event(action.kind, { bubbles: true }));
      } else if (handlers[action.kind]) {
        handlers[action.kind](action);
      }
    } finally {
      replaying = false;
    }
    refreshSpeaker();
  }

  function post(win, message) {
    try {
      win.postMessage(JSON.stringify(message), "*");
    } catch (e) {
      /* a closed window */
    }
  }

  function publish(action, from) {
    if (replaying) return;
    var message = { namespace: NS, type: "action", action: action };
    if (receiver) {
      var main = hub();
      if (main) post(main, message);
      return;
    }
    remember(action);
    previews = previews.filter(function (w) { return !w.closed; });
    previews.forEach(function (w) { if (w !== from) post(w, message); });
    refreshSpeaker();
  }

  // The log a late preview replays. Setting a value (an input, a reveal) is idempotent, so
  // only the last one per control is kept; clicks may toggle, so all of them are.
  function remember(action) {
    if (action.kind !== "click") {
      log = log.filter(function (a) {
        return !(a.kind === action.kind && a.s === action.s && a.i === action.i);
      });
    }
    log.push(action);
  }

  // Does `action` here and in every other window.
  function perform(action) {
    apply(action);
    publish(action);
  }

  document.addEventListener("click", function (event) {
    var el = event.target.closest && event.target.closest(CONTROLS);
    if (replaying || !el) return;
    var pressable = el.tagName === "BUTTON" || /^(button|submit|reset)$/.test(el.type);
    var at = pressable && address(el);
    if (at) publish({ kind: "click", s: at.s, i: at.i });
  }, true);

  ["input", "change"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var el = event.target;
      if (replaying || !el.matches || !el.matches("input, select, textarea")) return;
      var at = address(el);
      if (!at) return;
      var action = { kind: type, s: at.s, i: at.i };
      if (el.type === "checkbox" || el.type === "radio") action.checked = el.checked;
      else action.value = el.value;
      publish(action);
    }, true);
  });

  window.addEventListener("message", function (event) {
    var data;
    try {
      data = typeof event.data === "string" ? JSON.parse(event.data) : event.data;
    } catch (e) {
      return;
    }
    if (!data || typeof data !== "object") return;
    if (data.namespace === "reveal-notes" && !receiver) dressSpeaker(event.source);
    if (data.namespace !== NS) return;
    if (receiver) {
      if (event.source !== hub()) return;
      if (data.type === "action") apply(data.action);
      if (data.type === "replay") data.actions.forEach(apply);
    } else if (isPreview(event.source)) {
      if (previews.indexOf(event.source) < 0) previews.push(event.source);
      if (data.type === "hello") post(event.source, { namespace: NS, type: "replay", actions: log });
      if (data.type === "pause") Reveal.togglePause();
      if (data.type === "action") {
        apply(data.action);
        publish(data.action, event.source);
      }
    }
  });

  // ---- clicker-safe focus --------------------------------------------------------------
  // A control clicked with the mouse (a quiz choice, a widget's button or slider) keeps the
  // focus, and reveal leaves keys alone while an input has it: a clicker's page turn would
  // press the button again or move the slider. So a navigation key lets go of a control in a
  // slide first, unless the keyboard put the focus there (Tab: Space presses it, arrows move
  // a slider) or the control takes typed text. PageUp/PageDown, which clickers send and which
  // no lecturer types into a slide, always turn the page.
  var NAV_KEYS = ["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", " ", "Home", "End"];
  var TYPED = /^(text|search|email|url|tel|password|number)$/;
  // Chromium's :focus-visible turns on at the first key pressed, so the pointer is tracked.
  var pointing = false;
  var pointerFocused = null;
  window.addEventListener("pointerdown", function () { pointing = true; }, true);
  window.addEventListener("focusin", function (event) {
    pointerFocused = pointing ? event.target : null;
  }, true);
  window.addEventListener("keydown", function (event) {
    pointing = false;
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    var clicker = event.key === "PageUp" || event.key === "PageDown";
    if (!clicker && NAV_KEYS.indexOf(event.key) < 0) return;
    var el = document.activeElement;
    if (!el || !el.closest || !el.closest(".reveal .slides")) return;
    var typed = el.isContentEditable || el.tagName === "TEXTAREA" ||
      (el.tagName === "INPUT" && TYPED.test(el.type));
    if (clicker || (!typed && el === pointerFocused)) el.blur();
  }, true);

  // The speaker window hands its keys to the current slide's preview, which turns the page
  // (and `A` reveals the answer) everywhere. With the focus in the upcoming slide's preview
  // (the lecturer clicked it) the keys would drive that preview alone, a slide ahead: they go
  // to the current one instead. Only the current preview posts its events (reveal's notes
  // plugin asks it to); the upcoming one is the other frame of the speaker window.
  // "." (blank the screen) from the speaker window goes straight to the projector, which
  // toggles its own pause: reveal's speaker view would pause the preview and tell the
  // projector half a second later (debounced), so a second "." pressed meanwhile was lost or
  // undone by the state coming back. The projector's state then reaches the previews.
  function pauseKey(event) {
    return (event.key === "." || event.keyCode === 190) && !event.ctrlKey && !event.altKey &&
      !event.metaKey;
  }
  if (receiver) {
    window.addEventListener("keydown", function (event) {
      var main = hub();
      if (!pauseKey(event) || !main) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      post(main, { namespace: NS, type: "pause" });
    }, true);
  }

  var upcoming = receiver && !/[?&]postMessageEvents=true/.test(window.location.search);
  if (upcoming) {
    window.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.altKey || event.metaKey) return;
      var frames = window.parent.frames;
      for (var k = 0; k < frames.length; k++) {
        if (frames[k] !== window) {
          frames[k].postMessage(JSON.stringify({ method: "triggerKey", args: [event.keyCode] }),
            "*");
          event.preventDefault();
          event.stopImmediatePropagation();
          return;
        }
      }
    }, true);
  }

  // A preview asks for what happened before it loaded once its own deck is set up.
  Reveal.on("ready", function () {
    if (receiver && hub()) post(hub(), { namespace: NS, type: "hello" });
    refreshSpeaker();
  });

  // ---- the speaker window ------------------------------------------------------------

  var SPEAKER_CSS = [
    ".speaker-controls-notes .value { font-family: 'Noto Sans CJK SC', 'Noto Sans SC', sans-serif; }",
    ".speaker-controls-deck { padding: 10px 16px; border-bottom: 1px solid rgba(200,200,200,.5); }",
    ".speaker-controls-deck button { font: inherit; font-size: 16px; padding: 6px 14px;",
    "  border: 2px solid #1a5fb4; border-radius: 6px; background: #fff; color: #1a5fb4;",
    "  cursor: pointer; }",
    ".speaker-controls-deck button[aria-pressed=true] { background: #1a5fb4; color: #fff; }",
    ".speaker-controls-deck button:disabled { border-color: #aaa; color: #767676; cursor: default; }",
    // The "Upcoming" label above the next slide's preview, not over its title.
    "#upcoming-slide { padding-top: 46px; }",
    "#upcoming-slide .label { top: 6px; }",
    ".deck-speaker-part h4 { margin: 0 0 6px; font-size: 14px; text-transform: uppercase;",
    "  color: #555; }",
    ".deck-speaker-part ol, .deck-speaker-part ul { margin: 0 0 8px; padding-left: 0;",
    "  list-style: none; font-size: 18px; }",
    ".deck-speaker-part li { margin: 2px 0; }",
    ".deck-speaker-values li { margin: 0 0 8px; }",
    ".deck-speaker-values code, .deck-speaker-values pre { font-family: 'DejaVu Sans Mono',",
    "  monospace; font-size: 14px; }",
    ".deck-speaker-values pre { margin: 2px 0 0; white-space: pre-wrap; background: #f4f4f4;",
    "  padding: 2px 6px; }",
    ".deck-speaker-values .deck-value-text { font-weight: 700; }",
  ].join("\n");

  // reveal's own labels of the speaker view, in the deck's language (strings.js).
  function speakerLabels(doc) {
    var text = window.deckStrings("speaker");
    var set = function (selector, value) {
      var el = doc.querySelector(selector);
      if (el) el.textContent = value;
    };
    set("#upcoming-slide > .label", text.upcoming);
    set(".speaker-controls-time .reset-button", text.reset);
    set(".speaker-controls-time .pacing-title", text.pacing);
    set(".speaker-controls-notes > .label", text.notes);
    var time = doc.querySelector(".speaker-controls-time > h4.label");
    if (time && time.firstChild && time.firstChild.nodeType === 3) {
      time.firstChild.textContent = text.time + " ";
    }
    // The layout menu: its choices, and its label, which reveal writes again on a change.
    var menu = doc.querySelector(".speaker-layout-dropdown");
    var label = doc.querySelector(".speaker-layout-label");
    if (!menu || !label) return;
    Array.prototype.forEach.call(menu.options, function (option) {
      if (text.layouts[option.value]) option.textContent = text.layouts[option.value];
    });
    var show = function () {
      var option = menu.options[menu.selectedIndex];
      if (option) label.textContent = text.layout(option.textContent);
    };
    menu.addEventListener("change", show);
    show();
  }

  function dressSpeaker(win) {
    var doc;
    try {
      doc = win && win !== window && win.document;
      if (!doc || !doc.querySelector("#speaker-controls")) return;
    } catch (e) {
      return;
    }
    var first = speakerWindow === null;
    speakerWindow = win;
    // Dressed already (this page reloaded): its parts are filled at the first message when
    // reveal was ready before it came, which the "ready" event could not do.
    if (doc.getElementById("deck-speaker-style")) {
      if (first) refreshSpeaker();
      return;
    }
    win.addEventListener("keydown", function (event) {
      if (!pauseKey(event)) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      Reveal.togglePause();
    }, true);
    // The stylesheets marked for it (KaTeX's): formulas in the notes look as on the slides.
    document.querySelectorAll("[data-speaker-css]").forEach(function (el) {
      var copy;
      if (el.tagName === "LINK") {
        copy = doc.createElement("link");
        copy.rel = "stylesheet";
        copy.href = el.href;
      } else {
        copy = doc.createElement("style");
        copy.textContent = el.textContent;
      }
      doc.head.appendChild(copy);
    });
    var style = doc.createElement("style");
    style.id = "deck-speaker-style";
    style.textContent = SPEAKER_CSS;
    doc.head.appendChild(style);
    doc.documentElement.lang = document.documentElement.lang;
    speakerLabels(doc);
    var controls = doc.querySelector("#speaker-controls");
    if (speakerPlan) {
      var plan = doc.createElement("div");
      plan.className = "speaker-controls-deck deck-speaker-plan";
      plan.textContent = speakerPlan;
      controls.insertBefore(plan, controls.querySelector(".speaker-controls-notes"));
    }
    if (speakerButton) {
      var box = doc.createElement("div");
      box.className = "speaker-controls-deck";
      var button = doc.createElement("button");
      button.type = "button";
      button.className = "deck-speaker-button";
      button.addEventListener("click", function () { speakerButton.press(); });
      box.appendChild(button);
      controls.insertBefore(box, controls.querySelector(".speaker-controls-notes"));
    }
    var notes = controls.querySelector(".speaker-controls-notes");
    speakerParts.forEach(function (part) {
      var box = doc.createElement("div");
      box.className = "speaker-controls-deck deck-speaker-part deck-speaker-" + part.name;
      part.build(doc, box);
      controls.insertBefore(box, part.after && notes ? notes.nextSibling : notes);
    });
    refreshSpeaker();
  }

  // Not before reveal is set up: the speaker window's heartbeat can reach a page that is
  // still loading its scripts (it reloaded), and the parts ask reveal for the current slide.
  function refreshSpeaker() {
    if (!speakerWindow || speakerWindow.closed || !Reveal.isReady()) return;
    var doc = speakerWindow.document;
    speakerParts.forEach(function (part) {
      var box = doc.querySelector(".deck-speaker-" + part.name);
      if (box) part.refresh(box);
    });
    var button = speakerButton && doc.querySelector(".deck-speaker-button");
    if (!button) return;
    var state = speakerButton.state();
    button.textContent = state.label;
    button.disabled = !state.enabled;
    button.setAttribute("aria-pressed", state.pressed ? "true" : "false");
    button.parentNode.hidden = !state.enabled; // the notes keep the room on other slides
  }

  window.deckPresent = {
    receiver: receiver,
    perform: perform,
    // `kind` → function(action) applying an action of that kind in this window.
    handle: function (kind, fn) { handlers[kind] = fn; },
    // {state() → {label, enabled, pressed}, press()}: a button in the speaker window.
    speakerButton: function (spec) { speakerButton = spec; refreshSpeaker(); },
    refreshSpeaker: refreshSpeaker,
    // A box of the speaker view, above the notes (below them with `after: true`): `build(doc,
    // box)` fills it once, `refresh(box)` on every slide change and action.
    speakerPart: function (spec) { speakerParts.push(spec); refreshSpeaker(); },
    // A line the speaker window shows above the notes (the planned minutes), as text.
    speakerInfo: function (text) { speakerPlan = String(text); },
    speakerWindow: function () { return speakerWindow; },
  };
})();
