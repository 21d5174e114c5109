"""The overflow check of a `--no-pdf` build (deck/publish/layoutcheck.py), in real Chromium:
the same warnings at the same lines as the PDF build's, cleared by a fix, and kept without a
browser while the page is unchanged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixture_build import run_build, run_cli

pytestmark = pytest.mark.browser

LONG = "\n".join(f"- 第 {n} 行" for n in range(40))
WIDE = " + ".join(f"x_{{{n}}}^2" for n in range(60))
SLIDES = f"## 合适\n\n短。\n\n## 太长\n\n{LONG}\n\n## 太宽\n\n$${WIDE}$$\n"


@pytest.fixture(autouse=True)
def layout_check_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DECK_LAYOUT_CHECK", "1")  # (tests/conftest.py turns it off elsewhere)


def lesson(root: Path, text: str = SLIDES) -> Path:
    folder = root / "content" / "long"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lesson.yml").write_text("title: long\ntitle-slide: false\n")
    (folder / "01-a.md").write_text(text, "utf-8")
    return folder


def overflows(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "[overflow]" in line]


def no_browser(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Any start of Playwright or Chromium in this process fails, and is listed."""
    import playwright.sync_api

    import deck.publish.pdf

    started: list[str] = []

    def refuse(*args: object, **kwargs: object) -> None:
        started.append("a browser was started")
        raise RuntimeError("no browser here")

    monkeypatch.setattr(playwright.sync_api, "sync_playwright", refuse)
    monkeypatch.setattr(deck.publish.pdf, "launch", refuse)
    return started


@pytest.mark.slow
def test_no_pdf_build_names_overflowing_slides_as_the_pdf_build_does(tmp_path, monkeypatch):
    printed = tmp_path / "printed"
    lesson(printed)
    with_pdf = run_build(printed, "long")
    assert with_pdf.returncode == 0, with_pdf.stderr
    expected = overflows(with_pdf.stderr)  # the reference: printing slides.pdf measured these
    assert [w.split(": warning")[0] for w in expected] == [
        "content/long/01-a.md:5",
        "content/long/01-a.md:48",
    ]

    root = tmp_path / "edited"
    folder = lesson(root)
    proc = run_build(root, "long", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    assert overflows(proc.stderr) == expected
    assert not (root / "dist/long/slides.pdf").exists()
    assert "checked the layout of 3 slides" in proc.stderr

    # nothing changed: up to date, the warnings repeated, no browser started
    started = no_browser(monkeypatch)
    again = run_cli(root, "long", "--no-pdf")
    assert again.returncode == 0, again.stderr
    assert "up to date" in again.stderr and overflows(again.stderr) == expected
    # a change the page does not show (a blank line): rebuilt, its layout kept, no browser
    (folder / "01-a.md").write_text(SLIDES + "\n\n", "utf-8")
    kept = run_cli(root, "long", "--no-pdf")
    assert kept.returncode == 0, kept.stderr
    assert "up to date" not in kept.stderr and "checked the layout" not in kept.stderr
    assert overflows(kept.stderr) == expected
    assert started == []
    # without a browser (nor the warm one's service), an edit that changes the page is
    # published, with a note saying so
    monkeypatch.setenv("DECK_LAYOUTD", "0")
    (folder / "01-a.md").write_text(SLIDES.replace("短。", "很短。"), "utf-8")
    blind = run_cli(root, "long", "--no-pdf")
    assert blind.returncode == 0 and started, blind.stderr
    assert "很短" in (root / "dist/long/index.html").read_text("utf-8")
    assert overflows(blind.stderr) == [
        "content/long: warning [overflow] the slides' layout was not checked: Chromium did not "
        "start (RuntimeError: no browser here; `bash setup.sh` installs it, or set DECK_CHROMIUM)"
    ]
    tried = len(started)  # an unchecked layout is not kept: the next build tries again
    assert run_cli(root, "long", "--no-pdf").returncode == 0 and len(started) > tried
    monkeypatch.undo()
    monkeypatch.setenv("DECK_LAYOUT_CHECK", "1")

    # fixing the slides clears their warnings
    (folder / "01-a.md").write_text("## 合适\n\n短。\n\n## 不长\n\n- 一行\n\n## 不宽\n\n$x^2$\n")
    fixed = run_build(root, "long", "--no-pdf")
    assert fixed.returncode == 0, fixed.stderr
    assert overflows(fixed.stderr) == [] and "checked the layout of 3 slides" in fixed.stderr
    assert overflows(run_build(root, "long", "--no-pdf").stderr) == []  # (kept so)


@pytest.mark.slow
def test_the_check_follows_chromium_and_is_off_when_asked(tmp_path, monkeypatch):
    root = tmp_path / "a"
    lesson(root)
    assert len(overflows(run_build(root, "long", "--no-pdf").stderr)) == 2
    # another Chromium (its version is part of the key) checks the layout again
    other = tmp_path / "bin" / "chromium"
    other.parent.mkdir()
    real = shutil.which("chromium")
    other.write_text(
        f'#!/bin/sh\n[ "$1" = --version ] && echo "Chromium 999" && exit\nexec {real} "$@"\n'
    )
    other.chmod(0o755)
    monkeypatch.setenv("DECK_CHROMIUM", str(other))
    proc = run_build(root, "long", "--no-pdf")
    assert "checked the layout of 3 slides" in proc.stderr and len(overflows(proc.stderr)) == 2
    # $DECK_LAYOUT_CHECK=0 (as `--serve` builds): an edited deck is not checked, and the
    # answer about the deck before it is dropped (while unchanged, it is kept: still true)
    monkeypatch.setenv("DECK_LAYOUT_CHECK", "0")
    (root / "content/long/01-a.md").write_text(SLIDES.replace("短。", "很短。"), "utf-8")
    off = run_build(root, "long", "--no-pdf")
    assert off.returncode == 0 and overflows(off.stderr) == []
    assert "checked the layout" not in off.stderr
    assert not (root / "dist/long/.layout-check.json").exists()


@pytest.mark.slow
def test_an_edit_measures_the_slides_it_changed_and_moves_the_others_warnings(tmp_path):
    root = tmp_path / "edited"
    folder = lesson(root)
    assert "checked the layout of 3 slides" in run_build(root, "long", "--no-pdf").stderr
    # a second paragraph on the first slide, in characters the deck already has: the two
    # slides after it move down two lines and are not laid out again
    edited = SLIDES.replace("短。", "短。\n\n短。")
    (folder / "01-a.md").write_text(edited, "utf-8")
    proc = run_build(root, "long", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    assert "checked the layout of 1 of 3 slides" in proc.stderr
    moved = overflows(proc.stderr)
    assert [w.split(": warning")[0] for w in moved] == [
        "content/long/01-a.md:7",
        "content/long/01-a.md:50",
    ]
    # the same answer as measuring the whole deck afresh
    fresh = tmp_path / "fresh"
    lesson(fresh, edited)
    whole = run_build(fresh, "long", "--no-pdf")
    assert "checked the layout of 3 slides" in whole.stderr
    assert overflows(whole.stderr) == moved


GEOMETRY = """() => [...document.querySelectorAll('.pdf-page > section')].map(section => {
  const boxes = [];
  const range = document.createRange();
  const walker = document.createTreeWalker(section, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let n = walker.currentNode; n; n = walker.nextNode()) {
    if (n.nodeType === Node.TEXT_NODE) range.selectNodeContents(n);
    const rects = n.nodeType === Node.TEXT_NODE ? [...range.getClientRects()]
                                                : [n.getBoundingClientRect()];
    for (const r of rects) boxes.push([r.x, r.y, r.width, r.height].map(v => v.toFixed(3)).join());
  }
  return boxes;
})"""


def geometry(browser, index: Path) -> list[list[str]]:  # noqa: ANN001
    """Every element's box and every text line's, slide by slide, in the print layout."""
    from deck.publish.pdf import open_print_layout

    page = open_print_layout(browser, index, 3)
    try:
        return page.evaluate(GEOMETRY)
    finally:
        page.close()


@pytest.mark.slow
def test_a_new_character_measures_its_slide_alone_and_moves_no_other(tmp_path, browser):
    root = tmp_path / "edited"
    folder = lesson(root)
    assert "checked the layout of 3 slides" in run_build(root, "long", "--no-pdf").stderr
    before = tmp_path / "before"
    shutil.copytree(root / "dist" / "long", before)
    # characters the deck has never shown, on the first slide: its subsets are made again
    # (their bytes change) and that slide alone is laid out
    edited = SLIDES.replace("短。", "短。龘齉爨「」")
    (folder / "01-a.md").write_text(edited, "utf-8")
    proc = run_build(root, "long", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    assert "checked the layout of 1 of 3 slides" in proc.stderr
    fonts = sorted(p.name for p in (before / "assets" / "fonts").iterdir())
    assert fonts == sorted(p.name for p in (root / "dist/long/assets/fonts").iterdir())
    assert any(
        (before / "assets/fonts" / f).read_bytes()
        != (root / "dist/long/assets/fonts" / f).read_bytes()
        for f in fonts
    )
    # what that rests on: with the new subsets, every box of the other slides (each element,
    # each line of text) is where it was, to a thousandth of a pixel
    old, new = (
        geometry(browser, before / "index.html"),
        geometry(browser, root / "dist/long/index.html"),
    )
    assert old[0] != new[0]  # (the measure sees the edit)
    assert old[1:] == new[1:] and len(new[2]) > 100
    # and the answer is the one of measuring the whole edited deck afresh
    fresh = tmp_path / "fresh"
    lesson(fresh, edited)
    whole = run_build(fresh, "long", "--no-pdf")
    assert "checked the layout of 3 slides" in whole.stderr
    assert overflows(whole.stderr) == overflows(proc.stderr) != []


BOXED = """## 装得下

```{=html}
<div style="overflow-x:auto;width:400px;white-space:nowrap">短</div>
```

## 截断

```{=html}
<div style="overflow-x:auto;width:400px;white-space:nowrap">TEXT</div>
```
""".replace("TEXT", "a line of text much too long to fit in a box four hundred pixels wide")


@pytest.mark.slow
def test_a_line_cut_off_inside_its_box_is_named_though_the_box_fits(tmp_path: Path):
    """A scrolling box inside the slide's margins hides what does not fit it (in the PDFs it
    is simply cut): the check names the slide and how much is cut, and not the box that fits."""
    lesson(tmp_path, BOXED)
    ran = run_cli(tmp_path, "long", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    (warning,) = overflows(ran.stderr)
    assert warning.startswith("content/long/01-a.md:7: warning [overflow] slide 2 cuts off a line ")
    cut = int(warning.split("cuts off a line ")[1].split(" px")[0])
    assert 100 < cut < 600  # the text's width (about 60 characters at 28 px) less 400 px
    assert "overflows" not in warning  # the box itself is inside the slide
