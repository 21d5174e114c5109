"""Computed values are text wherever a slide shows them: a value that looks like HTML reads as
computed and runs nothing, in quiz stems, choices and explanations, and speaker notes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from catalogue import options_in, write_lesson
from deck.pipeline import build
from deck.progress import LogOnly

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

HOSTILE = [
    "<s>",
    "</script><script>window.pwned = 1</script>",
    '<img src=x onerror="window.pwned = 2">',
    '<svg onload="window.pwned = 3">',
    "\"quotes' & <b>bold</b>",
]
SECTION = """
## 测验

```{python}
values = HOSTILE_VALUES
```

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

::: notes
1 分钟。笔记里的值：`{python} values[1]` 与 `{python} values[2]` 和 `{python} values[3]`。
:::
""".replace("HOSTILE_VALUES", repr(HOSTILE))


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("escaping")
    write_lesson(root, {"01-a.md": SECTION}, name="esc")
    build(["esc"], options_in(root), LogOnly())
    return root / "dist" / "esc"


def test_hostile_values_are_escaped_in_the_page(deck: Path):
    page = (deck / "index.html").read_text("utf-8")
    for value in HOSTILE[1:]:
        assert value not in page  # never as markup
    assert "<script>window.pwned" not in page and 'onerror="window' not in page


def test_values_json_records_the_choices_as_computed(deck: Path):
    import json

    (quiz,) = json.loads((deck / "values.json").read_text("utf-8"))["quizzes"]
    assert quiz["choices"] == HOSTILE
    assert quiz["answer_text"] == "<s>"


def test_quiz_and_notes_read_exactly_as_computed_and_run_nothing(
    context: BrowserContext, deck: Path
):
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((deck / "index.html").as_uri() + "#/0")
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    choices = page.locator(".quiz-choice").all_inner_texts()
    assert [c.strip() for c in choices] == HOSTILE
    assert "选出 <s>（题干里的值）" in page.locator(".quiz-question").inner_text()
    explain = page.locator(".quiz-explain").evaluate("e => e.textContent")
    assert HOSTILE[2] in explain and "<s>" in explain
    notes = page.locator("aside.notes").evaluate("e => e.textContent")
    assert HOSTILE[1] in notes and HOSTILE[2] in notes and HOSTILE[3] in notes
    page.locator(".quiz-choice").nth(0).click()
    assert page.evaluate("window.pwned") is None
    assert errors == []
