"""Cache keys: prose and notes are not in them; code is, per section. Warm builds stay light."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from deck.cache import cache_key, environment_fingerprint
from deck.load import load_lesson
from fixture_build import ROOT, copy_fixture, run_build


def keys(folder: Path) -> dict[str, str]:
    lesson = load_lesson(folder)
    fingerprint = environment_fingerprint(lesson)
    return {s.name: cache_key(s, fingerprint) for s in lesson.sections}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_prose_notes_and_line_shifts_keep_the_key(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    before = keys(folder)
    section = folder / "01-basics.md"
    edit(section, "计算结果直接出现在幻灯片上。", "改写的讲解文字。\n\n\n多几行。")
    edit(section, "开场：介绍本节。", "新的讲稿。")
    edit(section, "## 这不是新幻灯片", "## 改过的代码块")  # a plain code block is prose
    edit(section, "answer = square(12)", "answer = square(12)   ")  # trailing spaces
    assert keys(folder) == before


def test_code_edit_changes_only_that_sections_key(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    before = keys(folder)
    edit(folder / "01-basics.md", "square(12)", "square(13)")
    after = keys(folder)
    assert after["01-basics"] != before["01-basics"]
    assert after["02-figure"] == before["02-figure"]


def test_inline_expression_edit_changes_the_key(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    before = keys(folder)
    edit(folder / "02-figure.md", "min(x * x for x in xs)", "max(x * x for x in xs)")
    assert keys(folder)["02-figure"] != before["02-figure"]


def test_lesson_module_and_seed_change_every_key(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    before = keys(folder)
    (folder / "helper.py").write_text((folder / "helper.py").read_text() + "\n# edited\n")
    after_module = keys(folder)
    edit(folder / "lesson.yml", "seed: 7", "seed: 8")
    after_seed = keys(folder)
    for name in before:
        assert len({before[name], after_module[name], after_seed[name]}) == 3


BUILD_AND_REPORT_IMPORTS = """
import json, sys
from deck.cli import main
code = main(sys.argv[1:])
heavy = [m for m in ("torch", "matplotlib", "numpy", "playwright") if m in sys.modules]
print(json.dumps({"code": code, "heavy": heavy}))
"""


def build_in_process(root: Path, *args: str) -> tuple[dict, str]:
    proc = subprocess.run(
        [sys.executable, "-c", BUILD_AND_REPORT_IMPORTS, *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def test_unchanged_rebuild_imports_no_torch_and_reruns_nothing(tmp_path: Path):
    copy_fixture("torchy", tmp_path)
    first = run_build(tmp_path, "torchy", "--no-pdf")
    assert first.returncode == 0, first.stderr
    assert "ran" in first.stderr
    report, log = build_in_process(tmp_path, "torchy", "--no-pdf")
    assert report == {"code": 0, "heavy": []}
    assert "cached" in log and " ran " not in log


def test_prose_edit_rebuild_runs_no_cell(tmp_path: Path):
    folder = copy_fixture("torchy", tmp_path)
    assert run_build(tmp_path, "torchy", "--no-pdf").returncode == 0
    edit(folder / "01-tensor.md", "种子来自 lesson.yml。", "讲稿改过了。")
    report, log = build_in_process(tmp_path, "torchy", "--no-pdf")
    assert report["heavy"] == []
    html = (tmp_path / "dist/torchy/index.html").read_text()
    assert "讲稿改过了。" in html


def test_force_reruns_every_section(tmp_path: Path):
    copy_fixture("mini", tmp_path)
    assert run_build(tmp_path, "mini", "--no-pdf").returncode == 0
    again = run_build(tmp_path, "mini", "--no-pdf", "--force")
    assert again.returncode == 0
    assert again.stderr.count(" ran ") == 2


def test_prose_added_above_cells_keeps_their_outputs_in_a_cached_build(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    assert run_build(tmp_path, "mini", "--no-pdf").returncode == 0
    before = json.loads((tmp_path / "dist/mini/values.json").read_text())
    edit(folder / "02-figure.md", "## 一张图\n", "## 一张图\n\n新加的一段说明。\n\n更多说明。\n")
    proc = run_build(tmp_path, "mini", "--no-pdf")
    assert proc.returncode == 0 and " ran " not in proc.stderr
    after = json.loads((tmp_path / "dist/mini/values.json").read_text())
    assert [f["file"] for f in after["figures"]] == [f["file"] for f in before["figures"]]
    assert after["figures"][0]["loc"] == "content/mini/02-figure.md:15"  # the new line
    assert len(after["outputs"]) == len(before["outputs"])
    assert '<img src="figures/parabola.svg"' in (tmp_path / "dist/mini/index.html").read_text()
