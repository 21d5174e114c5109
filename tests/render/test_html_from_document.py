"""Issue 30: the HTML deck is rendered from the document (`deck.model.document`), as every
other output is: what a section resolves to is what its slides show. A resolution changed
for a moment shows on the slide (a renderer reading the parsed lesson would not show it); a
quiz's choices stand on the slide in the document's order, with the document's answer."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from test_render import load, stand_in_results

from deck.model.document import ShownQuiz, Text, walk
from deck.render import document as resolving
from deck.render.deck import render_lesson

LESSON = """## 注意力

一个值：`{python} n`。

::: {.callout-tip}
## 小结
`{python} m` 个头。
:::

## 测验

::: quiz
哪一个是 4？

- [ ] 3
- [x] 4
- [ ] 5
- [ ] 6
:::
"""


def test_what_a_section_resolves_to_is_what_its_slides_show(tmp_path: Path, monkeypatch):
    lesson = load(tmp_path, {"01-a.md": LESSON})
    node = resolving.Resolver.node

    def marked(self, block):  # every text as the document holds it, marked
        found = node(self, block)
        if isinstance(found, Text):
            return dataclasses.replace(found, parts=("〔", *found.parts, "〕"))
        return found

    monkeypatch.setattr(resolving.Resolver, "node", marked)
    deck = render_lesson(lesson, stand_in_results(lesson))
    page = deck.html
    assert "〔一个值：" in page and "〔" in re.search(r"callout-body.*?</div>", page, re.S)[0]
    # values inside the changed texts are still the document's values, recorded once each
    assert [v["expr"] for v in deck.values["values"]] == ["n", "m"]


def test_a_shuffled_quiz_shows_the_documents_order_and_answer(tmp_path: Path):
    files = {"01-a.md": LESSON, "lesson.yml": "title: T\nquiz: {shuffle: true}\n"}
    lesson = load(tmp_path, files)
    deck = render_lesson(lesson, stand_in_results(lesson))
    assert deck.document is not None
    quiz = next(
        n for s in deck.document.slides() for n in walk(s.blocks) if isinstance(n, ShownQuiz)
    )
    written = [c.markdown(lambda v: v.text).strip() for c in quiz.choices]
    assert sorted(written) == ["3", "4", "5", "6"] and written[quiz.answer] == "4"
    shown = re.findall(r'class="quiz-choice"[^>]*data-correct="(\w+)">(.*?)</button>', deck.html)
    assert [re.sub(r"<[^>]+>", "", t).strip() for _, t in shown] == written
    assert [k for k, (correct, _) in enumerate(shown) if correct == "true"] == [quiz.answer]
    record = deck.values["quizzes"][0]
    assert record["choices"] == written and record["answer"] == quiz.answer
