"""Issue 32, items 5 and 8: a `.qmd`'s cells follow Quarto's revealjs defaults (code and
warnings hidden unless asked, `execute:` and `format: revealjs:` winning), the options Quarto
reads under `format: revealjs:` are read there, and the messages say each thing once."""

from __future__ import annotations

import re
from pathlib import Path

from catalogue import write
from deck.source.qmd import load_qmd
from fixture_build import run_cli

CELL = """
## A

```{python}
import warnings
warnings.warn("careful")
shown_code = 6 * 7
shown_code
```
"""


def built_slide(tmp_path: Path, front: str) -> str:
    write(tmp_path, {"talk.qmd": f"---\ntitle: T\n{front}---\n{CELL}"})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist" / "talk" / "index.html").read_text()
    return page[page.index("<h2>A</h2>") :]


def test_code_and_warnings_are_hidden_by_default_as_quartos_revealjs(tmp_path: Path):
    slide = built_slide(tmp_path, "format: revealjs\n")
    assert '<pre class="output">42</pre>' in slide  # the output is shown
    assert "shown_code" not in slide  # (echo: false)
    assert "UserWarning: careful" not in slide  # (warning: false)


def test_the_files_execute_settings_still_win(tmp_path: Path):
    slide = built_slide(tmp_path, "format: revealjs\nexecute:\n  echo: true\n  warning: true\n")
    assert "shown_code" in slide and "UserWarning: careful" in slide


def test_cell_defaults_under_format_revealjs_win_over_execute(tmp_path: Path):
    front = "execute:\n  echo: false\nformat:\n  revealjs:\n    echo: true\n    warning: true\n"
    slide = built_slide(tmp_path, front)
    assert "shown_code" in slide and "UserWarning: careful" in slide


def test_citations_under_format_revealjs_are_formatted(tmp_path: Path):
    write(
        tmp_path,
        {
            "refs.bib": "@book{knuth, author={Donald Knuth}, title={The Art}, year={1968}, "
            "publisher={AW}}\n",
            "talk.qmd": "---\ntitle: T\nformat:\n  revealjs:\n    bibliography: refs.bib\n---\n\n"
            "## A\n\nSee [@knuth].\n",
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "unknown key" not in ran.stderr
    page = (tmp_path / "dist" / "talk" / "index.html").read_text()
    assert "[@knuth]" not in page and "(Knuth 1968)" in page


def test_code_fold_under_format_revealjs_is_read_not_called_unknown(tmp_path: Path):
    write(tmp_path, {"talk.qmd": "---\nformat:\n  revealjs:\n    code-fold: true\n---\n\n## A\n"})
    lesson = load_qmd(tmp_path / "talk.qmd")
    (warning,) = [str(w) for w in lesson.warnings]
    assert "talk.qmd:4:" in warning and "does not apply" in warning, warning


def test_a_projects_html_format_does_not_say_the_file_has_no_revealjs(tmp_path: Path):
    """The front matter names revealjs; the project's `_quarto.yml` (a website) names html:
    one warning, about html, and none saying there is no revealjs format."""
    write(
        tmp_path,
        {
            "_quarto.yml": "project:\n  type: website\nformat:\n  html:\n    toc: true\n",
            "_metadata.yml": "format:\n  html: default\n",
            "talk.qmd": "---\ntitle: T\nformat:\n  revealjs:\n    theme: dark\n---\n\n## A\n",
        },
    )
    warnings = [str(w) for w in load_qmd(tmp_path / "talk.qmd").warnings]
    assert not [w for w in warnings if "no `revealjs` format" in w], warnings
    assert len([w for w in warnings if "format `html` is not built here" in w]) == 2


def test_a_front_matter_without_revealjs_still_says_so(tmp_path: Path):
    write(tmp_path, {"talk.qmd": "---\nformat:\n  html: default\n---\n\n## A\n"})
    warnings = [str(w) for w in load_qmd(tmp_path / "talk.qmd").warnings]
    assert [w for w in warnings if "no `revealjs` format" in w], warnings


def test_a_failing_cell_replayed_by_later_parts_is_reported_once(tmp_path: Path):
    parts = "".join(f"# {p}\n\n## S{p}\n\n```{{python}}\nprint(x)\n```\n\n" for p in "BCD")
    failing = '# A\n\n## SA\n\n```{python}\nx = 1\nraise ValueError("boom")\n```\n\n'
    write(tmp_path, {"talk.qmd": "---\ntitle: T\n---\n\n" + failing + parts})
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 1
    errors = re.findall(r"^.*error \[exec\].*$", ran.stderr, re.M)
    assert errors == ["talk.qmd:11: error [exec] ValueError: boom"], ran.stderr
    assert "build failed: 1 error;" in ran.stderr
