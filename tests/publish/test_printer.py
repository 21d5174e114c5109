"""Issue 16, item 8: PDF reuse also keys on the Chromium version and the installed fonts. An
upgrade of either reprints the PDFs; the key is cheap (cached version, a stat walk of the font
folders), so a no-change build stays fast and imports no Playwright."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from catalogue import options_in, write_lesson
from deck.pipeline import build
from deck.publish import printer
from deck.theme import PDFS
from report_build import build_report_in_new_process

SIMPLE = {"01-a.md": "## 一页\n\n```{python}\nx = 6 * 7\n```\n\n答案是 `{python} x`。\n"}
ALL = sorted(PDFS)


def fake_chromium(folder: Path, version: str) -> Path:
    """An executable that answers `--version` as Chromium does, counting its runs."""
    exe = folder / "chromium"
    folder.mkdir(parents=True, exist_ok=True)
    exe.unlink(missing_ok=True)  # (a new file, as a package upgrade writes)
    exe.write_text(f'#!/bin/sh\necho run >> "{folder}/runs"\necho "{version}"\n')
    exe.chmod(0o755)
    return exe


def runs(folder: Path) -> int:
    path = folder / "runs"
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_the_chromium_version_is_asked_once_per_executable(tmp_path: Path, monkeypatch):
    exe = fake_chromium(tmp_path / "bin", "Chromium 150.0.1 built on Debian")
    monkeypatch.setenv("DECK_CHROMIUM", str(exe))
    cache = tmp_path / ".cache"
    assert printer.chromium_version(cache) == "Chromium 150.0.1 built on Debian"
    assert printer.chromium_version(cache) == "Chromium 150.0.1 built on Debian"
    assert runs(tmp_path / "bin") == 1  # the second answer came from the cache
    fake_chromium(tmp_path / "bin", "Chromium 151.0.2 built on Debian")  # upgraded
    assert printer.chromium_version(cache) == "Chromium 151.0.2 built on Debian"
    assert runs(tmp_path / "bin") == 2


def test_the_real_chromium_version_is_what_chromium_says(tmp_path: Path):
    import subprocess

    exe = printer.chromium_executable()
    if exe is None:
        pytest.skip("no chromium executable")
    said = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
    assert printer.chromium_version(tmp_path) == said
    t0 = time.perf_counter()
    assert printer.chromium_version(tmp_path) == said
    assert time.perf_counter() - t0 < 0.05  # cached: no process started


def test_the_fonts_digest_follows_font_files(tmp_path: Path, monkeypatch):
    fonts = tmp_path / "fonts"
    (fonts / "noto").mkdir(parents=True)
    (fonts / "noto/a.ttf").write_bytes(b"font a")
    monkeypatch.setattr(printer, "font_dirs", lambda: [fonts])
    first = printer.fonts_digest()
    assert printer.fonts_digest() == first
    (fonts / "noto/b.otf").write_bytes(b"font b")  # a font installed
    added = printer.fonts_digest()
    assert added != first
    stat = (fonts / "noto/b.otf").stat()
    (fonts / "noto/b.otf").write_bytes(b"font B")  # same size, mtime set back: ctime moves
    os.utime(fonts / "noto/b.otf", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert printer.fonts_digest() != added
    (fonts / "noto/b.otf").unlink()
    (fonts / "noto/a.ttf").unlink()
    assert printer.fonts_digest() != first


def test_the_real_font_folders_include_the_installed_fonts():
    dirs = printer.font_dirs()
    assert Path("/usr/share/fonts") in dirs and Path("/etc/fonts") in dirs
    t0 = time.perf_counter()
    printer.fonts_digest()
    assert time.perf_counter() - t0 < 0.5


@pytest.mark.browser
@pytest.mark.slow
def test_a_chromium_or_font_change_reprints_every_pdf(tmp_path: Path, monkeypatch):
    write_lesson(tmp_path, SIMPLE)
    opts = options_in(tmp_path, pdf=True)
    first = build(["cat"], opts)
    assert sorted(first.printed) == ALL
    assert build(["cat"], opts).up_to_date == ["cat"]  # the real key is stable

    real = printer.chromium_version(opts.cache)
    monkeypatch.setattr(printer, "chromium_version", lambda cache: real + " (upgraded)")
    upgraded = build(["cat"], opts)
    assert sorted(upgraded.printed) == ALL and upgraded.executed == []
    assert build(["cat"], opts).up_to_date == ["cat"]

    fonts = printer.fonts_digest()
    monkeypatch.setattr(printer, "fonts_digest", lambda: fonts[::-1])  # a font installed
    refonted = build(["cat"], opts)
    assert sorted(refonted.printed) == ALL and refonted.executed == []

    prose = tmp_path / "content/cat/01-a.md"  # and otherwise the PDFs are still kept
    prose.write_text(prose.read_text() + "\n::: notes\n讲稿。\n:::\n")
    assert build(["cat"], opts).printed == ["notes.pdf"]


@pytest.mark.browser
@pytest.mark.slow
def test_a_no_change_build_with_pdfs_imports_no_playwright(tmp_path: Path):
    write_lesson(tmp_path, SIMPLE)
    first = build_report_in_new_process(tmp_path, "cat", pdf=True)
    assert first["ok"] and sorted(first["printed"]) == ALL
    again = build_report_in_new_process(tmp_path, "cat", pdf=True)
    assert again["up_to_date"] == ["cat"] and again["heavy"] == []
    assert again["seconds"]["check"] < 1.0, again["seconds"]
