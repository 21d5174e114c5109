"""Issue 29, item 7b: the notebook's `code/` takes nothing from outside the lesson folder. A
module or a data file the sections read that is a symlink pointing out of it (or lies in a
linked folder pointing out) is not copied, and the build says so at the link, naming where it
points and which section read it; the files inside are copied as before."""

from __future__ import annotations

from pathlib import Path

from catalogue import write_lesson
from fixture_build import run_cli

SECTION = """
    ## One

    ```{python}
    text = open("data.csv").read()
    inside = open("inside.csv").read()
    more = open("linked/more.csv").read()
    from helper import X
    ```

    Read `{python} len(text)`, `{python} X`.
"""


def test_a_symlink_pointing_out_is_not_copied_and_the_build_says_so(tmp_path: Path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.csv").write_text("a,b\n")
    (outside / "more.csv").write_text("c,d\n")
    (outside / "helper.py").write_text("X = 41\n")
    lesson = write_lesson(
        tmp_path, {"lesson.yml": "title: NB\nlang: en\n", "01-a.md": SECTION, "inside.csv": "1,2\n"}
    )
    (lesson / "data.csv").symlink_to(outside / "secret.csv")
    (lesson / "helper.py").symlink_to(outside / "helper.py")
    (lesson / "linked").symlink_to(outside)
    (lesson / "also.csv").symlink_to("inside.csv")  # a link inside the folder is fine
    ran = run_cli(tmp_path, "--no-pdf", "--to", "html,ipynb")
    assert ran.returncode == 0, ran.stderr
    code = tmp_path / "dist/cat/code"
    shipped = sorted(p.relative_to(code).as_posix() for p in code.rglob("*") if p.is_file())
    assert shipped == ["inside.csv"]
    said = ran.stdout + ran.stderr
    warnings = sorted(line for line in said.splitlines() if ": warning [path]" in line)
    why = "not copied into the notebook's code/ (nothing from outside goes into an output)"
    assert warnings == [
        f"content/cat/data.csv:1: warning [path] a symlink pointing out of the lesson folder "
        f"(to {outside / 'secret.csv'}), read by content/cat/01-a.md: {why}",
        f"content/cat/helper.py:1: warning [path] a symlink pointing out of the lesson folder "
        f"(to {outside / 'helper.py'}), read by content/cat/01-a.md: {why}",
        f"content/cat/linked/more.csv:1: warning [path] a symlink pointing out of the lesson "
        f"folder (to {outside / 'more.csv'}), read by content/cat/01-a.md: {why}",
    ], said
    again = run_cli(tmp_path, "--no-pdf", "--to", "html,ipynb")  # up to date: said again
    assert again.returncode == 0
    assert (
        sorted(
            line
            for line in (again.stdout + again.stderr).splitlines()
            if ": warning [path]" in line
        )
        == warnings
    )
