"""Issue 21, items 3 and 4: a lesson's title slide from lesson.yml (the one generator a .qmd
uses), its `slides:` block read through the .qmd's own option table with the same effect on
the deck, a `_quarto.yml` beside it, its authors and date in the PDFs' metadata and on the
course page, and the guide's lesson.yml reference (docs/guide/writing.md) checked against the
key table."""

from __future__ import annotations

import json
import re
import subprocess
import textwrap
from pathlib import Path

import pytest
import yaml

from catalogue import assert_failed_cleanly
from deck.errors import DeckError
from deck.model import Lesson
from deck.source import deckwide, qmd
from deck.source.folder import load_lesson
from deck.source.lessonyml import LESSON_SCHEMA, SLIDES_SCHEMA, lesson_settings
from deck.source.qmd import load_qmd
from deck.source.qmdconfig import REVEALJS_SCHEMA, parse_quarto_config, quarto_config
from fixture_build import ROOT, run_cli

LESSON_YML = """\
title: Softmax
subtitle: temperature and cross-entropy
author: [Ada Lovelace, Alan Turing]
course: ML 101
date: 2026-12-01
lang: en
"""
SECTION = "## One\n\nText.\n\n## Two\n\n- a\n- b\n"


def lesson_in(root: Path, yml: str, files: dict[str, str] | None = None) -> Path:
    """A lesson folder written as given (not through the tests' writer, which turns the title
    slide off)."""
    folder = root / "content" / "t"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lesson.yml").write_text(yml, "utf-8")
    for name, text in {"01-a.md": SECTION, **(files or {})}.items():
        (folder / name).write_text(textwrap.dedent(text), "utf-8")
    return folder


def slides_of(lesson: Lesson) -> list:
    return [s for section in lesson.sections for s in section.slides]


def lines_of(slide) -> list[tuple[str, str, int]]:  # noqa: ANN001
    return [(b.classes[0], b.blocks[0].text, b.loc.line) for b in slide.blocks]


def test_a_lessons_title_makes_its_title_slide(tmp_path: Path) -> None:
    lesson = load_lesson(lesson_in(tmp_path, LESSON_YML))
    first, *rest = slides_of(lesson)
    assert [s.title for s in rest] == ["One", "Two"]
    assert first.title == "Softmax" and "title-slide" in first.classes
    assert first.loc.path.endswith("lesson.yml") and first.loc.line == 1
    assert lines_of(first) == [
        ("subtitle", "temperature and cross-entropy", 2),
        ("author", "Ada Lovelace, Alan Turing", 3),  # a list, as Quarto reads it
        ("course", "ML 101", 4),
        ("date", "2026-12-01", 5),
    ]
    assert lesson.warnings == ()


@pytest.mark.parametrize(
    ("yml", "section"),
    [
        (LESSON_YML + "title-slide: false\n", SECTION),
        (LESSON_YML, "# My own {.title-slide}\n\nHello.\n\n" + SECTION),  # a custom one stays
        ("lang: en\n", SECTION),  # no title, no title slide
    ],
)
def test_no_title_slide_made_when_off_or_the_lesson_has_its_own(
    tmp_path: Path, yml: str, section: str
) -> None:
    lesson = load_lesson(lesson_in(tmp_path, yml, {"01-a.md": section}))
    made = [s for s in slides_of(lesson) if s.attrs.get("id") == "title-slide"]
    assert made == []
    own = section.count("{.title-slide}")
    assert len(slides_of(lesson)) == 2 + own


def test_a_qmd_and_a_lesson_share_the_one_title_slide_generator(tmp_path: Path) -> None:
    assert qmd.title_slide is deckwide.title_slide
    front = LESSON_YML.replace("course: ML 101\n", "")
    talk = tmp_path / "talk.qmd"
    talk.write_text(f"---\n{front}---\n\n{SECTION}", "utf-8")
    from_qmd = slides_of(load_qmd(talk))[0]
    from_lesson = slides_of(load_lesson(lesson_in(tmp_path, front)))[0]
    assert from_qmd.title == from_lesson.title == "Softmax"
    assert from_qmd.classes == from_lesson.classes
    # the same lines, each at its own file's line (the .qmd's front matter starts a line lower)
    assert [(k, t, n + 1) for k, t, n in lines_of(from_lesson)] == lines_of(from_qmd)


def problems(yml: str) -> list[str]:
    found: list = []
    lesson_settings(yml, "lesson.yml", None, found)
    return [str(d) for d in found]


@pytest.mark.parametrize("key", sorted(REVEALJS_SCHEMA))
def test_every_option_of_the_qmd_table_is_a_slides_option(key: str) -> None:
    """One table: whatever the value, a `.qmd`'s format option is never unknown in `slides:`
    or in `format: revealjs:`, and it is judged the same way as in a `.qmd`."""
    value = json.dumps([["?"]])  # a value most options refuse: each says so its own way
    in_slides = problems(f"slides:\n  {key}: {value}\n")
    in_format = problems(f"format:\n  revealjs:\n    {key}: {value}\n")
    in_qmd = [str(d) for d in parse_quarto_config(f"{key}: {value}\n", "x.qmd")[2]]
    assert not any("unknown key" in p for p in in_slides + in_format), in_slides + in_format
    said = [re.sub(r"^.*?: (error|warning) \[config\] `[\w.-]+", r"\1", p) for p in in_slides]
    assert said == [re.sub(r"^.*?: (error|warning) \[config\] `[\w.-]+", r"\1", p) for p in in_qmd]
    assert len(in_slides) == len(in_format)


def test_a_misspelled_slides_option_is_named_with_the_nearest(tmp_path: Path) -> None:
    found = problems("title: T\nslides:\n  fotter: x\n")
    assert found == [
        "lesson.yml:3: warning [config] unknown key `slides.fotter` is ignored "
        "(did you mean `footer`?)"
    ]


OPTIONS = {
    "footer": "ML 101 · *softmax*",
    "slide-number": "c",
    "theme": "sky",
    "incremental": True,
    "smaller": True,
    "transition": "fade",
    "code-line-numbers": True,
}


def test_slides_format_and_a_qmd_give_the_same_deck_settings() -> None:
    as_slides = yaml.safe_dump({"slides": OPTIONS}, allow_unicode=True)
    as_format = yaml.safe_dump({"format": {"revealjs": OPTIONS}}, allow_unicode=True)
    lesson, _, _ = lesson_settings(as_slides, "lesson.yml", None, [])
    aliased, _, _ = lesson_settings(as_format, "lesson.yml", None, [])
    values, _, found = parse_quarto_config(as_format, "talk.qmd")
    assert found == []
    assert lesson.slides == aliased.slides == quarto_config(values).slides
    assert lesson.slides.footer == OPTIONS["footer"] and lesson.slides.theme == "sky"
    assert lesson.slides.reveal_options() == {"transition": "fade", "slideNumber": "c"}
    # a lesson's own defaults where its slides: says nothing (Quarto's differ)
    plain, _, _ = lesson_settings("title: T\n", "lesson.yml", None, [])
    assert plain.slides.slide_number is True and plain.slides.code_line_numbers is False
    assert plain.title_slide is True


def built(root: Path, name: str) -> dict:
    html = (root / "dist" / name / "index.html").read_text("utf-8")
    options = json.loads(re.search(r"deckOptions = (\{.*?\});", html).group(1))
    return {
        "footers": re.findall(r'<div class="footer footer-default">(.*?)</div>', html),
        "reveal": options["reveal"],
        "theme": options["theme"],
        "fragments": html.count('<li class="fragment">'),
        "smaller": len(re.findall(r'<section[^>]*class="[^"]*\bsmaller\b', html)),
    }


@pytest.mark.slow
def test_the_same_options_have_the_same_effect_on_a_lesson_and_a_qmd(tmp_path: Path) -> None:
    options = {k: v for k, v in OPTIONS.items() if k != "code-line-numbers"}
    yml = yaml.safe_dump({"title-slide": False, "lang": "en", "slides": options})
    lesson_in(tmp_path, yml)
    front = yaml.safe_dump({"lang": "en", "format": {"revealjs": options}}, allow_unicode=True)
    (tmp_path / "content" / "talk.qmd").write_text(f"---\n{front}---\n\n{SECTION}", "utf-8")
    assert run_cli(tmp_path, "t", "--no-pdf").returncode == 0
    ran = run_cli(tmp_path, "content/talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    lesson, talk = built(tmp_path, "t"), built(tmp_path, "talk")
    assert lesson == talk
    assert lesson == {
        "footers": ["ML 101 · <em>softmax</em>"] * 2,  # on each of the two slides
        "reveal": {"transition": "fade", "slideNumber": "c"},
        "theme": "sky",
        "fragments": 2,  # the two list items, one by one
        "smaller": 2,
    }


@pytest.mark.parametrize(
    ("yml", "line", "says"),
    [
        ("title: T\nslides:\n  slide-number: maybe\n", 3, "`slides.slide-number: maybe` must be"),
        ("title: T\nformat:\n  revealjs:\n    incremental: often\n", 4, "must be true or false"),
        ("title: T\ntitle-slide: perhaps\n", 2, "`title-slide: perhaps` must be true or false"),
        ("title: T\nslides: [footer]\n", 2, "`slides` must be a mapping"),
    ],
)
def test_a_bad_slides_option_is_an_error_at_its_line(
    tmp_path: Path, yml: str, line: int, says: str
) -> None:
    folder = lesson_in(tmp_path, "title: T\n")
    assert run_cli(tmp_path, "t", "--no-pdf").returncode == 0
    (folder / "lesson.yml").write_text(yml, "utf-8")
    assert_failed_cleanly(tmp_path, ["t", "--no-pdf"], f"content/t/lesson.yml:{line}", says=says)


PROJECT = """\
project:
  type: default
lang: de
format:
  revealjs:
    footer: From the project
    slide-number: false
execute:
  echo: false
website:
  title: Site
"""


def test_a_quarto_yml_beside_the_lesson_is_read_under_lesson_yml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # (paths in messages are shown from the working folder)
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "_quarto.yml").write_text(PROJECT, "utf-8")
    folder = lesson_in(tmp_path, "title: T\nslides:\n  footer: Own footer\n")
    lesson = load_lesson(folder)
    assert lesson.config.lang == "de"  # from _quarto.yml: lesson.yml says none
    assert lesson.config.slides.footer == "Own footer"  # lesson.yml wins
    assert lesson.config.slides.slide_number is False  # from _quarto.yml's format: revealjs:
    warned = [str(w) for w in lesson.warnings]
    assert [w.split(": warning")[0] for w in warned] == [
        "content/_quarto.yml:1",
        "content/_quarto.yml:8",
        "content/_quarto.yml:10",
    ]
    assert all("does not apply to a lesson" in w for w in warned), warned
    assert "`project`" in warned[0] and "`execute`" in warned[1] and "`website`" in warned[2]
    # one in the lesson's own folder comes first
    (folder / "_quarto.yml").write_text("format:\n  revealjs:\n    slide-number: c\n", "utf-8")
    assert load_lesson(folder).config.slides.slide_number == "c"
    (folder / "_quarto.yml").write_text("format:\n  revealjs:\n    slide-number: 3\n", "utf-8")
    with pytest.raises(DeckError) as bad:
        load_lesson(folder)
    assert str(bad.value.diagnostics[0]).startswith("content/t/_quarto.yml:3: error")


def readme_reference() -> str:
    """The guide's lesson.yml reference (docs/guide/writing.md)."""
    text = (ROOT / "docs/guide/writing.md").read_text("utf-8")
    start = text.index("## lesson.yml reference")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def test_the_readme_lists_every_lesson_yml_key() -> None:
    section = readme_reference()
    named = set(re.findall(r"`([\w.-]+)", section))
    named |= {name.split(".")[0] for name in named}  # `exec.seed` names `exec` too
    missing = [k for k in LESSON_SCHEMA if k not in named]
    for key, declared in LESSON_SCHEMA.items():
        if declared.keys is not None and declared.keys is not SLIDES_SCHEMA:
            missing += [f"{key}.{sub}" for sub in declared.keys if f"{key}.{sub}" not in named]
    applied = [k for k, declared in REVEALJS_SCHEMA.items() if not declared.not_applied]
    missing += [f"slides: {k}" for k in applied if k not in named]
    assert missing == [], f"the guide's lesson.yml reference lacks {missing}"
    assert LESSON_SCHEMA["slides"].keys is SLIDES_SCHEMA


def a_pdf(path: Path, printed: str) -> Path:
    """A one-page PDF as Chromium leaves it: a title, a producer and its print dates."""
    import pikepdf

    pdf = pikepdf.new()
    pdf.add_blank_page()
    pdf.docinfo["/Title"] = "Softmax"
    pdf.docinfo["/CreationDate"] = pdf.docinfo["/ModDate"] = printed
    pdf.save(path, object_stream_mode=pikepdf.ObjectStreamMode.disable, static_id=True)
    return path


def test_the_pdfs_carry_the_authors_and_the_lessons_date(tmp_path: Path) -> None:
    import pikepdf

    from deck.publish.pdfmeta import stamp
    from deck.publish.pdfs import pdf_digest

    one = a_pdf(tmp_path / "one.pdf", "D:20261201101010+00'00'")
    two = a_pdf(tmp_path / "two.pdf", "D:20261202121212+00'00'")
    for path in (one, two):
        stamp(path, "Ada Lovelace, Alan Turing", "2026-12-01")
    with pikepdf.open(one) as pdf:
        info = {k: str(v) for k, v in pdf.docinfo.items()}
        meta = pdf.open_metadata()
        assert meta["dc:creator"] == ["Ada Lovelace", "Alan Turing"]
        assert meta["dc:date"] == ["2026-12-01"]
        assert "xmp:MetadataDate" not in meta and "xmp:ModifyDate" not in meta
    assert info == {
        "/Title": "Softmax",  # Chromium's keys kept
        "/CreationDate": "D:20261201101010+00'00'",  # the print date, not the lesson's
        "/ModDate": "D:20261201101010+00'00'",
        "/Author": "Ada Lovelace, Alan Turing",
    }
    assert pdf_digest(one) == pdf_digest(two)  # two prints of one deck: equal but for dates
    untouched = a_pdf(tmp_path / "none.pdf", "D:20261201101010+00'00'")
    before = untouched.read_bytes()
    stamp(untouched, None, None)
    assert untouched.read_bytes() == before


def test_the_course_page_names_the_authors(tmp_path: Path) -> None:
    from deck.publish.course import course_page
    from deck.publish.coursefile import CourseConfig

    entry = {"name": "t", "title": "Softmax", "author": "Ada <Lovelace>", "date": "2026-12-01"}
    entry |= {"lang": "en", "slides": 3, "minutes": 0, "in_content": True, "out": str(tmp_path)}
    page = course_page(CourseConfig(), [entry], tmp_path)
    facts = re.search(r'<p class="lesson-facts">(.*?)</p>', page).group(1)
    assert facts.startswith('<span class="lesson-author">Ada &lt;Lovelace&gt;</span> · <time')


def test_an_edit_of_content_quarto_yml_rebuilds_the_lesson(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    project = tmp_path / "content" / "_quarto.yml"
    project.write_text("format:\n  revealjs:\n    footer: First footer\n", "utf-8")
    lesson_in(tmp_path, "title: T\ntitle-slide: false\n")
    assert run_cli(tmp_path, "t", "--no-pdf").returncode == 0
    assert built(tmp_path, "t")["footers"] == ["First footer"] * 2
    project.write_text("format:\n  revealjs:\n    footer: Second footer\n", "utf-8")
    assert run_cli(tmp_path, "t", "--no-pdf").returncode == 0
    assert built(tmp_path, "t")["footers"] == ["Second footer"] * 2


@pytest.mark.browser
@pytest.mark.slow
def test_a_built_lessons_pdfs_name_its_authors_and_date(tmp_path: Path) -> None:
    import pikepdf

    from fixture_build import run_build

    lesson_in(tmp_path, LESSON_YML)
    proc = run_build(tmp_path, "t")
    assert proc.returncode == 0, proc.stderr
    for name in ("slides.pdf", "handout.pdf", "notes.pdf"):
        with pikepdf.open(tmp_path / "dist" / "t" / name) as pdf:
            assert str(pdf.docinfo["/Author"]) == "Ada Lovelace, Alan Turing", name
            assert str(pdf.docinfo["/Title"]) == "Softmax", name  # Chromium's, kept
            assert str(pdf.docinfo["/CreationDate"]).startswith("D:"), name
            meta = pdf.open_metadata()
            assert meta["dc:date"] == ["2026-12-01"], name
    first = subprocess.run(
        ["pdftotext", "-f", "1", "-l", "1", str(tmp_path / "dist/t/slides.pdf"), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in ("Softmax", "temperature and cross-entropy", "Ada Lovelace, Alan Turing"):
        assert line in first, first  # the title slide is the first page
