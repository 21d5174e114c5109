"""The cache sees every input of a section, or says it cannot: each way a number can depend on
the world is changed after a build, and the next build must publish the new number."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from catalogue import write_lesson
from report_build import build_report

OLD = 1_000_000_000  # an mtime long past: a stat check cannot pass for "recently changed"


def shown(root: Path) -> list[str]:
    values = json.loads((root / "dist/cat/values.json").read_text("utf-8"))
    return [v["text"] for v in values["values"]]


def section(code: str, expr: str) -> str:
    return f"## 一\n\n```{{python}}\n{code}\n```\n\n`{{python}} {expr}`\n"


def same_size_edit(path: Path, old: str, new: str) -> None:
    """Replace `old` by `new` (same length), then set the mtime back (as `touch -r` does)."""
    assert len(old) == len(new)
    st = path.stat()
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new), "utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


def age(*paths: Path) -> None:
    for path in paths:
        os.utime(path, (OLD, OLD))


@pytest.mark.parametrize(
    "code",
    [
        "import glob\nn = len(glob.glob('data/*.txt'))",
        "import os\nn = len(os.listdir('data'))",
        "import os\nn = sum(1 for e in os.scandir('data'))",
        "from pathlib import Path\nn = len(list(Path('data').iterdir()))",
    ],
    ids=["glob", "listdir", "scandir", "pathlib"],
)
def test_a_new_file_in_a_listed_folder_reruns(tmp_path: Path, code: str):
    folder = write_lesson(tmp_path, {"01-a.md": section(code, "n"), "data/a.txt": "1"})
    assert build_report(tmp_path, "cat")["ok"] and shown(tmp_path) == ["1"]
    (folder / "data/b.txt").write_text("2")
    report = build_report(tmp_path, "cat")
    assert report["reasons"] == {"cat/01-a": "the list of files in data changed"}
    assert shown(tmp_path) == ["2"]
    assert build_report(tmp_path, "cat")["executed"] == []  # and then it holds


@pytest.mark.parametrize(
    "test",
    ["os.path.exists('extra.txt')", "os.path.isfile('extra.txt')", "Path('extra.txt').exists()"],
)
def test_a_path_only_tested_for_existence_reruns_when_it_appears(tmp_path: Path, test: str):
    code = f"import os\nfrom pathlib import Path\nthere = {test}"
    folder = write_lesson(tmp_path, {"01-a.md": section(code, "there")})
    assert build_report(tmp_path, "cat")["ok"] and shown(tmp_path) == ["False"]
    (folder / "extra.txt").write_text("x")
    assert build_report(tmp_path, "cat")["reasons"] == {"cat/01-a": "extra.txt appeared"}
    assert shown(tmp_path) == ["True"]
    (folder / "extra.txt").unlink()
    assert build_report(tmp_path, "cat")["reasons"] == {"cat/01-a": "extra.txt vanished"}
    assert shown(tmp_path) == ["False"]


def test_a_sqlite_database_is_an_input(tmp_path: Path):
    folder = write_lesson(tmp_path, {})
    with sqlite3.connect(folder / "data.db") as db:
        db.execute("create table t (x integer)")
        db.execute("insert into t values (5)")
    db.close()
    code = (
        "import sqlite3\ncon = sqlite3.connect('data.db')\n"
        "total = con.execute('select sum(x) from t').fetchone()[0]"
    )
    (folder / "01-a.md").write_text(section(code, "total"), "utf-8")
    assert build_report(tmp_path, "cat")["ok"] and shown(tmp_path) == ["5"]
    assert build_report(tmp_path, "cat")["executed"] == []
    with sqlite3.connect(folder / "data.db") as db:
        db.execute("insert into t values (7)")
    db.close()
    assert build_report(tmp_path, "cat")["reasons"] == {"cat/01-a": "data.db changed"}
    assert shown(tmp_path) == ["12"]


def test_a_changed_environment_variable_reruns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DECK_TEST_SCALE", "3")
    monkeypatch.delenv("DECK_TEST_UNSET", raising=False)
    code = (
        "import os\nn = int(os.environ['DECK_TEST_SCALE']) + len(os.getenv('DECK_TEST_UNSET', ''))"
    )
    write_lesson(tmp_path, {"01-a.md": section(code, "n")})
    assert build_report(tmp_path, "cat")["ok"] and shown(tmp_path) == ["3"]
    assert build_report(tmp_path, "cat")["executed"] == []
    monkeypatch.setenv("DECK_TEST_SCALE", "40")
    report = build_report(tmp_path, "cat")
    assert report["reasons"] == {"cat/01-a": "environment variable DECK_TEST_SCALE changed"}
    assert shown(tmp_path) == ["40"]
    monkeypatch.setenv("DECK_TEST_UNSET", "xx")  # read while absent: appearing counts
    report = build_report(tmp_path, "cat")
    assert report["reasons"] == {"cat/01-a": "environment variable DECK_TEST_UNSET changed"}
    assert shown(tmp_path) == ["42"]


def test_a_variable_the_section_sets_itself_is_known_as_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A library sets a variable for itself and reads it back (torch's
    TORCHINDUCTOR_CACHE_DIR): it counts as it was when the section started (unset), so the
    section is reused, and setting it outside still re-runs it."""
    monkeypatch.delenv("DECK_TEST_SELF", raising=False)
    code = (
        "import os\nos.environ.setdefault('DECK_TEST_SELF', '/tmp/x')\n"
        "n = len(os.environ['DECK_TEST_SELF'])"
    )
    write_lesson(tmp_path, {"01-a.md": section(code, "n")})
    assert build_report(tmp_path, "cat")["ok"] and shown(tmp_path) == ["6"]
    assert build_report(tmp_path, "cat")["executed"] == []
    monkeypatch.setenv("DECK_TEST_SELF", "/tmp/longer")
    report = build_report(tmp_path, "cat")
    assert report["reasons"] == {"cat/01-a": "environment variable DECK_TEST_SELF changed"}
    assert shown(tmp_path) == ["11"]


READ_BY_CAT = (
    "import subprocess\n"
    "n = int(subprocess.run(['cat', 'n.txt'], capture_output=True, text=True).stdout)"
)


def test_a_child_process_makes_inputs_not_fully_known(tmp_path: Path):
    folder = write_lesson(tmp_path, {"01-a.md": section(READ_BY_CAT, "n"), "n.txt": "5"})
    first = build_report(tmp_path, "cat")
    assert first["ok"] and shown(tmp_path) == ["5"]
    warning = (
        "content/cat/01-a.md:3: warning: inputs not fully known (runs a child process "
        "(subprocess)): this section runs on every build (list what it reads with `#| inputs:`)"
    )
    assert first["warnings"] == [warning]
    (folder / "n.txt").write_text("6")  # read by `cat`: Python never sees it
    again = build_report(tmp_path, "cat")
    assert again["reasons"] == {
        "cat/01-a": "inputs not fully known: runs a child process (subprocess) at "
        "content/cat/01-a.md:3"
    }
    assert again["warnings"] == [warning] and shown(tmp_path) == ["6"]


@pytest.mark.slow
def test_declared_inputs_are_hashed_instead(tmp_path: Path):
    code = "#| inputs: [n.txt, more/*.txt]\n" + READ_BY_CAT
    folder = write_lesson(tmp_path, {"01-a.md": section(code, "n"), "n.txt": "5"})
    first = build_report(tmp_path, "cat")
    assert first["ok"] and first["warnings"] == [] and shown(tmp_path) == ["5"]
    assert build_report(tmp_path, "cat")["executed"] == []
    (folder / "n.txt").write_text("6")
    assert build_report(tmp_path, "cat")["reasons"] == {"cat/01-a": "n.txt changed"}
    assert shown(tmp_path) == ["6"]
    (folder / "more").mkdir()
    (folder / "more/x.txt").write_text("")
    assert build_report(tmp_path, "cat")["reasons"] == {
        "cat/01-a": "the files matching more/*.txt changed"
    }


def test_a_file_written_by_a_later_section_is_read_after_it(tmp_path: Path):
    reader = "n = int(open('shared.txt').read())"
    writer = "open('shared.txt', 'w').write('2')\nok = 1"
    folder = write_lesson(
        tmp_path,
        {
            "01-reader.md": section(reader, "n"),
            "02-writer.md": section(writer, "ok"),
            "shared.txt": "1",
        },
    )
    first = build_report(tmp_path, "cat")
    assert first["ok"] and shown(tmp_path) == ["2", "1"]
    why = first["reasons"]["cat/01-reader"]  # ran again after the writer, or read after it
    assert why in (
        "new",
        "shared.txt changed in this build",
        "shared.txt changed while the section ran in this build",
    )
    (folder / "02-writer.md").write_text(section(writer.replace("'2'", "'3'"), "ok"), "utf-8")
    again = build_report(tmp_path, "cat")
    assert again["ok"] and shown(tmp_path) == ["3", "1"]
    assert build_report(tmp_path, "cat")["executed"] == []


# ---- a same-size edit that keeps the mtime (touch -r, cp -p) ---------------------------------


@pytest.mark.slow
def test_a_same_size_edit_of_a_data_file_is_seen(tmp_path: Path):
    code = "n = int(open('n.txt').read())"
    folder = write_lesson(tmp_path, {"01-a.md": section(code, "n"), "n.txt": "5"})
    age(folder / "n.txt")
    assert build_report(tmp_path, "cat")["ok"] and shown(tmp_path) == ["5"]
    same_size_edit(folder / "n.txt", "5", "6")
    assert build_report(tmp_path, "cat")["reasons"] == {"cat/01-a": "n.txt changed"}
    assert shown(tmp_path) == ["6"]


def test_a_same_size_edit_of_a_section_is_seen(tmp_path: Path):
    folder = write_lesson(tmp_path, {"01-a.md": section("n = 12 * 12", "n")})
    age(folder / "01-a.md")
    assert build_report(tmp_path, "cat")["ok"] and shown(tmp_path) == ["144"]
    same_size_edit(folder / "01-a.md", "12 * 12", "13 * 13")
    assert build_report(tmp_path, "cat")["reasons"] == {"cat/01-a": "code changed"}
    assert shown(tmp_path) == ["169"]


def test_a_same_size_edit_of_a_helper_module_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)  # its bytecode is cached
    code = "import helper\nn = helper.VALUE"
    folder = write_lesson(tmp_path, {"01-a.md": section(code, "n"), "helper.py": "VALUE = 5\n"})
    age(folder / "helper.py")
    assert build_report(tmp_path, "cat")["ok"] and shown(tmp_path) == ["5"]
    same_size_edit(folder / "helper.py", "5", "6")  # Python's bytecode check passes too
    assert build_report(tmp_path, "cat")["executed"] == ["cat/01-a"]
    assert shown(tmp_path) == ["6"]
    assert list((folder / "__pycache__").glob("helper.*.pyc"))  # (Python's check was passed)


def test_a_site_packages_file_edited_in_place_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    site = tmp_path / "env/site-packages"
    (site / "fakedist").mkdir(parents=True)
    (site / "fakedist/__init__.py").write_text("SCALE = 2\n")
    info = site / "fakedist-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakedist\nVersion: 1.0\n")
    (info / "RECORD").write_text("fakedist/__init__.py,sha256=x,10\n")
    age(site / "fakedist/__init__.py")
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)  # its bytecode is cached
    write_lesson(tmp_path, {"01-a.md": section("import fakedist", "fakedist.SCALE")})
    assert build_report(tmp_path, "cat")["ok"] and shown(tmp_path) == ["2"]
    same_size_edit(site / "fakedist/__init__.py", "2", "7")  # RECORD says nothing
    report = build_report(tmp_path, "cat")
    assert report["reasons"] == {"cat/01-a": "installed files of fakedist changed"}
    assert shown(tmp_path) == ["7"]


def test_a_same_size_edit_of_a_published_file_is_repaired(tmp_path: Path):
    write_lesson(tmp_path, {"01-a.md": section("n = 144", "n")})
    assert build_report(tmp_path, "cat")["ok"]
    page = tmp_path / "dist/cat/index.html"
    good = page.read_bytes()
    assert build_report(tmp_path, "cat")["up_to_date"] == ["cat"]
    same_size_edit(page, ">144<", ">999<")
    report = build_report(tmp_path, "cat")
    assert report["up_to_date"] == [] and report["executed"] == []
    assert page.read_bytes() == good


def test_declared_inputs_outside_the_lesson_folder_are_an_error_at_the_cell(tmp_path: Path):
    code = "#| inputs: ../../etc/*\nn = 1"
    write_lesson(tmp_path, {"01-a.md": section(code, "n")})
    report = build_report(tmp_path, "cat")
    assert report["ok"] is False
    assert report["errors"] == [
        "content/cat/01-a.md:4: error [option] cell option `inputs` must be a glob or a list "
        "of globs inside the lesson folder"
    ]


@pytest.mark.parametrize(
    "code,why",
    [
        ("import os\nos.system('true')", "runs a shell command (os.system)"),
        ("import ctypes\nctypes.CDLL('libc.so.6')", "loads native code (ctypes)"),
        (
            "import socket\nsocket.socket().connect_ex(('127.0.0.1', 9))",
            "opens a network connection (socket)",
        ),
        ("import os\nif os.fork() == 0:\n    os._exit(0)\nos.wait()", "forks a process (os.fork)"),
    ],
    ids=["os.system", "ctypes", "socket", "fork"],
)
def test_what_hides_its_inputs_reruns_every_build_with_a_warning(
    tmp_path: Path, code: str, why: str
):
    write_lesson(tmp_path, {"01-a.md": section(code + "\nn = 1", "n")})
    assert build_report(tmp_path, "cat")["ok"]
    again = build_report(tmp_path, "cat")
    assert again["reasons"] == {
        "cat/01-a": f"inputs not fully known: {why} at content/cat/01-a.md:3"
    }
    assert again["warnings"] == [
        f"content/cat/01-a.md:3: warning: inputs not fully known ({why}): this section runs "
        "on every build (list what it reads with `#| inputs:`)"
    ]


def test_a_library_that_loads_native_code_is_no_unknown_input(tmp_path: Path):
    write_lesson(tmp_path, {"01-a.md": section("import numpy as np\nn = int(np.int64(4))", "n")})
    assert build_report(tmp_path, "cat")["warnings"] == []
    assert build_report(tmp_path, "cat")["executed"] == []
