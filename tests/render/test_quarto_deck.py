"""Quarto files build unchanged: `python build.py talk.qmd` (issue 11).

Every block and cell option on a built deck (`tests/fixtures/quarto/features.qmd`), also in
Chromium; the reference deck `../shared/bench/attention.qmd` is built as it is, with its
PDFs. Loading a .qmd is tests/source/test_quarto.py.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from catalogue import line_of, write
from fixture_build import ROOT, Built, run_cli

FIXTURES = ROOT / "tests" / "fixtures" / "quarto"
# `../shared/bench/attention.qmd` from a clone's root (or from a worktree kept one level down).
REFERENCE = (
    next(
        (
            p
            for p in (ROOT.parent, ROOT.parent.parent)
            if (p / "shared/bench/attention.qmd").is_file()
        ),
        ROOT.parent,
    )
    / "shared/bench/attention.qmd"
)


# ---- every feature on a built deck ----------------------------------------------------------


@pytest.fixture(scope="module")
def features(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("quarto")
    shutil.copytree(FIXTURES, root / "talk")
    proc = run_cli(root, "talk/features.qmd", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "features", proc)


SECTION = re.compile(r"<section\b([^>]*)>(.*?)</section>", re.S)


def slides_of(built: Built) -> list[tuple[str, str]]:
    """(attributes, inner HTML) of every slide, in order."""
    return SECTION.findall((built.out / "index.html").read_text("utf-8"))


def slide(built: Built, title: str) -> str:
    (found,) = [body for _, body in slides_of(built) if f">{title}</h" in body]
    return found


def test_callouts_have_their_kind_title_and_icon(features: Built):
    body = slide(features, "Callouts")
    found = re.findall(r'class="callout callout-(\w+)[^"]*".*?callout-title">(.*?)</span>', body)
    assert found == [
        ("note", "Note"),
        ("tip", "Custom tip title"),
        ("warning", "Careful"),
        ("caution", "Caution"),
        ("important", "Important"),
    ]
    assert "callout-style-simple" in body and body.count("callout-titled-icon") == 4
    assert 'class="katex"' in body  # math in a callout


def test_tabset_has_one_panel_per_heading_and_shows_the_first(features: Built):
    body = slide(features, "Tabs and footnotes")
    assert re.findall(r'role="tab"[^>]*>([^<]*)</button>', body) == ["First tab", "Second tab"]
    panes = re.findall(r'<div class="tab-pane( active)?" role="tabpanel"', body)
    assert panes == [" active", ""]


def test_footnotes_are_numbered_on_their_slide_and_listed_at_its_foot(features: Built):
    body = slide(features, "Tabs and footnotes")
    assert re.findall(r'<sup class="footnote-ref">(\d)</sup>', body) == ["1", "2"]
    notes = re.search(r'<ol class="aside-footnotes">(.*?)</ol>', body).group(1)
    items = re.findall(r"<li>(.*?)</li>", notes)
    assert "An inline footnote with" in items[0] and "katex" in items[0]
    assert items[1] == "A referenced footnote."
    assert "[^ref]" not in body and "^[" not in body


def test_aside_goes_to_the_foot_and_a_slides_footer_replaces_the_decks(features: Built):
    body = slide(features, "Tabs and footnotes")
    assert '<div class="aside"><p>An aside at the foot.</p></div>' in body
    assert "This slide&#x27;s own footer" in body or "This slide's own footer" in body
    assert "footer-default" not in body
    other = slide(features, "Callouts")
    deck_footer = re.search(r'<div class="footer footer-default">(.*?)</div>', other).group(1)
    assert deck_footer.startswith("Deck footer with ") and 'class="katex"' in deck_footer


def test_logo_and_stylesheet_are_copied_and_linked(features: Built):
    page = (features.out / "index.html").read_text()
    assert '<link rel="stylesheet" href="media/extra.css">' in page
    # on every slide; the first loads it at once, the others when they come near (data-src)
    logos = re.findall(r'<img class="slide-logo" (data-)?src="media/logo.svg"', page)
    assert len(logos) == len(slides_of(features)) and logos[0] == "" and set(logos[1:]) == {"data-"}
    for name in ("logo.svg", "extra.css", "img/square.svg", "img/circle.svg"):
        assert (features.out / "media" / name).read_bytes() == (FIXTURES / name).read_bytes()


def test_images_become_figures_with_their_size_and_placement(features: Built):
    attrs, body = next(s for s in slides_of(features) if ">Images</h2>" in s[1])
    assert 'data-background-color="#f0f4f8"' in attrs
    figure = re.search(r"<figure>(.*?)</figure>", body).group(1)
    assert re.fullmatch(
        r'<img alt="A blue square" data-src="media/img/square.svg" width="200"\s*/?>'
        r"<figcaption>A blue square</figcaption>",
        figure,
    ), figure
    circle = re.search(r"<img[^>]*circle[^>]*>", body).group(0)
    assert 'alt="A red circle"' in circle and 'class="absolute"' in circle
    assert "position: absolute; top: 150px; left: 800px; width: 120px; height: 120px" in circle


def test_stack_fit_text_and_fragments(features: Built):
    stack = slide(features, "Stack")
    assert re.search(r'<div class="r-stack">\s*<p><img[^>]*class="fragment"', stack)
    assert stack.count('class="fragment"') == 2
    assert '<div class="r-fit-text"><p>Big text</p></div>' in slide(features, "Fit")
    spans = slide(features, "Columns, fragments, spans")
    assert '<div class="fragment fade-up" data-fragment-index="1">' in spans
    assert '<span class="fragment highlight-red">highlighted</span>' in spans
    assert '<span class="smallcaps">small caps</span>' in spans


def test_incremental_lists_and_columns(features: Built):
    body = slide(features, "Columns, fragments, spans")
    incremental = re.search(r'<div class="incremental">(.*?)</div>', body, re.S).group(1)
    assert re.findall(r'<li class="fragment">(.*?)</li>', incremental) == ["appears", "one by one"]
    flat = re.search(r'<div class="nonincremental">(.*?)</div>', body, re.S).group(1)
    assert "fragment" not in flat
    assert '<div class="column" style="width:40%">' in body


def test_stepped_code_lays_each_step_over_the_first(features: Built):
    body = slide(features, "Stepped code")
    layers = re.findall(
        r'<div class="(highlight has-line-numbers[^"]*)"><pre><code>(.*?)</code>', body, re.S
    )
    assert [klass for klass, _ in layers] == [
        "highlight has-line-numbers has-highlights",
        "highlight has-line-numbers has-highlights fragment code-step",
    ]
    marked = [
        [n for n, line in enumerate(code.split("\n"), start=1) if "highlight-line" in line]
        for _, code in layers
    ]
    assert marked == [[1, 2], [4]]


def test_cell_options_echo_line_numbers_and_output_location(features: Built):
    body = slide(features, "Cells")
    found = re.search(r'<div class="columns column-output-location"[^>]*>(.*)', body, re.S)
    columns = found.group(1)
    code, output = re.findall(r'<div class="column">(.*?)</div></div>', columns, re.S)[0], columns
    assert "values" in code and 'code-line highlight-line"><span class="n">total' in code
    assert '<pre class="stdout">6\n</pre>' in output
    # output: asis: printed Markdown becomes slide markup, math included
    assert "<strong>Bold</strong> from a cell and" in body and 'class="katex"' in body


def test_error_true_shows_the_exception_and_warnings_are_hidden(features: Built):
    """`error: true` shows the exception; a warning is hidden, as by Quarto's revealjs default
    (`warning: false`; issue 32 item 5: it was shown before)."""
    body = slide(features, "Errors and warnings")
    text = features.root.joinpath("talk/features.qmd").read_text()
    line = line_of(text, "1 / 0")
    assert (
        f'<pre class="error">features.qmd:{line}: ZeroDivisionError: division by zero</pre>' in body
    )
    assert "UserWarning: watch out" not in body and '<pre class="warning">' not in body


def test_figure_size_alignment_and_missing_alt_text_warning(features: Built):
    body = slide(features, "Figure")
    figure = re.search(
        r'<figure class="fig-align-center[^"]*"><img (?:class="r-stretch" )?'
        r'data-src="figures/([^"]+)" alt="A line"',
        body,
    )
    assert figure, body
    svg = (features.out / "figures" / figure.group(1)).read_text()
    assert re.search(r'width="288pt" height="144pt"', svg)  # 4 × 2 inches
    line = line_of(features.root.joinpath("talk/features.qmd").read_text(), 'fig-cap: "A line"')
    assert (
        f"talk/features.qmd:{line - 2}: warning [figure] figure has no alt text "
        "(`#| fig-alt: …`): its caption is used" in features.proc.stderr
    )


def test_output_location_slide_adds_a_slide_after_its_own(features: Built):
    titled = [(attrs, body) for attrs, body in slides_of(features) if ">Output slide</h2>" in body]
    (code_attrs, code), (out_attrs, out) = titled
    assert "print" in code and "60" not in code
    assert "output-location-slide" in out_attrs and '<pre class="stdout">60\n</pre>' in out
    values = json.loads((features.out / "values.json").read_text())
    assert values["slides"] == len(slides_of(features))
    (record,) = [o for o in values["outputs"] if o["text"] == "60\n"]
    assert record["slide"] == 1 + [b for _, b in slides_of(features)].index(out)


def test_more_output_locations_fenced_echo_include_and_raw_html(features: Built):
    body = slide(features, "More cells")
    assert '<div class="fragment"><pre class="stdout">after a click\n</pre></div>' in body
    beside = re.search(r'<div class="column fragment">(.*?)</div></div>', body, re.S).group(1)
    assert "beside, after a click" in beside
    assert "```{python}" in html.unescape(re.sub(r"<.*?>", "", body))  # echo: fenced
    assert "never shown" not in body
    assert '<p class="raw-html">Raw <em>HTML</em></p>' in body


def test_eval_false_code_is_shown_and_notes_and_values_work(features: Built):
    body = slide(features, "Not run")
    assert "this" in body and "fail" in body and "error" not in body
    assert '<aside class="notes"><p>Speaker notes for the last slide.</p></aside>' in body
    values = json.loads((features.out / "values.json").read_text())
    assert [v["text"] for v in values["values"] if v["expr"] == "total"] == ["6"]


def test_title_slide_is_first(features: Built):
    attrs, body = slides_of(features)[0]
    assert 'id="title-slide"' in attrs and "<h1>Quarto features</h1>" in body
    assert "Ada Lovelace, Alan Turing" in body and "2026-11-29" in body


def test_slide_attributes_backgrounds_and_rules(features: Built):
    shown = slides_of(features)
    (attrs,) = [a for a, _ in shown if "data-background-image" in a]
    assert 'data-background-image="media/img/square.svg"' in attrs
    assert 'data-auto-animate="true"' in attrs
    (after,) = [k for k, (a, _) in enumerate(shown) if a is attrs]
    assert "An untitled slide after a rule." in shown[after + 1][1]
    assert "<h2>" not in shown[after + 1][1]
    assert re.search(r'class="[^"]*\bsmaller\b', next(a for a, b in shown if ">Callouts<" in b))
    assert re.search(r'class="[^"]*\bscrollable\b', next(a for a, b in shown if ">Fit<" in b))


def test_a_missing_image_is_an_error_at_its_slide(tmp_path: Path):
    qmd = write(tmp_path, {"talk.qmd": "## A\n\n![A cat](cat.png)\n"})
    proc = run_cli(tmp_path, str(qmd), "--no-pdf")
    assert proc.returncode == 1
    assert "talk.qmd:3: error [media] file `cat.png` not found" in proc.stderr


# ---- the reference deck ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Built:
    if not REFERENCE.is_file():
        pytest.skip(f"the reference deck {REFERENCE} is not there")
    root = tmp_path_factory.mktemp("reference")
    # The file as it is; beside it, Quarto's own way to add settings: a longer cell timeout,
    # as its training cell takes minutes on a busy 2-core machine.
    shutil.copyfile(REFERENCE, root / "attention.qmd")
    (root / "_metadata.yml").write_text("exec:\n  timeout: 3600\n")
    command = [sys.executable, str(ROOT / "build.py"), "attention.qmd"]
    proc = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stderr
    return Built(root, "attention", proc)


@pytest.mark.slow
def test_reference_deck_builds_with_every_slide_in_pages(reference: Built):
    from pypdf import PdfReader

    text = REFERENCE.read_text()
    expected = 1 + len(re.findall(r"^## ", text, re.M))  # the title slide and every `##`
    values = json.loads((reference.out / "values.json").read_text())
    assert values["slides"] == len(slides_of(reference)) == expected
    assert len(PdfReader(reference.out / "slides.pdf").pages) == expected


@pytest.mark.slow
def test_reference_deck_notes_are_on_their_slides(reference: Built):
    lines = REFERENCE.read_text().split("\n")
    notes = {}  # the line of the slide's `##` → the first line of its notes
    for k, line in enumerate(lines):
        if line == "::: notes":
            heading = max(j for j in range(k) if lines[j].startswith("## "))
            notes[heading + 1] = lines[k + 1]
    assert len(notes) == 6
    asides = {
        int(re.search(r'data-source="[^"]*:(\d+)"', attrs).group(1)): re.findall(
            r'<aside class="notes">(.*?)</aside>', body, re.S
        )
        for attrs, body in slides_of(reference)
    }
    assert {line for line, found in asides.items() if found} == set(notes)
    for line, first in notes.items():
        shown = html.unescape(re.sub(r"<.*?>", "", asides[line][0]))
        assert first in shown, (line, first)


@pytest.mark.slow
def test_reference_deck_math_is_all_typeset(reference: Built):
    text = REFERENCE.read_text()
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)  # math in code is Python
    formulas = len(re.findall(r"\$\$.+?\$\$|\$[^$\n]+\$", prose, re.S))
    page = (reference.out / "index.html").read_text()
    assert page.count('<span class="katex">') == formulas
    visible = re.sub(r"<(pre|code|annotation)\b.*?</\1>", "", page, flags=re.S)
    assert "$" not in re.sub(r"<script\b.*?</script>", "", visible, flags=re.S)


@pytest.mark.slow
def test_reference_deck_figures_and_values(reference: Built):
    values = json.loads((reference.out / "values.json").read_text())
    assert len(values["figures"]) == REFERENCE.read_text().count("plt.show()") == 3
    for figure in values["figures"]:
        assert (reference.out / figure["file"]).read_bytes().startswith(b"<?xml")
    assert reference.proc.stderr.count("figure has no alt text") == 3
    # the first inline value, computed here independently
    import torch

    torch.manual_seed(0)
    x = torch.randn(3, 8)
    w_q, w_k, _ = (torch.randn(8, 8) / 8**0.5 for _ in range(3))
    weights = torch.softmax((x @ w_q) @ (x @ w_k).T / 8**0.5, dim=-1)
    assert values["values"][0]["text"] == f"{weights[0, 1].item():.3f}"


# ---- in Chromium --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page(browser, features: Built):  # noqa: ANN001 - Playwright's browser
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((features.out / "index.html").as_uri())
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    yield page
    assert errors == []
    page.close()


def go_to(page, title: str) -> None:  # noqa: ANN001 - Playwright's page
    index = page.evaluate(
        """title => [...document.querySelectorAll('.reveal .slides > section')]
             .findIndex(s => s.querySelector('h1, h2')?.textContent === title)""",
        title,
    )
    assert index >= 0, title
    # reveal.js writes the first slide's hash a moment after loading: let that land first.
    page.wait_for_function("location.hash !== ''")
    page.evaluate(f"Reveal.slide({index}, 0, -1)")
    page.wait_for_function(
        "i => Reveal.getIndices().h === i && location.hash === '#/' + i", arg=index
    )


def visible(page, selector: str) -> bool:  # noqa: ANN001
    return page.evaluate(
        """selector => { const el = document.querySelector(selector);
             const style = getComputedStyle(el);
             return el.getClientRects().length > 0 && style.visibility !== 'hidden'
                    && style.opacity !== '0'; }""",
        selector,
    )


@pytest.mark.browser
def test_a_tab_shows_its_panel_when_clicked(page):  # noqa: ANN001
    go_to(page, "Tabs and footnotes")
    first = ".present .tab-pane[data-tab='0']"
    second = ".present .tab-pane[data-tab='1']"
    assert visible(page, first) and not visible(page, second)
    page.click(".present .panel-tabset-tabby button[data-tab='1']")
    assert visible(page, second) and not visible(page, first)
    assert page.get_attribute(".present button[data-tab='1']", "aria-selected") == "true"


@pytest.mark.browser
def test_code_steps_come_one_click_at_a_time(page):  # noqa: ANN001
    go_to(page, "Stepped code")
    step = ".present .code-step"
    page.wait_for_timeout(100)
    assert not visible(page, step)
    page.evaluate("Reveal.nextFragment()")
    page.wait_for_function(
        "s => getComputedStyle(document.querySelector(s)).opacity === '1'", arg=step
    )
    assert visible(page, step)


@pytest.mark.browser
def test_footer_and_logo_sit_inside_the_slide(page):  # noqa: ANN001
    go_to(page, "Callouts")
    boxes = page.evaluate(
        """() => ['.present', '.present .footer', '.present .slide-logo'].map(s => {
             const r = document.querySelector(s).getBoundingClientRect();
             return [r.left, r.top, r.right, r.bottom]; })"""
    )
    (left, top, right, bottom), *inner = boxes
    for x0, y0, x1, y1 in inner:
        assert left <= x0 < x1 <= right and top <= y0 < y1 <= bottom


@pytest.mark.browser
def test_the_dark_theme_and_hidden_slide_numbers(browser, tmp_path: Path):  # noqa: ANN001
    text = "---\nformat:\n  revealjs:\n    theme: dark\n---\n\n## Dark\n\nText.\n"
    qmd = write(tmp_path, {"dark.qmd": text})
    proc = run_cli(tmp_path, str(qmd), "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    page = browser.new_page()
    page.goto((tmp_path / "dist/dark/index.html").as_uri())
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    color = page.evaluate("getComputedStyle(document.querySelector('.present p')).color")
    numbers = page.evaluate("getComputedStyle(document.querySelector('.slide-number')).display")
    page.close()
    assert background == "rgb(25, 25, 25)" and color == "rgb(230, 230, 230)"
    assert numbers == "none"  # Quarto shows no slide numbers unless asked
