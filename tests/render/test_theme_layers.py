"""Issue 32, item 1: themes that stack. A `.qmd`'s `theme: [dark, custom.scss]` (or
`[simple, a.scss, b.scss]`, or a plain `theme: custom.scss`, over `default`) draws the base
theme's colours and fonts with the author's layers over them, as Quarto layers them: the
defaults the last file's first (`!default`: the later file wins), then the base theme's; the
rules the base theme's first, then each file's. Quarto's theme variables (`$body-bg`,
`$text-muted`, …) are defined for the author's rules; a Sass error is at the author's line;
the compiled CSS is cached and a change to any layer compiles again.

The decks are tests/fixtures/themes/*/talk.qmd, each compared in Chromium with the same slide
under its base theme alone."""

from __future__ import annotations

import colorsys
import shutil
import subprocess
from pathlib import Path

import pytest

from catalogue import write
from fixture_build import FIXTURES, run_cli

THEMES = FIXTURES / "themes"
# what the page shows: the background, the text's colour and font, a slide title's, a link's,
# and the fixture's tagged paragraphs (`--deck-muted`: the theme's muted colour, resolved)
PROBE = """() => {
  const style = (q) => getComputedStyle(document.querySelector(q));
  const reveal = style('.reveal');
  const probe = document.createElement('span');
  probe.style.color = 'var(--deck-muted)';
  document.querySelector('section.present').appendChild(probe);
  const muted = getComputedStyle(probe).color;
  probe.remove();
  const p = (c) => style('section.present p.' + c);
  return {
    background: style('body').backgroundColor, image: style('body').backgroundImage,
    color: reveal.color, font: reveal.fontFamily,
    heading: style('section.present h2').color, headingFont: style('section.present h2').fontFamily,
    link: style('section.present a').color, muted: muted,
    mutedP: p('muted').color, mutedBg: p('muted').backgroundColor, tag: p('tag').color,
    card: p('card').color, cardBg: p('card').backgroundColor, cardFont: p('card').fontFamily,
    callout: style('section.present .callout').backgroundColor,
  };
}"""


def built(root: Path, deck: str | None = None, base: str | None = None) -> Path:
    """A fixture deck (`deck`), or its slide under the base theme alone (`base`), built in
    `root`: its index.html."""
    if deck is not None:
        shutil.copytree(THEMES / deck, root, dirs_exist_ok=True)
    else:
        text = (THEMES / "dark" / "talk.qmd").read_text("utf-8")
        write(root, {"talk.qmd": text.replace("[dark, custom.scss]", str(base))})
    ran = run_cli(root, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "error" not in ran.stderr and "[theme]" not in ran.stderr, ran.stderr
    return root / "dist" / "talk" / "index.html"


def shown(context, index: Path) -> dict[str, str]:  # noqa: ANN001
    page = context.new_page()
    page.goto(index.as_uri() + "#/1")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    found = page.evaluate(PROBE)
    page.close()
    return found


def rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def pair(context, tmp_path: Path, deck: str, base: str) -> tuple[dict, dict]:  # noqa: ANN001
    stacked = shown(context, built(tmp_path / "stacked", deck=deck))
    alone = shown(context, built(tmp_path / "alone", base=base))
    return stacked, alone


@pytest.mark.browser
@pytest.mark.slow
def test_dark_under_a_custom_file_keeps_darks_page_and_the_files_values_win(context, tmp_path):
    stacked, dark = pair(context, tmp_path, "dark", "dark")
    assert dark["background"] == "rgb(25, 25, 25)"  # (the base theme as the deck draws it)
    for key in ("background", "image", "color", "font", "headingFont", "muted", "callout"):
        assert stacked[key] == dark[key], key
    assert stacked["heading"] == rgb("#ffd166") != dark["heading"]  # the file's defaults win
    assert stacked["link"] == rgb("#ff8800") != dark["link"]
    assert stacked["mutedP"] == dark["muted"]  # its rules read $text-muted: dark's


@pytest.mark.browser
@pytest.mark.slow
def test_simple_under_two_files_layers_them_as_quarto_does(context, tmp_path):
    stacked, simple = pair(context, tmp_path, "simple", "simple")
    assert "Lato" in simple["font"] and "News Cycle" in simple["headingFont"]
    for key in ("background", "image", "font", "headingFont"):
        assert stacked[key] == simple[key], key
    assert stacked["color"] == rgb("#222222") != simple["color"]  # a.scss's $body-color
    assert stacked["link"] == rgb("#008800")  # b.scss's !default comes first: it wins
    assert stacked["tag"] == rgb("#0000aa")  # b.scss's rules after a.scss's


@pytest.mark.browser
@pytest.mark.slow
def test_a_plain_custom_file_is_laid_over_the_default_theme(context, tmp_path):
    stacked, default = pair(context, tmp_path, "plain", "default")
    assert stacked["background"] == rgb("#fdf3e7") != default["background"]
    for key in ("color", "font", "heading", "headingFont", "link"):
        assert stacked[key] == default[key], key
    assert stacked["muted"] != default["muted"]  # $text-muted follows the page's colours


@pytest.mark.browser
@pytest.mark.slow
def test_a_custom_file_reads_quartos_theme_variables(context, tmp_path):
    stacked, moon = pair(context, tmp_path, "vars", "moon")
    for key in ("background", "color", "font", "headingFont"):
        assert stacked[key] == moon[key], key
    assert stacked["card"] == stacked["muted"] not in (moon["color"], moon["muted"])  # $text-muted
    assert stacked["mutedP"] == moon["color"]  # $body-color
    # lighten(#002b36, 10%): moon's $body-bg 10 points lighter in HSL
    h, light, sat = colorsys.rgb_to_hls(0, 0x2B / 255, 0x36 / 255)
    want = tuple(round(c * 255) for c in colorsys.hls_to_rgb(h, light + 0.1, sat))
    assert stacked["cardBg"] == "rgb({}, {}, {})".format(*want)
    assert stacked["cardFont"] == moon["headingFont"]  # $presentation-heading-font
    assert stacked["mutedBg"] not in ("rgba(0, 0, 0, 0)", moon["background"])  # $code-block-bg


# ---- errors and the cache (no browser) -------------------------------------------------------


def fails(root: Path, scss: str, theme: str = "[dark, custom.scss]") -> str:
    text = (THEMES / "dark" / "talk.qmd").read_text("utf-8").replace("[dark, custom.scss]", theme)
    write(root, {"talk.qmd": text, "custom.scss": scss})
    ran = run_cli(root, "talk.qmd", "--no-pdf")
    assert ran.returncode == 1, ran.stderr
    errors = [line for line in ran.stderr.splitlines() if ": error [" in line]
    assert len(errors) == 1, ran.stderr
    return errors[0]


def test_a_sass_error_in_the_authors_file_is_at_its_line(tmp_path):
    scss = "/*-- scss:defaults --*/\n$a: 1;\n\n/*-- scss:rules --*/\n.x {\n  color: $nope;\n}\n"
    error = fails(tmp_path, scss)
    assert error.startswith("custom.scss:6: error [theme] dart-sass: Undefined variable"), error


def test_a_value_quartos_variables_cannot_use_is_at_the_line_that_set_it(tmp_path):
    scss = "/*-- scss:defaults --*/\n// a size, not a colour\n$body-color: 12px;\n"
    error = fails(tmp_path, scss, "[simple, custom.scss]")
    assert error.startswith("custom.scss:3: error [theme] dart-sass:"), error
    assert "`$body-color` as set here" in error and "Quarto's theme variables" in error


def test_an_unknown_section_is_a_warning_at_its_line(tmp_path):
    text = (THEMES / "dark" / "talk.qmd").read_text("utf-8")
    scss = "/*-- scss:defaults --*/\n$link-color: red;\n/*-- scss:rule --*/\n.x { color: red; }\n"
    write(tmp_path, {"talk.qmd": text, "custom.scss": scss})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "custom.scss:3: warning [theme] `scss:rule` is not one of Quarto's" in ran.stderr


@pytest.mark.slow
def test_a_change_to_any_layer_compiles_again_and_none_reuses_the_css(tmp_path, monkeypatch):
    from deck.errors import Loc
    from deck.render import sass

    shutil.copytree(THEMES / "simple", tmp_path / "deck")
    folder, cache = tmp_path / "deck", tmp_path / "cache"
    files = ("a.scss", "b.scss")

    def css(base: str = "simple") -> str:
        out, problems = sass.compile_theme(files, folder, Loc("deck", 1), cache, base)
        assert out is not None and not problems, problems
        return out

    first = css()
    assert "#008800" in first and "#0000aa" in first
    run = subprocess.run
    calls: list[object] = []
    monkeypatch.setattr(sass.subprocess, "run", lambda *a, **k: calls.append(a) or run(*a, **k))
    assert css() == first and not calls  # unchanged: from the cache, no dart-sass
    (folder / "b.scss").write_text((folder / "b.scss").read_text().replace("#008800", "#123456"))
    assert "#123456" in css() and len(calls) == 1  # the second file
    assert "#191919" in css("dark") and len(calls) == 2  # the base theme
    (folder / "a.scss").write_text((folder / "a.scss").read_text().replace("#aa0000", "#654321"))
    assert "#654321" in css() and len(calls) == 3  # the first file


@pytest.mark.browser
@pytest.mark.slow
def test_a_packaged_font_a_layer_names_without_importing_it_ships(context, tmp_path):
    text = (THEMES / "dark" / "talk.qmd").read_text("utf-8")
    scss = '/*-- scss:defaults --*/\n$presentation-heading-font: "League Gothic", sans-serif;\n'
    write(tmp_path, {"talk.qmd": text, "custom.scss": scss})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0 and "[theme]" not in ran.stderr, ran.stderr
    page = context.new_page()
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    page.goto((tmp_path / "dist" / "talk" / "index.html").as_uri() + "#/1")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    loaded = page.evaluate(
        """() => document.fonts.ready.then(() => [...document.fonts]
             .filter((f) => f.status === 'loaded').map((f) => f.family.replace(/"/g, '')))"""
    )
    page.close()
    assert "League Gothic" in loaded, loaded
