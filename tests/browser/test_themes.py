"""Quarto's themes (issue 17, item 5) in real Chromium: each named theme draws its own
background and heading colours; a custom `.scss` with Quarto's sections is compiled by
dart-sass, its variables winning over the theme's, and a web font import is a warning."""

from __future__ import annotations

import pytest

from catalogue import write
from fixture_build import run_cli

pytestmark = pytest.mark.browser

# (background, heading colour) as each theme defines them, in Chromium's rgb() notation
EXPECTED = {
    "default": ("rgb(255, 255, 255)", "rgb(28, 39, 51)"),
    "sky": (None, "rgb(51, 51, 51)"),  # a gradient: the heading tells
    "night": ("rgb(17, 17, 17)", "rgb(238, 238, 238)"),
    "solarized": ("rgb(253, 246, 227)", "rgb(88, 110, 117)"),
    "moon": ("rgb(0, 43, 54)", "rgb(238, 232, 213)"),
    "dark": ("rgb(25, 25, 25)", "rgb(242, 242, 242)"),
}
SCSS = """/*-- scss:defaults --*/
@import url("https://fonts.googleapis.com/css2?family=Fira+Sans");
$body-bg: #fdf3e7;
$presentation-heading-color: #8e44ad;
$link-color: darken(#e74c3c, 10%);

/*-- scss:rules --*/
.reveal .slide-body p.marked { color: $link-color; }
"""


def colours(context, path) -> tuple[str, str]:
    page = context.new_page()
    page.goto(path.as_uri() + "#/1")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    found = page.evaluate(
        """() => [getComputedStyle(document.body).backgroundColor,
                  getComputedStyle(document.querySelector('section.present h2')).color,
                  document.querySelector('section.present p.marked') &&
                    getComputedStyle(document.querySelector('section.present p.marked')).color]"""
    )
    page.close()
    return found


@pytest.mark.parametrize("theme", list(EXPECTED))
def test_each_theme_draws_its_own_colours(context, tmp_path, theme):
    write(
        tmp_path,
        {"talk.qmd": f"---\nformat:\n  revealjs:\n    theme: {theme}\n---\n\n## T\n\n## H\n"},
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0 and "theme" not in ran.stderr, ran.stderr
    background, heading, _ = colours(context, tmp_path / "dist" / "talk" / "index.html")
    want_background, want_heading = EXPECTED[theme]
    if want_background is not None:
        assert background == want_background
    assert heading == want_heading


@pytest.mark.slow
def test_a_custom_scss_is_compiled_over_the_theme(context, tmp_path):
    write(
        tmp_path,
        {
            "talk.qmd": "---\ntitle: T\nformat:\n  revealjs:\n    theme: [night, custom.scss]\n"
            '---\n\n## H\n\n<p class="marked">linked colour</p>\n',
            "custom.scss": SCSS,
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "custom.scss:2: warning [theme]" in ran.stderr and "fonts.googleapis.com" in ran.stderr
    background, heading, marked = colours(context, tmp_path / "dist" / "talk" / "index.html")
    assert background == "rgb(253, 243, 231)"  # $body-bg over night's #111
    assert heading == "rgb(142, 68, 173)"
    # dart-sass computed darken(#e74c3c, 10%) = #d62c1a
    assert marked == "rgb(214, 44, 26)"


def test_a_scss_error_is_an_error_naming_the_file(tmp_path):
    write(
        tmp_path,
        {
            "talk.qmd": "---\nformat:\n  revealjs:\n    theme: [default, bad.scss]\n---\n\n## H\n",
            "bad.scss": "/*-- scss:rules --*/\n.x { color: $undefined-variable; }\n",
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 1
    assert "bad.scss" in ran.stderr and "Undefined variable" in ran.stderr
    assert not (tmp_path / "dist" / "talk").exists()


@pytest.mark.slow
def test_an_edit_of_an_imported_scss_partial_rebuilds(context, tmp_path):
    write(
        tmp_path,
        {
            "talk.qmd": "---\nformat:\n  revealjs:\n    theme: [default, custom.scss]\n"
            "---\n\n## H\n",
            "custom.scss": '/*-- scss:defaults --*/\n@import "colours";\n',
            "_colours.scss": "$presentation-heading-color: #8e44ad;\n",
        },
    )
    page = tmp_path / "dist" / "talk" / "index.html"
    assert run_cli(tmp_path, "talk.qmd", "--no-pdf").returncode == 0
    assert colours(context, page)[1] == "rgb(142, 68, 173)"
    (tmp_path / "_colours.scss").write_text("$presentation-heading-color: #27ae60;\n")
    assert run_cli(tmp_path, "talk.qmd", "--no-pdf").returncode == 0
    assert colours(context, page)[1] == "rgb(39, 174, 96)"


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two `rgb(…)` colours."""

    def luminance(colour: str) -> float:
        parts = [float(x) / 255 for x in colour[colour.index("(") + 1 : -1].split(",")[:3]]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in parts]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


CODE = '## H\n\n```python\ndef f(x):\n    return {"n": 1}  # note\n```\n'
TOKENS = """() => ['.k', '.nf', '.s2', '.c1', '.mi'].map(t =>
  getComputedStyle(document.querySelector('section.present .highlight ' + t)).color)"""
BOX = """() => [
  getComputedStyle(document.querySelector('section.present .highlight')).backgroundColor,
  getComputedStyle(document.body).backgroundColor]"""


def over(top: str, under: str) -> str:
    """A translucent `rgba(…)` colour as it shows over an opaque one."""
    a = [float(x) for x in top[top.index("(") + 1 : -1].split(",")]
    b = [float(x) for x in under[under.index("(") + 1 : -1].split(",")]
    alpha = a[3] if len(a) == 4 else 1.0
    mixed = [alpha * x + (1 - alpha) * y for x, y in zip(a[:3], b[:3], strict=True)]
    return "rgb(" + ",".join(str(c) for c in mixed) + ")"


@pytest.mark.parametrize(
    ("theme", "files"),
    [
        ("default", {}),
        ("dark", {}),
        ("night", {}),
        (
            "[default, custom.scss]",
            {"custom.scss": "/*-- scss:defaults --*/\n$body-bg: #101418;\n"},
        ),
    ],
)
@pytest.mark.slow
def test_code_is_coloured_for_its_page(context, tmp_path, theme, files):
    """Issue 32: on a dark theme the light style's tokens (#0000ff names, #008000 keywords)
    were dark on dark. Each token keeps a contrast of 3 with its box on every theme; a dark
    page (a built-in dark theme, or an author's theme whose page is dark) has the dark style."""
    write(
        tmp_path,
        {"talk.qmd": f"---\nformat:\n  revealjs:\n    theme: {theme}\n---\n\n{CODE}", **files},
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = context.new_page()
    page.goto((tmp_path / "dist/talk/index.html").as_uri() + "#/0")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    tokens, (box, body) = page.evaluate(TOKENS), page.evaluate(BOX)
    page.close()
    box = over(box, body)
    assert all(contrast(t, box) >= 3 for t in tokens), (tokens, box)
    light = theme == "default"
    assert (tokens[0] == "rgb(0, 128, 0)") is light  # the default style's keyword green
