"""What the layout check measures on a printed page: every slide's content inside its page
and right margin, out of its column's neighbour, out from under the presenter's controls, the
slide number and the footer, and no line cut off inside its box (`OVERFLOW`, run in the page),
and how a finding reads (`Overflow`)."""

from __future__ import annotations

from dataclasses import dataclass

from deck.theme import SLIDE_HEIGHT, SLIDE_WIDTH

# Every slide's content must stay inside its page (the deck's own size, reveal.js's `width` and
# `height`: 1280×720 unless a .qmd says) and its right margin: measure each printed page's
# section and the furthest right/bottom edge of anything visible in it.
OVERFLOW = """() => [...document.querySelectorAll('.pdf-page > section')].map((section, i) => {
  const box = section.getBoundingClientRect();
  let right = box.left, bottom = box.top, colOver = 0, cut = 0;
  for (const el of section.querySelectorAll('*')) {
    // KaTeX draws some glyphs as wide SVGs clipped by their box: measure a formula by its
    // top-level pieces (.katex-base, or .base in older KaTeX) only.
    if (el.closest('aside.notes')) continue;
    if (el.closest('.katex') && !el.matches('.base, .katex-base')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    // Content running out of its column into the neighbouring one.
    const column = el.parentElement && el.parentElement.closest('.column');
    if (column && column.closest('section') === section) {
      const c = column.getBoundingClientRect();
      colOver = Math.max(colOver, Math.round(r.right - (c.right + 4)));
    }
    right = Math.max(right, r.right);
    bottom = Math.max(bottom, r.bottom);
    // Content cut off inside a scrolling or clipping box (a wide formula, a long code line).
    const style = getComputedStyle(el);
    if (style.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 2) {
      right = Math.max(right, r.right + el.scrollWidth - el.clientWidth);
      // (on the slide, what does not fit its box is cut off, wherever the box ends)
      if (!el.closest('aside.notes')) cut = Math.max(cut, el.scrollWidth - el.clientWidth);
    }
    if (style.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 2) {
      bottom = Math.max(bottom, r.bottom + el.scrollHeight - el.clientHeight);
    }
  }
  // The right padding is a margin to keep; the bottom one may be used down to 16 px.
  const padRight = parseFloat(getComputedStyle(section).paddingRight) || 0;
  return {slide: i + 1, source: section.dataset.source || '',
          dx: Math.round(right - (box.left + WIDTH - padRight + 8)),
          dy: Math.round(bottom - (box.top + HEIGHT - 16)), column: colOver,
          cut: Math.round(cut), under: underReserved(section, box)};
}).filter(o => o.dx > 0 || o.dy > 0 || o.column > 0 || o.cut > 0 || o.under.length)"""
# What the presenter's screen lays over a slide: reveal.js's arrows (bottom right: measured at
# 1280×720, x ≥ 1204, y ≥ 675 of the slide; the same px at any size), the slide number and a
# footer. Text (its line boxes, not its paragraph's) and pictures, code and tables must keep
# out of them.
RESERVED = """function underReserved(section, box) {
  const page = section.closest('.pdf-page') || section;
  const zones = [];
  if (!window.Reveal || Reveal.getConfig().controls !== false) {
    const right = box.left + WIDTH, bottom = box.top + HEIGHT;
    zones.push(['the controls',
                {left: right - CONTROLS_W, top: bottom - CONTROLS_H, right, bottom}]);
  }
  page.querySelectorAll('.slide-number-pdf, .footer').forEach(e => {
    const r = e.getBoundingClientRect();
    const name = e.matches('.footer') ? 'the footer' : 'the slide number';
    if (r.width && r.height) zones.push([name, r]);
  });
  const skip = 'aside.notes, .handout, .quiz-explain, .deck-plain, .katex-mathml, .footer, ' +
               '.slide-number-pdf, .slide-logo';  // (the deck's furniture: beside the footer)
  const boxes = [];
  const range = document.createRange();
  const walker = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement;
    if (!/[^\\s\\u200b]/.test(n.textContent) || !e || e.closest(skip)) continue;
    range.selectNodeContents(n);
    boxes.push(...range.getClientRects());
  }
  section.querySelectorAll('img, pre, svg:not(svg svg), canvas, video, table').forEach(e => {
    if (!e.closest(skip)) boxes.push(e.getBoundingClientRect());
  });
  const under = {};
  for (const r of boxes) {
    for (const [name, z] of zones) {
      const w = Math.min(r.right, z.right) - Math.max(r.left, z.left);
      const h = Math.min(r.bottom, z.bottom) - Math.max(r.top, z.top);
      if (w > 0.5 && h > 0.5) under[name] = Math.max(under[name] || 0, Math.round(Math.min(w, h)));
    }
  }
  return Object.entries(under);
}
"""
CONTROLS = (84, 50)  # px of the slide's bottom-right corner under reveal.js's arrows
# The page size the lint measures against is the deck's own, as reveal.js was configured.
PAGE_SIZE = (
    "const config = window.Reveal && Reveal.getConfig ? Reveal.getConfig() : {};"
    f" const WIDTH = Number(config.width) || {SLIDE_WIDTH},"
    f" HEIGHT = Number(config.height) || {SLIDE_HEIGHT};"
)
OVERFLOW = "() => { " + PAGE_SIZE + RESERVED + " return (" + OVERFLOW + ")(); }"
OVERFLOW = OVERFLOW.replace("CONTROLS_W", str(CONTROLS[0])).replace("CONTROLS_H", str(CONTROLS[1]))


@dataclass(frozen=True)
class Overflow:
    slide: int
    source: str  # file:line of the slide
    dx: int  # pixels past the right edge (≤ 0: fits)
    dy: int  # pixels past the bottom edge
    column: int = 0  # pixels some content runs out of its column into the next one
    cut: int = 0  # pixels of a line cut off inside its box (a long code line, a wide formula)
    under: tuple[tuple[str, int], ...] = ()  # (what, px): runs under the controls, number, footer

    def __post_init__(self) -> None:
        object.__setattr__(self, "under", tuple((str(w), int(d)) for w, d in self.under))

    def __str__(self) -> str:
        past = [f"{d} px {side}" for d, side in ((self.dx, "right"), (self.dy, "down")) if d > 0]
        if self.column > 0:
            past.append(f"{self.column} px out of its column")
        said = [f"overflows {', '.join(past)}"] if past else []
        if self.cut > 0 and self.dx <= 0:
            said.append(
                f"cuts off a line {self.cut} px longer than its box (a code line too long for "
                "the slide: break it; `line-length = 88` in the lesson's ruff.toml, as "
                "`build.py new` writes it, makes ruff format keep code to the slide's width)"
            )
        said += [f"runs {d} px under {what}" for what, d in self.under]
        return f"{self.source}: warning [overflow] slide {self.slide} {', '.join(said)}"
