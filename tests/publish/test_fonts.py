"""The deck's own fonts: TrueType WOFF2 subsets of the body and code fonts for exactly the
characters it shows, served with the deck and inlined in the single file, loaded by the screen
and print layouts, cached by character set; the theme's unused font left out."""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from catalogue import edit
from fixture_build import ROOT, Built, copy_fixture, run_build, run_cli

pytestmark = pytest.mark.browser

CJK = "Noto Sans CJK SC"
MONO = "DejaVu Sans Mono"


@pytest.fixture(autouse=True)
def own_font_store(monkeypatch: pytest.MonkeyPatch) -> None:
    """This file counts the subsets a build makes: each build keeps its own (`<cache>/fonts`),
    not the store the other tests share (tests/conftest.py)."""
    monkeypatch.delenv("DECK_FONT_CACHE", raising=False)


def shipped_faces(deck: Path) -> dict[tuple[str, int, str], Path]:
    """(family, weight, style) → file of each `@font-face` in the deck's fonts.css."""
    css = (deck / "assets" / "fonts.css").read_text("utf-8")
    faces = {}
    for rule in re.findall(r"@font-face\s*\{([^}]*)\}", css):
        family = re.search(r'font-family:\s*"([^"]+)"', rule).group(1)
        weight = int(re.search(r"font-weight:\s*(\d+)", rule).group(1))
        style = re.search(r"font-style:\s*(\w+)", rule).group(1)
        url = re.search(r'url\("([^"]+)"\)', rule).group(1)
        faces[family, weight, style] = deck / "assets" / url
    return faces


def cmap(path: Path | bytes) -> set[int]:
    from fontTools.ttLib import TTFont

    font = TTFont(io.BytesIO(path) if isinstance(path, bytes) else path)
    return set(font["cmap"].getBestCmap())


def inlined_faces(deck: Path) -> list[tuple[str, int, str, bytes]]:
    """(family, weight, style, font) of each subset the page itself holds (what the handout
    and notes add to the slides' characters)."""
    page = (deck / "index.html").read_text("utf-8")
    (style,) = re.findall(r"<style data-speaker-css data-deck-fonts>(.*?)</style>", page, re.S)
    faces = []
    for rule in re.findall(r"@font-face\s*\{([^}]*)\}", style):
        family = re.search(r'font-family:\s*"([^"]+)"', rule).group(1)
        weight = int(re.search(r"font-weight:\s*(\d+)", rule).group(1))
        shape = re.search(r"font-style:\s*(\w+)", rule).group(1)
        data = re.search(r'url\("data:font/woff2;base64,([^"]+)"\)', rule).group(1)
        faces.append((family, weight, shape, base64.b64decode(data)))
    return faces


# ---- the main lesson: every character it shows renders in a face it ships ------------------


@pytest.fixture(scope="module")
def lesson(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """content/transformer built without PDFs (cells from the project's cache)."""
    tmp = tmp_path_factory.mktemp("fonts-lesson")
    args = ["--out", str(tmp / "dist"), "--figures", str(tmp / "figures"), "--no-pdf"]
    proc = subprocess.run(
        [sys.executable, "build.py", "transformer", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    return tmp / "dist" / "transformer"


WITH_TEXT = """() => {
  let n = 0;
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('script, style, .katex-mathml')) continue;
    if ([...el.childNodes].some(c => c.nodeType === 3 && c.data.trim())) {
      el.setAttribute('data-font-probe', String(n++));
    }
  }
  return n;
}"""


def platform_fonts(page, least: int = 500) -> list[tuple[str, str, str]]:  # noqa: ANN001
    """(element's text, font, how) for every font Chromium drew a probed element's text with
    that is not a web font of the page (a fallback to an installed font)."""
    count = page.evaluate(WITH_TEXT)
    assert count > least  # the page's text was found
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    ids = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": "[data-font-probe]"})
    fallen = []
    for node in ids["nodeIds"]:
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        for font in fonts:
            if not font["isCustomFont"]:
                text = cdp.send("DOM.getOuterHTML", {"nodeId": node})["outerHTML"][:120]
                fallen.append((text, font["familyName"], f"{font['glyphCount']} glyphs"))
    return fallen


@pytest.mark.slow
def test_every_character_of_the_lesson_renders_in_a_face_the_deck_ships(lesson: Path, browser):
    from deck.publish.pdf import open_print_layout

    slides = json.loads((lesson / "values.json").read_text())["slides"]
    page = open_print_layout(browser, lesson / "index.html", slides)  # every slide laid out
    try:
        assert platform_fonts(page) == []
    finally:
        page.context.close()


def test_the_subsets_hold_every_character_of_the_page_text_and_notes(lesson: Path):
    """Independent of the browser: every character of the page's text (slides, notes, quiz
    explanations, outside formulas, which KaTeX draws with its own fonts) is in the body or
    code face; the bold face holds the same characters."""
    import html

    page = (lesson / "index.html").read_text("utf-8")
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
    page = re.sub(r'<span class="katex">.*?</span></span></span>', "", page, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    faces = shipped_faces(lesson)
    covered = cmap(faces[CJK, 400, "normal"]) | cmap(faces[MONO, 400, "normal"])
    bold = cmap(faces[CJK, 700, "normal"])
    assert bold == cmap(faces[CJK, 400, "normal"])
    for family, weight, _, font in inlined_faces(lesson):  # (what the notes add)
        covered |= cmap(font) if weight == 400 else set()
        bold |= cmap(font) if (family, weight) == (CJK, 700) else set()
    wanted = {ord(c) for c in text if not c.isspace() and c.isprintable()}
    assert len(wanted) > 800  # the lesson's Chinese is there
    assert sorted(chr(c) for c in wanted - covered) == []
    assert sorted(chr(c) for c in wanted - bold if c > 0x2E80) == []  # CJK in bold too


# ---- the fixture lesson: PDFs, loading, the single file ----------------------------------


def pdffonts(path: Path) -> list[tuple[str, str]]:
    """(font name without its subset tag, type) of every font in the PDF."""
    lines = subprocess.run(
        ["pdffonts", str(path)], capture_output=True, text=True, check=True
    ).stdout.splitlines()[2:]
    fonts = []
    for line in lines:
        m = re.match(r"(\S+)\s+(Type 3|CID TrueType|TrueType|Type 1C?|CID Type 0C?)\s", line)
        assert m, line
        fonts.append((m.group(1).split("+")[-1], m.group(2)))
    return fonts


def test_the_slides_pdf_embeds_truetype_subsets_not_type3(mini: Built):
    fonts = pdffonts(mini.out / "slides.pdf")
    names = {name for name, _ in fonts}
    assert {"NotoSansCJKsc-Regular", "NotoSansCJKsc-Bold", "DejaVuSansMono"} <= names, fonts
    assert [f for f in fonts if f[1] == "Type 3"] == []
    for name, kind in fonts:
        if name.startswith(("NotoSansCJK", "DejaVuSansMono")):
            assert kind in ("TrueType", "CID TrueType"), (name, kind)


def test_subsets_have_truetype_outlines_matching_the_installed_font(mini: Built):
    """The quadratic outlines stay within a font unit or two of the installed CFF ones."""
    from fontTools.pens.boundsPen import BoundsPen
    from fontTools.ttLib import TTFont

    from deck.publish.fonts import Face, locate

    faces = shipped_faces(mini.out)
    subset = TTFont(faces[CJK, 400, "normal"])
    assert "glyf" in subset and "CFF " not in subset
    path, number = locate(Face(CJK, 400))
    original = TTFont(path, fontNumber=number, lazy=True)
    assert "CFF " in original
    for char in "平方结果":
        ours, theirs = subset.getBestCmap()[ord(char)], original.getBestCmap()[ord(char)]
        assert subset["hmtx"][ours][0] == original["hmtx"][theirs][0]
        boxes = []
        for font, glyph in ((subset, ours), (original, theirs)):
            pen = BoundsPen(font.getGlyphSet())
            font.getGlyphSet()[glyph].draw(pen)
            boxes.append(pen.bounds)
        assert boxes[0] == pytest.approx(boxes[1], abs=2)


def loaded_faces(page) -> list[tuple[str, str, str]]:  # noqa: ANN001
    return page.evaluate(
        """() => [...document.fonts].filter(f => f.status === 'loaded')
                 .map(f => [f.family.replace(/"/g, ''), f.weight, f.style])"""
    )


def test_screen_and_print_layouts_load_the_subsets(mini: Built, context):
    shipped = {(f, str(w), s) for f, w, s in shipped_faces(mini.out)}
    assert {(CJK, "400", "normal"), (CJK, "700", "normal"), (MONO, "400", "normal")} <= shipped
    page = context.new_page()
    page.goto((mini.out / "index.html").as_uri() + "#/1")
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    page.evaluate("document.fonts.ready.then(() => true)")
    on_screen = set(map(tuple, loaded_faces(page)))
    assert {(CJK, "400", "normal"), (CJK, "700", "normal")} <= on_screen
    page.goto((mini.out / "index.html").as_uri() + "?print-pdf")
    page.wait_for_selector(".pdf-page")
    page.evaluate("document.fonts.ready.then(() => true)")
    printed = set(map(tuple, loaded_faces(page)))  # what the overflow lint measures with
    assert {(CJK, "400", "normal"), (CJK, "700", "normal"), (MONO, "400", "normal")} <= printed


@pytest.mark.slow
def test_the_single_file_carries_the_subsets_offline_and_not_the_theme_font(tmp_path, browser):
    copy_fixture("mini", tmp_path)
    proc = run_build(tmp_path, "mini", "--no-pdf", "--single-file")
    assert proc.returncode == 0, proc.stderr
    single = tmp_path / "dist" / "mini.html"
    text = single.read_text("utf-8")
    assert "Source Sans Pro;src" not in text and "font-family:Source Sans Pro" not in text
    theme = tmp_path / "dist" / "mini" / "assets" / "reveal" / "theme" / "white.css"
    assert "@font-face" not in theme.read_text("utf-8")
    faces = re.findall(r'@font-face \{ font-family: "([^"]+)"[^}]*url\("data:font/woff2;', text)
    assert {CJK, MONO} <= set(faces)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    asked: list[str] = []

    def only_the_file(route) -> None:  # noqa: ANN001
        url = route.request.url.split("#")[0]
        if url == single.as_uri():
            route.continue_()
        else:
            asked.append(url)
            route.abort()

    try:
        page = context.new_page()
        page.route("**/*", only_the_file)
        page.goto(single.as_uri() + "#/1")
        page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
        page.evaluate("document.fonts.ready.then(() => true)")
        loaded = set(map(tuple, loaded_faces(page)))
        assert {(CJK, "400", "normal"), (CJK, "700", "normal")} <= loaded
        assert asked == []
    finally:
        context.close()


def test_a_theme_font_a_deck_stylesheet_names_is_kept(tmp_path):
    from deck.publish.assets import drop_unused_theme_fonts

    theme = tmp_path / "assets" / "reveal" / "theme" / "white.css"
    theme.parent.mkdir(parents=True)
    face = "@font-face{font-family:Source Sans Pro;src:url(data:font/woff;base64,AAAA)}"
    other = "@font-face{font-family:League Gothic;src:url(data:font/woff;base64,BBBB)}"
    theme.write_text(face + other + ":root{--r-main-font:Source Sans Pro}", "utf-8")
    (tmp_path / "assets" / "deck.css").write_text("/* League Gothic */ h1 {}", "utf-8")
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "mine.css").write_text(".x { font-family: 'Source Sans Pro' }")
    assert drop_unused_theme_fonts(tmp_path) == len(other)
    assert theme.read_text("utf-8") == face + ":root{--r-main-font:Source Sans Pro}"


# ---- the cache ------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_prose_edit_without_a_new_character_subsets_nothing(tmp_path, monkeypatch):
    from deck.publish import fonts

    monkeypatch.setenv("DECK_AHEAD", "0")  # (every subset made in this process, counted)
    calls: list[str] = []
    real = fonts._subset

    def counting(path: Path, number: int, characters: str, outlines: Path | None) -> bytes:
        calls.append(path.name)
        return real(path, number, characters, outlines)

    monkeypatch.setattr(fonts, "_subset", counting)
    lesson = copy_fixture("mini", tmp_path)
    assert run_cli(tmp_path, "mini", "--no-pdf").returncode == 0
    assert len(calls) >= len(fonts.FACES)  # a fresh cache: every face subset
    subsets = tmp_path / "dist" / "mini" / "assets" / "fonts"
    first = {p.name: p.read_bytes() for p in subsets.iterdir()}
    cached = sorted((tmp_path / ".cache" / "fonts").glob("*.woff2"))
    assert len(cached) == len(calls)

    calls.clear()  # the same characters in another order
    edit(lesson / "01-basics.md", "计算结果直接出现在幻灯片上。", "结果计算直接出现在幻灯片上。")
    ran = run_cli(tmp_path, "mini", "--no-pdf")
    assert ran.returncode == 0 and calls == []
    assert {
        p.name: p.read_bytes() for p in (tmp_path / "dist/mini/assets/fonts").iterdir()
    } == first

    calls.clear()  # a character the deck did not show before
    assert "龘" not in fonts.deck_characters(tmp_path / "dist" / "mini")
    edit(lesson / "01-basics.md", "结果计算直接", "龘结果计算直接")
    assert run_cli(tmp_path, "mini", "--no-pdf").returncode == 0
    # the slides' subsets of the faces that have it (the notes add no new one); the others
    # are kept by the characters they have
    assert sorted(calls) == ["NotoSansCJK-Bold.ttc", "NotoSansCJK-Regular.ttc"]
    cjk = shipped_faces(tmp_path / "dist" / "mini")[CJK, 400, "normal"]
    assert ord("龘") in cmap(cjk)


SHAPED = (
    "AVATAR Wave, Type: fi fl ffi -> => != ≤ ≥ “quoted” Attention(Q,K,V) = softmax(QKᵀ/√d)V "
    "注意力机制把查询与键比较，得到权重（softmax）；再加权求和。「这」、《那》……"
)


def shaped(face, text: str) -> list[tuple[int, int, int, int]]:  # noqa: ANN001
    """(cluster, advance, x offset, y offset) of each glyph HarfBuzz shapes `text` into, in
    the lesson's language, as Chromium shapes a `lang="zh-CN"` page (the subsets leave out
    `locl`, which for another language would pick the Japanese and Korean forms)."""
    import uharfbuzz as hb

    buffer = hb.Buffer()
    buffer.add_str(text)
    buffer.guess_segment_properties()
    buffer.language = "zh-cn"
    hb.shape(hb.Font(face), buffer, {})
    glyphs = zip(buffer.glyph_infos, buffer.glyph_positions, strict=True)
    return [(i.cluster, p.x_advance, p.x_offset, p.y_offset) for i, p in glyphs]


@pytest.mark.parametrize("index", [0, 1, 2, 6])  # CJK regular and bold, the mono, the sans
def test_a_subset_shapes_text_as_the_installed_font_does(index: int):
    """Kerning, ligatures and CJK punctuation: the glyphs' advances and offsets are the
    installed face's, shaped by HarfBuzz from the font file itself."""
    import uharfbuzz as hb
    from fontTools.ttLib import TTFont

    from deck.publish import fonts
    from deck.publish.subset import subset_face

    face = fonts.FACES[index]
    path, number = fonts.locate(face)
    installed = hb.Face(hb.Blob.from_file_path(str(path)), number)
    covered = set(installed.unicodes)
    text = "".join(c for c in SHAPED if ord(c) in covered)
    assert len(text) > 40
    font = TTFont(io.BytesIO(subset_face(path, number, text)))
    font.flavor = None
    sfnt = io.BytesIO()
    font.save(sfnt)
    assert shaped(hb.Face(sfnt.getvalue()), text) == shaped(installed, text)


def test_a_new_characters_subset_converts_its_own_glyphs_alone(tmp_path, monkeypatch):
    """The glyphs a CJK face's subsets made TrueType are kept: the next subset converts only
    the new character's, and its bytes are those of a subset made from nothing."""
    import fontTools.pens.cu2quPen

    from deck.publish import fonts
    from deck.publish.subset import subset_face

    drawn: list[int] = []

    class Counting(fontTools.pens.cu2quPen.Cu2QuPen):
        def __init__(self, *args: object, **kwargs: object) -> None:
            drawn.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(fontTools.pens.cu2quPen, "Cu2QuPen", Counting)
    path, number = fonts.locate(fonts.FACES[0])
    outlines = tmp_path / "cjk.outlines"
    text = "注意力机制把查询与键比较"
    first = subset_face(path, number, text, outlines)
    assert len(drawn) > len(text) and outlines.is_file()  # (.notdef, spaces: a few more)
    drawn.clear()
    again = subset_face(path, number, text + "龘", outlines)
    assert len(drawn) == 1  # 龘 alone
    drawn.clear()
    assert again == subset_face(path, number, text + "龘")  # (from nothing: every glyph)
    assert len(drawn) > len(text) and first == subset_face(path, number, text)


def test_missing_subsets_are_made_on_two_cores_as_on_one(tmp_path, monkeypatch):
    """A first build's subsets: a child process makes about half of them (by their font
    files' sizes) while the build makes the rest; each is the same as one made alone."""
    from deck.publish import fonts

    calls: list[str] = []
    real = fonts._subset

    def counting(path: Path, number: int, characters: str, outlines: Path | None) -> bytes:
        calls.append(path.name)  # (the child's calls are counted in its own memory)
        return real(path, number, characters, outlines)

    monkeypatch.setattr(fonts, "_subset", counting)
    faces = [face for face in fonts.FACES if face.family.startswith("DejaVu")]
    store = tmp_path / "store"
    located = fonts.find_all(faces, store)
    needed = [(fonts._Subsets(store, f, *located[f]), "Attention → 0.25") for f in faces]
    fonts.make_missing(needed)
    assert 0 < len(calls) < len(needed)  # (the rest were made beside)
    for subsets, characters in needed:
        assert subsets.cached(characters)
        assert subsets.get(characters) == real(subsets.path, subsets.number, characters)
    calls.clear()
    fonts.make_missing(needed)  # (all cached: none made)
    assert calls == []


def test_the_characters_come_from_text_attributes_scripts_and_stylesheets(tmp_path):
    from deck.publish.fonts import deck_characters

    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text('<p title="标">&#x4E2D;&amp;文</p>', "utf-8")
    (tmp_path / "assets" / "a.js").write_text('t("\\u7B54\\u{1F600}", "\\ud83d\\ude01")', "utf-8")
    (tmp_path / "assets" / "b.css").write_text('p::after { content: "\\2192 \\f101" }', "utf-8")
    found = deck_characters(tmp_path)
    for char in "标中文&答😀😁→ aZ~":
        assert char in found, char
    assert "\uf101" not in found and "\n" not in found  # private use, controls


@pytest.mark.slow
def test_the_speaker_window_and_menu_show_their_text_in_the_shipped_faces(mini: Built, context):
    page = context.new_page()
    page.goto((mini.out / "index.html").as_uri())
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    page.keyboard.press("ArrowRight")
    with page.expect_popup() as popup:
        page.keyboard.press("s")
    notes = popup.value
    notes.wait_for_load_state()
    notes.wait_for_function(
        "() => (document.querySelector('.speaker-controls-notes') || {}).textContent"
        "?.includes('这里讲平方')"
    )
    notes.evaluate("document.fonts.ready.then(() => true)")
    assert (CJK, "400", "normal") in set(map(tuple, loaded_faces(notes)))
    cdp = notes.context.new_cdp_session(notes)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    value = cdp.send(
        "DOM.querySelector", {"nodeId": root, "selector": ".speaker-controls-notes .value"}
    )
    used = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": value["nodeId"]})["fonts"]
    assert used and all(font["isCustomFont"] for font in used), used
    notes.close()
    page.keyboard.press("m")  # the slide menu lists the slides' titles
    page.wait_for_selector(".slide-menu.active .slide-menu-item")
    assert platform_fonts(page, least=5) == []


@pytest.mark.slow
def test_a_notes_edit_with_a_new_character_changes_only_the_notes_subsets(tmp_path, monkeypatch):
    """The slides' subsets (what slides.pdf and handout.pdf load) stay byte for byte, so a
    notes edit still reprints notes.pdf alone; the new character is in the page's own faces."""
    from deck.publish import fonts

    monkeypatch.setenv("DECK_AHEAD", "0")  # (every subset made in this process, counted)
    calls: list[str] = []
    real = fonts._subset
    monkeypatch.setattr(fonts, "_subset", lambda *a: (calls.append(a[2]), real(*a))[1])
    lesson = copy_fixture("mini", tmp_path)
    assert run_cli(tmp_path, "mini", "--no-pdf").returncode == 0
    assets = tmp_path / "dist" / "mini" / "assets"
    before = {p: p.read_bytes() for p in sorted(assets.rglob("*")) if p.is_file()}
    calls.clear()
    edit(lesson / "01-basics.md", "开场：介绍本节。", "开场：介绍本节。鼹鼠。")
    assert run_cli(tmp_path, "mini", "--no-pdf").returncode == 0
    assert {p: p.read_bytes() for p in sorted(assets.rglob("*")) if p.is_file()} == before
    assert len(calls) == 2 and all("鼹" in chars for chars in calls)  # the CJK regular, bold
    added = [font for family, _, _, font in inlined_faces(assets.parent) if family == CJK]
    assert len(added) == 2 and all({ord("鼹"), ord("鼠")} <= cmap(font) for font in added)
