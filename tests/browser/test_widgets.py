"""Widgets in real Chromium: every widget redrawing when its control changes (by keyboard
too), the 2×2 exercise's numbers against NumPy's, the static figures of `?print-pdf`, state
kept in sync with the speaker view, the provenance popover, and an axe audit. The directive,
its errors and each kind's data checks are tests/render/test_widget_data.py."""

from __future__ import annotations

import json
import math
import re
import subprocess
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import pytest
from test_present import go, offline_deck, open_deck, open_speaker_view

from fixture_build import Built, run_cli
from widget_lesson import (  # data_module: the `data` fixture
    ABLATION,
    DATA_PY,
    EXERCISE,
    EXPLORER,
    FIGURE,
    SCALING,
    SECTION,
    VALUES,
    data_module,  # noqa: F401
    line_of,
    source,
    write_widget_lesson,
)

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Locator, Page


# ---- in Chromium ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("widgets")
    files = {"data.py": source(DATA_PY), "01-a.md": source(SECTION)}
    write_widget_lesson(root, files, name="widgets")
    proc = run_cli(root, "widgets", "--no-pdf", "--single-file")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "widgets", proc)


@pytest.fixture
def deck(context: BrowserContext, built: Built) -> Iterator[Page]:
    opened = offline_deck(context, built)
    page = next(opened)
    page.evaluate("Reveal.configure({transition: 'none'})")
    yield page
    next(opened, None)  # its checks: no page error, no request beyond this machine


def bar_weights(page: Page, chart: str | Locator) -> list[float]:
    """The weights a bar chart draws: each bar's height over the chart's scale."""
    return (page.locator(chart) if isinstance(chart, str) else chart).evaluate(
        "svg => [...svg.querySelectorAll('rect.widget-bar')]"
        ".map(r => Number(r.getAttribute('height')) / Number(svg.dataset.scale))"
    )


def test_softmax_slider_redraws_both_charts(deck, data):
    go(deck, SCALING)
    reference = data.scaling()
    widget = "section.present .widget-softmax-scaling"
    charts = [f"{widget} figure:nth-child({k}) svg" for k in (1, 2)]
    slider = deck.locator(f"{widget} input[type=range]")
    for k, key in [(0, None), (1, "ArrowRight"), (4, "End"), (3, "ArrowLeft")]:
        if key:
            slider.press(key)  # by keyboard: the slider has focus, the slide stays
        assert deck.locator(f"{widget} output").inner_text() == str(reference["d_k"][k])
        assert bar_weights(deck, charts[0]) == pytest.approx(reference["unscaled"][k], abs=1e-9)
        assert bar_weights(deck, charts[1]) == pytest.approx(reference["scaled"][k], abs=1e-9)
        stat = deck.locator(f"{widget} .ss-stats td").all_inner_texts()
        row = reference["stats"][0]
        assert stat == [f"{row['unscaled'][k]:.3f}", f"{row['scaled'][k]:.3f}"]
    assert deck.evaluate("Reveal.getIndices().h") == SCALING


def line_opacities(page: Page, widget: str) -> dict[tuple[int, int], float]:
    return {
        (int(q), int(k)): float(w)
        for q, k, w in page.locator(f"{widget} line.ae-line").evaluate_all(
            "ls => ls.map(l => [l.dataset.q, l.dataset.k, l.getAttribute('stroke-opacity')])"
        )
    }


def test_attention_explorer_follows_sentence_layer_head_and_token(deck, data):
    go(deck, EXPLORER)
    reference = data.explorer()
    widget = "section.present .widget-attention-explorer"
    selects = deck.locator(f"{widget} select")
    tokens = deck.locator(f"{widget} .ae-queries button:visible")

    def expect(s: int, layer: int, head: int, query: int | None) -> None:
        att = reference["sentences"][s]["attention"][layer, head]
        drawn = line_opacities(deck, widget)
        rows = range(len(att)) if query is None else [query]
        want = {(q, k): float(att[q, k]) for q in rows for k in range(len(att))}
        assert drawn.keys() == want.keys()
        assert list(drawn.values()) == pytest.approx(list(want.values()), abs=6e-5)

    assert tokens.all_inner_texts() == reference["sentences"][0]["tokens"]
    expect(0, 1, 2, None)  # the data's initial layer and head, every query
    selects.nth(2).select_option("0")
    expect(0, 1, 0, None)
    tokens.nth(2).hover()  # "cat": only its own row, with its weights beside the keys
    expect(0, 1, 0, 2)
    weights = deck.locator(f"{widget} .ae-keys .ae-weight:visible").all_inner_texts()
    row = reference["sentences"][0]["attention"][1, 0, 2]
    assert weights == [f"{round(w, 4):.2f}" for w in row]  # embedded to 4 decimals
    assert "“cat”关注：" in deck.locator(f"{widget} .ae-status").inner_text()
    tokens.nth(2).click()  # pinned: stays when the pointer leaves
    deck.mouse.move(5, 5)
    expect(0, 1, 0, 2)
    assert tokens.nth(2).get_attribute("aria-pressed") == "true"
    # by keyboard: the layer select keeps its arrow keys; Up/Down walk the tokens
    selects.nth(1).focus()
    selects.nth(1).press("ArrowUp")
    expect(0, 0, 0, 2)
    tokens.nth(4).focus()
    expect(0, 0, 0, 4)
    deck.keyboard.press("ArrowDown")
    assert deck.evaluate("document.activeElement.textContent") == "the"
    expect(0, 0, 0, 5)
    assert deck.evaluate("Reveal.getIndices().h") == EXPLORER
    deck.keyboard.press("Enter")
    assert tokens.nth(5).get_attribute("aria-pressed") == "true"
    selects.nth(0).select_option("1")  # another sentence: its own, shorter token list
    assert tokens.all_inner_texts() == reference["sentences"][1]["tokens"]
    expect(1, 0, 0, None)


def read_matrix(page: Page, widget: str, name: str) -> np.ndarray:
    values = page.locator(f"{widget} .{name} td").evaluate_all(
        "tds => tds.map(td => td.dataset.value)"
    )
    return np.array([float(v) for v in values]).reshape(2, 2)


def numpy_attention(Q: np.ndarray, K: np.ndarray, d_k: float) -> tuple[np.ndarray, ...]:
    scores = Q @ K.T
    scaled = scores / np.sqrt(d_k)
    shifted = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return scores, scaled, shifted / shifted.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(
    ("Q", "K", "d_k"),
    [
        ([[1, 0], [0, 1]], [[1, 2], [3, 4]], 2),
        ([[0.3, -1.7], [2.5, 0.25]], [[-0.5, 1.125], [3.75, -2]], 64),
        ([[40, 30], [-25, 10]], [[20, -35], [15, 45]], 0.5),  # scores near ±1800: no overflow
        ([[1e-3, 2e-3], [7, -7]], [[3, 1], [1, 3]], 1),
    ],
)
def test_attention_2x2_computes_what_numpy_computes(deck, Q, K, d_k):
    go(deck, EXERCISE)
    widget = "section.present .widget-attention-2x2"
    inputs = deck.locator(f"{widget} input")
    for k, x in enumerate([*np.ravel(Q), *np.ravel(K), d_k]):
        inputs.nth(k).fill(str(x))  # typed, as a student does
    want = numpy_attention(np.array(Q, float), np.array(K, float), d_k)
    for name, expected in zip(["a2-scores", "a2-scaled", "a2-weights"], want, strict=True):
        got = read_matrix(deck, widget, name)
        assert np.allclose(got, expected, rtol=1e-9, atol=1e-9), (name, got, expected)
    shown = deck.locator(f"{widget} .a2-weights td").all_inner_texts()
    assert shown == [f"{w:.4f}" for w in np.ravel(want[2])]


def test_attention_2x2_marks_what_is_not_a_number(deck):
    go(deck, EXERCISE)
    widget = "section.present .widget-attention-2x2"
    deck.locator(f"{widget} input").nth(8).fill("0")  # d_k = 0
    assert deck.locator(f"{widget} .a2-weights td").all_inner_texts() == ["—"] * 4
    assert deck.locator(f"{widget} input").nth(8).get_attribute("aria-invalid") == "true"
    assert deck.locator(f"{widget} .a2-status").inner_text() == "每个格子都要填数字（d_k > 0）。"


def test_head_ablation_buttons_show_the_measured_accuracy(deck, data):
    go(deck, ABLATION)
    reference = data.ablation()
    widget = "section.present .widget-head-ablation"
    buttons = deck.locator(f"{widget} button")
    assert buttons.all_inner_texts() == ["全部开启", "关掉头 1", "关掉头 2", "关掉头 3", "关掉头 4"]

    def shown() -> list[float]:
        return [
            float(v)
            for v in deck.locator(f"{widget} .ha-bar").evaluate_all(
                "bars => bars.map(b => b.dataset.value)"
            )
        ]

    assert shown() == reference["full_accuracy"]
    buttons.nth(2).click()
    assert shown() == reference["ablated_accuracy"][1]
    assert deck.locator(f"{widget} .ha-value").all_inner_texts()[1] == "35.0%（−63.0）"
    hurt = deck.locator(f"{widget} .ha-bar").evaluate_all(
        "bars => bars.map(b => b.classList.contains('ha-hurt'))"
    )
    assert hurt == [False, True, False]
    buttons.nth(3).focus()
    deck.keyboard.press("Enter")  # by keyboard; the slide does not move
    assert shown() == reference["ablated_accuracy"][2]
    assert buttons.nth(3).get_attribute("aria-pressed") == "true"
    assert buttons.nth(2).get_attribute("aria-pressed") == "false"
    assert "头 3 平时的注意力：前一个词 0.02" in deck.locator(f"{widget} .ha-focus").inner_text()
    assert deck.evaluate("Reveal.getIndices().h") == ABLATION


@pytest.mark.slow
def test_widgets_stay_in_sync_with_the_speaker_view(context, deck):
    _, frame = open_speaker_view(context, deck)  # from the first slide: it has notes
    go(deck, SCALING)
    frame.wait_for_function(f"Reveal.getIndices().h === {SCALING}")
    output = "section.present .widget-softmax-scaling output"
    frame.locator("section.present .widget input[type=range]").press("End")
    deck.wait_for_function(f"document.querySelector('{output}').textContent === '1024'")

    go(deck, EXPLORER)
    frame.wait_for_function(f"Reveal.getIndices().h === {EXPLORER}")
    deck.locator("section.present .widget select").nth(0).select_option("1")
    frame.wait_for_function(
        "document.querySelectorAll('section.present .ae-queries button:not([hidden])').length === 5"
    )
    frame.locator("section.present .ae-queries button").nth(1).click()
    deck.wait_for_function(
        "document.querySelectorAll('section.present .ae-queries button')[1].ariaPressed === 'true'"
    )

    go(deck, EXERCISE)
    frame.wait_for_function(f"Reveal.getIndices().h === {EXERCISE}")
    frame.locator("section.present .widget input").nth(0).fill("3")
    deck.wait_for_function(
        "document.querySelector('section.present .a2-scores td').dataset.value === '3'"
    )

    go(deck, ABLATION)
    frame.wait_for_function(f"Reveal.getIndices().h === {ABLATION}")
    deck.locator("section.present .widget button").nth(4).click()
    frame.wait_for_function(
        "document.querySelectorAll('section.present .widget button')[4].ariaPressed === 'true'"
    )


def test_a_slide_swapped_in_by_the_live_preview_starts_its_widget(deck, built):
    html = (built.out / "index.html").read_text("utf-8")
    fresh = deck.evaluate(
        """([html, k]) => {
          const doc = new DOMParser().parseFromString(html, "text/html");
          const slide = document.importNode(doc.querySelectorAll(".slides > section")[k], true);
          document.querySelectorAll(".reveal .slides > section")[k].replaceWith(slide);
          return new Promise(done => setTimeout(() => done(slide.querySelector(".widget")
            .dataset.widgetState), 0));
        }""",
        [html, EXERCISE],
    )
    assert fresh == "live"


def test_the_single_file_deck_carries_its_widgets(context, built):
    single = built.root / "dist" / "widgets.html"
    blocked: list[str] = []

    def route(r):  # noqa: ANN001
        if r.request.url.split("#")[0] == single.as_uri():
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = open_deck(context, single.as_uri())
    states = page.locator(".widget").evaluate_all("ws => ws.map(w => w.dataset.widgetState)")
    assert states == ["live"] * 4 and blocked == []
    page.locator("section.present .value").first.click()
    assert "weights = softmax(scores)" in page.locator(".value-popover .value-mark").inner_text()


@pytest.fixture
def paper(context: BrowserContext, built: Built) -> Page:
    page = context.new_page()
    page.goto((built.out / "index.html").as_uri() + "?print-pdf")
    page.wait_for_function("document.documentElement.dataset.pdfReady === 'true'")
    return page


def test_print_layout_draws_each_widget_as_a_static_figure(paper, data, tmp_path):
    widgets = paper.locator(".widget")
    assert widgets.evaluate_all("ws => ws.map(w => w.dataset.widgetState)") == ["paper"] * 4
    # nothing to press on paper
    assert paper.locator(".widget :is(button, input, select)").count() == 0
    assert paper.locator(".widget-fallback:visible").count() == 0
    # softmax: a row of both charts for every d_k
    reference = data.scaling()
    charts = paper.locator(".widget-softmax-scaling svg.widget-bars")
    assert charts.count() == 2 * len(reference["d_k"])
    unscaled_1024 = charts.nth(2 * 4)
    assert bar_weights(paper, unscaled_1024) == pytest.approx(reference["unscaled"][4], abs=1e-9)
    # the explorer: its initial head, every query's lines, and which head it is
    assert paper.locator(".widget-attention-explorer .widget-caption").inner_text() == (
        "猫 · 第 2 层 · 第 3 头"
    )
    assert paper.locator(".widget-attention-explorer line").count() == 8 * 8
    # the 2×2 exercise and the ablation table as numbers
    path = tmp_path / "slides.pdf"
    paper.pdf(path=str(path), width="1280px", height="720px", print_background=True)
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True).stdout
    assert "0.1956" in text and "0.8044" in text and "d_k = 2" in text
    for head, row in enumerate(data.ablation()["ablated_accuracy"]):
        cells = r"\s+".join(re.escape(f"{100 * a:.1f}%") for a in row)
        assert re.search(f"关掉头 {head + 1}" + r"\s+" + cells, text), text


# ---- provenance popover ------------------------------------------------------------------------


def test_values_json_lists_the_widgets(built):
    values = json.loads((built.out / "values.json").read_text("utf-8"))
    md = source(SECTION)
    assert [(w["kind"], w["loc"], w["slide"]) for w in values["widgets"]] == [
        (kind, f"content/widgets/01-a.md:{line_of(md, 'kind=' + json.dumps(kind))}", slide + 1)
        for kind, slide in [
            ("softmax-scaling", SCALING),
            ("attention-explorer", EXPLORER),
            ("attention-2x2", EXERCISE),
            ("head-ablation", ABLATION),
        ]
    ]


def test_values_are_wrapped_except_in_formulas_choices_notes_and_alt_text(built):
    html = (built.out / "index.html").read_text("utf-8")
    slide = html.split("<section")[1]
    spans = re.findall(r'<span class="value"[^>]*>([^<]*)</span>', slide)
    assert spans == ["0.665", "9", "9"]  # prose twice, the quiz's question once
    assert '<annotation encoding="application/x-tex">w=9</annotation>' in slide
    choices = re.findall(r'<button type="button" class="quiz-choice"[^>]*>(.*?)</button>', slide)
    assert choices == ["6", "9", "5"]
    notes = slide.split('<aside class="notes">')[1]
    assert "答案是 9。" in notes and "value" not in notes
    figure = html.split("<section")[FIGURE + 1]
    assert '<img data-src="figures/line.svg" alt="一条直线，斜率 9"' in figure
    assert re.search(r'<figcaption>斜率 <span class="value"[^>]*>9</span></figcaption>', figure)


def open_popover_by_keyboard(deck: Page) -> None:
    for _ in range(30):
        deck.keyboard.press("Tab")
        if deck.evaluate("document.activeElement.classList.contains('value')"):
            break
    assert deck.evaluate("document.activeElement.textContent") == "0.665"
    deck.keyboard.press("Enter")


def test_popover_shows_expression_code_and_line_and_opens_with_enter(deck):
    go(deck, VALUES)
    md = source(SECTION)
    open_popover_by_keyboard(deck)
    popover = deck.locator(".value-popover")
    assert popover.is_visible()
    assert deck.evaluate("document.activeElement.classList.contains('value-popover')")
    text = popover.inner_text()
    assert 'f"{weights.max():.3f}"' in text
    assert f"content/widgets/01-a.md:{line_of(md, 'weights.max()')}" in text
    assert f"content/widgets/01-a.md:{line_of(md, '```{python}')}" in text  # the cell
    marked = popover.locator(".value-mark").evaluate_all("ls => ls.map(l => l.dataset.line)")
    assert marked == [str(line_of(md, "weights = softmax"))]
    assert "answer = 3 ** 2" in popover.locator(".value-code").inner_text()
    # other keys typed in the popover do not drive the slides ("n" is reveal's next);
    # a clicker's keys do (tests/browser/test_clicker.py)
    deck.keyboard.press("n")
    assert deck.evaluate("Reveal.getIndices().h") == VALUES
    deck.keyboard.press("Escape")
    assert popover.count() == 0
    assert deck.evaluate("document.activeElement.textContent") == "0.665"
    assert deck.evaluate("Reveal.getIndices().h") == VALUES


def test_popover_opens_on_click_closes_outside_and_is_never_printed(deck):
    go(deck, VALUES)
    value = deck.locator("section.present p .value").nth(1)
    value.click()
    popover = deck.locator(".value-popover")
    assert "answer = 3 ** 2" in popover.locator(".value-mark").inner_text()
    assert value.get_attribute("aria-expanded") == "true"
    deck.emulate_media(media="print")
    assert popover.is_hidden()
    deck.emulate_media(media="screen")
    deck.mouse.click(900, 600)
    assert popover.count() == 0
    assert value.get_attribute("aria-expanded") == "false"


def test_quiz_with_values_still_works(deck):
    go(deck, VALUES)
    quiz = deck.locator("section.present .quiz")
    quiz.locator(".quiz-choice").nth(1).click()  # a poll (the default): counted, not judged
    assert quiz.locator(".quiz-feedback").inner_text() == "已投 1 票"


@pytest.mark.slow
def test_axe_finds_no_serious_violations_in_widgets_and_popover(deck):
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    found = []

    def audit(where: object) -> None:
        found.extend(
            (where, v["id"])
            for v in axe.run(deck).response["violations"]
            if v["impact"] in ("serious", "critical")
        )

    for k in range(FIGURE + 1):
        go(deck, k)
        audit(k)
    go(deck, EXPLORER)
    deck.locator("section.present .ae-queries button").nth(3).click()  # weights beside keys
    audit("pinned")
    go(deck, VALUES)
    open_popover_by_keyboard(deck)
    audit("popover")
    assert found == []


def test_reference_softmax_is_stable():
    _, _, weights = numpy_attention(np.array([[1000.0, 0]]), np.array([[1.0, 0], [0, 1]]), 1)
    assert weights[0] == pytest.approx([1, math.exp(-1000)])


@pytest.mark.parametrize(
    "width, labels, all_shown",
    [
        (400, ["a", "b", "c", "d"], True),
        (470, [f"k{k}" for k in range(1, 17)], False),
        (300, "自注意力层 多头注意力 编码器的层 解码器的层 残差的连接 层的归一化".split(), False),
    ],
)
def test_bar_labels_never_overlap_and_all_show_where_there_is_room(deck, width, labels, all_shown):
    """A bar chart's tick labels are 20 px (8 pt in a two-up handout): where they do not fit
    under their bars, every few show, and no two shown overlap; every bar keeps its label as
    its title."""
    boxes = deck.evaluate(
        """([width, labels]) => {
          const chart = window.deckWidgets.helpers.barChart(width, 200, labels.length, labels);
          const host = document.createElement('div');  // (the deck's widget styles apply)
          host.className = 'widget';
          document.querySelector('.reveal').appendChild(host).appendChild(chart.svg);
          chart.update(labels.map(() => 1 / labels.length));
          const shown = [...chart.svg.querySelectorAll('text.widget-tick')]
            .filter(t => labels.includes(t.textContent))
            .map(t => { const b = t.getBBox(); return [t.textContent, b.x, b.x + b.width]; });
          const titles = [...chart.svg.querySelectorAll('rect > title')].map(t => t.textContent);
          const size = getComputedStyle(chart.svg.querySelector('text.widget-tick')).fontSize;
          host.remove();
          return {shown, titles, size};
        }""",
        [width, labels],
    )
    assert boxes["titles"] == labels and boxes["size"] == "20px"
    shown = boxes["shown"]
    assert len(shown) == len(labels) if all_shown else 2 <= len(shown) < len(labels), shown
    assert all(a[2] <= b[1] for a, b in zip(shown, shown[1:], strict=False)), shown  # no overlap
