"""Computed values are text wherever they appear: a value that looks like HTML reads exactly as
computed and runs nothing, in every place a value can stand (slide title and body, tables,
cell outputs, figure alt text and caption, quiz stem, choices and explanation, speaker notes,
`::: handout` blocks, widget labels, the provenance popover, the slide menu, PDF bookmarks and
text, the single file and values.json). HTML goes in only through `deck.show.HTML`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pypdf import PdfReader

from catalogue import write_lesson
from fixture_build import ROOT, run_build

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = pytest.mark.browser

V = [
    "<s>",
    "</script><script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 2; alert(2)">',
    '<svg onload="window.__pwned = 3; alert(3)">',
    "\"double\" & 'single' <b>bold</b>",
]
TITLE = f"值 {V[0]} 与 {V[2]}"
SECTION = """
## 值 `{python} values[0]` 与 `{python} values[2]`

```{python}
values = HOSTILE
link = "java\tscript:window.__pwned = 4"
scaling = {
    "d_k": [4, 16],
    "unscaled": [[0.2] * 5, [0.6, 0.1, 0.1, 0.1, 0.1]],
    "scaled": [[0.2] * 5, [0.2] * 5],
    "keys": values,
    "stats": [{"label": values[2], "unscaled": [1, 2], "scaled": [3, 4]}],
}
```

::: body-values
`{python} values[0]`|`{python} values[1]`|`{python} values[2]`|
`{python} values[3]`|`{python} values[4]`
:::

::: link-values
[链接](`{python} link`)
:::

::: formula-values
$\\text{`{python} values[0]`}$
:::

::: handout
讲义 `{python} values[1]` 与 `{python} values[2]`
:::

::: answer
答案 `{python} values[3]`
:::

::: notes
1 分钟。笔记里的值：`{python} values[1]` 与 `{python} values[2]` 和 `{python} values[3]`。
:::

## 输出

```{python}
from deck.show import table
table(
    [[values[0], values[1]], [values[3], values[4]]],
    rows=[values[2], "r"],
    cols=[values[4], values[0]],
)
```

```{python}
print(values[1])
```

```{python}
values[3]
```

```{python}
class Sneaky:
    def _repr_html_(self):
        return values[2]

    def __repr__(self):
        return "Sneaky()"


Sneaky()
```

```{python}
from deck.show import HTML
HTML("<b class='by-author'>author's bold</b>")
```

## 图

```{python}
#| label: esc-fig
#| fig-alt: 图 `{python} values[2]`
#| fig-cap: 图注 `{python} values[3]`
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(3, 2))
ax.plot([0, 1], [0, 1])
```

## 测验

::: quiz
选出 `{python} values[0]`（题干里的值）：

- [x] `{python} values[0]`
- [ ] `{python} values[1]`
- [ ] `{python} values[2]`
- [ ] `{python} values[3]`
- [ ] `{python} values[4]`

::: explain
因为 `{python} values[0]` 就是 `{python} values[0]`；对照 `{python} values[2]`。
:::
:::

## 组件

::: {.widget kind="softmax-scaling" data="scaling"}
:::
""".replace("HOSTILE", repr(V))
LESSON_YML = "title: 转义\nlang: zh-CN\nexec:\n  seed: 0\nwidgets:\n  - widgets/softmax-scaling\n"


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("escaping")
    folder = write_lesson(root, {"lesson.yml": LESSON_YML, "01-a.md": SECTION}, name="esc")
    kinds = ROOT / "content" / "transformer" / "widgets"
    (folder / "widgets").mkdir()
    for suffix in (".py", ".js"):
        shutil.copyfile(
            kinds / f"softmax-scaling{suffix}", folder / f"widgets/softmax-scaling{suffix}"
        )
    proc = run_build(root, "esc", "--single-file")
    assert proc.returncode == 0, proc.stderr
    return root / "dist" / "esc"


def visible(text: str) -> str:
    """Text as a PDF reader extracts it: NFKC, without whitespace."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def pdftotext(path: Path) -> str:
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True).stdout


def test_hostile_values_are_never_markup_in_the_page(deck: Path):
    for page in (deck / "index.html", deck.parent / "esc.html"):
        text = page.read_text("utf-8")
        for value in V[1:4]:
            assert value not in text  # never as markup
        assert "<img src=x" not in text and "<svg onload" not in text


def test_values_json_records_each_value_as_computed(deck: Path):
    values = json.loads((deck / "values.json").read_text("utf-8"))
    by_expr = {r["expr"]: r["text"] for r in values["values"]}
    link = {"link": "java\tscript:window.__pwned = 4"}
    assert by_expr == {**{f"values[{k}]": v for k, v in enumerate(V)}, **link}
    (quiz,) = values["quizzes"]
    assert quiz["choices"] == V and quiz["answer_text"] == V[0]
    assert quiz["question"] == f"选出 {V[0]}（题干里的值）："
    assert quiz["explanation"] == f"因为 {V[0]} 就是 {V[0]}；对照 {V[2]}。"
    (figure,) = values["figures"]
    assert figure["alt"] == f"图 {V[2]}" and figure["caption"] == f"图注 {V[3]}"
    texts = [o["text"] for o in values["outputs"]]
    assert V[1] + "\n" in texts and repr(V[3]) in texts and "Sneaky()" in texts


def open_deck(context: BrowserContext, url: str) -> tuple[Page, list[str]]:
    page = context.new_page()
    dialogs: list[str] = []

    def dialog(d) -> None:  # noqa: ANN001
        dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dialog)
    page.goto(url)
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    return page, dialogs


def texts(page: Page, selector: str) -> list[str]:
    return page.locator(selector).evaluate_all("es => es.map(e => e.textContent)")


def check_every_place(context: BrowserContext, url: str) -> None:
    page, dialogs = open_deck(context, url)
    # the title (and the menu and bookmarks made from it)
    assert texts(page, ".reveal .slides section:nth-of-type(1) > h2") == [TITLE]
    # the body's inline values
    assert texts(page, ".body-values .value") == V
    # a table from deck.show.table
    assert texts(page, "table.matrix th, table.matrix td") == [
        *["", V[4], V[0]],
        *[V[2], V[0], V[1]],
        *["r", V[3], V[4]],
    ]
    # cell outputs: printed text, a string's repr, an object's repr (its _repr_html_ is not
    # trusted), and the one door for HTML: deck.show.HTML
    assert texts(page, "pre.stdout") == [V[1] + "\n"]
    assert texts(page, "pre.output") == [repr(V[3]), "Sneaky()"]
    assert texts(page, "b.by-author") == ["author's bold"]
    # figure alt text and caption
    image = page.locator(".cell figure img")
    assert image.get_attribute("alt") == f"图 {V[2]}"
    assert texts(page, ".cell figure figcaption") == [f"图注 {V[3]}"]
    # quiz stem, choices, explanation
    assert texts(page, ".quiz-question") == [f"选出 {V[0]}（题干里的值）："]
    assert [t.strip() for t in texts(page, ".quiz-choice")] == V
    assert texts(page, ".quiz-explain") == [f"因为 {V[0]} 就是 {V[0]}；对照 {V[2]}。"]
    # speaker notes and the handout block (hidden on the slides)
    assert texts(page, "aside.notes") == [f"1 分钟。笔记里的值：{V[1]} 与 {V[2]} 和 {V[3]}。"]
    assert texts(page, ".handout") == [f"讲义 {V[1]} 与 {V[2]}"]
    # a computed link target is a link, never a script
    assert page.locator(".link-values a").evaluate("a => a.protocol") == "file:"
    # a value inside a formula, and an answer block
    assert V[0] in texts(page, ".formula-values .katex-html")[0]
    assert texts(page, ".deck-answer") == [f"答案 {V[3]}"]
    # widget labels: the bars' keys and the stats' label
    page.evaluate("Reveal.slide(4)")
    page.wait_for_function("document.querySelector('.widget').dataset.widgetState === 'live'")
    names = texts(page, ".widget svg rect > title")  # every bar's (labels too wide show a few)
    assert all(names.count(v) == 2 for v in V), names  # one chart each: unscaled, scaled
    ticks = texts(page, ".widget svg text.widget-tick")
    assert ticks.count(V[0]) == 2, ticks  # the first bar's label always shows
    assert V[2] in texts(page, ".widget th")
    # the provenance popover: expression and cell code as written
    page.evaluate("Reveal.slide(0)")
    page.locator(".body-values .value").nth(1).click()
    assert texts(page, ".value-popover .value-expr code") == ["values[1]"]
    code = "".join(texts(page, ".value-popover .value-code"))
    assert f"values = {V!r}".replace(" ", "") in code.replace(" ", "")
    page.keyboard.press("Escape")
    # the slide menu lists the title as text
    page.keyboard.press("m")
    page.wait_for_selector(".slide-menu-item-title")
    assert texts(page, ".slide-menu-item-title")[0] == TITLE
    page.keyboard.press("m")
    # a quiz choice pressed
    page.evaluate("Reveal.slide(3)")
    page.locator(".quiz-choice").nth(2).click()
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None
    assert dialogs == []
    page.close()


@pytest.mark.slow
def test_every_place_reads_as_computed_and_nothing_runs(context: BrowserContext, deck: Path):
    check_every_place(context, (deck / "index.html").as_uri() + "#/0")


@pytest.mark.slow
def test_the_single_file_too(context: BrowserContext, deck: Path):
    check_every_place(context, (deck.parent / "esc.html").as_uri() + "#/0")


def test_the_handouts_print_the_values_as_computed(context: BrowserContext, deck: Path):
    page, dialogs = open_deck(context, (deck / "index.html").as_uri() + "?print-pdf")
    page.wait_for_function("document.documentElement.dataset.pdfReady === 'true'")
    for kind in ("student", "lecturer"):
        page.evaluate(f"window.deckHandout({kind!r})")
        assert texts(page, ".handout-block") == [f"讲义 {V[1]} 与 {V[2]}"]
    assert texts(page, ".handout-answer-block") == [f"课上揭示的答案：答案 {V[3]}"]
    assert texts(page, ".handout-notes") == [f"1 分钟。笔记里的值：{V[1]} 与 {V[2]} 和 {V[3]}。"]
    assert texts(page, ".handout-key-question") == [f"选出 {V[0]}（题干里的值）："]
    assert texts(page, ".handout-answer")[0].endswith(V[0])
    assert texts(page, ".handout-key-answer") == [f"答案：A. {V[0]}"]
    assert page.evaluate("window.__pwned") is None and dialogs == []
    page.close()


@pytest.mark.slow
def test_the_speaker_view_shows_the_notes_as_computed(context: BrowserContext, deck: Path):
    page, dialogs = open_deck(context, (deck / "index.html").as_uri() + "#/0")
    with context.expect_page() as info:
        page.keyboard.press("s")
    speaker = info.value
    speaker.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    speaker.wait_for_function(
        "() => (document.querySelector('.speaker-controls-notes .value') || {}).textContent"
    )
    notes = speaker.locator(".speaker-controls-notes .value").evaluate("e => e.textContent")
    assert notes.strip() == f"1 分钟。笔记里的值：{V[1]} 与 {V[2]} 和 {V[3]}。"
    speaker.wait_for_timeout(300)
    assert speaker.evaluate("window.__pwned") is None
    assert page.evaluate("window.__pwned") is None and dialogs == []
    page.close()


def test_pdf_bookmarks_and_text_read_as_computed(deck: Path):
    titles = [
        unicodedata.normalize("NFKC", o.title)
        for o in PdfReader(deck / "slides.pdf").outline
        if not isinstance(o, list)
    ]
    assert titles[0] == unicodedata.normalize("NFKC", TITLE)
    handout = visible(pdftotext(deck / "handout.pdf"))
    assert visible(f"讲义 {V[1]} 与 {V[2]}") in handout
    notes = visible(pdftotext(deck / "notes.pdf"))
    assert visible(f"笔记里的值：{V[1]} 与 {V[2]} 和 {V[3]}。") in notes
