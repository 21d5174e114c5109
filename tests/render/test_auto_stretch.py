"""Quarto's `auto-stretch` (issue 32 item 7): a slide's lone image grows to the height the slide
has left (reveal.js's `r-stretch`), by the rules of Quarto's `applyStretch` (quarto-cli
src/format/reveal/format-reveal.ts): not on a `.nostretch` slide, one with more than one image
or an aside; not an image in columns, a layout panel, a fragment or a tab panel, inline among
text, inside a link, with a height of its own or `.absolute`; the caption below it. On in a
`.qmd` (Quarto's default; `auto-stretch: false` turns it off), off in a lesson folder unless
its `slides:` asks. The pass alone (`deck.render.transforms.auto_stretch`), then the built
decks in Chromium, on screen and in the print view slides.pdf is printed from."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from catalogue import write_lesson
from deck.model import Loc
from deck.render import transforms
from deck.render.frame import DeckSettings
from deck.render.store import RenderedSlide
from deck.render.transforms import DeckPass
from deck.source.folder import load_lesson
from deck.source.qmd import load_qmd
from fixture_build import run_cli

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "stretch"
IMG = '<img alt="" src="pic.png">'


def slide(body: str, *classes: str) -> RenderedSlide:
    return RenderedSlide(1, "talk", "S", 2, Loc("talk.qmd", 5), classes, {}, body, "")


def qmd_pass(tmp_path: Path, front: str = "") -> DeckPass:
    (tmp_path / "talk.qmd").write_text(f"---\ntitle: T\n{front}---\n\n## A\n\nx\n", "utf-8")
    return DeckPass(load_qmd(tmp_path / "talk.qmd"), DeckSettings(), None)


def lesson_pass(tmp_path: Path, yml: str = "") -> DeckPass:
    folder = tmp_path / "lesson"
    folder.mkdir(parents=True)
    (folder / "lesson.yml").write_text(f"title: T\nlang: en\n{yml}", "utf-8")
    (folder / "01-a.md").write_text("## A\n\nText.\n", "utf-8")
    return DeckPass(load_lesson(folder), DeckSettings(), None)


TOP = "auto-stretch: false\n"
FORMAT = "format:\n  revealjs:\n    auto-stretch: false\n"
# (body, stretched?) as Quarto's applyStretch decides for the same slide
STRETCHED = {
    "alone in its paragraph": (f"<p>{IMG}</p>", True),
    "a figure with its caption": (f"<figure>{IMG}<figcaption>C</figcaption></figure>", True),
    "a cell's figure": (f'<div class="cell"><figure>{IMG}</figure></div>', True),
    "after a paragraph of text": (f"<p>Text.</p> <p>{IMG}</p>", True),
    "two images": (f"<p>{IMG}</p><p>{IMG}</p>", False),
    "an aside": (f'<p>{IMG}</p><aside class="slide-aside">x</aside>', False),
    "in a column": (f'<div class="columns"><div class="column"><p>{IMG}</p></div></div>', False),
    "in a fragment": (f'<div class="fragment"><p>{IMG}</p></div>', False),
    "in an inline fragment": (f'<p><span class="fragment">{IMG}</span></p>', False),
    "a cell's output in a fragment": (
        f'<div class="cell"><div class="fragment"><figure>{IMG}</figure></div></div>',
        False,
    ),
    "a cell's output in columns": (
        f'<div class="cell"><div class="columns"><div class="column">{IMG}</div></div></div>',
        False,
    ),
    "in a tab panel": (f'<div class="panel-tabset"><div class="tab-pane">{IMG}</div></div>', False),
    "in a layout panel": (f'<div class="cell" style="display:grid">{IMG}</div>', False),
    "inline among text": (f"<p>Text {IMG} more.</p>", False),
    "inside a link": (f'<p><a href="x">{IMG}</a></p>', False),
    "in a custom div": (f'<div class="note">{IMG}</div>', False),
    "a height attribute": ('<p><img src="pic.png" height="100"></p>', False),
    "a height in its style": ('<p><img src="pic.png" style="height: 50px"></p>', False),
    "absolute": ('<p><img class="absolute" src="pic.png" style="top: 10px"></p>', False),
    "the image's .nostretch": ('<p><img class="nostretch" src="pic.png"></p>', False),
    "no image": ("<p>Text.</p>", False),
}


@pytest.mark.parametrize("case", STRETCHED)
def test_the_pass_alone_decides_as_quarto(tmp_path: Path, case: str) -> None:
    body, expected = STRETCHED[case]
    (out,), warnings = transforms.auto_stretch([slide(body)], qmd_pass(tmp_path))
    assert warnings == []
    assert ("deck-stretch" in out.classes) is expected
    assert ('class="r-stretch"' in out.body) is expected
    if not expected:
        assert out.body == body  # left exactly as it was


def test_the_pass_marks_the_blocks_around_the_image(tmp_path: Path) -> None:
    body = f'<div class="cell"><figure>{IMG}<figcaption>A &gt; b</figcaption></figure></div>'
    (out,), _ = transforms.auto_stretch([slide(body)], qmd_pass(tmp_path))
    assert out.body == (
        '<div class="cell deck-stretch-box"><figure class="deck-stretch-box">'
        '<img class="r-stretch" alt="" src="pic.png"><figcaption>A &gt; b</figcaption>'
        "</figure></div>"
    )


def test_a_nostretch_slide_is_left_alone(tmp_path: Path) -> None:
    before = slide(f"<p>{IMG}</p>", "nostretch")
    assert transforms.auto_stretch([before], qmd_pass(tmp_path))[0] == [before]


@pytest.mark.parametrize("front", [TOP, FORMAT], ids=["top", "format"])
def test_auto_stretch_false_turns_it_off_but_not_an_images_own_class(tmp_path, front) -> None:
    at = qmd_pass(tmp_path, front)
    own = slide('<p><img class="r-stretch" src="pic.png"></p>')
    plain = slide(f"<p>{IMG}</p>")
    out, _ = transforms.auto_stretch([plain, own], at)
    assert out[0] == plain
    assert "deck-stretch" in out[1].classes  # `{.r-stretch}` as Quarto lifts it either way


def test_a_lesson_keeps_its_look_unless_its_slides_ask(tmp_path: Path) -> None:
    plain = slide(f"<p>{IMG}</p>")
    assert transforms.auto_stretch([plain], lesson_pass(tmp_path))[0] == [plain]
    asked = lesson_pass(tmp_path / "asked", "slides:\n  auto-stretch: true\n")
    assert "deck-stretch" in transforms.auto_stretch([plain], asked)[0][0].classes


def test_it_runs_before_the_frame_puts_the_logo_on_the_slide() -> None:
    names = [name for name, _ in transforms.TRANSFORMS]
    assert names.index("auto-stretch") < names.index("frame") < names.index("late pictures")


# ---- in Chromium ----------------------------------------------------------------------------

MEASURE = """sel => [...document.querySelectorAll(sel)].map(s => {
  const img = s.querySelector('img'), head = s.querySelector(':scope > h2');
  const box = s.getBoundingClientRect(), scale = box.height / s.offsetHeight;
  if (!img || !head) return null;
  const r = img.getBoundingClientRect(), h = head.getBoundingClientRect();
  const px = v => Math.round(v / scale);
  return {title: head.textContent, stretch: s.classList.contains('deck-stretch'),
          top: px(r.top - box.top), bottom: px(r.bottom - box.top), height: px(r.height),
          left: px(r.left - box.left), right: px(r.right - box.left), width: px(r.width),
          below: px(h.bottom - box.top), slide: px(box.height), wide: px(box.width)};
}).filter(Boolean)"""
NATURAL = 300  # pic.png is 400×300


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("stretch")
    for name in ("talk.qmd", "off.qmd", "pic.png"):
        shutil.copy(FIXTURE / name, root / name)
    pic = (FIXTURE / "pic.png").read_bytes()
    lone = "## Lone\n\n![](pic.png)\n"
    write_lesson(root, {"01-a.md": lone, "pic.png": pic}, "plain")
    write_lesson(
        root,
        {"lesson.yml": "title: A\nlang: en\nslides:\n  auto-stretch: true\n", "01-a.md": lone},
        "asked",
    )
    shutil.copy(FIXTURE / "pic.png", root / "content/asked/pic.png")
    for name in ("talk.qmd", "off.qmd", "plain", "asked"):
        ran = run_cli(root, name, "--no-pdf")
        assert ran.returncode == 0, ran.stderr
        assert "[overflow]" not in ran.stderr, ran.stderr
    return root / "dist"


def _measured(context, index: Path, print_view: bool = False) -> dict[str, dict]:
    page = context.new_page()
    page.goto(index.as_uri() + ("?print-pdf" if print_view else ""))
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    sel = ".pdf-page > section" if print_view else ".reveal .slides > section"
    if print_view:
        page.wait_for_function(f"document.querySelectorAll('{sel}').length > 1")
    else:
        total = page.evaluate("Reveal.getTotalSlides()")
        for k in range(total):  # (each slide shown once: its pictures load)
            page.evaluate(f"Reveal.slide({k})")
    page.wait_for_function("[...document.images].every(i => i.complete && i.naturalWidth)")
    found = {}
    for k in range(page.evaluate("Reveal.getTotalSlides()")):
        if not print_view:
            page.evaluate(f"Reveal.slide({k})")
            page.wait_for_timeout(30)
        for m in page.evaluate(MEASURE, sel + (".present" if not print_view else "")):
            found.setdefault(m["title"], m)
    page.close()
    return found


def _fills(m: dict, above: int = 0) -> None:
    """The image reaches from under the title to the slide's foot (its 50 px kept clear of
    reveal.js's arrows, the slide number and the footer), and stays inside the slide;
    `above`: px of text between the title and the image."""
    left = m["slide"] - m["below"]  # the slide's height minus its title
    assert m["stretch"], m
    assert m["below"] <= m["top"] <= m["below"] + 24 + above, m
    assert m["height"] >= left - 24 - 50 - 24 - above, (
        m
    )  # (the title's margin, the foot, a caption)
    assert m["bottom"] <= m["slide"] - 50 + 1, m
    assert 0 <= m["left"] and m["right"] <= m["wide"], m
    assert m["height"] > 1.5 * NATURAL and abs(m["width"] / m["height"] - 4 / 3) < 0.02, m


def _natural(m: dict, height: int = NATURAL) -> None:
    assert not m["stretch"], m
    assert abs(m["height"] - height) <= 1, m


@pytest.mark.browser
@pytest.mark.parametrize("print_view", [False, True], ids=["screen", "print"])
@pytest.mark.slow
def test_a_lone_image_fills_the_slides_height_the_others_keep_theirs(
    context, built: Path, print_view: bool
) -> None:
    found = _measured(context, built / "talk" / "index.html", print_view)
    _fills(found["Lone"])
    _fills(found["Caption"])
    _fills(found["Text and image"], above=60)
    assert found["Caption"]["bottom"] < found["Lone"]["bottom"]  # the caption below it
    assert found["Text and image"]["top"] > found["Lone"]["top"] + 20  # below the text
    _natural(found["Two"], 120)
    for title in ("Not here", "Fragment", "Image nostretch", "Link"):
        _natural(found[title])
    _natural(found["Height"], 100)
    assert not found["Columns"]["stretch"]
    assert found["Columns"]["height"] <= NATURAL  # (its column's width)


@pytest.mark.browser
@pytest.mark.slow
def test_auto_stretch_false_and_a_lesson_keep_the_natural_size(context, built: Path) -> None:
    off = _measured(context, built / "off" / "index.html")
    _natural(off["Lone"])
    _fills(off["Own"])  # an image's own `.r-stretch`
    _natural(_measured(context, built / "plain" / "index.html")["Lone"])
    _fills(_measured(context, built / "asked" / "index.html")["Lone"])
