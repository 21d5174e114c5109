"""What real Quarto decks from public repositories write that a first reading got wrong
(issue 17's hold-out measurement), each as a small deck written here."""

from __future__ import annotations

import re
from pathlib import Path

from catalogue import write
from deck.model import Code
from deck.source.qmd import load_qmd
from fixture_build import run_cli


def slides(path: Path):
    return [s for section in load_qmd(path).sections for s in section.slides]


def test_a_rule_just_before_a_heading_makes_no_empty_slide(tmp_path: Path):
    qmd = write(tmp_path, {"t.qmd": "## A\n\none\n\n---\n\n## B\n\ntwo\n\n---\n\nthree\n"})
    assert [(s.title, len(s.blocks)) for s in slides(qmd)] == [("A", 1), ("B", 1), (None, 1)]


def test_a_rule_right_after_a_code_fence_starts_a_slide(tmp_path: Path):
    qmd = write(tmp_path, {"t.qmd": "## A\n\n```yaml\nx: 1\n```\n---\n\n```yaml\ny: 2\n```\n"})
    assert len(slides(qmd)) == 2


def test_a_fence_with_a_language_then_attributes_is_static_code(tmp_path: Path):
    qmd = write(
        tmp_path,
        {"t.qmd": '## A\n\n```python {code-line-numbers="1|2"}\n# one\nx = 2\n```\n\n## B\n'},
    )
    first, second = slides(qmd)
    (code,) = [b for b in first.blocks if isinstance(b, Code)]
    assert code.lang == "python" and code.attrs["code-line-numbers"] == "1|2"
    assert code.text == "# one\nx = 2" and second.title == "B"


def test_authors_and_top_level_format_options(tmp_path: Path):
    qmd = write(
        tmp_path,
        {
            "t.qmd": """
                ---
                title: T
                authors:
                  - name: Ada Lovelace
                    affiliations: [Analytical Society]
                  - name: Charles Babbage
                footer: Top footer
                slide-number: true
                format: revealjs
                ---

                ## A
                """
        },
    )
    lesson = load_qmd(qmd)
    assert lesson.config.author == "Ada Lovelace, Charles Babbage"
    assert lesson.config.slides.footer == "Top footer"
    assert lesson.config.slides.slide_number is True
    assert not [str(w) for w in lesson.warnings if "unknown key" in str(w)]


def test_an_escaped_at_is_not_a_citation(tmp_path: Path):
    write(
        tmp_path,
        {
            "t.qmd": "---\nbibliography: r.bib\n---\n\n## A\n\n"
            "Toot \\@me\\@fosstodon.org, see @knuth84.\n",
            "r.bib": "@book{knuth84, title={The TeXbook}, author={Knuth, Donald}, year={1984}}\n",
        },
    )
    ran = run_cli(tmp_path, "t.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    assert "citation" not in ran.stderr  # no "citation me not found"
    page = (tmp_path / "dist" / "t" / "index.html").read_text()
    text = re.sub(r"<[^>]+>", "", page)
    assert "Toot &#64;me&#64;fosstodon.org, see Knuth (1984)." in text


def test_code_line_numbers_true_in_any_case(tmp_path: Path):
    qmd = write(tmp_path, {"t.qmd": '## A\n\n```python {code-line-numbers="True"}\nx = 1\n```\n'})
    (code,) = [b for b in slides(qmd)[0].blocks if isinstance(b, Code)]
    assert code.attrs["code-line-numbers"] == "true"


def test_a_cell_of_another_engine_with_eval_false_is_shown_code(tmp_path: Path):
    qmd = write(tmp_path, {"t.qmd": "## A\n\n```{r}\n#| eval: false\nlibrary(dplyr)\n```\n"})
    (code,) = [b for b in slides(qmd)[0].blocks if isinstance(b, Code)]
    assert (code.lang, code.text) == ("r", "library(dplyr)")
