"""Issue 29, item 2: a bibliography or CSL style Pandoc cannot read is an error at that file's
line (the line Pandoc names; line 1 when it names none), in one clean line (no Haskell value
dump), exit 1, and the previous deck stays: never a deck published with raw `[@key]`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from catalogue import assert_failed_cleanly, write_lesson
from fixture_build import run_cli

HERE = "content/cat"
BIB = "@article{k1,\n  title = {Good},\n  author = {Able, Ann},\n  year = {2017}\n}\n"
CSL_HEAD = '<?xml version="1.0" encoding="utf-8"?>\n'
CSL_NS = '<style xmlns="http://purl.org/net/xbiblio/csl" class="in-text" version="1.0">\n'
DUMP = ("nameLocalName", "EventEndElement", "EventContent", "Name {", "CiteprocXMLError")


def lesson_yml(bibliography: str = "refs.bib", csl: str | None = None) -> str:
    return f"title: T\nbibliography: {bibliography}\n" + (f"csl: {csl}\n" if csl else "")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cite")
    files = {"lesson.yml": lesson_yml(), "01-a.md": "## A\n\nSee [@k1].\n", "refs.bib": BIB}
    write_lesson(root, files)
    ran = run_cli(root, "cat", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (root / "dist" / "cat" / "index.html").read_text()
    assert "Able 2017" in page and "[@k1]" not in page
    return root


def fails_at(root: Path, files: dict[str, str | bytes], where: str, says: str, code: str) -> str:
    folder = root / HERE
    (folder / "lesson.yml").write_text(str(files.pop("lesson.yml", lesson_yml())))
    (folder / "refs.bib").write_text(BIB)
    for name, text in files.items():
        (folder / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    ran = assert_failed_cleanly(root, ["cat", "--no-pdf"], f"{HERE}/{where}", says=says)
    errors = [t for t in ran.stderr.splitlines() if ": error [" in t]
    assert len(errors) == 1, ran.stderr
    assert errors[0].startswith(f"{HERE}/{where}: error [{code}]"), errors[0]
    assert "lesson.yml" not in ran.stderr and "warning [citation]" not in ran.stderr
    assert not any(d in ran.stderr for d in DUMP), ran.stderr
    return errors[0]


CASES = {
    "bibtex-entry-unclosed": (
        {"refs.bib": BIB.replace("{2017}", "{2017") + "@book{k2, title={x}}\n"},
        "refs.bib:6",
        "unexpected",
        "citation",
    ),
    "bibtex-at-end": ({"refs.bib": BIB[:-2]}, "refs.bib:5", "end of input", "citation"),
    "bibtex-not-utf8": (
        {"refs.bib": BIB.encode().replace(b"Good", b"G\xe9od")},
        "refs.bib:2",
        "not UTF-8 (byte e9)",
        "encoding",
    ),
    "csl-json": (
        {
            "lesson.yml": lesson_yml("refs.json"),
            "refs.json": '[{"id": "k1",\n "type": "book",\n "title": "x",,\n}]\n',
        },
        "refs.json:3",
        "refs.json",
        "citation",
    ),
    "csl-json-not-a-list": (
        {"lesson.yml": lesson_yml("refs.json"), "refs.json": '{"id": "k1"}\n'},
        "refs.json:1",
        "items",
        "citation",
    ),
    "yaml": (
        {
            "lesson.yml": lesson_yml("refs.yaml"),
            "refs.yaml": "references:\n- id: k1\n  title: x\n  author: : : bad\n",
        },
        "refs.yaml:4",
        "mapping values are not allowed",
        "citation",
    ),
    "csl-not-xml": (
        {"lesson.yml": lesson_yml(csl="style.csl"), "style.csl": "this is not xml <<<\n"},
        "style.csl:1",
        "XML",
        "citation",
    ),
    "csl-bad-xml": (
        {
            "lesson.yml": lesson_yml(csl="style.csl"),
            "style.csl": CSL_HEAD + CSL_NS + "<citation><layout>\n"
            '<text variable="title"></layout></citation>\n</style>\n',
        },
        "style.csl:4",
        "<text>",
        "citation",
    ),
    "csl-no-citation": (
        {
            "lesson.yml": lesson_yml(csl="style.csl"),
            "style.csl": CSL_HEAD + CSL_NS + "<info/>\n</style>\n",
        },
        "style.csl:1",
        "No citation element",
        "citation",
    ),
    "csl-not-utf8": (
        {
            "lesson.yml": lesson_yml(csl="style.csl"),
            "style.csl": (CSL_HEAD + CSL_NS + "<info><title>Caf\xe9</title></info>\n").encode(
                "latin-1"
            ),
        },
        "style.csl:3",
        "not UTF-8 (byte e9)",
        "encoding",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bibliography_or_style_pandoc_cannot_read_is_an_error_at_its_line(built: Path, case: str):
    files, where, says, code = CASES[case]
    fails_at(built, dict(files), where, says, code)
    assert "Able 2017" in (built / "dist" / "cat" / "index.html").read_text()


# Pandoc failing for another reason than its input: not there, not runnable, too slow. Each is
# an error at the line of `bibliography` naming the cause (the deck would show raw [@key]).


def uncached(root: Path, marker: str) -> None:
    """A changed slide (the build is not up to date) and no formatted citations kept by the
    last build: pandoc is run again."""
    for path in (root / ".cache").rglob("citations.json"):
        path.unlink()
    (root / HERE / "lesson.yml").write_text(lesson_yml())
    (root / HERE / "refs.bib").write_text(BIB)
    (root / HERE / "01-a.md").write_text(f"## A\n\nSee [@k1]. {marker}\n")


def fails_at_bibliography(root: Path, says: str) -> str:
    """The build's one error, at the line of `bibliography` in lesson.yml, saying `says`."""
    where = f"{HERE}/lesson.yml:2"
    ran = assert_failed_cleanly(root, ["cat", "--no-pdf"], where, says=says)
    errors = [t for t in ran.stderr.splitlines() if ": error" in t]
    assert errors == [next(t for t in errors if t.startswith(f"{where}: error [citation]"))], errors
    assert "warning [citation]" not in ran.stderr and "-v shows" not in ran.stderr, ran.stderr
    return errors[0]


WITHOUT_PANDOC = {
    "PYPANDOC_PANDOC": ("PYPANDOC_PANDOC names", "no-pandoc"),
    "no pypandoc": ("pypandoc-binary package is not installed", "pip install pypandoc-binary"),
}


@pytest.mark.parametrize("case", list(WITHOUT_PANDOC))
def test_pandoc_missing_is_an_error_at_the_bibliography_line(
    built: Path, monkeypatch: pytest.MonkeyPatch, case: str
):
    import pypandoc

    uncached(built, case)
    monkeypatch.setenv("PATH", "/nonexistent-bin")  # no pandoc on PATH,
    if case == "PYPANDOC_PANDOC":
        monkeypatch.setenv("PYPANDOC_PANDOC", str(built / "no-pandoc"))  # nor the wheel's
    else:
        monkeypatch.setitem(sys.modules, "pypandoc", None)  # (import fails)
    pypandoc.clean_pandocpath_cache()
    says, names = WITHOUT_PANDOC[case]
    try:
        line = fails_at_bibliography(built, "citations need pandoc")
    finally:
        monkeypatch.undo()
        pypandoc.clean_pandocpath_cache()
    assert says in line and names in line, line
    assert "Able 2017" in (built / "dist" / "cat" / "index.html").read_text()


def test_a_pandoc_that_cannot_be_run_is_an_error_at_the_bibliography_line(
    built: Path, monkeypatch: pytest.MonkeyPatch
):
    from deck.render import cite

    uncached(built, "gone")
    monkeypatch.setattr(cite, "pandoc", lambda: str(built / "gone" / "pandoc"))
    line = fails_at_bibliography(built, "cannot run pandoc")
    assert "gone/pandoc" in line and "No such file" in line, line


def test_a_pandoc_timeout_is_an_error_at_the_bibliography_line(
    built: Path, monkeypatch: pytest.MonkeyPatch
):
    from deck.render import cite

    uncached(built, "slow")
    monkeypatch.setattr(cite, "TIMEOUT", 0.001)
    line = fails_at_bibliography(built, "did not finish")
    assert "0.001 s" in line, line
    monkeypatch.undo()
    assert run_cli(built, "cat", "--no-pdf").returncode == 0  # (the timeout is not cached)
    assert "Able 2017" in (built / "dist" / "cat" / "index.html").read_text()


def test_a_pandoc_killed_is_an_error_at_the_bibliography_line(
    built: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    from deck.render import cite

    killed = tmp_path / "pandoc"
    killed.write_text("#!/bin/sh\nkill -9 $$\n")
    killed.chmod(0o755)
    uncached(built, "killed")
    monkeypatch.setattr(cite, "pandoc", lambda: str(killed))
    line = fails_at_bibliography(built, "killed by signal 9")
    assert "citations" in line, line
