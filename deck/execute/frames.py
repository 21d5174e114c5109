"""A cell error's full traceback in the lesson's terms, for `-v`: each frame of cell code at
its `section.md:line` (cells are compiled with the .md path and lines), each frame of a lesson
module at its file:line as messages show the lesson folder, library frames as they are; the
worker's own frames (how a cell is run) are left out."""

from __future__ import annotations

import os
import traceback

from deck.theme import ENGINE

RUNNER = str(ENGINE / "execute") + os.sep  # the worker and its helpers: not the author's code


def lesson_frames(exc: BaseException, path: str, md_file: str, lesson_dir: str) -> list[str]:
    """`Traceback (most recent call last):`, two lines a frame (where, and its source line
    when known), then the exception, as Python prints it."""
    shown_dir = os.path.dirname(path)  # the lesson folder as `path` shows it
    lesson = os.path.normpath(
        os.path.join(shown_dir, os.path.relpath(lesson_dir, os.path.dirname(md_file)))
    )
    try:
        with open(md_file, encoding="utf-8", errors="replace") as f:
            md_lines = f.read().splitlines()
    except OSError:
        md_lines = []
    lines = ["Traceback (most recent call last):"]
    for frame in traceback.extract_tb(exc.__traceback__):
        name = frame.filename
        lineno = frame.lineno or 0
        if name.startswith(RUNNER):
            continue
        text = frame.line or ""
        if name == path:
            text = md_lines[lineno - 1] if 0 < lineno <= len(md_lines) else text
        elif os.path.isabs(name) and name.startswith(lesson_dir.rstrip(os.sep) + os.sep):
            name = os.path.join(lesson, os.path.relpath(name, lesson_dir))
        lines.append(f"  {name}:{lineno}, in {frame.name}")
        if text.strip():
            lines.append(f"    {text.strip()}")
    try:
        lines += "".join(traceback.format_exception_only(type(exc), exc)).splitlines()
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails still has a type
        lines.append(type(exc).__name__)
    # a message may hold lone surrogates: shown escaped, as the error's one line does
    return [line.encode("utf-8", "backslashreplace").decode("utf-8") for line in lines]
