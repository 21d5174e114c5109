"""Pictures load when their slide comes near (issue 19, item 9): the first slide's at once,
every other slide's through reveal.js's `data-src` (within its view distance), and all of them
in the print view, in the single file too. Chromium parses each SVG on its main thread, so a
deck with many figures painted its first slide only after parsing them all."""

from __future__ import annotations

import pytest

from catalogue import write_lesson
from fixture_build import run_cli

pytestmark = pytest.mark.browser

FIGURE = """
```{{python}}
#| fig-alt: "A line of slope {k}"
import matplotlib.pyplot as plt
plt.figure(figsize=(4, 2))
plt.plot([0, 1], [0, {k}])
plt.show()
```

"""
LESSON = {
    "lesson.yml": "title: Lazy\nlang: en\n",
    "01-a.md": "## One\n\n![A square](square.svg)\n\n"
    + "".join(
        f"## Slide {k}\n\n" + (FIGURE.format(k=k) if k in (2, 9) else "Text.\n")
        for k in range(2, 10)
    ),
    "square.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    '<rect width="10" height="10" fill="blue"/></svg>',
}
LOADED = """sel => [...document.querySelectorAll(sel)].map(
  img => ({src: img.getAttribute('src'), lazy: img.getAttribute('data-src'),
           width: img.naturalWidth}))"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("lazy")
    write_lesson(root, LESSON, "lazy")
    ran = run_cli(root, "lazy", "--no-pdf", "--single-file")
    assert ran.returncode == 0, ran.stderr
    return root / "dist"


def _slides(page):
    return page.evaluate(
        "[...document.querySelectorAll('.reveal .slides > section')]"
        ".map(s => [...s.querySelectorAll('img')].length)"
    )


@pytest.mark.parametrize("single", [False, True], ids=["folder", "single-file"])
def test_far_pictures_wait_for_their_slide(context, built, single):
    url = (built / "lazy.html" if single else built / "lazy" / "index.html").as_uri()
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(url)
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    assert _slides(page) == [1, 1, 0, 0, 0, 0, 0, 0, 1]
    first, near, far = page.evaluate(LOADED, ".reveal .slides > section img")
    assert first["src"] and first["lazy"] is None  # the first slide's picture: at once
    page.wait_for_function("document.querySelector('.reveal .slides > section img').complete")
    assert page.evaluate(LOADED, ".reveal .slides > section img")[0]["width"] == 10
    assert near["src"] or near["lazy"]  # within reveal's view distance: loaded, or about to
    assert far["src"] is None and far["lazy"]  # nine slides away: not loaded
    if not single:
        assert far["lazy"].endswith(".svg") and not [u for u in asked if u.endswith(far["lazy"])]
    page.evaluate("Reveal.slide(8)")
    page.wait_for_function(
        "() => { const i = document.querySelector('section.present img');"
        " return i && i.getAttribute('src') && i.complete && i.naturalWidth > 0; }"
    )
    assert page.evaluate(LOADED, "section.present img")[0]["lazy"] is None


def test_the_print_view_loads_every_picture(context, built):
    page = context.new_page()
    page.goto((built / "lazy" / "index.html").as_uri() + "?print-pdf")
    page.wait_for_function("document.documentElement.dataset.pdfReady === 'true'")
    page.wait_for_function("[...document.images].every(i => i.complete)")
    pictures = page.evaluate(LOADED, ".pdf-page img")
    assert len(pictures) == 3
    assert all(p["src"] and p["lazy"] is None and p["width"] > 0 for p in pictures), pictures
