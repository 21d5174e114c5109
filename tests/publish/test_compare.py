"""`build.py LESSON --compare OLD/values.json`: after the build, every shown value that differs
from the earlier build's, at its slide and `file:line` as old → new (numbers within
`--compare-rtol`/`--compare-atol` counting as equal), under a header naming both build hosts;
nothing changed is one line; a bad OLD stops the build before it touches anything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, line_of, outputs, write_lesson
from deck.publish.compare import compare, differs, host_line
from fixture_build import run_cli

BUILD = ("cat", "--to", "html", "-q")
# Two data files the test changes, a printed line, a value that never changes.
LESSON = {
    "01-a.md": """
        ## Read

        ```{python}
        small = float(open("small.txt").read())
        big = float(open("big.txt").read())
        print(f"big is {big}")
        ```

        Small is `{python} str(small)`, big is `{python} str(big)`.

        ## Fixed

        Always `{python} 6 * 7`.
        """,
    "small.txt": "0.5\n",
    "big.txt": "2.0\n",
}


def lesson(root: Path, imports: str = "") -> Path:
    """The lesson built once, its values.json copied to old.json; `imports` opens its cell."""
    text = LESSON["01-a.md"].replace("```{python}\n", f"```{{python}}\n{imports}", 1)
    folder = write_lesson(root, {**LESSON, "01-a.md": text})
    ran = run_cli(root, *BUILD)
    assert ran.returncode == 0, ran.stderr
    shutil.copy(root / "dist/cat/values.json", root / "old.json")
    return folder


def report(root: Path, *extra: str) -> list[str]:
    ran = run_cli(root, *BUILD, "--compare", "old.json", *extra)
    assert ran.returncode == 0, ran.stderr  # a report: changed values do not fail the build
    return ran.stdout.splitlines()


@pytest.mark.slow
def test_a_changed_value_is_listed_at_its_slide_and_line_with_both_hosts(tmp_path: Path):
    folder = lesson(tmp_path, "        import torch\n")  # (its kernels name the hosts)
    (folder / "big.txt").write_text("3.0\n")
    lines = report(tmp_path)
    source = (folder / "01-a.md").read_text()
    md = "content/cat/01-a.md"
    values_at, cell_at = line_of(source, "Small is"), line_of(source, "```{python}")
    assert lines[1:] == [
        f"  slide 1  {md}:{cell_at}  stdout of a cell  big is 2.0⏎ → big is 3.0⏎",
        f"  slide 1  {md}:{values_at}  `str(big)`  2.0 → 3.0",
    ]
    header = lines[0]
    assert header.startswith("2 shown values changed since old.json, 0 added, 0 removed")
    assert "(4 compared;" in header  # small, big, 6 * 7 and the printed line
    import torch

    host = json.loads((tmp_path / "dist/cat/values.json").read_text())["build_host"]
    threads = host["kernels"]["torch"]["threads"]
    this = (
        f"{host['cpu']} · {torch.backends.cpu.get_cpu_capability()} · {threads} "
        f"thread{'s' if threads != 1 else ''} · torch {torch.__version__}"
    )
    assert header.endswith(f"old build: {this}; this build: same)")


def test_an_identical_rebuild_says_nothing_changed_in_one_line(tmp_path: Path):
    lesson(tmp_path)
    # its own dist/…/values.json: read before the build replaces it; --force runs every cell
    ran = run_cli(tmp_path, *BUILD, "--force", "--compare", "dist/cat/values.json")
    assert ran.returncode == 0, ran.stderr
    (line,) = ran.stdout.splitlines()
    assert line.startswith("no shown value changed since dist/cat/values.json (4 compared; ")


def test_a_tolerance_hides_a_tiny_change_and_shows_a_big_one(tmp_path: Path):
    folder = lesson(tmp_path)
    (folder / "small.txt").write_text("0.5000001\n")
    (folder / "big.txt").write_text("2.5\n")
    exact = report(tmp_path)
    assert "`str(small)`  0.5 → 0.5000001" in "\n".join(exact)
    lines = report(tmp_path, "--compare-rtol", "1e-3")
    assert [line.split("  ")[-1] for line in lines[1:]] == [
        "big is 2.0⏎ → big is 2.5⏎",
        "2.0 → 2.5",
    ]
    assert "1e-3" not in lines[0] and "numbers within rtol 0.001, atol 0" in lines[0]
    hidden = report(tmp_path, "--compare-atol", "0.6")  # 0.5 off, within 0.6
    assert hidden[0].startswith("no shown value changed since old.json")


def test_a_missing_or_wrong_old_file_stops_before_the_build(tmp_path: Path):
    folder = lesson(tmp_path)
    (folder / "big.txt").write_text("3.0\n")  # a build would replace dist/
    args = [*BUILD, "--compare"]
    missing = tmp_path / "nowhere/values.json"
    assert_failed_cleanly(tmp_path, [*args, str(missing)], None, code=2, says=str(missing))
    (tmp_path / "list.json").write_text("[1, 2]")
    ran = assert_failed_cleanly(tmp_path, [*args, "list.json"], None, code=2, says="list.json")
    assert "not a values.json" in ran.stderr
    ran = assert_failed_cleanly(tmp_path, [*args, "content/cat/big.txt"], None, code=2)
    assert "--compare content/cat/big.txt: not a values.json" in ran.stderr


def test_compare_is_refused_where_it_means_nothing(tmp_path: Path):
    lesson(tmp_path)
    write_lesson(tmp_path, {"01-b.md": "## B\n"}, name="dog")
    before = outputs(tmp_path)
    for args, says in [
        ([*BUILD, "--compare-rtol", "0.1"], "--compare-rtol needs --compare"),
        ([*BUILD, "--compare", "old.json", "--compare-atol", "-1"], "0 or more"),
        (["cat", "dog", "--compare", "old.json"], "name one LESSON"),
        (["--compare", "old.json"], "name one LESSON"),  # (all lessons)
    ]:
        ran = run_cli(tmp_path, *args)
        assert ran.returncode == 2 and says in ran.stderr, ran.stderr
    assert outputs(tmp_path) == before


# ---- the comparison itself, on values.json records -------------------------------------


def value(expr: str, text: str, line: int, slide: int = 1) -> dict[str, object]:
    return {"expr": expr, "text": text, "loc": f"c/01.md:{line}", "slide": slide, "section": "01"}


def record(*values: dict[str, object], **more: object) -> dict[str, object]:
    return {"lesson": "c", "values": list(values), "outputs": [], "quizzes": [], **more}


def test_values_in_one_build_only_are_added_or_removed_and_moved_lines_are_no_change():
    old = record(value("a", "1", 3), value("gone", "x", 4), value("a", "2", 5))
    new = record(value("a", "1", 7), value("a", "2", 9, slide=2), value("fresh", "y", 10, 2))
    lines = compare(old, new).lines("old.json")
    assert lines == [
        "0 shown values changed since old.json, 1 added, 1 removed (2 compared; "
        "old build: unknown CPU · kernels not recorded; this build: same)",
        "  slide 2  c/01.md:10  `fresh`  added: y",
        "  old slide 1  c/01.md:4  `gone`  removed: x",
    ]


def test_numbers_are_compared_within_the_tolerance_and_the_rest_as_text():
    assert not differs("loss 0.250 after 3 steps", "loss 0.250 after 3 steps")
    assert differs("0.5", "0.50")  # exact: what is shown changed
    assert not differs("0.5", "0.50", rtol=1e-9)
    assert not differs("tensor([1.0000, −2.5e-07])", "tensor([1.0001, −2.4e-07])", 1e-3, 1e-6)
    assert differs("tensor([1.0000, 2.0])", "tensor([1.0000, 2.1])", rtol=1e-3)
    assert differs("0.5 s", "0.5 ms", rtol=0.5)  # the text around the numbers changed
    assert differs("[1, 2]", "[1, 2, 3]", rtol=0.5)  # how many numbers changed
    assert not differs("12,345", "12,346", rtol=1e-3)
    assert not differs("−1e-07", "1e-07", atol=1e-6)  # a typeset minus is a sign too


def test_the_header_names_torch_capability_threads_and_version_per_build():
    kernels = {"torch": {"capability": "AVX2", "threads": 4, "version": "2.5.0"}}
    host = {"cpu": "Some CPU", "kernels": kernels}
    assert host_line({"build_host": host}) == "Some CPU · AVX2 · 4 threads · torch 2.5.0"
    mixed = {"torch": [{"capability": "AVX2", "threads": 4, "version": "2.5.0"}] * 2}
    mixed["torch"][1:] = [{"capability": "AVX512", "threads": 1, "version": "2.5.0"}]
    line = host_line({"build_host": {"cpu": "C", "kernels": mixed}})
    assert line == "C · AVX2/AVX512 · 4/1 threads · torch 2.5.0"
    one = {"cpu": "C", "kernels": {"torch": {**kernels["torch"], "threads": 1}}}
    assert host_line({"build_host": one}) == "C · AVX2 · 1 thread · torch 2.5.0"
    no_torch = host_line({"build_host": {"cpu": "C", "kernels": {}}})
    assert no_torch == "C · no cell imported torch"
    old, new = record(build_host=host), record(build_host={"cpu": "Other", "kernels": {}})
    (line,) = compare(old, new).lines("o.json")
    assert line.endswith(
        "old build: Some CPU · AVX2 · 4 threads · torch 2.5.0; "
        "this build: Other · no cell imported torch)"
    )
