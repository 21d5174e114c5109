"""reveal.js's search (Ctrl+Shift+F) on a Chinese deck, in real Chromium: Chinese matches are
highlighted, a match only in speaker notes is labelled as one, and Esc closes the box."""

from __future__ import annotations

import textwrap

import pytest

from fixture_build import Built, run_cli

pytestmark = pytest.mark.browser

LESSON = {
    "lesson.yml": "title: 搜索\nlang: zh-CN\ntitle-slide: false\n",
    "01-a.md": textwrap.dedent(
        """
        ## 开场

        第一页。

        ## 注意力

        多头注意力把输入分成几份。

        ## 缩放

        为什么要缩放？

        ::: handout
        讲义里的补充说明。
        :::

        ::: notes
        2 分钟。讲温度系数的由来。
        :::
        """
    ),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("search")
    folder = root / "content" / "search"
    folder.mkdir(parents=True)
    for name, text in LESSON.items():
        (folder / name).write_text(text.lstrip("\n"), "utf-8")
    proc = run_cli(root, "search", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "search", proc)


@pytest.fixture
def deck(context, built):
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((built.out / "index.html").as_uri())
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    yield page
    assert errors == []


def search(page, text: str) -> None:
    box = page.locator(".searchbox input")
    if not box.is_visible():  # the key toggles the box
        page.keyboard.press("Control+Shift+F")
    box.wait_for(state="visible")
    box.fill(text)
    box.press("End")  # a key up: the plugin searches again only after a key (typing does it)
    box.press("Enter")


def test_a_chinese_match_is_highlighted_on_its_slide(deck):
    search(deck, "注意力")
    deck.wait_for_function("Reveal.getIndices().h === 1")
    # every occurrence on the slide (title and body) is marked, visibly, with the text found
    marks = deck.locator("section.present em[style]")
    assert marks.all_inner_texts() == ["注意力", "注意力"]
    for mark in marks.all():
        assert mark.is_visible()
        color = mark.evaluate("m => getComputedStyle(m).backgroundColor")
        assert color not in ("rgba(0, 0, 0, 0)", "transparent")


def test_a_match_only_in_the_notes_is_labelled_as_such(deck):
    label = deck.locator(".searchbox .deck-search-where")
    search(deck, "温度系数")  # only in slide 2's notes
    deck.wait_for_function("Reveal.getIndices().h === 2")
    label.wait_for(state="visible")
    assert label.inner_text() == "仅在讲者备注中找到"
    search(deck, "注意力")  # on the slide itself: no label
    deck.wait_for_function("Reveal.getIndices().h === 1")
    assert label.is_hidden()
    search(deck, "补充说明")  # only in a handout block, which the screen does not show
    deck.wait_for_function("Reveal.getIndices().h === 2")
    label.wait_for(state="visible")
    assert label.inner_text() == "仅在本页未显示的文字中找到"


def test_esc_closes_the_search_box(deck):
    search(deck, "缩放")
    box = deck.locator(".searchbox")
    box.wait_for(state="visible")
    deck.locator(".searchbox input").press("Escape")
    box.wait_for(state="hidden")
    assert deck.evaluate("Reveal.isOverview()") is False
