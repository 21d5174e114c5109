"""A build never loses data: overlapping folders and bad lesson names are refused, one build
writes an output folder at a time, dist/ and figures/ are published together or not at all,
a killed build leaves the old or the new deck, and PDFs never outlive the deck they show."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, outputs, stray, tree, write_lesson
from catalogue import options_in as options
from deck.pipeline import build
from deck.publish.journal import Target, clean_leftovers, journal_path, publish
from deck.publish.pdfs import pdf_digest
from deck.theme import PDFS
from fixture_build import ROOT, copy_fixture, run_build, run_cli

SIMPLE = {
    "01-a.md": """
        ## 一页

        ```{python}
        x = 6 * 7
        ```

        答案是 `{python} x`。

        ::: notes
        （1 分钟）讲稿。
        :::
        """
}


def built(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A successful `build.py ARGS`, in its own process as PDFs are printed (see fixtures.py)."""
    proc = run_build(root, *args)
    assert proc.returncode == 0, proc.stderr
    return proc


# ---- 1. overlapping folders and lesson names ------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--out", "content"], ["--content content", "--out content"]),
        (["--out", "content/cat"], ["--content content", "--out content/cat"]),
        (["--figures", "content/cat/figs"], ["--figures content/cat/figs"]),
        (["--out", "."], ["--content content", "--out ."]),
        (["--figures", "dist"], ["--out dist", "--figures dist"]),
        (["--cache", "dist/x"], ["--out dist", "--cache dist/x"]),
    ],
)
def test_overlapping_folders_are_refused_with_exit_2(
    tmp_path: Path, flags: list[str], named: list[str]
):
    write_lesson(tmp_path, SIMPLE)
    built(tmp_path, "cat", "--no-pdf")
    sources = tree(tmp_path / "content")
    proc = assert_failed_cleanly(tmp_path, ["cat", "--no-pdf", *flags], None, code=2)
    assert "overlap" in proc.stderr
    for name in named:
        assert name in proc.stderr, proc.stderr
    assert tree(tmp_path / "content") == sources


def test_an_out_folder_reached_through_a_symlink_is_refused(tmp_path: Path):
    write_lesson(tmp_path, SIMPLE)
    (tmp_path / "alias").symlink_to(tmp_path / "content")
    sources = tree(tmp_path / "content")
    proc = run_cli(tmp_path, "cat", "--no-pdf", "--out", "alias")
    assert proc.returncode == 2 and "overlap" in proc.stderr
    assert tree(tmp_path / "content") == sources


@pytest.mark.parametrize("name", ["..", ".", "../cat", "/etc", "a/b", "-x"])
def test_a_lesson_name_must_be_a_plain_folder_name(tmp_path: Path, name: str):
    write_lesson(tmp_path, SIMPLE)
    built(tmp_path, "cat", "--no-pdf")
    before = outputs(tmp_path)
    proc = run_cli(tmp_path, "--no-pdf", "--", name)
    assert proc.returncode == 2, proc.stderr
    assert "plain folder name" in proc.stderr
    assert outputs(tmp_path) == before


# ---- 2. concurrent builds -------------------------------------------------------------------


def test_two_builds_at_once_both_succeed_and_publish_a_complete_deck(tmp_path: Path):
    write_lesson(tmp_path, SIMPLE)
    cmd = [sys.executable, str(ROOT / "build.py"), "cat", "--no-pdf", "--force"]
    procs = [
        subprocess.Popen(cmd, cwd=tmp_path, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    assert [code for code, _ in results] == [0, 0], results
    assert any("waiting for another build" in err for _, err in results), results
    out = tmp_path / "dist" / "cat"
    for name in ("index.html", "values.json", "assets/reveal/reveal.js", "assets/deck.css"):
        assert (out / name).is_file(), name
    assert stray(tmp_path) == []


@pytest.mark.slow
def test_a_build_gives_up_after_the_lock_timeout_and_writes_nothing(tmp_path: Path):
    import fcntl

    write_lesson(tmp_path, SIMPLE)
    built(tmp_path, "cat", "--no-pdf")
    before = outputs(tmp_path)
    fd = os.open(tmp_path / "dist", os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        env = dict(os.environ, DECK_LOCK_TIMEOUT="1")
        proc = subprocess.run(
            [sys.executable, str(ROOT / "build.py"), "cat", "--no-pdf", "--force"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    finally:
        os.close(fd)
    assert proc.returncode == 1
    assert "still writes into" in proc.stderr and "Traceback" not in proc.stderr
    assert outputs(tmp_path) == before


@pytest.mark.slow
def test_leftover_staging_folders_of_a_killed_build_are_removed(tmp_path: Path):
    write_lesson(tmp_path, SIMPLE)
    built(tmp_path, "cat", "--no-pdf")
    (tmp_path / "dist/.staging-cat-123-0123abcd/assets").mkdir(parents=True)
    (tmp_path / "figures/.old-cat-99-89abcdef").mkdir(parents=True)
    keep = tmp_path / "dist/.staging-other-1-0123abcd"  # another lesson's: not ours to touch
    keep.mkdir()
    (tmp_path / "content/cat/01-a.md").write_text("## 改了\n\n新内容。\n")
    built(tmp_path, "cat", "--no-pdf")
    assert sorted(p.name for p in (tmp_path / "dist").iterdir()) == [
        ".staging-other-1-0123abcd",
        "cat",
        "index.html",  # the course page
    ]
    assert [p.name for p in (tmp_path / "figures").iterdir()] == ["cat"]
    keep.rmdir()


# ---- 3. publishing both folders or neither ---------------------------------------------------


def test_unwritable_figures_folder_fails_before_anything_is_published(tmp_path: Path):
    write_lesson(tmp_path, SIMPLE)
    built(tmp_path, "cat", "--no-pdf", "--figures", "figs")
    before = tree(tmp_path / "dist")
    (tmp_path / "blocker").write_text("a file where a folder should be\n")
    (tmp_path / "content/cat/01-a.md").write_text("## 改了\n\n新内容。\n")
    proc = run_cli(tmp_path, "cat", "--no-pdf", "--figures", "blocker")
    assert proc.returncode == 1
    assert "left as they were" in proc.stderr
    assert tree(tmp_path / "dist") == before
    assert stray(tmp_path) == []


def test_publish_rolls_back_when_the_second_rename_fails(tmp_path: Path, monkeypatch):
    old_a, old_b = tmp_path / "out/l", tmp_path / "fig/l"
    targets = [Target(old_a, "1-00000000"), Target(old_b, "1-00000000")]
    for target, text in zip(targets, ("new a", "new b"), strict=True):
        target.path.mkdir(parents=True)
        (target.path / "f").write_text("old")
        target.staging.mkdir()
        (target.staging / "f").write_text(text)
    real_rename = Path.rename

    def failing(self: Path, to: Path):
        if self == targets[1].staging:
            raise OSError("disk full")
        return real_rename(self, to)

    monkeypatch.setattr(Path, "rename", failing)
    with pytest.raises(OSError, match="disk full"):
        publish(targets)
    monkeypatch.undo()
    assert (old_a / "f").read_text() == "old" and (old_b / "f").read_text() == "old"
    assert not journal_path(old_a).exists()


def test_a_publish_killed_between_renames_is_finished_by_the_next_build(tmp_path: Path):
    """The journal written before the renames lets the next build roll forward."""
    a, b = tmp_path / "out/l", tmp_path / "fig/l"
    targets = [Target(a, "7-00000000"), Target(b, "7-00000000")]
    for target in targets:
        target.path.mkdir(parents=True)
        (target.path / "f").write_text("old")
        target.staging.mkdir()
        (target.staging / "f").write_text("new")
    journal_path(a).write_text(json.dumps([[str(t.path), t.build_id] for t in targets]))
    # As if killed after the first target moved: out/l is new, fig/l still old.
    a.rename(targets[0].old)
    targets[0].staging.rename(a)
    clean_leftovers([a, b])
    assert (a / "f").read_text() == "new" and (b / "f").read_text() == "new"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["l"]
    assert sorted(p.name for p in (tmp_path / "fig").iterdir()) == ["l"]


def test_writing_into_dist_from_a_cell_cannot_alter_the_published_deck(tmp_path: Path):
    write_lesson(tmp_path, SIMPLE)
    built(tmp_path, "cat", "--no-pdf")
    index = (tmp_path / "dist/cat/index.html").read_bytes()
    write_lesson(
        tmp_path,
        {
            "01-a.md": """
                ## 一页

                ```{python}
                from pathlib import Path
                Path("../../dist/cat/index.html").write_text("hacked")
                Path("../../dist/cat/extra.txt").write_text("hacked")
                x = 6 * 7
                ```

                答案是 `{python} x`。
                """
        },
    )
    built(tmp_path, "cat", "--no-pdf")
    assert (tmp_path / "dist/cat/index.html").read_bytes() != b"hacked"
    assert b"42" in (tmp_path / "dist/cat/index.html").read_bytes()
    assert not (tmp_path / "dist/cat/extra.txt").exists()
    assert index != b"hacked"


# ---- 6. PDFs never outlive their deck ------------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_no_pdf_keeps_pdfs_of_the_same_deck_and_drops_stale_ones(tmp_path: Path):
    write_lesson(tmp_path, SIMPLE)
    built(tmp_path, "cat")
    out = tmp_path / "dist/cat"
    pdfs = {n: (out / n).read_bytes() for n in ("slides.pdf", "handout.pdf", "notes.pdf")}
    proc = built(tmp_path, "cat", "--no-pdf")  # same deck: the PDFs still show it
    assert {n: (out / n).read_bytes() for n in pdfs} == pdfs
    assert "kept" in proc.stderr
    (tmp_path / "content/cat/01-a.md").write_text("## 改了\n\n新内容。\n")
    proc = built(tmp_path, "cat", "--no-pdf")  # another deck: the old PDFs must go
    assert [n for n in pdfs if (out / n).exists()] == []
    assert "removed slides.pdf, handout.pdf, notes.pdf" in proc.stderr


@pytest.mark.slow
def test_a_notes_edit_reprints_only_the_lecturers_notes(tmp_path: Path):
    write_lesson(tmp_path, SIMPLE)
    opts = options(tmp_path, pdf=True)
    first = build(["cat"], opts)
    assert first.printed == ["slides.pdf", "handout.pdf", "notes.pdf"]
    out = tmp_path / "dist/cat"
    before = {n: (out / n).read_bytes() for n in first.printed}
    section = tmp_path / "content/cat/01-a.md"
    section.write_text(section.read_text().replace("讲稿", "新的讲稿"))  # speaker notes only
    notes = build(["cat"], opts)
    assert notes.printed == ["notes.pdf"] and notes.published
    assert (out / "slides.pdf").read_bytes() == before["slides.pdf"]
    assert (out / "handout.pdf").read_bytes() == before["handout.pdf"]
    assert (out / "notes.pdf").read_bytes() != before["notes.pdf"]
    # The PDFs kept are what a clean build of the edited lesson prints (dates apart).
    clean = tmp_path / "clean"
    write_lesson(clean, SIMPLE)
    (clean / "content/cat/01-a.md").write_text(section.read_text())
    build(["cat"], options(clean, pdf=True))
    for name in PDFS:
        assert pdf_digest(clean / "dist/cat" / name) == pdf_digest(out / name), name
    section.write_text(section.read_text().replace("答案是", "结果是"))  # what the slide says
    prose = build(["cat"], opts)
    assert prose.printed == ["slides.pdf", "handout.pdf", "notes.pdf"]


@pytest.mark.slow
def test_a_handout_block_edit_reprints_the_handouts_not_the_slides(tmp_path: Path):
    handout = "\n\n        ::: handout\n        讲义提示：**记住** 6 × 7。\n        :::\n"
    write_lesson(tmp_path, {"01-a.md": SIMPLE["01-a.md"] + handout})
    opts = options(tmp_path, pdf=True)
    build(["cat"], opts)
    out = tmp_path / "dist/cat"
    slides = (out / "slides.pdf").read_bytes()
    section = tmp_path / "content/cat/01-a.md"
    section.write_text(section.read_text().replace("记住", "别忘了"))
    edit = build(["cat"], opts)
    assert edit.printed == ["handout.pdf", "notes.pdf"]
    assert (out / "slides.pdf").read_bytes() == slides
    clean = tmp_path / "clean"
    write_lesson(clean, {"01-a.md": ""})
    (clean / "content/cat/01-a.md").write_text(section.read_text())
    build(["cat"], options(clean, pdf=True))
    for name in PDFS:
        assert pdf_digest(clean / "dist/cat" / name) == pdf_digest(out / name), name


@pytest.mark.slow
def test_a_kept_pdf_edited_by_hand_is_printed_again(tmp_path: Path):
    write_lesson(tmp_path, SIMPLE)
    opts = options(tmp_path, pdf=True)
    build(["cat"], opts)
    out = tmp_path / "dist/cat"
    good = (out / "slides.pdf").read_bytes()
    (out / "slides.pdf").write_bytes(good[:-100])  # damaged after the build
    section = tmp_path / "content/cat/01-a.md"
    section.write_text(section.read_text().replace("讲稿", "新的讲稿"))  # notes only
    again = build(["cat"], opts)
    assert again.printed == ["slides.pdf", "notes.pdf"]
    fresh = (out / "slides.pdf").read_bytes()
    assert len(fresh) == len(good) and fresh.rstrip().endswith(b"%%EOF")


# ---- the no-change build and what a build reports -------------------------------------------


@pytest.mark.slow
def test_the_report_says_what_ran_and_a_no_change_build_does_nothing(tmp_path: Path):
    write_lesson(tmp_path, {**SIMPLE, "02-b.md": "## 二\n\n```{python}\ny = 1\n```\n"})
    first = build(["cat"], options(tmp_path))
    assert first.executed == ["cat/01-a", "cat/02-b"] and first.published
    again = build(["cat"], options(tmp_path))
    assert again.up_to_date == ["cat"] and again.executed == [] and not again.published
    section = tmp_path / "content/cat/01-a.md"
    section.write_text(section.read_text().replace("讲稿", "新的讲稿"))  # prose only
    prose = build(["cat"], options(tmp_path))
    assert prose.executed == [] and prose.reused == ["cat/01-a", "cat/02-b"] and prose.published


@pytest.mark.parametrize("damage", ["delete", "edit"])
def test_an_output_deleted_or_edited_by_hand_is_rebuilt(tmp_path: Path, damage: str):
    write_lesson(tmp_path, SIMPLE)
    build(["cat"], options(tmp_path))
    index = tmp_path / "dist/cat/index.html"
    good = index.read_bytes()
    if damage == "delete":
        index.unlink()
    else:
        index.write_text("edited by hand")
    report = build(["cat"], options(tmp_path))
    assert report.up_to_date == [] and report.published
    assert index.read_bytes() == good


def test_a_data_file_in_the_lesson_folder_is_an_input_of_the_no_change_check(tmp_path: Path):
    write_lesson(tmp_path, {**SIMPLE, "data.csv": "1,2\n"})
    build(["cat"], options(tmp_path))
    (tmp_path / "content/cat/data.csv").write_text("3,4\n")
    report = build(["cat"], options(tmp_path))
    assert report.up_to_date == []


def test_python_build_py_works_from_any_python(tmp_path: Path):
    """Started by a Python outside the project's .venv, build.py re-runs itself in the venv."""
    system = "/usr/bin/python3"
    if not Path(system).exists() or not (ROOT / ".venv/bin/python").exists():
        pytest.skip("needs a system Python and the project's .venv")
    write_lesson(tmp_path, SIMPLE)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    proc = subprocess.run(
        [system, str(ROOT / "build.py"), "cat", "--no-pdf"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "dist/cat/index.html").is_file()


def test_without_a_venv_build_py_says_how_to_set_up(tmp_path: Path):
    copy = tmp_path / "project"
    copy.mkdir()
    (copy / "build.py").write_text((ROOT / "build.py").read_text())
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    # -I ignores user site-packages; -S leaves out site-packages, as on a bare system Python.
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(copy / "build.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "setup.sh" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---- the kill test ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_build_killed_at_random_moments_leaves_the_old_or_new_deck(tmp_path: Path):
    """SIGKILL a real build (with PDFs) while it executes, renders and prints; afterwards
    dist/ holds a complete deck (the old or the new one) and the next build succeeds."""
    copy_fixture("mini", tmp_path)
    built(tmp_path, "mini")
    section = tmp_path / "content/mini/01-basics.md"
    rng = random.Random(7)
    cmd = [sys.executable, str(ROOT / "build.py"), "mini"]
    for round_ in range(5):
        text = re.sub(r"square\(\d+\)", f"square({13 + round_})", section.read_text(), count=1)
        section.write_text(text)
        proc = subprocess.Popen(
            cmd, cwd=tmp_path, stderr=subprocess.DEVNULL, start_new_session=True
        )
        time.sleep(rng.uniform(0.3, 6.0))
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        out = tmp_path / "dist/mini"
        values = json.loads((out / "values.json").read_text())
        html = (out / "index.html").read_text()
        answer = values["values"][0]["text"]
        assert f">{answer}<" in html or answer in html
        for name in ("slides.pdf", "handout.pdf", "notes.pdf", "assets/reveal/reveal.js"):
            assert (out / name).is_file(), (round_, name)
        assert (tmp_path / "figures/mini/parabola.svg").is_file()
    built(tmp_path, "mini")
    assert stray(tmp_path) == []
    n = int(section.read_text().split("square(")[1].split(")")[0])
    values = json.loads((tmp_path / "dist/mini/values.json").read_text())
    assert values["values"][0]["text"] == str(n * n)
