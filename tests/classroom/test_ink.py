"""The lecturer's ink after class (deck.classroom.ink, annotate): the chalkboard's drawings
replayed as vector strokes (erased and cleared ones gone), drawn over the printed slides where
they were drawn on screen, blackboards as pages of their own, and the student handout composed
from the inked slides."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pikepdf
import pytest

from deck.classroom import ink
from deck.classroom.annotate import after_class
from deck.theme import STATIC
from fixture_build import Built
from room_support import build_room


def pen(h: int, events: list[dict]) -> dict:
    return {"slide": {"h": h, "v": 0, "f": None}, "page": 0, "events": events, "duration": 1}


def line(x1: float, y1: float, x2: float, y2: float, color: int = 2, **more: object) -> dict:
    return {"type": "draw", "color": color, "x1": x1, "y1": y1, "x2": x2, "y2": y2, **more}


def storage(pen_data: list[dict], board_data: list[dict] | None = None) -> list[dict]:
    return [
        {"width": 1280, "height": 720, "data": pen_data},
        {"width": 1280, "height": 720, "data": board_data or []},
    ]


def test_the_pens_and_chalks_are_the_decks():
    text = (STATIC / "deck.js").read_text("utf-8")
    for name, colors in (("MARKERS", ink.MARKERS), ("CHALKS", ink.CHALKS)):
        block = re.search(rf"var {name} = \[(.*?)\];", text, re.S)
        assert block is not None
        found = re.findall(r"rgba\((\d+),(\d+),(\d+),", block.group(1))
        assert [tuple(map(int, c)) for c in found] == list(colors), name


def test_strokes_join_and_the_sponge_and_clear_remove_what_they_touch():
    events = [
        line(0, 0, 10, 0),
        line(10, 0, 20, 0),  # joins the first: one polyline
        line(500, 500, 510, 500, color=1),
        {"type": "erase", "x": 505, "y": 500},  # the blue one goes
        line(100, 100, 110, 110),
    ]
    strokes = ink.replay(events, chalk=False)[0]
    assert [(s.color, s.points) for s in strokes] == [
        (ink.MARKERS[2], [(0, 0), (10, 0), (20, 0)]),
        (ink.MARKERS[2], [(100, 100), (110, 110)]),
    ]
    assert ink.replay([line(0, 0, 1, 1), {"type": "clear"}], chalk=False) == {}
    assert ink.replay([{"type": "draw", "x1": "x"}, "junk", line(0, 0, 1, 1)], chalk=False)
    found = ink.drawings(storage([pen(1, [line(0, 0, 5, 5)])], [pen(1, [line(1, 1, 2, 2, 0)])]))
    assert [(d.slide, d.board) for d in found] == [(1, None), (1, 0)]
    assert ink.drawings("not a storage") == [] and ink.drawings([{"data": [{"slide": 3}]}]) == []


def test_a_pen_point_lands_where_the_slide_showed_it():
    to_page = ink.SlideMap(1280, 720, 960, 540, margin=0.04)
    assert to_page(640, 360) == (480, 270)  # the centre stays
    x, y = to_page(0, 0)  # the window's corner is outside the slide (the margin)
    assert x == pytest.approx(-0.04 * 640 * 0.75) and y == pytest.approx(540 + 0.04 * 360 * 0.75)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build_room(tmp_path_factory.mktemp("ink"))


def red_pixels(pdf: Path, page: int, out: Path) -> list[tuple[int, int]]:
    """Where page `page` (1-based) of `pdf`, at 50 dpi, is red (the pen's third colour)."""
    subprocess.run(
        ["pdftoppm", "-r", "50", "-f", str(page), "-l", str(page), str(pdf), str(out)],
        check=True,
        timeout=60,
    )
    ppm = next(out.parent.glob(f"{out.name}*.ppm")).read_bytes()  # P6 width height 255 RGB…
    header = re.match(rb"P6\s+(\d+)\s+(\d+)\s+255\s", ppm)
    assert header is not None
    width, height, pixels = header.group(1), header.group(2), ppm[header.end() :]
    found = []
    for k in range(0, int(width) * int(height) * 3, 3):
        r, g, b = pixels[k], pixels[k + 1], pixels[k + 2]
        if r > 180 and g < 80 and b < 110:
            found.append(((k // 3) % int(width), (k // 3) // int(width)))
    return found


@pytest.mark.slow
def test_after_class_the_slides_and_handout_carry_the_ink_as_vectors(built: Built, tmp_path: Path):
    record = built.root / "dist" / "room.classroom"
    record.mkdir()
    drawn = storage(
        [pen(1, [line(300, 200, 600, 200), line(600, 200, 900, 200)])],  # on "A cell"
        [pen(2, [line(200, 300, 1000, 300, 0, board=0)])],  # a blackboard on "A quiz"
    )
    (record / "ink.json").write_text(json.dumps(drawn))
    (record / ".annotate-left").mkdir()  # what a stop interrupted while printing left
    (record / ".annotate-left" / "slides.pdf").write_bytes(b"%PDF half")
    lines: list[str] = []
    written = after_class(built.out, record, lines.append)
    assert [p.name for p in written] == ["slides-annotated.pdf", "handout-annotated.pdf"]
    assert not [p for p in record.iterdir() if p.name.startswith(".")]  # no staging left
    slides = record / "slides-annotated.pdf"
    with pikepdf.open(slides) as pdf:
        assert len(pdf.pages) == 5 + 1  # the slides, and the blackboard after its slide
        pdf.pages[1].contents_coalesce()
        inked = pdf.pages[1].obj.Contents.read_bytes()
        assert b"/DeckInk BMC" in inked and b" l\n" in inked  # paths, not a picture
    red = red_pixels(slides, 2, tmp_path / "slide")
    xs, ys = [x for x, _ in red], [y for _, y in red]
    # 960×540 pt at 50 dpi: 667×375 px; the line y=200 of 720 is 193.6 px down the slide
    assert red and min(xs) < 160 < 470 < max(xs) and 95 <= min(ys) <= max(ys) <= 107
    assert red_pixels(slides, 1, tmp_path / "first") == []  # nothing drawn there
    handout = record / "handout-annotated.pdf"
    with pikepdf.open(handout) as pdf:
        pages = len(pdf.pages)
    assert any(red_pixels(handout, k, tmp_path / f"handout{k}") for k in range(1, pages + 1))


def test_no_ink_no_annotated_pdfs(built: Built, tmp_path: Path):
    assert after_class(built.out, tmp_path / "none", print) == []
    (tmp_path / "ink.json").write_text(json.dumps(storage([])))
    assert after_class(built.out, tmp_path, print) == []


@pytest.mark.slow
def test_the_annotated_handout_is_laid_out_as_the_lessons_handout(tmp_path: Path):
    """`handout: {per-page: 1}` in lesson.yml: when the class ends, handout-annotated.pdf has a
    slide a page, as handout.pdf has (not the default two)."""
    from deck.classroom.serve import handouts
    from deck.source.registry import LessonFolder
    from fixture_build import copy_fixture, run_build
    from room_support import serve_room

    folder = copy_fixture("room", tmp_path)
    with (folder / "lesson.yml").open("a", encoding="utf-8") as f:
        f.write("handout:\n  per-page: 1\n")
    ran = run_build(tmp_path, "room", "--to", "html,pdf")
    assert ran.returncode == 0, ran.stderr
    with pikepdf.open(tmp_path / "dist" / "room" / "handout.pdf") as pdf:
        expected = len(pdf.pages)
    assert handouts([LessonFolder("room", folder)])("room") == {"perPage": 1}
    assert handouts([LessonFolder("room", folder)])("another") is None
    record = tmp_path / "dist" / "room.classroom"
    record.mkdir()
    (record / "ink.json").write_text(json.dumps(storage([pen(1, [line(300, 200, 600, 200)])])))
    with serve_room(Built(tmp_path, "room", ran)):
        pass  # the class ends at once
    with pikepdf.open(record / "handout-annotated.pdf") as pdf:
        assert len(pdf.pages) == expected == 4  # four slides in the handout (two pages at two)
