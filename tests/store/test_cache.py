"""Cache keys: prose and notes are not in them; code is, per section. Warm builds stay light."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from catalogue import edit, keys, write_lesson
from deck.store.sections import Store, staging_name
from fixture_build import ROOT, copy_fixture, run_cli
from report_build import build_report, build_report_in_new_process


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


@pytest.mark.slow
def test_unchanged_rebuild_imports_no_torch_and_reruns_nothing(tmp_path: Path):
    """The one build test in a fresh process each time: which modules a build imports."""
    folder = copy_fixture("torchy", tmp_path)
    first = build_report_in_new_process(tmp_path, "torchy")
    assert first["executed"] == ["torchy/01-tensor"] and first["reasons"] == {
        "torchy/01-tensor": "new"
    }
    assert not {"dask", "distributed"} & set(first["heavy"])  # (--executor dask:// only)
    again = build_report_in_new_process(tmp_path, "torchy")  # up to date: nothing looked up or run
    assert (again["ok"], again["executed"], again["up_to_date"]) == (True, [], ["torchy"])
    assert again["heavy"] == []
    (tmp_path / "dist/torchy/index.html").unlink()  # an output gone: rebuilt from the cache
    again = build_report_in_new_process(tmp_path, "torchy")
    assert (again["ok"], again["executed"], again["cached"]) == (True, [], 1)
    assert again["heavy"] == [] and (tmp_path / "dist/torchy/index.html").is_file()
    edit(folder / "01-tensor.md", "种子来自 lesson.yml。", "讲稿改过了。")  # prose only
    again = build_report_in_new_process(tmp_path, "torchy")
    assert (again["executed"], again["cached"], again["heavy"]) == ([], 1, [])


@pytest.mark.slow
def test_prose_edit_rebuild_runs_no_cell(tmp_path: Path):
    folder = copy_fixture("torchy", tmp_path)
    assert build_report(tmp_path, "torchy")["executed"] == ["torchy/01-tensor"]
    edit(folder / "01-tensor.md", "种子来自 lesson.yml。", "讲稿改过了。")
    edit(folder / "01-tensor.md", "## 张量\n", "## 张量\n\n多了一段说明。\n")
    report = build_report(tmp_path, "torchy")  # imports no torch: see the test above
    assert (report["executed"], report["cached"]) == ([], 1)
    html = (tmp_path / "dist/torchy/index.html").read_text()
    assert "讲稿改过了。" in html and "多了一段说明。" in html


@pytest.mark.slow
def test_code_edit_reruns_only_that_section(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    assert len(build_report(tmp_path, "mini")["executed"]) == 2
    edit(folder / "01-basics.md", "square(12)", "square(13)")
    report = build_report(tmp_path, "mini")
    assert report["executed"] == ["mini/01-basics"]
    assert report["reasons"] == {"mini/01-basics": "code changed"}
    assert "169" in (tmp_path / "dist/mini/index.html").read_text()


@pytest.mark.slow
def test_force_reruns_every_section(tmp_path: Path):
    copy_fixture("mini", tmp_path)
    assert build_report(tmp_path, "mini")["ok"]
    again = build_report(tmp_path, "mini", force=True)
    assert again["executed"] == ["mini/01-basics", "mini/02-figure"]
    assert set(again["reasons"].values()) == {"--force"}


@pytest.mark.slow
def test_prose_added_above_cells_keeps_their_outputs_in_a_cached_build(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    assert run_cli(tmp_path, "mini", "--no-pdf").returncode == 0
    before = json.loads((tmp_path / "dist/mini/values.json").read_text())
    edit(folder / "02-figure.md", "## 一张图\n", "## 一张图\n\n新加的一段说明。\n\n更多说明。\n")
    report = build_report(tmp_path, "mini")
    assert report["executed"] == []
    after = json.loads((tmp_path / "dist/mini/values.json").read_text())
    assert [f["file"] for f in after["figures"]] == [f["file"] for f in before["figures"]]
    assert after["figures"][0]["loc"] == "content/mini/02-figure.md:15"  # the new line
    assert len(after["outputs"]) == len(before["outputs"])
    assert '<img data-src="figures/parabola.svg"' in (tmp_path / "dist/mini/index.html").read_text()


# ---- what a section read, installed, and ran on is checked on lookup ------------------------

READERS = {
    "01-csv.md": """
        ## 读文本

        ```{python}
        with open("data.csv") as f:
            total = sum(int(x) for x in f.read().split(","))
        ```

        合计：`{python} total`。
        """,
    "02-npy.md": """
        ## 读数组

        ```{python}
        import numpy as np
        weights = np.load("weights.npy")
        ```

        最大：`{python} int(weights.max())`。
        """,
    "03-scratch.md": """
        ## 自己写、自己读

        ```{python}
        import os
        import tempfile
        with open("scratch.txt", "w") as f:
            f.write("5")
        with open("scratch.txt") as f:
            five = int(f.read())
        os.remove("scratch.txt")
        fd, name = tempfile.mkstemp()
        os.write(fd, b"6")
        os.close(fd)
        with open(name) as f:
            six = int(f.read())
        os.remove(name)
        ```

        `{python} five`
        """,
    "data.csv": "1,2,3",
}


def shown(root: Path) -> list[str]:
    values = json.loads((root / "dist/cat/values.json").read_text("utf-8"))
    return [v["text"] for v in values["values"]]


def files_read(root: Path, section: str) -> list[str]:
    entry = json.loads((root / f".cache/cat/{section}.json").read_text("utf-8"))
    return [name for kind, name, *_ in entry["entry"]["result"]["deps"] if kind == "file"]


@pytest.mark.slow
def test_a_changed_data_file_reruns_only_the_section_that_read_it(tmp_path: Path):
    import numpy as np

    folder = write_lesson(tmp_path, READERS)
    np.save(folder / "weights.npy", np.array([1, 7, 2]))
    assert len(build_report(tmp_path, "cat")["executed"]) == 3
    assert shown(tmp_path) == ["6", "7", "5"]
    assert build_report(tmp_path, "cat")["executed"] == []  # its own scratch file is no input
    assert files_read(tmp_path, "01-csv") == ["data.csv"]
    assert files_read(tmp_path, "03-scratch") == []

    (folder / "data.csv").write_text("1,2,30")
    report = build_report(tmp_path, "cat")
    assert report["reasons"] == {"cat/01-csv": "data.csv changed"}
    assert shown(tmp_path) == ["33", "7", "5"]

    np.save(folder / "weights.npy", np.array([1, 9, 2]))
    report = build_report(tmp_path, "cat")
    assert report["reasons"] == {"cat/02-npy": "weights.npy changed"}
    assert shown(tmp_path) == ["33", "9", "5"]

    os.utime(folder / "data.csv", (1e9, 1e9))  # touched, not changed: hashed again, not rerun
    assert build_report(tmp_path, "cat")["executed"] == []

    (folder / "data.csv").unlink()
    report = build_report(tmp_path, "cat")
    assert report["ok"] is False
    assert report["errors"][0].startswith("content/cat/01-csv.md:4: error [exec] FileNotFoundError")


@pytest.mark.slow
def test_a_code_change_inside_a_string_literal_reruns(tmp_path: Path):
    section = '## 字符串\n\n```{python}\ntext = """a\n\nb"""\n```\n\n`{python} len(text)`\n'
    folder = write_lesson(tmp_path, {"01-a.md": section})
    build_report(tmp_path, "cat")
    assert shown(tmp_path) == ["4"]
    (folder / "01-a.md").write_text(section.replace("a\n\nb", "a\nb"), "utf-8")
    assert build_report(tmp_path, "cat")["reasons"] == {"cat/01-a": "code changed"}
    assert shown(tmp_path) == ["3"]


def fake_distribution(site: Path, version: str, scale: int) -> None:
    """A distribution `fakedist` installed into `site` (a folder named site-packages)."""
    for old in site.glob("fakedist-*.dist-info"):
        shutil.rmtree(old)
    package = site / "fakedist"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(f"SCALE = {scale}\n")
    info = site / f"fakedist-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: fakedist\nVersion: {version}\n")
    (info / "top_level.txt").write_text("fakedist\n")
    (info / "RECORD").write_text(f"fakedist/__init__.py,sha256=scale{scale},10\n")


@pytest.mark.slow
def test_distributions_behind_imported_modules_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    site = tmp_path / "env/site-packages"
    fake_distribution(site, "1.0", 2)
    monkeypatch.setenv("PYTHONPATH", str(site))
    uses = "## 用库\n\n```{python}\nimport fakedist\n```\n\n`{python} fakedist.SCALE`\n"
    plain = "## 不用\n\n```{python}\nx = 1\n```\n\n`{python} x`\n"
    write_lesson(tmp_path, {"01-uses.md": uses, "02-plain.md": plain})
    assert len(build_report(tmp_path, "cat")["executed"]) == 2
    assert shown(tmp_path) == ["2", "1"]

    fake_distribution(site, "1.1", 33)  # upgraded (sizes differ: Python's .pyc check)
    report = build_report(tmp_path, "cat")
    assert report["reasons"] == {"cat/01-uses": "fakedist 1.0 no longer installed"}
    assert shown(tmp_path) == ["33", "1"]

    fake_distribution(site, "1.1", 444)  # reinstalled, same version, other files
    report = build_report(tmp_path, "cat")
    assert report["reasons"] == {"cat/01-uses": "fakedist 1.1 changed"}
    assert shown(tmp_path) == ["444", "1"]


@pytest.mark.slow
def test_a_module_in_site_packages_that_no_distribution_owns_is_tracked_as_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    site = tmp_path / "env/site-packages"
    site.mkdir(parents=True)
    (site / "loose.py").write_text("VALUE = 1\n")
    monkeypatch.setenv("PYTHONPATH", str(site))
    section = "## 散装\n\n```{python}\nimport loose\n```\n\n`{python} loose.VALUE`\n"
    write_lesson(tmp_path, {"01-a.md": section})
    assert build_report(tmp_path, "cat")["executed"] == ["cat/01-a"]
    (site / "loose.py").write_text("VALUE = 22\n")
    report = build_report(tmp_path, "cat")
    assert report["reasons"] == {"cat/01-a": f"{(site / 'loose.py').resolve()} changed"}
    assert shown(tmp_path) == ["22"]


@pytest.mark.slow
def test_engine_files_the_worker_imported_are_checked(tmp_path: Path):
    engine = tmp_path / "engine"
    shutil.copytree(ROOT / "deck", engine / "deck", ignore=shutil.ignore_patterns("__pycache__"))
    (engine / "node_modules").symlink_to(ROOT / "node_modules")
    write_lesson(tmp_path, {"01-a.md": "## 一\n\n```{python}\nx = 1\n```\n\n`{python} x`\n"})
    assert build_report_in_new_process(tmp_path, "cat", engine=engine)["executed"] == ["cat/01-a"]
    assert build_report_in_new_process(tmp_path, "cat", engine=engine)["executed"] == []
    model = engine / "deck/model/results.py"  # a file that no hand-kept list names
    model.write_text(model.read_text() + "\n# edited\n")
    report = build_report_in_new_process(tmp_path, "cat", engine=engine)
    assert report["reasons"] == {"cat/01-a": "engine file deck/model/results.py changed"}


# ---- a damaged entry is a note and a recomputation, never a failure ---------------------------

FIGURE_SECTION = """
## 图

```{python}
#| label: line
#| fig-alt: 一条线
import matplotlib.pyplot as plt
plt.plot([0, 1], [1, 0])
value = 41 + 1
```

`{python} value`
"""


def _edit_output(entry: Path) -> None:
    entry.write_text(entry.read_text("utf-8").replace('"42"', '"43"'), "utf-8")


def _truncate(entry: Path) -> None:
    entry.write_bytes(entry.read_bytes()[:100])


def _garbage(entry: Path) -> None:
    entry.write_bytes(b"\xff\xfe\x00garbage")


def _delete_figure(entry: Path) -> None:
    (svg,) = entry.parent.glob("figures/*/line.svg")
    svg.unlink()


def _edit_figure(entry: Path) -> None:
    (svg,) = entry.parent.glob("figures/*/line.svg")
    svg.write_text(svg.read_text().replace("<svg", "<svg data-x='1'", 1))


@pytest.mark.parametrize(
    "damage,detail",
    [
        (_edit_output, "checksum mismatch"),
        (_truncate, "not valid JSON"),
        (_garbage, "not valid JSON"),
        (_delete_figure, "figure line.svg missing"),
        (_edit_figure, "figure line.svg changed"),
    ],
)
@pytest.mark.slow
def test_damaged_entry_is_noted_and_recomputed(tmp_path: Path, damage, detail: str):
    write_lesson(tmp_path, {"01-a.md": FIGURE_SECTION})
    assert build_report(tmp_path, "cat")["ok"]
    svg = (tmp_path / "figures/cat/line.svg").read_bytes()
    damage(tmp_path / ".cache/cat/01-a.json")
    report = build_report(tmp_path, "cat")
    assert report["ok"] and report["executed"] == ["cat/01-a"]
    assert report["reasons"] == {"cat/01-a": f"entry damaged: {detail}"}
    assert f"  note    cache entry for 01-a damaged ({detail}): recomputing" in report["log"]
    assert shown(tmp_path) == ["42"]
    assert (tmp_path / "figures/cat/line.svg").read_bytes() == svg
    assert build_report(tmp_path, "cat")["executed"] == []  # and the entry is whole again


def test_an_entry_found_whole_is_not_checked_again_until_its_bytes_change(tmp_path, monkeypatch):
    """The checksum is checked by writing the entry's JSON again; the bytes an entry was
    written with (or last found whole with) spare that, and other bytes are checked again."""
    from deck.store import sections

    checked: list[str] = []
    real = sections._checksum
    monkeypatch.setattr(sections, "_checksum", lambda entry: checked.append("") or real(entry))
    section = "## 值\n\n```{python}\nvalue = 41 + 1\n```\n\n值 `{python} value`。\n"
    folder = write_lesson(tmp_path, {"01-a.md": section})
    assert build_report(tmp_path, "cat")["executed"] == ["cat/01-a"]
    entry = tmp_path / ".cache/cat/01-a.json"
    (folder / "01-a.md").write_text(section + "\n一段话。\n", "utf-8")  # (looked up, not run)
    checked.clear()
    assert build_report(tmp_path, "cat")["executed"] == []
    assert checked == []  # (written by the first build: known whole)
    (tmp_path / ".cache/cat" / sections.VERIFIED).unlink()
    (folder / "01-a.md").write_text(section + "\n另一段话。\n", "utf-8")
    assert build_report(tmp_path, "cat")["executed"] == []
    assert len(checked) == 1  # (not known: checked, then known again)
    checked.clear()
    (folder / "01-a.md").write_text(section + "\n第三段话。\n", "utf-8")
    assert build_report(tmp_path, "cat")["executed"] == []
    assert checked == []
    entry.write_text(entry.read_text("utf-8").replace('"42"', '"43"'), "utf-8")
    report = build_report(tmp_path, "cat")
    assert report["reasons"] == {"cat/01-a": "entry damaged: checksum mismatch"}


@pytest.mark.slow
def test_sections_that_ran_are_kept_when_another_fails(tmp_path: Path):
    ok = "## 好\n\n```{python}\nx = 1\n```\n\n`{python} x`\n"
    folder = write_lesson(
        tmp_path,
        {"01-a.md": ok, "02-b.md": ok.replace("x = 1", "x = 1 / 0"), "03-c.md": ok},
    )
    first = build_report(tmp_path, "cat")
    assert first["ok"] is False
    assert first["errors"] == [
        "content/cat/02-b.md:4: error [exec] ZeroDivisionError: division by zero"
    ]
    (folder / "02-b.md").write_text(ok.replace("x = 1", "x = 2"), "utf-8")
    again = build_report(tmp_path, "cat")
    assert (again["ok"], again["executed"], again["cached"]) == (True, ["cat/02-b"], 2)


@pytest.mark.slow
def test_a_lesson_module_edit_says_so(tmp_path: Path):
    folder = copy_fixture("mini", tmp_path)
    assert build_report(tmp_path, "mini")["ok"]
    (folder / "helper.py").write_text((folder / "helper.py").read_text() + "\n# edited\n")
    reasons = build_report(tmp_path, "mini")["reasons"]
    assert reasons == dict.fromkeys(
        ["mini/01-basics", "mini/02-figure"], "lesson modules or settings changed"
    )


def test_prune_removes_staging_left_by_dead_builds_only(tmp_path: Path):
    store = Store(tmp_path / "cache", "x")
    figures = tmp_path / "cache/x/figures"
    dead = figures / ".k1.4194399.tmp"  # above the largest pid Linux hands out
    ours = figures / staging_name("k2")
    kept, dropped = figures / "k3", figures / "k4"
    for folder in (dead, ours, kept, dropped):
        folder.mkdir(parents=True)
        (folder / "a.svg").write_text("<svg/>")
    store.prune({"k3"})
    assert sorted(p.name for p in figures.iterdir()) == sorted([ours.name, "k3"])
