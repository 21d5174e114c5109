"""After class: the slides with the lecturer's ink (`slides-annotated.pdf`) and the students'
handout made from them (`handout-annotated.pdf`), in `OUT/<lesson>.classroom/` beside the
lecture's `ink.json`.

The deck as served is printed once (deck.publish.pdf: the slides, then the student handout as
a light page); as soon as the slides are printed the pen's ink is drawn over them as vector
paths (deck.classroom.ink), so the handout is composed from the inked slides. Blackboards get
pages of their own after their slides in `slides-annotated.pdf` (the handout keeps one frame
per slide). Everything is made in a staging folder and each finished file moved in whole.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from deck.classroom import ink, page

ANNOTATED = ("slides-annotated.pdf", "handout-annotated.pdf")
SIZE = re.compile(r"--deck-width: (\d+)px; --deck-height: (\d+)px")


def after_class(
    deck: Path, record: Path, log: Callable[[str], None], handout: dict[str, int] | None = None
) -> list[Path]:
    """Write the annotated slides and handout for the deck folder `deck` from `record`'s
    ink.json; nothing when no ink was kept. The handout is laid out as `handout` says (the
    lesson's `handout:`, as handout.pdf is: deck.publish.pdfs.handout_settings; None: two
    slides a page). The files written."""
    try:
        storage = json.loads((record / "ink.json").read_bytes())
    except (OSError, ValueError):
        return []
    if not ink.drawings(storage):
        return []
    index = deck / "index.html"
    text = index.read_text("utf-8")
    count = len(page.sections(text))
    size = SIZE.search(text[:2000])
    width, height = (int(size.group(1)), int(size.group(2))) if size else (1280, 720)
    margin = ink.deck_margin(text)
    from deck.publish.pdf import PrintJob, print_pdfs

    record.mkdir(parents=True, exist_ok=True)
    for left in record.glob(".annotate-*"):  # (a stop interrupted while printing)
        shutil.rmtree(left, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=".annotate-", dir=record))
    try:
        printed = staging / "slides.pdf"
        inked = staging / "slides-inked.pdf"

        def done(name: str) -> None:
            if name == printed.name:  # before the handout is composed from them
                ink.annotate(printed, storage, inked, margin, boards=False)

        jobs = [PrintJob(printed), PrintJob(staging / ANNOTATED[1], "student")]
        print_pdfs(index, jobs, count, done, slides=inked, handout=handout, size=(width, height))
        ink.annotate(printed, storage, staging / ANNOTATED[0], margin, boards=True)
        written = []
        for name in ANNOTATED:
            os.replace(staging / name, record / name)
            written.append(record / name)
        log(f"  wrote   {', '.join(str(p) for p in written)} (the lecture's ink)")
        return written
    finally:
        shutil.rmtree(staging, ignore_errors=True)
