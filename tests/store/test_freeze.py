"""Frozen results (`--freeze`, `_freeze/` beside a lesson): a clone with no cache builds the same
deck from them without running a cell while every recorded input holds; a section whose input
changed runs (or, with `--frozen-only`, fails at its line naming the input); the records hold
no machine's paths and an unchanged result writes no byte."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, edit, line_of, tree, write_lesson
from fixture_build import copy_fixture
from report_build import build_report

DATA = {
    "01-data.md": """
        ## 数据

        ```{python}
        from pathlib import Path

        total = sum(int(x) for x in Path("data.csv").read_text().split())
        ```

        总和是 `{python} total`。

        ## 第二张

        ```{python}
        double = total * 2
        ```

        两倍是 `{python} double`。
        """,
    "02-pure.md": """
        ## 纯计算

        ```{python}
        import math

        root = math.sqrt(2)
        ```

        根号二约为 `{python} f"{root:.3f}"`。
        """,
    "data.csv": "1 2 3\n",
}


def clone(root: Path, other: Path) -> Path:
    """What `git clone` gives a colleague: the content folder only (no cache, no dist)."""
    shutil.copytree(root / "content", other / "content")
    return other


@pytest.mark.slow
def test_a_clone_builds_the_same_deck_from_frozen_results_without_running_a_cell(tmp_path: Path):
    first = tmp_path / "author"
    copy_fixture("mini", first)
    built = build_report(first, "mini", freeze=True)
    assert built["ok"] and sorted(built["executed"]) == ["mini/01-basics", "mini/02-figure"]
    frozen = first / "content" / "mini" / "_freeze"
    assert sorted(p.name for p in frozen.glob("*.json")) == ["01-basics.json", "02-figure.json"]
    assert sorted(p.name for p in (frozen / "02-figure_files").iterdir()) == [
        "parabola.png",
        "parabola.svg",
    ]

    other = clone(first, tmp_path / "colleague")
    again = build_report(other, "mini")
    assert again["ok"], again
    assert again["executed"] == []
    assert sorted(again["frozen"]) == ["mini/01-basics", "mini/02-figure"]
    for top in ("dist", "figures"):  # the same deck, values.json, notebook and figures
        assert tree(other / top / "mini") == tree(first / top / "mini"), top
    # the frozen results are now this clone's cache: the next build is up to date
    assert build_report(other, "mini")["up_to_date"] == ["mini"]


@pytest.mark.slow
def test_records_hold_no_machine_path_and_an_unchanged_result_writes_nothing(tmp_path: Path):
    folder = write_lesson(tmp_path, DATA)
    assert build_report(tmp_path, "cat", freeze=True)["ok"]
    records = sorted((folder / "_freeze").glob("*.json"))
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in records}
    text = "".join(p.read_text("utf-8") for p in records)
    assert str(tmp_path) not in text and "/root" not in text and "site-packages" not in text
    record = json.loads(records[0].read_text("utf-8"))
    assert any(d[:2] == ["file", "data.csv"] for d in record["inputs"])
    assert record["left_out"] >= 0 and record["result"]["inline"]["total"] == "6"
    assert '\n  ["file", "data.csv", "' in records[0].read_text("utf-8")  # one input a line
    # another build with --freeze (from the cache): not a byte rewritten
    assert build_report(tmp_path, "cat", freeze=True)["executed"] == []
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in records}
    assert after == before


def test_a_changed_input_runs_only_its_section_and_frozen_only_names_it(tmp_path: Path):
    folder = write_lesson(tmp_path / "author", DATA)
    assert build_report(tmp_path / "author", "cat", freeze=True)["ok"]
    other = clone(tmp_path / "author", tmp_path / "colleague")
    (other / "content" / "cat" / "data.csv").write_text("1 2 3 4\n", "utf-8")
    text = (folder / "01-data.md").read_text("utf-8")
    line = line_of(text, "from pathlib import Path") - 1  # the first cell's fence
    assert_failed_cleanly(
        other,
        ["cat", "--no-pdf", "--frozen-only"],
        f"content/cat/01-data.md:{line}",
        says="frozen result does not hold: data.csv changed",
    )
    built = build_report(other, "cat")
    assert built["executed"] == ["cat/01-data"], built
    assert built["reasons"] == {"cat/01-data": "frozen result: data.csv changed"}
    assert any(
        line.startswith("note: the frozen results of 01-data no longer") for line in built["log"]
    )
    assert built["reused"] == ["cat/02-pure"]  # (taken by the build that failed, now cached)
    values = json.loads((other / "dist" / "cat" / "values.json").read_text("utf-8"))
    assert {v["expr"]: v["text"] for v in values["values"]}["total"] == "10"


@pytest.mark.slow
def test_prose_edits_keep_frozen_results_and_a_code_edit_names_its_cell(tmp_path: Path):
    write_lesson(tmp_path / "author", DATA)
    assert build_report(tmp_path / "author", "cat", freeze=True)["ok"]
    other = clone(tmp_path / "author", tmp_path / "colleague")
    section = other / "content" / "cat" / "01-data.md"
    edit(section, "## 第二张", "新的一段讲解。\n\n## 第二张")
    assert build_report(other, "cat", frozen_only=True)["frozen"] == ["cat/01-data", "cat/02-pure"]
    edit(section, "double = total * 2", "double = total * 3")
    line = line_of(section.read_text("utf-8"), "double = total * 3") - 1  # its fence
    assert_failed_cleanly(
        other,
        ["cat", "--no-pdf", "--frozen-only"],
        f"content/cat/01-data.md:{line}",
        says="frozen result does not hold: code changed",
    )


def test_another_version_of_a_distribution_runs_the_section(tmp_path: Path):
    folder = write_lesson(tmp_path / "author", DATA)
    assert build_report(tmp_path / "author", "cat", freeze=True)["ok"]
    other = clone(tmp_path / "author", tmp_path / "colleague")
    record = other / "content" / "cat" / "_freeze" / "02-pure.json"
    data = json.loads(record.read_text("utf-8"))
    data["inputs"].append(["dist", "pytest", "0.0.1"])  # as if frozen where pytest was older
    record.write_text(json.dumps(data), "utf-8")
    built = build_report(other, "cat")
    assert built["frozen"] == ["cat/01-data"]
    assert built["reasons"]["cat/02-pure"].startswith("frozen result: pytest 0.0.1 computed it")
    assert (folder / "_freeze" / "02-pure.json").is_file()


def test_a_frozen_result_stands_where_its_distribution_is_not_installed(tmp_path: Path):
    """A distribution the record names that this machine lacks: the result stands, said so."""
    write_lesson(tmp_path / "author", DATA)
    assert build_report(tmp_path / "author", "cat", freeze=True)["ok"]
    other = clone(tmp_path / "author", tmp_path / "colleague")
    record = other / "content" / "cat" / "_freeze" / "02-pure.json"
    data = json.loads(record.read_text("utf-8"))
    data["inputs"].append(["dist", "no-such-distribution-here", "1.0"])
    record.write_text(json.dumps(data), "utf-8")
    built = build_report(other, "cat")
    assert built["executed"] == [] and "cat/02-pure" in built["frozen"]
    assert any("no-such-distribution-here 1.0" in w for w in built["warnings"])
    # installed later at another version, it would run: the cache entry says which it needs
    entry = json.loads((other / ".cache" / "cat" / "02-pure.json").read_text("utf-8"))
    deps = entry["entry"]["result"]["deps"]
    assert ["version", "no-such-distribution-here 1.0", "no-such-distribution-here"] in [
        d[:3] for d in deps
    ]
    assert os.path.isfile(other / ".cache" / "cat" / "02-pure.json")


def python_without(tmp_path: Path, hidden: tuple[str, ...]) -> Path:
    """A virtual environment with every package of this one but `hidden` (their modules and
    their metadata): a machine where `import torch` fails and no torch is installed."""
    import subprocess
    import sys
    import sysconfig

    venv = tmp_path / "venv-without"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True, timeout=60)
    farm = tmp_path / "farm" / "site-packages"
    farm.mkdir(parents=True)
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if entry.name.split("-")[0].split(".")[0] not in hidden:
            (farm / entry.name).symlink_to(entry)
    (site,) = (venv / "lib").glob("python3*/site-packages")
    (site / "farm.pth").write_text(f"import site; site.addsitedir({str(farm)!r})\n", "utf-8")
    return venv / "bin" / "python"


@pytest.mark.slow
def test_a_machine_without_torch_builds_the_deck_from_frozen_results(tmp_path: Path):
    import subprocess

    from fixture_build import ROOT

    author = tmp_path / "author"
    copy_fixture("torchy", author)  # its cell imports torch
    assert build_report(author, "torchy", freeze=True)["executed"] == ["torchy/01-tensor"]
    other = clone(author, tmp_path / "colleague")
    python = python_without(tmp_path, ("torch", "torchgen", "functorch"))
    probe = subprocess.run([python, "-c", "import torch"], capture_output=True, timeout=60)
    assert probe.returncode != 0 and b"No module named 'torch'" in probe.stderr

    def build(*args: str) -> subprocess.CompletedProcess[str]:
        command = [python, ROOT / "build.py", "torchy", "--no-pdf", *args]
        env = dict(os.environ, DECK_NO_REEXEC="1")  # (else build.py runs the project's .venv)
        return subprocess.run(
            command, cwd=other, capture_output=True, text=True, timeout=300, env=env
        )

    proc = build()
    assert proc.returncode == 0, proc.stderr
    assert "frozen  content/torchy/01-tensor.md" in proc.stderr
    assert "torch 2.13.0" in proc.stderr and "not installed here" in proc.stderr
    here, there = (
        json.loads((r / "dist/torchy/values.json").read_bytes()) for r in (other, author)
    )
    # the same values; the build host is this one (no torch), the kernels the author's run's
    assert here["build_host"]["libraries"]["torch"] is None
    assert here["build_host"]["kernels"] == there["build_host"]["kernels"]
    here.pop("build_host"), there.pop("build_host")
    assert here == there and here["values"][0]["text"] == there["values"][0]["text"]
    nb = "dist/torchy/torchy.ipynb"
    assert (other / nb).read_bytes() == (author / nb).read_bytes()
    # a section that must run cannot here: it fails at its line, the deck stays as it was
    before = tree(other / "dist")
    edit(other / "content/torchy/01-tensor.md", "torch.randn(2, 3)", "torch.randn(3, 3)")
    proc = build()
    assert proc.returncode == 1
    assert (
        "content/torchy/01-tensor.md:" in proc.stderr and "No module named 'torch'" in proc.stderr
    )
    after = tree(other / "dist")
    for found in (before, after):
        found.pop("index.html", None)  # (the course page marks the failure)
    assert after == before


@pytest.mark.slow
def test_a_quarto_file_freezes_beside_it_with_its_output_folder_inside(tmp_path: Path):
    """A `.qmd`'s records go to `_freeze/<name>/deck/`; its dist/ (beside it, with the
    modules copied into the notebook's code/) is no part of what they were computed from."""
    from fixture_build import FIXTURES, run_build

    author, other = tmp_path / "author", tmp_path / "colleague"
    shutil.copytree(FIXTURES / "quarto", author)
    assert run_build(author, "same.qmd", "--no-pdf", "--freeze").returncode == 0
    assert (author / "dist/same/code/helper.py").is_file()
    assert sorted(p.name for p in (author / "_freeze/same/deck").glob("*.json")) == [
        "figures.json",
        "intro.json",
    ]

    def built(folder: str, names: list[str]) -> list[str]:  # (what .gitignore leaves out)
        return [n for n in names if folder == str(author) and n in ("dist", "figures", ".cache")]

    shutil.copytree(author, other, ignore=built)
    proc = run_build(other, "same.qmd", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("frozen  same.qmd") == 2 and "  ran " not in proc.stderr
    values = "dist/same/values.json"
    assert (other / values).read_bytes() == (author / values).read_bytes()
