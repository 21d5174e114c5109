"""The layout check after the build: for an author at a terminal, the slides a prose edit
changed are measured once the deck is published, by a process of its own, so the build returns
as soon as its files are written and the overflow warnings follow in the same terminal a moment
later (`DECK_LAYOUT_LATE=1` asks for it anywhere, `0` never; by default only when the build's
standard error is a terminal: CI, tests and scripts get the check within the build).

The process measures the published page (in the warm service, else a browser of its own) only
while it is the page the build published, says each overflow at its slide's `file:line`, and
keeps the answers in the cache (`deck.publish.layoutrecord.late_answers`), where the next build
finds them: it repeats those warnings, and a no-change build counts the deck as checked only
once every answer is there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from deck.store.files import write_atomic
from deck.theme import ENGINE

# the answers, by lesson: beside the lesson's cache folder, not in it (that folder is an input
# of the no-change check, which a check after the build must not change)
LATE = "layout-late"


def wanted() -> bool:
    """Whether this build leaves the check of its changed slides until after it."""
    said = os.environ.get("DECK_LAYOUT_LATE", "")
    if said in ("0", "1"):
        return said == "1"
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def late_file(cache: Path, lesson: str) -> Path:
    return cache.resolve() / LATE / f"{lesson}.json"


def start(job: dict) -> None:
    """Starts the check after the build (the deck is published): its own process, in its own
    session (the build's Ctrl-C is not its), writing to the build's standard error."""
    fd, path = tempfile.mkstemp(prefix="layout-late-", suffix=".json", dir=job["cache"])
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(job, f, ensure_ascii=False)
    subprocess.Popen(  # noqa: S603
        [sys.executable, "-m", "deck.publish.layoutlate", path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
        cwd=ENGINE.parent,  # (where `deck` is imported from)
    )


def check(job: dict) -> int:
    """Measures the slides `job` names in the published page and says their overflows."""
    from deck.publish.exporter import file_digest
    from deck.publish.layoutd import Client
    from deck.publish.pdf import Overflow, launch, measure_overflow

    index = Path(job["index"])
    if not index.is_file() or file_digest(index) != job["digest"]:
        return 0  # a newer build published its deck since: it checks its own slides
    numbers, size = tuple(job["numbers"]), tuple(job["size"]) if job["size"] else None
    try:
        found = Client(Path(job["cache"])).measure(index, job["count"], size, numbers)
        if found is None:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as playwright:
                browser = launch(playwright)
                try:
                    found = measure_overflow(browser, index, job["count"], size, numbers)
                finally:
                    browser.close()
    except Exception as exc:  # noqa: BLE001 - said; the next build checks again
        why = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        print(
            f"{job['lesson']}: warning [overflow] the changed slides' layout was not checked: "
            f"{type(exc).__name__}{': ' + why if why else ''}",
            file=sys.stderr,
            flush=True,
        )
        return 1
    answers = {
        key: [asdict(o) for o in found if o.slide == n]
        for n, key in zip(numbers, job["keys"], strict=True)
    }
    said = [str(Overflow(**{**asdict(o), "source": job["sources"][str(o.slide)]})) for o in found]
    text = json.dumps({"answers": answers, "warnings": said}, ensure_ascii=False)
    write_atomic(Path(job["late"]), text.encode())
    for warning in said:
        print(warning, file=sys.stderr, flush=True)
    return 0


def main(argv: list[str]) -> int:
    path = Path(argv[0])
    try:
        job = json.loads(path.read_text("utf-8"))
    finally:
        path.unlink(missing_ok=True)
    return check(job)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
