"""The single file inlines what a tag names however HTML lets its attribute be written:
double-quoted, single-quoted (`<img src='pic.png'>`) or bare (`<img src=pic.png>`), for
pictures (`src`, `data-src`, a video's `poster`, a slide's background image), stylesheets and
scripts. Each test opens the
single file alone, copied into an empty folder, in Chromium: it asks for nothing but itself
(and `data:` URLs), and every picture has a width."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from catalogue import write_lesson
from fixture_build import run_cli

pytestmark = pytest.mark.browser


def svg(width: int) -> str:
    """A picture known by its width (its naturalWidth in the page)."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="5">'
        f'<rect width="{width}" height="5" fill="purple"/></svg>'
    )


LESSON = {
    "lesson.yml": "title: Quotes\nlang: en\n",
    "01-a.md": """\
## First

Double <img src="p/21.svg" alt="d">, single <img alt='s' src='p/22.svg'>, bare <img src=p/23.svg>.

## Later

Single <img src='p/24.svg' alt='s'> and bare <img alt=b src=p/25.svg> (reveal.js loads these
late: `data-src`).

![As Markdown](p/26.svg)

## A raw block

```{=html}
<img src=p/27.svg alt="raw, bare"><img src='p/28.svg' alt="raw, single">
<video poster='p/29.svg' controls></video>
```

## Backdrop {#backdrop background-image="p/30.svg"}

A slide background.
""",
    **{f"p/{n}.svg": svg(n) for n in range(21, 31)},
}
# The pictures `selector` finds (on slides: not the plugins' own), each decoded
PICTURES = """async selector => {
  const images = [...document.querySelectorAll(selector)];
  await Promise.all(images.map(i => i.decode().catch(() => null)));
  const posters = await Promise.all([...document.querySelectorAll('video[poster]')].map(v =>
    new Promise(done => { const i = new Image(); i.onload = () => done(i.naturalWidth);
      i.onerror = () => done(0); i.src = v.poster; })));
  return {widths: images.map(i => i.naturalWidth), srcs: images.map(i => i.src.slice(0, 5)),
          posters};
}"""


SLIDE_PICTURES = ".reveal .slides img"


def alone(single: Path, folder: Path) -> Path:
    """The single file copied alone into an empty folder: nothing beside it to load."""
    folder.mkdir()
    return Path(shutil.copy(single, folder / single.name))


def open_alone(context, path: Path, query: str = ""):
    """`path` opened in Chromium; the list of every request for something else, filled as
    the page runs (a data: URL is the page's own)."""
    page = context.new_page()
    url = path.as_uri()
    asked: list[str] = []
    page.on(
        "request",
        lambda r: (
            None if r.url.startswith("data:") or r.url == url + query else asked.append(r.url)
        ),
    )
    page.goto(url + query)
    return page, asked


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("quotes")
    write_lesson(root, LESSON, "quotes")
    ran = run_cli(root, "quotes", "--no-pdf", "--single-file")
    assert ran.returncode == 0, ran.stderr
    return alone(root / "dist/quotes.html", root / "sent")


def test_every_picture_of_the_single_file_loads_alone(single: Path, context):
    page, asked = open_alone(context, single, "?print-pdf")  # (every slide's pictures)
    page.wait_for_function("document.documentElement.dataset.pdfReady === 'true'")
    shown = page.evaluate(PICTURES, SLIDE_PICTURES)
    assert sorted(shown["widths"]) == list(range(21, 29)), shown
    assert set(shown["srcs"]) == {"data:"}
    assert shown["posters"] == [29]
    assert asked == []


def test_pictures_far_away_load_when_their_slide_comes(single: Path, context):
    """The presenting view: `data-src` pictures, inlined, load as their slide comes near."""
    page, asked = open_alone(context, single)
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    for number in range(page.evaluate("Reveal.getTotalSlides()")):
        page.evaluate(f"Reveal.slide({number})")
        page.wait_for_function(
            "[...document.querySelectorAll('section.present img')]"
            ".every(i => i.getAttribute('src') && i.complete)"
        )
    shown = page.evaluate(PICTURES, SLIDE_PICTURES)
    assert sorted(shown["widths"]) == list(range(21, 29)), shown
    assert asked == []


BACKGROUND = """() => new Promise(done => {
  const shown = getComputedStyle(
    document.querySelector('.slide-background.present .slide-background-content')
  ).backgroundImage;
  const url = (shown.match(/^url\\("(.*)"\\)$/) || [])[1] || '';
  const i = new Image(); i.onload = () => done([url.slice(0, 5), i.naturalWidth]);
  i.onerror = () => done([url.slice(0, 5), 0]); i.src = url;
})"""


def test_a_slide_background_is_inlined(single: Path, context):
    page, asked = open_alone(context, single)
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    page.evaluate("Reveal.slide(Reveal.getIndices(document.getElementById('backdrop')).h)")
    page.wait_for_function("Reveal.getCurrentSlide().id === 'backdrop'")
    assert page.evaluate(BACKGROUND) == ["data:", 30]
    assert asked == []


def test_stylesheets_and_scripts_in_any_quotes_are_inlined(tmp_path: Path, context):
    """A page of the inliner's own: `<link rel=stylesheet href='a.css'>`, a bare
    `<script src=b.js>`, a single-quoted one with another attribute, a picture the
    stylesheet names."""
    from deck.publish.singlefile import inline_deck

    deck = tmp_path / "deck"
    (deck / "assets").mkdir(parents=True)
    (deck / "a.css").write_text("h1 { color: rgb(1, 2, 3); }\n")
    (deck / "assets/b.css").write_text("p { background-image: url(../bg.svg); }\n")
    (deck / "bg.svg").write_text(svg(31))
    (deck / "pic.svg").write_text(svg(32))
    (deck / "b.js").write_text("window.bare = 1;\n")
    (deck / "c.js").write_text("window.single = document.currentScript.dataset.x;\n")
    (deck / "index.html").write_text(
        "<!doctype html><html><head>\n"
        "<link rel=stylesheet href='a.css'>\n"
        "<link href=assets/b.css rel='stylesheet' media=all>\n"
        "</head><body><h1>Title</h1><p>Text</p>\n"
        "<img src=pic.svg alt=bare><img alt='single' src='pic.svg'>\n"
        "<script src=b.js></script>\n"
        "<script data-x='yes' src='c.js'></script>\n"
        "</body></html>\n"
    )
    sent = tmp_path / "sent"
    sent.mkdir()
    (sent / "deck.html").write_text(inline_deck(deck / "index.html"), "utf-8")
    page, asked = open_alone(context, sent / "deck.html")
    page.wait_for_load_state("load")
    assert page.evaluate("getComputedStyle(document.querySelector('h1')).color") == "rgb(1, 2, 3)"
    background = page.evaluate("getComputedStyle(document.querySelector('p')).backgroundImage")
    assert background.startswith('url("data:image/svg+xml;base64,')
    assert page.evaluate("[window.bare, window.single]") == [1, "yes"]
    assert page.evaluate(PICTURES, "img")["widths"] == [32, 32]
    assert asked == []
