"""Issue 33, the first hour's frictions (part 1): the scaffold's files pass the project's own
ruff, `test.sh ARGS` lints only the engine, `setup.sh --help`, `build.py --help` naming `new`
and the true default outputs, a failed build writing no course page, and counts of one said
in the singular."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from catalogue import edit, write_lesson
from deck.options import UsageError
from deck.progress import counted
from deck.source.scaffold import LONGEST, new_lesson
from fixture_build import ROOT, run_cli

RUFF = Path(sys.executable).parent / "ruff"
CONFIG = ROOT / "pyproject.toml"


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    command = [str(RUFF), *args, "--config", str(CONFIG), "--no-cache"]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("name", "lang"),
    [("s", "en"), ("softmax-10", "en"), ("x" * 40, "en"), ("a-b.c_" + "y" * 58, "zh")],
)
def test_a_new_lessons_files_pass_the_projects_ruff(tmp_path: Path, name: str, lang: str):
    written = new_lesson(name, tmp_path / "content", tmp_path, lang)
    files = [str(p) for p in written if p.suffix in (".py", ".md")]
    assert len(files) == 2  # the section (its cells are formatted too) and the test
    checked = ruff("check", *files)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    formatted = ruff("format", "--check", "--diff", *files)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_a_name_too_long_for_its_test_is_refused(tmp_path: Path):
    new_lesson("z" * LONGEST, tmp_path / "content", tmp_path)
    with pytest.raises(UsageError, match=f"at most {LONGEST} characters"):
        new_lesson("z" * (LONGEST + 1), tmp_path / "content", tmp_path)
    assert not (tmp_path / "content" / ("z" * (LONGEST + 1))).exists()


def stubbed(tmp_path: Path, script: str) -> Path:
    """A copy of `script` in a folder whose setup.sh, .venv/bin/ruff and .venv/bin/python only
    append their arguments to `calls` (so test.sh runs in a moment and runs nothing)."""
    (tmp_path / script).write_text((ROOT / script).read_text())
    (tmp_path / "setup.sh").write_text('echo "setup $*" >> calls\n')
    bin_ = tmp_path / ".venv" / "bin"
    bin_.mkdir(parents=True)
    for tool in ("ruff", "python"):
        (bin_ / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> calls\n')
        (bin_ / tool).chmod(0o755)
    return tmp_path


def calls(folder: Path, *args: str) -> list[str]:
    (folder / "calls").unlink(missing_ok=True)
    ran = subprocess.run(["bash", "test.sh", *args], cwd=folder, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    return (folder / "calls").read_text().splitlines()


ENGINE = "deck build.py bench tests --extend-exclude tests/lessons"


def test_test_sh_with_args_lints_only_the_engine(tmp_path: Path):
    folder = stubbed(tmp_path, "test.sh")
    assert calls(folder, "-k", "softmax") == [
        "setup --no-build",
        f"ruff check {ENGINE}",
        f"ruff format --check {ENGINE}",
        "python -m mypy",
        "python -m pytest -n 2 --dist worksteal -k softmax",
    ]
    # with no ARGS and with --all (CI: .ci/run), the whole repository as before
    assert calls(folder)[1:4] == ["ruff check .", "ruff format --check .", "python -m mypy"]
    ci = calls(folder, "--all")
    assert ci[1:3] == ["ruff check .", "ruff format --check ."]
    assert ci[-1] == "python tests/content/robustness.py --ci"
    assert calls(folder, "--all", "-k", "x")[1:3] == ["ruff check .", "ruff format --check ."]
    assert "ARGS and with --all, the whole repository" in (folder / "test.sh").read_text()


def set_up_already(tmp_path: Path) -> dict[str, str]:
    """A copy of setup.sh in a folder that has everything it checks for (stub commands on
    PATH, a stub .venv whose requirements stamp and an npm lock stamp match): the
    environment to run it in, each stub appending its arguments to `calls`."""
    (tmp_path / "setup.sh").write_text((ROOT / "setup.sh").read_text())
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    commands = ("chromium", "pdftoppm", "soffice", "node", "npm", "python3.11", "apt-get")
    for name in commands:
        (stubs / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "$CALLS"\n')
    (stubs / "fc-list").write_text("#!/bin/sh\necho 'Noto Sans CJK SC'; echo 'Noto Color Emoji'\n")
    (tmp_path / ".venv/bin").mkdir(parents=True)
    (tmp_path / ".venv/bin/python").write_text('#!/bin/sh\necho "python $*" >> "$CALLS"\n')
    for stub in [*stubs.iterdir(), tmp_path / ".venv/bin/python"]:
        stub.chmod(0o755)
    (tmp_path / "requirements.txt").write_text("numpy==2.0\n")
    (tmp_path / "requirements-nodeps.txt").write_text("")
    want = hashlib.sha256(b"numpy==2.0\n").hexdigest()
    (tmp_path / ".venv/.requirements-sha256").write_text(want + "\n")
    (tmp_path / "package-lock.json").write_text("{}")
    (tmp_path / "node_modules").mkdir()
    lock = hashlib.sha256(b"{}").hexdigest()
    (tmp_path / "node_modules/.lock-sha256").write_text(lock + "\n")
    path = f"{stubs}:/usr/bin:/bin"
    return {"PATH": path, "CALLS": str(tmp_path / "calls"), "HOME": str(tmp_path)}


def setup_sh(tmp_path: Path, env: dict[str, str], *args: str) -> tuple[int, str, list[str]]:
    (tmp_path / "calls").unlink(missing_ok=True)
    ran = subprocess.run(
        ["bash", "setup.sh", *args], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    called = (tmp_path / "calls").read_text().splitlines() if (tmp_path / "calls").exists() else []
    return ran.returncode, ran.stdout + ran.stderr, called


def test_setup_sh_help_prints_the_options_and_does_nothing(tmp_path: Path):
    env = set_up_already(tmp_path)
    code, said, called = setup_sh(tmp_path, env, "--help")
    assert code == 0 and called == []
    assert "usage: bash setup.sh [--no-build]" in said and "--no-build  set up only" in said
    assert setup_sh(tmp_path, env, "-h")[:2] == (0, said)
    code, said, called = setup_sh(tmp_path, env, "--bulid")
    assert code == 2 and called == [] and "--help lists them" in said
    # plain `bash setup.sh` sets up and builds, as the README's first command says
    code, said, called = setup_sh(tmp_path, env)
    assert code == 0, said
    assert called[-2:] == ["python -m compileall -q deck build.py", "python build.py"], called
    assert "building the slides" in said
    code, said, called = setup_sh(tmp_path, env, "--no-build")
    assert code == 0 and not [c for c in called if "build.py" in c and "compileall" not in c]


def test_build_help_names_new_and_the_default_outputs_from_the_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    ran = run_cli(tmp_path, "--help")
    assert ran.returncode == 0
    shown = " ".join(ran.stdout.split())
    assert "build.py new NAME [--lang" in ran.stdout.splitlines()[1]  # in the usage lines
    assert "tests/lessons/test_NAME.py (build.py new --help)" in shown
    assert "(default: all)" not in shown and "every lesson folder in --content" in shown
    assert "made when neither names any: html,pdf,ipynb,course; only when named: single,pptx" in (
        shown
    )
    # generated from the registry: an output made by default there is said to be so here
    import deck.cli
    from deck.model import outputs

    pptx = [replace(o, default=True) if o.name == "pptx" else o for o in outputs.OUTPUTS]
    monkeypatch.setattr(deck.cli, "OUTPUTS", tuple(pptx))
    again = " ".join(run_cli(tmp_path, "--help").stdout.split())
    assert "names any: html,pdf,ipynb,pptx,course; only when named: single" in again
    new = run_cli(tmp_path, "new", "--help")
    assert new.returncode == 0 and "tests/lessons/test_NAME.py" in new.stdout


def test_a_failed_build_writes_no_course_page(tmp_path: Path):
    lesson = {
        "lesson.yml": "title: Beta\nlang: en\n",
        "01-b.md": "## Only\n\n```{python}\ny = 1 + 1\n```\n\nTwo is `{python} y`.\n",
    }
    write_lesson(tmp_path, lesson, "beta")
    write_lesson(tmp_path, {**lesson, "lesson.yml": "title: Alpha\nlang: en\n"}, "alpha")
    built = run_cli(tmp_path, "--no-pdf")
    assert built.returncode == 0 and "(the course page)" in built.stderr, built.stderr
    assert "beta: 1 slide built in" in built.stderr  # (one slide: singular)
    page = tmp_path / "dist" / "index.html"
    before = page.read_bytes()
    edit(tmp_path / "content/beta/01-b.md", "y = 1 + 1", "y = 1 / 0")
    failed = run_cli(tmp_path, "--no-pdf")
    assert failed.returncode == 1 and "ZeroDivisionError" in failed.stderr
    assert "build failed: 1 error; " in failed.stderr
    assert "course page" not in failed.stderr, failed.stderr
    assert page.read_bytes() == before
    # the failure is kept: the next build that succeeds shows it on the page it writes
    again = run_cli(tmp_path, "alpha", "--no-pdf")
    assert again.returncode == 0 and "(the course page)" in again.stderr, again.stderr
    assert 'class="lesson lesson-has-failed" id="lesson-beta"' in page.read_text()


def test_counts_of_one_are_singular():
    assert [counted(n, "cell") for n in (0, 1, 2)] == ["0 cells", "1 cell", "2 cells"]
    assert counted(1, "child", "children") == "1 child"
    assert counted(3, "child", "children") == "3 children"


def test_ruff_formats_a_new_lessons_code_to_the_slides_width(tmp_path: Path):
    """Issue 33: `ruff format` wrapped a lesson's call at the project's 100 columns, and the
    98-column line ran 18 px off its slide (a code block holds about 95). A new lesson's
    ruff.toml keeps the project's rules and formats to 88 columns."""
    import shutil

    shutil.copy(CONFIG, tmp_path / "pyproject.toml")
    new_lesson("wide", tmp_path / "content", tmp_path)
    module = tmp_path / "content/wide/stats.py"
    call = (
        "result = combine(first_argument_value, second_argument_value, third_argument_value_xyz123)"
    )
    assert 88 < len(call) <= 100
    module.write_text(f"import sys\nimport os\n\n{call}\n", "utf-8")

    def ruff_here(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(RUFF), *args, "--no-cache", str(module)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )

    checked = ruff_here("check")  # the project's rules hold: its import sorting flags this
    assert "I001" in checked.stdout, checked.stdout
    ruff_here("format")
    lines = module.read_text("utf-8").split("\n")
    assert max(len(line) for line in lines) <= 88 and len(lines) > 5, lines
    # and the project's own width still holds outside the lesson
    outside = tmp_path / "tool.py"
    outside.write_text(call + "\n", "utf-8")
    subprocess.run([str(RUFF), "format", "--no-cache", str(outside)], cwd=tmp_path, timeout=60)
    assert outside.read_text("utf-8") == call + "\n"
