"""Cache keys: prose and notes are not in them; code is, per section. Warm builds stay light."""

from __future__ import annotations

import json
from pathlib import Path

from deck.cache import cache_key, environment_fingerprint
from deck.load import load_lesson
from fixture_build import copy_fixture, run_build
from report_build import build_report


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
    assert keys(folder) == before


def test_code_is_keyed_as_written(tmp_path: Path):
    """Blank lines and trailing spaces inside a string literal are behaviour; the key holds
    the code as written, so even a change that could not matter re-runs (never the reverse)."""
    folder = copy_fixture("mini", tmp_path)
    section = folder / "01-basics.md"
    edit(section, "answer = square(12)\n", 'answer = square(12)\ntext = """a\n\nb  \n"""\n')
    seen = {keys(folder)["01-basics"]}
    for old, new in [
        ('"""a\n\nb  \n"""', '"""a\nb  \n"""'),  # a blank line removed inside the string
        ('"""a\nb  \n"""', '"""a\nb\n"""'),  # trailing spaces removed inside the string
        ("answer = square(12)\n", "answer = square(12)   \n"),  # trailing spaces in code
    ]:
        edit(section, old, new)
        seen.add(keys(folder)["01-basics"])
    assert len(seen) == 4


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


def test_unchanged_rebuild_imports_no_torch_and_reruns_nothing(tmp_path: Path):
    copy_fixture("torchy", tmp_path)
    first = build_report(tmp_path, "torchy")
    assert first["executed"] == ["torchy/01-tensor"] and first["reasons"] == {
        "torchy/01-tensor": "new"
    }
    again = build_report(tmp_path, "torchy")
    assert (again["ok"], again["executed"], again["cached"]) == (True, [], 1)
    assert again["heavy"] == []


def test_prose_edit_rebuild_runs_no_cell(tmp_path: Path):
    folder = copy_fixture("torchy", tmp_path)
    assert build_report(tmp_path, "torchy")["executed"] == ["torchy/01-tensor"]
    edit(folder / "01-tensor.md", "种子来自 lesson.yml。", "讲稿改过了。")
    edit(folder / "01-tensor.md", "## 张量\n", "## 张量\n\n多了一段说明。\n")
    report = build_report(tmp_path, "torchy")
    assert (report["executed"], report["cached"], report["heavy"]) == ([], 1, [])
    html = (tmp_path / "dist/torchy/index.html").read_text()
    assert "讲稿改过了。" in html and "多了一段说明。" in html


def test_code_edit_reruns_only_that_section(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    assert len(build_report(tmp_path, "mini")["executed"]) == 2
    edit(folder / "01-basics.md", "square(12)", "square(13)")
    report = build_report(tmp_path, "mini")
    assert report["executed"] == ["mini/01-basics"]
    assert report["reasons"] == {"mini/01-basics": "code changed"}
    assert "169" in (tmp_path / "dist/mini/index.html").read_text()


def test_force_reruns_every_section(tmp_path: Path):
    copy_fixture("mini", tmp_path)
    assert build_report(tmp_path, "mini")["ok"]
    again = build_report(tmp_path, "mini", force=True)
    assert again["executed"] == ["mini/01-basics", "mini/02-figure"]
    assert set(again["reasons"].values()) == {"--force"}


def test_prose_added_above_cells_keeps_their_outputs_in_a_cached_build(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    assert run_build(tmp_path, "mini", "--no-pdf").returncode == 0
    before = json.loads((tmp_path / "dist/mini/values.json").read_text())
    edit(folder / "02-figure.md", "## 一张图\n", "## 一张图\n\n新加的一段说明。\n\n更多说明。\n")
    report = build_report(tmp_path, "mini")
    assert report["executed"] == []
    after = json.loads((tmp_path / "dist/mini/values.json").read_text())
    assert [f["file"] for f in after["figures"]] == [f["file"] for f in before["figures"]]
    assert after["figures"][0]["loc"] == "content/mini/02-figure.md:15"  # the new line
    assert len(after["outputs"]) == len(before["outputs"])
    assert '<img src="figures/parabola.svg"' in (tmp_path / "dist/mini/index.html").read_text()
