"""The course page is the students' way in: it leaves out each lesson's `notes.pdf` (the
lecturer's notes, with the answer key) unless `content/course.yml` asks for it, with
`lecturer-notes: true` (every lesson) or `lecturer-notes: [lesson, …]` (those named). A wrong
value is an error at its line, a misspelt key a warning naming `lecturer-notes`."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalogue import tree, write_lesson
from fixture_build import run_build

pytestmark = pytest.mark.browser

LESSON = {
    "lesson.yml": "title: {title}\nlang: en\n",
    "01-a.md": """
        ## One

        ::: quiz
        Two and two?
        - [ ] 3
        - [x] 4
        :::

        ::: notes
        1 minute. The answer is four.
        :::
    """,
}
STUDENT = ["index.html", "slides.pdf", "handout.pdf"]  # (an ipynb too: by its name)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two lessons built with their PDFs (a real process: it prints)."""
    root = tmp_path_factory.mktemp("notes")
    for name in ("alpha", "beta"):
        write_lesson(root, {**LESSON, "lesson.yml": f"title: {name.title()}\nlang: en\n"}, name)
    ran = run_build(root)
    assert ran.returncode == 0, ran.stderr
    for name in ("alpha", "beta"):
        assert (root / f"dist/{name}/notes.pdf").is_file()  # built: only the page leaves it out
    return root


def rebuilt(root: Path, course_yml: str | None):
    """The course page after a build with this course.yml (None: without one)."""
    path = root / "content/course.yml"
    if course_yml is None:
        path.unlink(missing_ok=True)
    else:
        path.write_text(course_yml, "utf-8")
    return run_build(root)


def page_links(context, root: Path) -> dict[str, dict[str, str]]:
    """Each lesson's links on the page as a reader sees them: href → label."""
    page = context.new_page()
    page.goto((root / "dist/index.html").as_uri())
    found = {}
    for item in page.locator("li.lesson").all():
        name = item.get_attribute("id").removeprefix("lesson-")
        anchors = item.locator(".lesson-links a").all()
        found[name] = {a.get_attribute("href"): a.inner_text() for a in anchors}
    page.close()
    for links in found.values():
        for href in links:
            assert (root / "dist" / href).is_file(), href  # every link opens a file
    return found


def student(name: str) -> list[str]:
    return [f"{name}/{f}" for f in STUDENT] + [f"{name}/{name}.ipynb"]


def test_the_lecturers_notes_are_left_out_by_default(course: Path, context):
    ran = rebuilt(course, None)
    assert ran.returncode == 0, ran.stderr
    links = page_links(context, course)
    assert {name: sorted(found) for name, found in links.items()} == {
        "alpha": sorted(student("alpha")),
        "beta": sorted(student("beta")),
    }
    page = (course / "dist/index.html").read_text("utf-8")
    assert "notes.pdf" not in page and "Lecturer's notes" not in page
    ran = rebuilt(course, "title: Arithmetic\nlecturer-notes: false\n")
    assert ran.returncode == 0, ran.stderr
    assert "notes.pdf" not in (course / "dist/index.html").read_text("utf-8")


def test_lecturer_notes_true_links_every_lessons_notes(course: Path, context):
    ran = rebuilt(course, "title: Arithmetic\nlecturer-notes: true\n")
    assert ran.returncode == 0, ran.stderr
    links = page_links(context, course)
    for name in ("alpha", "beta"):
        assert sorted(links[name]) == sorted([*student(name), f"{name}/notes.pdf"])
        assert links[name][f"{name}/notes.pdf"] == "Lecturer's notes (PDF)"


def test_lecturer_notes_may_name_the_lessons(course: Path, context):
    ran = rebuilt(course, "lessons: [beta, alpha]\nlecturer-notes:\n  - beta\n")
    assert ran.returncode == 0, ran.stderr
    links = page_links(context, course)
    assert list(links) == ["beta", "alpha"]
    assert "beta/notes.pdf" in links["beta"]
    assert sorted(links["alpha"]) == sorted(student("alpha"))


@pytest.mark.parametrize(
    ("course_yml", "expected"),
    [
        (
            "title: Arithmetic\nlecturer-notes: maybe\n",
            "content/course.yml:2: error [config] `lecturer-notes: maybe` must be true",
        ),
        (
            "title: Arithmetic\nlecturer-notes:\n  - alpha\n  - gamma\n",
            "content/course.yml:4: error [config] `lecturer-notes`: 'gamma' is not a lesson "
            "folder of content (alpha, beta)",
        ),
        (
            "title: Arithmetic\nlecturer-notes: {alpha: true}\n",
            "content/course.yml:2: error [config] `lecturer-notes: …` must be true",
        ),
    ],
    ids=["not-a-bool", "not-a-lesson", "a-mapping"],
)
def test_a_wrong_lecturer_notes_is_an_error_at_its_line(course: Path, course_yml, expected):
    assert rebuilt(course, None).returncode == 0
    before = tree(course / "dist")
    ran = rebuilt(course, course_yml)
    assert ran.returncode == 1, ran.stderr
    errors = [line for line in ran.stderr.splitlines() if ": error [" in line]
    assert len(errors) == 1 and errors[0].startswith(expected), ran.stderr
    assert tree(course / "dist") == before  # the course page as it was


def test_a_misspelt_key_is_a_warning_naming_lecturer_notes(course: Path, context):
    ran = rebuilt(course, "title: Arithmetic\nlecturer_notes: true\n")
    assert ran.returncode == 0, ran.stderr
    assert (
        "content/course.yml:2: warning [config] unknown key `lecturer_notes` is ignored "
        "(did you mean `lecturer-notes`?)"
    ) in ran.stderr
    assert "notes.pdf" not in (course / "dist/index.html").read_text("utf-8")
