"""A NameError says what the author most likely meant (issue 21, item 4): the near name for a
misspelling, and the other section that binds it (each section runs in its own namespace)."""

from __future__ import annotations

from pathlib import Path

from catalogue import line_of, write_lesson
from fixture_build import run_cli

FIRST = """
## One

```{python}
import math as m
values = [1, 2, 3]
```
"""


def test_a_name_bound_in_another_section_is_named_with_its_line(tmp_path: Path):
    second = "## Two\n\n```{python}\nprint(m.pi)\n```\n"
    folder = write_lesson(tmp_path, {"01-one.md": FIRST, "02-two.md": second})
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 1
    line = line_of((folder / "01-one.md").read_text(), "import math as m")
    assert "NameError: name 'm' is not defined" in ran.stderr
    assert f"01-one.md:{line}, but each section runs in its own namespace" in ran.stderr


def test_a_misspelled_name_gets_a_did_you_mean(tmp_path: Path):
    source = FIRST + "\n```{python}\nprint(sum(valeus))\n```\n"
    write_lesson(tmp_path, {"01-one.md": source})
    ran = run_cli(tmp_path, "cat", "--no-pdf")
    assert ran.returncode == 1
    assert "NameError: name 'valeus' is not defined (did you mean `values`?)" in ran.stderr
