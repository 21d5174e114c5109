"""Putting a file into a build's staging folder: a hard link to the published deck's own copy
when that copy holds exactly the bytes to stage, else a copy.

A prose edit stages about a hundred files that the deck it replaces already holds: the
engine's scripts and stylesheets, the figures, the outputs kept from the last build. Creating
and filling a file costs about 0.3 ms here; a link is one system call. Linking is safe because
nothing in a build writes into a staged file in place (a stylesheet the build changes after
staging it is written anew: `replace_text`): the published deck's file is never changed, and
once the staged deck is published the link is its only name. The published copy is linked
only when it is exactly those bytes now (compared in full, never by size and date alone), or,
for a kept output, when its digest was just found to be the recorded one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def _same_bytes(a: Path, b: Path, size: int) -> bool:
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while size > 0:
            block = fa.read(1 << 20)
            if block != fb.read(1 << 20) or not block:
                return False
            size -= len(block)
        return fa.read(1) == fb.read(1) == b""


def link(published: Path, target: Path) -> bool:
    """Hard-link `published` as `target`; False when this file system cannot (nothing done)."""
    try:
        os.link(published, target)
        return True
    except OSError:
        return False


def carry(source: Path, target: Path, published: Path | None = None) -> None:
    """Stage `source`'s bytes as `target`: a link to `published` (the same file in the deck
    this build replaces) when it holds exactly those bytes, else a copy of `source`."""
    if published is not None:
        try:
            size = os.stat(source).st_size
            if os.stat(published).st_size == size and _same_bytes(source, published, size):
                if link(published, target):
                    return
        except OSError:
            pass
    shutil.copyfile(source, target)


def carry_bytes(data: bytes, target: Path, published: Path | None = None) -> None:
    """Stage `data` as `target`: a link to `published` when it holds exactly `data`."""
    if published is not None:
        try:
            if published.read_bytes() == data and link(published, target):
                return
        except OSError:
            pass
    target.write_bytes(data)


def replace_text(path: Path, text: str) -> None:
    """Write `text` as a new file at `path` (a staged file may be a link to a published one,
    which must not change)."""
    path.unlink(missing_ok=True)
    path.write_text(text, "utf-8")


def append_text(path: Path, text: str) -> None:
    """`text` added at the end of `path`, written anew (as `replace_text`)."""
    replace_text(path, path.read_text("utf-8") + text)
