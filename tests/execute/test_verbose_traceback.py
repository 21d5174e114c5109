"""`-v` prints a failing cell's whole traceback in the lesson's terms (issue 21, item 6): cell
frames at their `section.md:line`, lesson modules at their file:line, library frames as Python
prints them; without `-v` the error is one line, as before."""

from __future__ import annotations

import json
import traceback
from pathlib import Path

from catalogue import line_of, write_lesson
from fixture_build import run_cli

HELPERS = "import json\n\n\ndef helper(text):\n    return json.loads(text)\n"
SECTION = """
## Parsing

Some prose first.

```{python}
from helpers import helper


def outer(text):
    return helper(text)


outer("{bad")
```
"""


def test_verbose_shows_every_frame_at_its_md_or_py_line(tmp_path: Path):
    folder = write_lesson(tmp_path, {"01-parse.md": SECTION, "helpers.py": HELPERS})
    text = (folder / "01-parse.md").read_text()
    call, inner = line_of(text, 'outer("{bad")'), line_of(text, "    return helper(text)")
    helper_line = line_of(HELPERS, "    return json.loads(text)")

    plain = run_cli(tmp_path, "cat", "--no-pdf")
    assert plain.returncode == 1
    assert "Traceback" not in plain.stderr
    error = next(line for line in plain.stderr.splitlines() if "error [exec]" in line)
    assert error.startswith(f"content/cat/01-parse.md:{inner}: error [exec] JSONDecodeError")

    verbose = run_cli(tmp_path, "cat", "--no-pdf", "-v")
    assert verbose.returncode == 1
    lines = verbose.stderr.splitlines()
    at = lines.index(error)  # the same first line, the traceback under it
    got = [line.strip() for line in lines[at + 1 :]]
    assert got[0] == "Traceback (most recent call last):"
    # the reference for the library's frames: Python's own traceback of the same call
    try:
        json.loads("{bad")
    except json.JSONDecodeError as exc:
        library = traceback.extract_tb(exc.__traceback__)[1:]  # (this test's frame left out)
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
    expected = [
        f"content/cat/01-parse.md:{call}, in <module>",
        'outer("{bad")',
        f"content/cat/01-parse.md:{inner}, in outer",
        "return helper(text)",
        f"content/cat/helpers.py:{helper_line}, in helper",
        "return json.loads(text)",
    ]
    for frame in library:
        expected += [f"{frame.filename}:{frame.lineno}, in {frame.name}", frame.line.strip()]
    assert got[1 : len(expected) + 1] == expected
    assert got[len(expected) + 1] == last
    assert not any("deck/execute" in line for line in got)  # how a cell runs is not shown
