"""Helpers for the catalogue of bad inputs and faults: a failed build must say where, exit
non-zero, and leave the previous output byte-identical with nothing stray beside it."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import psutil

from deck.options import Options
from fixture_build import Ran, run_cli

LESSON_YML = "title: 目录测试\nlang: zh-CN\nexec:\n  seed: 0\n  timeout: 20\n"
# A lesson with a title gets a title slide before its first section's slides; the tests'
# lessons count their slides from their first section, so they say `title-slide: false`
# unless their lesson.yml sets `title-slide` itself.
NO_TITLE_SLIDE = "title-slide: false\n"


def without_title_slide(name: str, text: str | bytes) -> str | bytes:
    """`text` for the file `name`: a lesson.yml that does not set `title-slide` gets
    `title-slide: false` (after a dedent, so it lines up with the keys written)."""
    if Path(name).name != "lesson.yml" or isinstance(text, bytes) or "title-slide" in text:
        return text
    text = textwrap.dedent(text).lstrip("\n")
    return text + ("" if text.endswith("\n") or not text else "\n") + NO_TITLE_SLIDE


def keys(folder: Path) -> dict[str, str]:
    """Each section's cache key, as the build computes it."""
    from deck.source.registry import source_for
    from deck.store.sections import cache_key, environment_fingerprint

    lesson = source_for(folder.name if folder.is_dir() else str(folder), folder.parent).load()
    fingerprint = environment_fingerprint(lesson)
    return {s.name: cache_key(s, fingerprint) for s in lesson.sections}


def edit(path: Path, old: str, new: str) -> None:
    """Replace `old` (which must be there) by `new` in the file."""
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def write(folder: Path, files: dict[str, str]) -> Path:
    """Files (dedented) in `folder`; returns the path of the first one."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        text = without_title_slide(name, text)
        (folder / name).write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    return folder / next(iter(files))


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the only line holding `needle`."""
    (line,) = [k for k, t in enumerate(text.split("\n"), start=1) if needle in t]
    return line


def options_in(root: Path, **kw: object) -> Options:
    """Build options with every folder in `root` (content/, dist/, figures/, .cache/); no PDFs
    unless `pdf=True`; any of them overridden by `kw`."""
    folders = {
        "content": root / "content",
        "out": root / "dist",
        "figures": root / "figures",
        "cache": root / ".cache",
    }
    return Options(**{**folders, "pdf": False, **kw})  # type: ignore[arg-type]


def write_lesson(root: Path, files: dict[str, str], name: str = "cat") -> Path:
    """A lesson folder `root/content/<name>` holding `files` (dedented); lesson.yml by default."""
    folder = root / "content" / name
    folder.mkdir(parents=True, exist_ok=True)
    files = {"lesson.yml": LESSON_YML, **files}
    for rel, text in files.items():
        text = without_title_slide(rel, text)
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    return folder


def tree(folder: Path) -> dict[str, str]:
    """Every file under `folder` (hidden ones too) with the sha256 of its bytes."""
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def outputs(root: Path) -> dict[str, dict[str, str]]:
    return {"dist": tree(root / "dist"), "figures": tree(root / "figures")}


def stray(root: Path) -> list[str]:
    """Leftovers of a build next to the published folders (staging, old copies, locks)."""
    found = []
    for top in ("dist", "figures"):
        folder = root / top
        if folder.is_dir():
            found += [p.name for p in folder.iterdir() if p.name.startswith(".")]
    return found


def processes_with(marker: str) -> list[psutil.Process]:
    """Live processes whose command line contains `marker` (left behind by a cell)."""
    alive = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        try:
            cmdline = " ".join(proc.info["cmdline"] or [])
            if marker in cmdline and proc.info["status"] != psutil.STATUS_ZOMBIE:
                alive.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return alive


def assert_failed_cleanly(
    root: Path,
    args: list[str],
    where: str | None,
    *,
    code: int = 1,
    says: str = "",
    marker: str | None = None,
) -> Ran:
    """Run `build.py ARGS` in `root` (`deck.cli.main` in this process), expecting it to fail
    with exit `code`, the message naming `where` (`path:line`, checked as the start of an
    `error` line) and `says`, the previous dist/ and figures/ byte-identical (but the course
    page, which marks the failure), no stray files,
    no process with `marker` left running."""
    before = outputs(root)
    proc = run_cli(root, *args)
    assert proc.returncode == code, proc.stderr
    if where is not None:
        lines = [line for line in proc.stderr.splitlines() if line.startswith(f"{where}: error")]
        assert lines, f"no error at {where} in:\n{proc.stderr}"
    assert says in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    after = outputs(root)
    for found in (before, after):  # the course page marks a failed lesson's last good entry
        found["dist"].pop("index.html", None)
    assert after == before, "a failed build changed dist/ or figures/"
    assert stray(root) == [], stray(root)
    if marker is not None:
        assert processes_with(marker) == [], "a cell's process outlived the build"
    return proc
