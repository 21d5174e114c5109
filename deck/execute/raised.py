"""Where a cell's error was raised, when not on the cell's own line: the line of the
lecturer's own module when the traceback passes through one (a `.py` in the lesson folder),
else the library's innermost frame; the error itself is reported at the cell's line."""

from __future__ import annotations

import os
import traceback

WORKER = os.path.join("deck", "execute", "worker.py")


def shown_lesson_dir(path: str, md_file: str, lesson_dir: str) -> str:
    """The lesson folder as messages show it, from the section's path as they show it."""
    relative = os.path.relpath(lesson_dir, os.path.dirname(md_file))
    return os.path.normpath(os.path.join(os.path.dirname(path), relative))


def raised_in(frames: traceback.StackSummary, path: str, md_file: str, lesson_dir: str) -> str:
    """` (raised in FILE:LINE NAME)`, or "" when the innermost frame is the cell's (`path`)
    or the worker's own. FILE is a lesson module's path as messages show the lesson folder
    (`content/x/bootci.py:10`), the innermost one the traceback passes through below the
    cell's last frame; else the innermost frame's file name (`ast.py:50`)."""
    if not frames or frames[-1].filename == path or WORKER in frames[-1].filename:
        return ""
    inside = lesson_dir.rstrip(os.sep) + os.sep
    cell = max((k for k, f in enumerate(frames) if f.filename == path), default=-1)
    own = [
        f for f in frames[cell + 1 :] if os.path.isabs(f.filename) and f.filename.startswith(inside)
    ]
    if own:
        frame = own[-1]
        shown = os.path.relpath(frame.filename, lesson_dir)
        where = os.path.join(shown_lesson_dir(path, md_file, lesson_dir), shown)
    else:
        frame = frames[-1]
        where = os.path.basename(frame.filename)
    return f" (raised in {where}:{frame.lineno} {frame.name})"
