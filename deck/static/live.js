// Live preview client: injected by deck/serve.py into the pages it serves, never into dist/.
//
// The server pushes every finished build (server-sent events). When a lesson's files changed,
// this fetches the new index.html and replaces only the <section>s whose HTML changed, keeping
// reveal.js where it was (slide, fragment); figures whose bytes changed are re-fetched. It
// reloads instead when more than slides changed (head, scripts, assets, slide count) or when a
// changed slide holds a quiz (deck.js binds its buttons once); new font subsets (a character
// the deck did not show before) are loaded again in place. Errors show in a banner, and so do
// the slides that overflow, found by slides.pdf's check (config.lint) in a hidden frame.
(function () {
  "use strict";
  // the layout check's own frame is only measured: it neither listens nor checks
  if (window.frameElement && window.frameElement.hasAttribute("data-deck-lint")) return;
  var config = window.DECK_LIVE; // {events, lesson, page, files, layout, lint, viewport}
  var live = (window.deckLive = { ready: false, epoch: null, patches: 0, errors: [], times: {} });
  var baseline = null; // the page as served: {hash, shell, html: [section HTML], nodes}
  var files = config.files || {};
  var versions = {}; // figure path -> hash, for figures that changed since the page loaded
  var banner = null;
  var queue = Promise.resolve();
  var reloading = false;

  function reload() {
    reloading = true;
    location.reload();
  }

  // The banner: at the top, clear of reveal's menu button, arrows and slide number (all at
  // the bottom) and of the search box (top right); its close button or Esc hides it until
  // the errors change.
  var shownText = null;
  var dismissed = null;
  function showErrors(errors, warnings) {
    live.errors = errors;
    live.warnings = warnings || [];
    errors = errors.concat(live.warnings);
    if (!banner && errors.length === 0) return;
    if (!banner) {
      banner = document.createElement("div");
      banner.id = "deck-live-banner";
      banner.setAttribute("role", "alert");
      banner.style.cssText =
        "position:fixed;left:50%;top:8px;transform:translateX(-50%);z-index:99;" +
        "width:min(760px,calc(100vw - 32px));box-sizing:border-box;display:flex;gap:8px;" +
        "align-items:flex-start;padding:10px 10px 10px 16px;background:#fbe7e7;color:#7a1010;" +
        "border:1px solid #c0392b;border-radius:6px;box-shadow:0 2px 8px rgba(0,0,0,.25)";
      var pre = document.createElement("pre");
      pre.id = "deck-live-errors";
      pre.style.cssText =
        "flex:1 1 auto;margin:0;max-height:35vh;overflow:auto;font-size:14px;" +
        "white-space:pre-wrap;font-family:monospace";
      var close = document.createElement("button");
      close.type = "button";
      close.textContent = "×";
      close.setAttribute("aria-label", window.deckStrings ? deckStrings("live").close : "Close");
      close.title = "Esc";
      close.style.cssText =
        "flex:0 0 auto;font-size:20px;line-height:1;padding:2px 8px;cursor:pointer;" +
        "background:transparent;border:1px solid #c0392b;border-radius:4px;color:inherit";
      close.addEventListener("click", dismiss);
      banner.appendChild(pre);
      banner.appendChild(close);
      document.body.appendChild(banner);
    }
    var text = errors.join("\n");
    banner.querySelector("pre").textContent = text;
    if (text !== shownText) dismissed = null; // new errors are shown again
    shownText = text;
    banner.style.background = live.errors.length ? "#fbe7e7" : "#fdf3d8"; // only warnings: amber
    banner.hidden = errors.length === 0 || dismissed === text;
    banner.style.display = banner.hidden ? "none" : "flex";
  }

  function dismiss() {
    if (!banner || banner.hidden) return false;
    dismissed = shownText;
    banner.hidden = true;
    banner.style.display = "none";
    return true;
  }
  // Esc while the banner shows closes it (and only it: reveal.js does not see that key).
  document.addEventListener(
    "keydown",
    function (event) {
      if (event.key === "Escape" && dismiss()) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
    },
    true
  );

  // A page split into what may be patched (the slides) and everything else (the shell).
  function parse(text, hash) {
    live.times.fetched = performance.now();
    var doc = new DOMParser().parseFromString(text, "text/html");
    var script = doc.getElementById("deck-live");
    if (script) script.remove();
    // The subsets of what only notes and handout show (deck.publish.fonts): swapped in place.
    var style = doc.querySelector("style[data-deck-fonts]");
    var fonts = style ? style.textContent : "";
    if (style) style.remove();
    var nodes = Array.prototype.slice.call(doc.querySelectorAll(".reveal .slides > section"));
    var html = nodes.map(function (node) {
      return node.outerHTML;
    });
    nodes.forEach(function (node) {
      node.remove();
    });
    live.times.parsed = performance.now();
    var shell = doc.documentElement.outerHTML;
    return { hash: hash, shell: shell, html: html, nodes: nodes, fonts: fonts };
  }

  function fetchPage() {
    return fetch(location.pathname, { cache: "no-store" }).then(function (response) {
      if (!response.ok) throw new Error("page " + response.status);
      var hash = response.headers.get("X-Deck-Page");
      return response.text().then(function (text) {
        return parse(text, hash);
      });
    });
  }

  function figureKey(src) {
    var url = new URL(src, document.baseURI);
    var base = new URL(".", location.href).pathname;
    if (url.origin !== location.origin || url.pathname.indexOf(base) !== 0) return null;
    return decodeURIComponent(url.pathname.slice(base.length));
  }

  // Point <img>s at a changed figure to a new URL: Chromium keeps decoded images by URL.
  // A slide not yet near has its picture in data-src (reveal loads it later): that too.
  function refreshImages(root) {
    root.querySelectorAll("img[src], img[data-src]").forEach(function (img) {
      var attr = img.hasAttribute("data-src") ? "data-src" : "src";
      var key = figureKey(img.getAttribute(attr));
      if (key === null || !versions[key]) return;
      var url = new URL(key, location.href);
      url.search = "?v=" + versions[key];
      if (new URL(img.getAttribute(attr), document.baseURI).href !== url.href) {
        img.setAttribute(attr, url.href);
      }
    });
  }

  // A new character brings new font subsets (deck.publish.fonts): load them again in place.
  function refreshFonts(inline) {
    var link = document.querySelector('link[href^="assets/fonts.css"]');
    if (link) {
      var copy = link.cloneNode();
      copy.href = "assets/fonts.css?v=" + Date.now();
      copy.onload = function () {
        link.remove();
      };
      link.after(copy);
    }
    var style = document.querySelector("style[data-deck-fonts]");
    if (inline === null || (style && style.textContent === inline)) return;
    if (style) style.remove();
    if (!inline) return;
    style = document.createElement("style");
    style.setAttribute("data-deck-fonts", "");
    style.textContent = inline;
    document.head.appendChild(style);
  }

  function patch(next, fonts) {
    var sections = document.querySelectorAll(".reveal .slides > section");
    if (
      next.shell !== baseline.shell ||
      next.html.length !== baseline.html.length ||
      sections.length !== baseline.html.length
    ) {
      return reload();
    }
    var changed = [];
    next.html.forEach(function (html, i) {
      if (html !== baseline.html[i]) changed.push(i);
    });
    var quiz = changed.some(function (i) {
      return sections[i].querySelector(".quiz") || next.nodes[i].querySelector(".quiz");
    });
    if (quiz) return reload();
    var at = window.Reveal && Reveal.isReady() ? Reveal.getIndices() : null;
    var everything = false;
    var fresh = changed.map(function (i) {
      var old = sections[i];
      var slide = document.importNode(next.nodes[i], true);
      refreshImages(slide);
      // reveal.js keeps a slide's background element on the slide itself: hand it over, so
      // syncing this one slide is enough (a full Reveal.sync() rebuilds every background).
      everything = everything || !old.slideBackgroundElement;
      slide.slideBackgroundElement = old.slideBackgroundElement;
      slide.slideBackgroundContentElement = old.slideBackgroundContentElement;
      old.replaceWith(slide);
      return slide;
    });
    if (fonts || next.fonts !== baseline.fonts) refreshFonts(next.fonts);
    baseline = next;
    live.times.replaced = performance.now();
    if (fresh.length && at) {
      if (everything) Reveal.sync();
      else fresh.forEach(Reveal.syncSlide);
      Reveal.slide(at.h, at.v, at.f); // the current slide may be a new element: point at it
      Reveal.layout();
    }
    live.times.patched = performance.now();
    live.patches += 1;
  }

  function update(info) {
    if (reloading) return;
    if (!info) return; // the lesson is not built (any more): keep what is shown
    if (!baseline) return reload(); // a "not built yet" page: the deck is there now
    var figures = [];
    var other = false;
    var fonts = false;
    Object.keys(files)
      .concat(Object.keys(info.files))
      .forEach(function (key) {
        if (files[key] === info.files[key]) return;
        if (key.indexOf("figures/") === 0) figures.push(key);
        else if (key.indexOf("assets/fonts/") === 0) fonts = true;
        else other = true;
      });
    if (other) return reload();
    figures.forEach(function (key) {
      versions[key] = info.files[key];
    });
    files = info.files;
    if (info.page === baseline.hash) {
      refreshImages(document);
      if (fonts) refreshFonts(null);
      return;
    }
    return fetchPage().then(function (next) {
      refreshImages(document);
      patch(next, fonts);
    });
  }

  // ---- the layout check ------------------------------------------------------------------
  // The deck's print layout in a hidden frame of the slides' size (the audience's page is not
  // touched), then the check, posted to the server with the hash of the page measured, which
  // words it as the PDF build does. One page at a time; a newer build ends the running check.
  var latest = null; // the last status heard
  var checking = false;
  function frameReady(win) {
    return new Promise(function (resolve) {
      (function poll() {
        if (win.document.documentElement.dataset.pdfReady === "true") resolve();
        else win.requestAnimationFrame(poll);
      })();
    }).then(function () {
      return win.document.fonts.ready;
    }).then(function () {
      return Promise.all(Array.prototype.map.call(win.document.images, function (img) {
        return img.decode().catch(function () {});
      }));
    });
  }
  var measuring = null; // the frame of the running check and how to end it early
  function measureLayout() {
    return new Promise(function (resolve, reject) {
      var frame = document.createElement("iframe");
      measuring = { frame: frame, reject: reject };
      frame.setAttribute("data-deck-lint", "");
      frame.setAttribute("aria-hidden", "true");
      frame.tabIndex = -1;
      // the slides' own size (a .qmd's or lesson's width/height), as slides.pdf is printed
      var deck = window.Reveal && Reveal.getConfig ? Reveal.getConfig() : {};
      var width = Number(deck.width) || config.viewport.width;
      var height = Number(deck.height) || config.viewport.height;
      frame.style.cssText =
        "position:fixed;left:-30000px;top:0;border:0;visibility:hidden;pointer-events:none;" +
        "width:" + width + "px;height:" + height + "px";
      frame.onload = function () {
        var win = frame.contentWindow;
        frameReady(win)
          .then(function () {
            var found = win.eval("(" + config.lint + ")()");
            resolve({ page: win.DECK_LIVE.page, overflows: JSON.parse(JSON.stringify(found)) });
          })
          .catch(reject)
          .then(function () {
            frame.remove();
          });
      };
      frame.src = location.pathname + "?print-pdf";
      document.body.appendChild(frame);
    });
  }
  function checkLayout() {
    var status = latest;
    var info = status && status.lessons[config.lesson];
    var done = status && (status.layout || {})[config.lesson];
    if (checking || !config.lint || !info || (done && done.page === info.page)) return;
    checking = true;
    live.layoutChecks = (live.layoutChecks || 0) + 1;
    var measured = measureLayout();
    measuring.page = info.page;
    measured
      .then(function (found) {
        return fetch(config.layout, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ lesson: config.lesson, page: found.page, overflows: found.overflows }),
        });
      })
      .catch(function (error) {
        if (error.message !== "aborted") console.error("deck live preview: layout check:", error);
      })
      .then(function () {
        checking = false;
        measuring = null;
        if (latest !== status) whenIdle(checkLayout); // a newer build came meanwhile
      });
  }
  // Once a second has passed without a newer build (its frame shares this page's main thread:
  // an author saving again at once is not kept waiting by it) and the browser is idle.
  var quiet = null;
  function whenIdle(fn) {
    var ready = window.Reveal && Reveal.isReady() ? Promise.resolve() : new Promise(function (r) {
      window.Reveal ? Reveal.on("ready", r) : window.addEventListener("load", r);
    });
    clearTimeout(quiet);
    quiet = setTimeout(function () {
      ready.then(function () {
        return document.fonts.ready;
      }).then(function () {
        if (window.requestIdleCallback) requestIdleCallback(fn, { timeout: 3000 });
        else setTimeout(fn, 200);
      });
    }, 1000);
  }

  // A newer build ends the check of the older one at once: its hidden frame shares this page's
  // main thread, and the update (and the author's edit on screen) must not wait for it.
  function abortStaleCheck(status) {
    var info = status.lessons[config.lesson];
    if (measuring && (!info || info.page !== measuring.page)) {
      measuring.frame.remove(); // (its loading and scripts stop with it)
      measuring.reject(new Error("aborted"));
      measuring = null;
      live.layoutAborted = (live.layoutAborted || 0) + 1;
    }
  }

  function onStatus(status) {
    live.times = { message: performance.now() };
    abortStaleCheck(status);
    var measured = (status.layout || {})[config.lesson];
    showErrors(status.errors, measured ? measured.warnings : []);
    latest = status;
    var info = status.lessons[config.lesson];
    queue = queue
      .then(function () {
        return update(info);
      })
      .then(function () {
        live.epoch = status.epoch;
        if (!reloading && baseline) whenIdle(checkLayout);
      })
      .catch(function (error) {
        console.error("deck live preview:", error);
        reload();
      });
  }

  queue = (config.page ? fetchPage() : Promise.resolve(null))
    .then(function (page) {
      // A build finished between loading the page and this fetch: start from the new page.
      if (page && page.hash !== config.page) return reload();
      baseline = page;
      live.ready = true;
    })
    .catch(function () {
      live.ready = true;
    });

  // A hidden tab lets go of its connection (browsers allow a few per host) and catches up,
  // from the status sent on connecting, when it is shown again.
  var source = null;
  function connect() {
    if (source || document.hidden) return;
    source = new EventSource(config.events);
    source.onmessage = function (event) {
      onStatus(JSON.parse(event.data));
    };
  }
  document.addEventListener("visibilitychange", function () {
    if (document.hidden && source) {
      source.close();
      source = null;
    }
    connect();
  });
  connect();
})();
