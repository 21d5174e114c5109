"""A Quarto theme's web fonts ship with the deck (issue 17, item 5): each built-in theme that
imports fonts draws its headings and body in them, offline (every request but the deck's own
files refused), as web fonts of the page; a custom `.scss` importing a family from Google Fonts
gets it shipped when a font package has it, and a family nobody has is substituted with a
warning that names it."""

from __future__ import annotations

import pytest

from catalogue import write
from fixture_build import run_cli

pytestmark = pytest.mark.browser

# theme → (heading family, body family) as reveal.js's themes name them
THEMES = {
    "league": ("League Gothic", "Lato"),
    "beige": ("League Gothic", "Lato"),
    "moon": ("League Gothic", "Lato"),
    "solarized": ("League Gothic", "Lato"),
    "night": ("Montserrat", "Open Sans"),
    "sky": ("Quicksand", "Open Sans"),
    "simple": ("Lato", "Lato"),  # (News Cycle has no package: Lato stands in)
    "blood": ("Ubuntu", "Ubuntu"),
}
SLIDE = "## Heading words\n\nBody text with *some italic* and **bold** words.\n"


def drawn_with(context, index) -> dict[str, list[tuple[str, bool]]]:  # noqa: ANN001
    """{selector: [(family, web font?)]} for the slide's heading and paragraph, as Chromium
    drew them, with every request but file:// refused."""
    page = context.new_page()
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    page.goto(index.as_uri() + "#/2")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    page.evaluate("document.fonts.ready.then(() => true)")
    cdp = context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    found = {}
    for selector in ("section.present h2", "section.present p"):
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        found[selector] = [(f["familyName"], f["isCustomFont"]) for f in fonts]
    page.close()
    return found


def same_family(drawn: str, wanted: str) -> bool:
    # (a package's static face may name itself after its variable master: "Montserrat Thin")
    return drawn == wanted or drawn.startswith(wanted + " ")


@pytest.mark.parametrize("theme", list(THEMES))
@pytest.mark.slow
def test_a_themes_fonts_ship_and_draw_its_text_offline(context, tmp_path, theme):
    write(
        tmp_path,
        {"talk.qmd": f"---\ntitle: T\nformat:\n  revealjs:\n    theme: {theme}\n---\n\n{SLIDE}"},
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0 and "warning" not in ran.stderr, ran.stderr
    heading, body = THEMES[theme]
    found = drawn_with(context, tmp_path / "dist" / "talk" / "index.html")
    h2, p = found["section.present h2"], found["section.present p"]
    assert h2 and all(custom and same_family(f, heading) for f, custom in h2), h2
    assert p and all(custom and same_family(f, body) for f, custom in p), p
    shipped = {f.name for f in (tmp_path / "dist" / "talk" / "assets" / "fonts").iterdir()}
    slug = heading.lower().replace(" ", "-")
    assert f"{slug}-400.woff2" in shipped


def scss(family: str) -> str:
    plus = family.replace(" ", "+")
    return (
        "/*-- scss:defaults --*/\n"
        f'@import url("https://fonts.googleapis.com/css2?family={plus}:wght@400;700&display=swap");\n'
        f'$font-family-sans-serif: "{family}", sans-serif;\n'
        f'$presentation-heading-font: "{family}", sans-serif;\n'
    )


@pytest.mark.slow
def test_a_packaged_google_font_a_custom_theme_imports_is_shipped(context, tmp_path):
    write(
        tmp_path,
        {
            "talk.qmd": "---\nformat:\n  revealjs:\n    theme: [default, custom.scss]\n---\n\n"
            + SLIDE,
            "custom.scss": scss("Open Sans"),
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0 and "warning" not in ran.stderr, ran.stderr
    found = drawn_with(context, tmp_path / "dist" / "talk" / "index.html")
    for drawn in found.values():
        assert drawn and all(custom and f == "Open Sans" for f, custom in drawn), drawn


@pytest.mark.slow
def test_a_google_font_nobody_has_is_substituted_and_said_so(context, tmp_path):
    write(
        tmp_path,
        {
            "talk.qmd": "---\nformat:\n  revealjs:\n    theme: [default, custom.scss]\n---\n\n"
            + SLIDE,
            "custom.scss": scss("Fira Sans"),
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    (warning,) = [line for line in ran.stderr.splitlines() if "warning" in line]
    assert warning.startswith("custom.scss:2: warning [theme]")
    assert "`Fira Sans` is not installed here nor in a font package: Lato stands in" in warning
    found = drawn_with(context, tmp_path / "dist" / "talk" / "index.html")
    for drawn in found.values():  # Lato's glyphs under Fira Sans's name: shipped, not fetched
        assert drawn and all(custom and f == "Lato" for f, custom in drawn), drawn
