"""Issue 16, item 4 (folders): one lock covers every folder a build writes (out, figures,
cache), and `--single-file`'s `dist/<lesson>.html` is a publish target like the others:
journaled, never half-written, and dropped when a later build omits the flag."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from catalogue import outputs, stray, tree, write_lesson
from deck.publish.journal import Target, clean_leftovers, journal_path, publish
from fixture_build import ROOT, run_cli

SIMPLE = {"01-a.md": "## 一页\n\n```{python}\nx = 6 * 7\n```\n\n答案是 `{python} x`。\n"}
SLOW = {
    "01-a.md": "## 一页\n\n```{python}\nimport time\ntime.sleep(3)\nx = 6 * 7\n```\n\n"
    "答案是 `{python} x`。\n"
}
BUILD = [sys.executable, str(ROOT / "build.py"), "cat", "--no-pdf", "--force"]


def leftovers(*folders: Path) -> list[str]:
    return [p.name for f in folders if f.is_dir() for p in f.iterdir() if p.name.startswith(".")]


# ---- one lock for out, figures and cache ------------------------------------------------------


@pytest.mark.parametrize("shared", ["--figures", "--cache"])
@pytest.mark.slow
def test_two_builds_sharing_only_figures_or_cache_take_turns(tmp_path: Path, shared: str):
    """Two real build.py processes, different --out; the second waits for the first."""
    write_lesson(tmp_path, SLOW)
    own = {"--figures": ["figs-a", "figs-b"], "--cache": [".cache-a", ".cache-b"]}
    args = []
    for k in range(2):
        mine = ["--out", f"out-{k}"]
        for flag in ("--figures", "--cache"):
            mine += [flag, "shared" if flag == shared else own[flag][k]]
        args.append(mine)
    first = subprocess.Popen([*BUILD, *args[0]], cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    assert first.stderr is not None
    seen = ""
    while "cell 1/1" not in seen:  # the first build holds its locks and runs the slow cell
        line = first.stderr.readline()
        assert line, seen
        seen += line
    second = subprocess.run(
        [*BUILD, *args[1]], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    seen += first.stderr.read()
    assert first.wait(timeout=300) == 0, seen
    assert second.returncode == 0, second.stderr
    assert "waiting for another build" not in seen
    assert "waiting for another build writing into shared" in second.stderr, second.stderr
    for k in range(2):
        html = (tmp_path / f"out-{k}/cat/index.html").read_text("utf-8")
        assert "42" in html
    figures = "shared" if shared == "--figures" else "figs-b"
    assert (tmp_path / figures / "cat").is_dir()
    folders = [tmp_path / n for n in ("out-0", "out-1", "shared", "figs-a", "figs-b")]
    assert leftovers(*folders) == []


@pytest.mark.parametrize("flag", ["--figures", "--cache", "--out"])
def test_a_build_waits_for_the_lock_of_each_folder_it_writes(tmp_path: Path, flag: str):
    write_lesson(tmp_path, SIMPLE)
    run_cli(tmp_path, "cat", "--no-pdf", "--out", "o", "--figures", "f", "--cache", "c")
    before = outputs(tmp_path)
    held = {"--out": "o", "--figures": "f", "--cache": "c"}[flag]
    fd = os.open(tmp_path / held, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as another build writing into that folder does
    try:
        t0 = time.monotonic()
        proc = subprocess.run(
            [*BUILD, "--out", "o", "--figures", "f", "--cache", "c"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=dict(os.environ, DECK_LOCK_TIMEOUT="1"),
            timeout=120,
        )
    finally:
        os.close(fd)
    assert proc.returncode == 1, proc.stderr
    assert f"another build still writes into {held} after 1 s" in proc.stderr, proc.stderr
    assert time.monotonic() - t0 < 30 and "Traceback" not in proc.stderr
    assert outputs(tmp_path) == before


# ---- the single file ----------------------------------------------------------------------------


def test_the_single_file_is_dropped_when_a_later_build_omits_the_flag(tmp_path: Path):
    write_lesson(tmp_path, SIMPLE)
    ran = run_cli(tmp_path, "cat", "--no-pdf", "--single-file")
    assert ran.returncode == 0, ran.stderr
    single = tmp_path / "dist/cat.html"
    assert "42" in single.read_text("utf-8")
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert not single.exists()
    assert "removed dist/cat.html" in ran.stderr, ran.stderr
    assert stray(tmp_path) == []
    ran = run_cli(tmp_path, "cat", "--no-pdf")  # nothing changed: up to date, still no file
    assert ran.returncode == 0 and "up to date" in ran.stderr and not single.exists()


def killed_mid_publish(root: Path, build_id: str, moved: int) -> list[Target]:
    """The state a build killed inside `publish` leaves: new staging places for the deck, the
    figures and the single file, the journal written, the first `moved` targets swapped."""
    targets = [
        Target(root / "dist/cat", build_id),
        Target(root / "figures/cat", build_id),
        Target(root / "dist/cat.html", build_id),
    ]
    for t in targets[:2]:
        t.staging.mkdir(parents=True)
        (t.staging / "f").write_text("new")
    targets[2].staging.write_text("<html>new single</html>")
    steps = [[str(t.path), t.build_id, t.drop] for t in targets]
    journal_path(targets[0].path).write_text(json.dumps(steps))
    for t in targets[:moved]:
        if t.path.exists():
            t.path.rename(t.old)
        t.staging.rename(t.path)
    return targets


@pytest.mark.parametrize("moved", [0, 1, 2])
def test_a_publish_killed_with_a_single_file_staged_is_finished_by_the_next_build(
    tmp_path: Path, moved: int
):
    write_lesson(tmp_path, SIMPLE)
    assert run_cli(tmp_path, "cat", "--no-pdf", "--single-file").returncode == 0
    targets = killed_mid_publish(tmp_path, "99-0badc0de", moved)
    clean_leftovers([t.path for t in targets])
    assert (tmp_path / "dist/cat/f").read_text() == "new"
    assert (tmp_path / "figures/cat/f").read_text() == "new"
    assert (tmp_path / "dist/cat.html").read_text() == "<html>new single</html>"
    assert stray(tmp_path) == []


def test_the_next_build_without_the_flag_leaves_no_single_file_staging(tmp_path: Path):
    write_lesson(tmp_path, SIMPLE)
    assert run_cli(tmp_path, "cat", "--no-pdf", "--single-file").returncode == 0
    killed_mid_publish(tmp_path, "99-0badc0de", 1)
    (tmp_path / "dist/.staging-cat.html-98-00c0ffee").write_text("<html>half")  # no journal
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert stray(tmp_path) == [] and not (tmp_path / "dist/cat.html").exists()
    assert "42" in (tmp_path / "dist/cat/index.html").read_text("utf-8")


def test_a_failed_publish_restores_the_single_file_with_the_deck(tmp_path: Path, monkeypatch):
    write_lesson(tmp_path, SIMPLE)
    assert run_cli(tmp_path, "cat", "--no-pdf", "--single-file").returncode == 0
    before = outputs(tmp_path)
    single = tree(tmp_path / "dist")["cat.html"]
    real_rename = Path.rename

    def failing(self: Path, to: Path):
        if self.name.startswith(".staging-cat.html-"):
            raise OSError("disk full")
        return real_rename(self, to)

    monkeypatch.setattr(Path, "rename", failing)
    (tmp_path / "content/cat/01-a.md").write_text(SIMPLE["01-a.md"].replace("6 * 7", "6 * 8"))
    ran = run_cli(tmp_path, "cat", "--no-pdf", "--single-file")
    monkeypatch.undo()
    assert ran.returncode == 1 and "disk full" in ran.stderr
    assert outputs(tmp_path) == before and tree(tmp_path / "dist")["cat.html"] == single
    assert stray(tmp_path) == []


def test_dropping_is_journaled_and_rolled_back_with_the_rest(tmp_path: Path, monkeypatch):
    deck, single = tmp_path / "out/l", tmp_path / "out/l.html"
    deck.mkdir(parents=True)
    (deck / "f").write_text("old")
    single.write_text("old single")
    targets = [Target(deck, "5-00000000"), Target(single, "5-00000000", drop=True)]
    targets[0].staging.mkdir()
    (targets[0].staging / "f").write_text("new")
    real_rename = Path.rename

    def failing(self: Path, to: Path):
        if self == single:
            raise OSError("disk full")
        return real_rename(self, to)

    monkeypatch.setattr(Path, "rename", failing)
    with pytest.raises(OSError, match="disk full"):
        publish(targets)
    monkeypatch.undo()
    assert (deck / "f").read_text() == "old" and single.read_text() == "old single"
    publish(targets)
    assert (deck / "f").read_text() == "new" and not single.exists()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["l"]


KILLER = """
import os, signal, sys
from pathlib import Path

sys.path.insert(0, sys.argv[1])
at, renames, real = int(sys.argv[2]), [0], Path.rename


def rename(self, to):  # publish's renames: a place to its old copy, a staging place in
    if self.name.startswith(".staging-") or Path(to).name.startswith(".old-"):
        renames[0] += 1
        if renames[0] == at:
            os.kill(os.getpid(), signal.SIGKILL)
    return real(self, to)


Path.rename = rename
from deck.cli import main

sys.exit(main(sys.argv[3:]))
"""


@pytest.mark.parametrize(("at", "again"), [(1, True), (2, False), (4, True), (5, False), (6, True)])
def test_a_build_killed_inside_publish_leaves_nothing_behind_after_the_next(
    tmp_path: Path, at: int, again: bool
):
    """A real build.py SIGKILLed before publish's rename number `at` (of six: the deck, the
    figures and the single file, each moved aside and replaced); the next build, with or
    without --single-file, leaves no staging or old copy and a consistent deck."""
    write_lesson(tmp_path, SIMPLE)
    assert run_cli(tmp_path, "cat", "--no-pdf", "--single-file").returncode == 0
    section = tmp_path / "content/cat/01-a.md"
    section.write_text(SIMPLE["01-a.md"].replace("6 * 7", "6 * 9"))
    args = ["cat", "--no-pdf", "--single-file"]
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, str(ROOT), str(at), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -9, proc.stderr  # killed where it was meant to be
    assert any(p.name.startswith(".") for p in (tmp_path / "dist").iterdir())  # a leftover
    ran = run_cli(tmp_path, "cat", "--no-pdf", *(["--single-file"] if again else []))
    assert ran.returncode == 0, ran.stderr
    assert stray(tmp_path) == []
    assert "54" in (tmp_path / "dist/cat/index.html").read_text("utf-8")
    single = tmp_path / "dist/cat.html"
    assert single.is_file() is again
    if again:
        assert "54" in single.read_text("utf-8")
