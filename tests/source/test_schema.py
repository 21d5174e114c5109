"""Issue 30, item 4: one schema engine (`deck.source.schema`) reads every settings file —
lesson.yml and its `slides:`, a `.qmd`'s front matter, a project's `_quarto.yml` (beside a
`.qmd` or a lesson) and course.yml — each with the same rules: a wrong value is an error at
its `file:line`, an unknown key a warning naming the nearest known key, an option read but not
applied a warning saying what happens instead; and the defaults it declares are the build's."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from deck.errors import DeckError
from deck.model import ExecConfig, LessonConfig, QuizConfig
from deck.model.config import HandoutConfig
from deck.publish.coursefile import CourseConfig, read_course
from deck.source.config import EXEC_SCHEMA, HANDOUT_SCHEMA, QUIZ_SCHEMA
from deck.source.folder import load_lesson
from deck.source.lessonyml import LESSON_SCHEMA, SLIDES_SCHEMA, lesson_settings, read_project
from deck.source.project import project_config
from deck.source.qmdconfig import parse_quarto_config, quarto_config
from deck.source.schema import Key, Reading, Schema
from deck.source.schemacourse import COURSE_SCHEMA
from deck.source.schemaqmd import QUARTO_SCHEMA, REVEALJS_SCHEMA


def lesson_yml(text: str) -> list[str]:
    found: list = []
    lesson_settings(text, "lesson.yml", None, found)
    return [str(d) for d in found]


def qmd(text: str) -> list[str]:
    return [str(d) for d in parse_quarto_config(text, "talk.qmd", 2)[2]]


def beside_a_lesson(text: str) -> list[str]:
    found: list = []
    read_project(text, "content/_quarto.yml", found)
    return [str(d) for d in found]


def beside_a_qmd(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "_quarto.yml").write_text(text, "utf-8")
    found: list = []
    project_config(tmp_path / "talk.qmd", found)
    return [str(d).replace(str(tmp_path) + "/", "") for d in found]


def course_yml(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "course.yml").write_text(text, "utf-8")
    try:
        return [
            str(d).replace(str(tmp_path) + "/", "") for d in read_course(tmp_path, {"a"}).warnings
        ]
    except DeckError as exc:
        return [str(d).replace(str(tmp_path) + "/", "") for d in exc.diagnostics]


def test_a_top_level_typo_in_lesson_yml_names_the_nearest_key(tmp_path: Path) -> None:
    """Issue 33: `widget:` for `widgets:` is a warning naming `widgets`, also in a build's
    warnings (where its widgets are then not defined)."""
    said = "warning [config] unknown key `widget` is ignored (did you mean `widgets`?)"
    assert lesson_yml("title: T\nwidget:\n  - widgets/softmax\n") == [f"lesson.yml:2: {said}"]
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "lesson.yml").write_text("title: T\nwidget: [widgets/softmax]\n", "utf-8")
    (folder / "01-a.md").write_text("## A\n\nText.\n", "utf-8")
    warnings = [str(w) for w in load_lesson(folder).warnings]
    assert any(w.endswith(f"lesson.yml:2: {said}") for w in warnings), warnings


UNKNOWN = "warning [config] unknown key `{}` is ignored (did you mean `{}`?)"
NOT_APPLIED = "a Quarto option this build does not apply; ignored"
LESSON_CASES = [
    ("titel: T\n", "1: " + UNKNOWN.format("titel", "title")),
    ("quiz:\n  mod: poll\n", "2: " + UNKNOWN.format("quiz.mod", "mode")),
    ("handout:\n  per_page: 2\n", "2: " + UNKNOWN.format("handout.per_page", "per-page")),
    ("slides:\n  thme: sky\n", "2: " + UNKNOWN.format("slides.thme", "theme")),
    (
        "quiz:\n  mode: vote\n",
        "2: error [config] `quiz.mode: vote` must be `poll` (count the room's choices) or "
        "`check` (judge each click)",
    ),
    (
        "handout:\n  per-page: true\n",
        "2: error [config] `handout.per-page: true` must be 1, 2 or 3 (slides per page)",
    ),
    (
        "slides:\n  transition: spin\n",
        "2: error [config] `slides.transition: spin` must be none, fade, slide, convex, "
        "concave or zoom",
    ),
    (
        "slides:\n  highlight-style: x\n",
        f"2: warning [config] `slides.highlight-style: x`: {NOT_APPLIED}",
    ),
    (
        "slides:\n  slide-level: 2\n",
        "2: warning [config] `slides.slide-level: 2`: a lesson's slides are cut by its own "
        "rule (`#` a section title, `##` a slide); not applied",
    ),
]


@pytest.mark.parametrize(("text", "said"), LESSON_CASES)
def test_lesson_yml_is_read_by_the_engine(text: str, said: str) -> None:
    assert lesson_yml(text) == [f"lesson.yml:{said}"]


QMD_CASES = [
    ("titel: T\n", "2: " + UNKNOWN.format("titel", "title")),
    ("execute:\n  ech: false\n", "3: " + UNKNOWN.format("execute.ech", "echo")),
    (
        "slide-number: maybe\n",
        "2: error [config] `slide-number: maybe` must be true, false, c/t, c, h/v or h.v",
    ),
    (
        "format:\n  revealjs:\n    toc-depth: 4\n",
        "4: error [config] `format.revealjs.toc-depth: 4` must be 1, 2 or 3",
    ),
    ("editor: visual\n", f"2: warning [config] `editor: visual`: {NOT_APPLIED}"),
    ("execute:\n  daemon: 1\n", f"3: warning [config] `execute.daemon: 1`: {NOT_APPLIED}"),
]


@pytest.mark.parametrize(("text", "said"), QMD_CASES)
def test_a_qmds_front_matter_is_read_by_the_engine(text: str, said: str) -> None:
    assert qmd(text) == [f"talk.qmd:{said}"]


def test_a_projects_quarto_yml_is_read_by_the_engine(tmp_path: Path) -> None:
    text = "project:\n  type: website\nwebsite: {}\nprojet: x\nslide-level: 5\n"
    assert beside_a_qmd(tmp_path, text) == [
        "_quarto.yml:4: " + UNKNOWN.format("projet", "project"),
        "_quarto.yml:5: error [config] `slide-level: 5` must be 1, 2 or 3",
    ]  # project keys pass without a word
    assert beside_a_lesson("lang: de\nwebsite: {}\nslide-number: 3\n") == [
        "content/_quarto.yml:2: warning [config] `website` in _quarto.yml does not apply to a "
        "lesson: ignored (a lesson reads its `format: revealjs:` options, title, subtitle, "
        "author, date, lang, exec and bibliography from it)",
        "content/_quarto.yml:3: error [config] `slide-number: 3` must be true, false, c/t, c, "
        "h/v or h.v",
    ]


def test_course_yml_is_read_by_the_engine(tmp_path: Path) -> None:
    assert course_yml(tmp_path, "titel: C\n") == [
        "course.yml:1: " + UNKNOWN.format("titel", "title")
    ]
    assert course_yml(tmp_path, "title: C\nlecturer-notes: maybe\n") == [
        "course.yml:2: error [config] `lecturer-notes: maybe` must be true (link every "
        "lesson's notes.pdf, the answer key, on the course page), false (the default) or a "
        "list of lesson folders"
    ]


def test_the_declared_defaults_are_the_builds() -> None:
    config, _, _ = lesson_settings("", "lesson.yml", None, [])
    assert config.lang == LESSON_SCHEMA.default("lang") == LessonConfig().lang
    assert config.title_slide is LESSON_SCHEMA.default("title-slide")
    exec_defaults = ExecConfig()
    assert exec_defaults.seed == EXEC_SCHEMA.default("seed")
    assert exec_defaults.timeout == EXEC_SCHEMA.default("timeout")
    assert exec_defaults.output_limit == EXEC_SCHEMA.default("output")
    assert QuizConfig() == QuizConfig(QUIZ_SCHEMA.default("shuffle"), QUIZ_SCHEMA.default("mode"))
    assert HandoutConfig().per_page == HANDOUT_SCHEMA.default("per-page")
    for schema, slides in (
        (SLIDES_SCHEMA, config.slides),
        (REVEALJS_SCHEMA, quarto_config({}).slides),
    ):
        assert slides.slide_number == schema.default("slide-number")
        assert slides.code_line_numbers == schema.default("code-line-numbers")
        assert (slides.width, slides.height) == (schema.default("width"), schema.default("height"))
        assert (slides.theme, slides.theme_files) == schema.default("theme")
    assert quarto_config({}).lang == QUARTO_SCHEMA.default("lang") == "en"
    course = CourseConfig()
    assert course.lessons == COURSE_SCHEMA.default("lessons")
    assert course.lecturer_notes is COURSE_SCHEMA.default("lecturer-notes")


def test_every_key_is_declared_with_a_type_and_a_help_text() -> None:
    from deck.source.lessonyml import LESSON_PROJECT_SCHEMA
    from deck.source.project import PROJECT_SCHEMA

    def keys(schema: Schema) -> list[tuple[str, Key]]:
        found = list(schema.items())
        for _, key in schema.items():
            if key.keys is not None:
                found += keys(key.keys)
        return found

    for schema in (
        LESSON_SCHEMA,
        QUARTO_SCHEMA,
        PROJECT_SCHEMA,
        LESSON_PROJECT_SCHEMA,
        COURSE_SCHEMA,
    ):
        for name, key in keys(schema):
            assert key.type and key.help, f"{schema.title}: `{name}`"


def test_a_schema_of_ones_own_reads_the_same_way() -> None:
    """What a new settings file gets by declaring its keys: nothing else to write."""
    from deck.source.schema import choice, flag, text

    schema = Schema(
        "x.yml",
        {
            "name": text("a name"),
            "shown": flag("shown"),
            "size": choice("s", "s", "m", default="s"),
        },
    )
    found: list = []
    values = schema.read(yaml.compose("name: N\nshown: maybe\nsise: m\n"), Reading("x.yml", found))
    assert values == {"name": "N"}
    assert [str(d) for d in found] == [
        "x.yml:2: error [config] `shown: maybe` must be true or false",
        "x.yml:3: warning [config] unknown key `sise` is ignored (did you mean `size`?)",
    ]
