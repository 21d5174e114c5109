"""`build.py new NAME` (issue 21, item 2): a lesson that builds at once with every convention
shown once, and a test of its numbers that passes against the build's values.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fixture_build import ROOT, run_cli


def run_pytest(test: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.slow
def test_a_new_lesson_builds_and_its_test_passes(tmp_path: Path, lang: str):
    ran = run_cli(tmp_path, "new", "softmax", "--lang", lang)
    assert ran.returncode == 0, ran.stderr
    folder = tmp_path / "content" / "softmax"
    assert sorted(p.name for p in folder.iterdir()) == ["01-softmax.md", "lesson.yml", "ruff.toml"]
    ran = run_cli(tmp_path, "softmax", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "warning" not in ran.stderr, ran.stderr
    values = json.loads((tmp_path / "dist" / "softmax" / "values.json").read_text())
    scores = np.array([2.0, 1.0, 0.1])
    expected = np.exp(scores).max() / np.exp(scores).sum()  # softmax, computed again
    (shown,) = {v["text"] for v in values["values"] if v["expr"] == 'f"{p.max():.3f}"'}
    assert float(shown) == pytest.approx(expected, abs=5e-4)
    (quiz,) = values["quizzes"]
    assert quiz["answer_text"] == "2.0" and quiz["choices"][quiz["answer"]] == "2.0"
    # the scaffolded test itself passes (it finds the project from its own place)
    test = tmp_path / "tests" / "lessons" / "test_softmax.py"
    code = (
        test.read_text()
        .replace("ROOT = Path(__file__).resolve().parents[2]", f"ROOT = Path({str(tmp_path)!r})")
        .replace('str(ROOT / "build.py")', f"{str(ROOT / 'build.py')!r}")
    )
    test.write_text(code)
    proc = run_pytest(test, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # and it fails on a warning: a note without its minutes, here
    section = folder / "01-softmax.md"
    extra = "\n## More\n\nOne more slide.\n\n::: notes\nSay it slowly.\n:::\n"
    section.write_text(section.read_text("utf-8") + extra, "utf-8")
    proc = run_pytest(test, tmp_path)
    assert proc.returncode == 1 and "test_the_build_says_nothing_is_wrong" in proc.stdout
    assert "warning [" in proc.stdout and "1 failed" in proc.stdout, proc.stdout


def test_new_refuses_to_overwrite_and_a_bad_name(tmp_path: Path):
    assert run_cli(tmp_path, "new", "softmax").returncode == 0
    again = run_cli(tmp_path, "new", "softmax")
    assert again.returncode == 2 and "exists already" in again.stderr
    bad = run_cli(tmp_path, "new", "../up")
    assert bad.returncode == 2 and "letters, digits" in bad.stderr
    for command in ("docs", "new"):  # `build.py docs` would never reach such a lesson
        taken = run_cli(tmp_path, "new", command)
        assert taken.returncode == 2 and "is a build.py command" in taken.stderr
        assert not (tmp_path / "content" / command).exists()
