"""Quarto files build unchanged: `python build.py talk.qmd` (issue 11).

Loading (front matter, `_metadata.yml`, parts, real lines, replayed cells) is checked on the
loaded lesson, and a .qmd gives the slides of the same lesson folder. Every block and cell
option on a built deck, and the reference deck, are tests/render/test_quarto_deck.py.
"""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import pytest

from catalogue import edit, keys, line_of, write
from deck.errors import DeckError
from deck.model import Cell, Code, Div, Loc, Slide
from deck.options import Options
from deck.pipeline import UsageError, check_paths
from deck.preview.watch import ignored
from deck.source.qmd import load_qmd
from deck.source.registry import QmdFile, sources_for
from deck.source.replay import replayed
from fixture_build import ROOT, run_cli

FIXTURES = ROOT / "tests" / "fixtures" / "quarto"


def problems(error: pytest.ExceptionInfo[DeckError]) -> list[str]:
    return [str(d) for d in error.value.diagnostics]


def warnings_of(path: Path) -> list[str]:
    return [str(w) for w in load_qmd(path).warnings]


# ---- front matter and _metadata.yml ---------------------------------------------------------


def test_metadata_yml_is_merged_under_the_front_matter(tmp_path: Path):
    qmd = write(
        tmp_path,
        {
            "talk.qmd": """
                ---
                title: Own title
                format:
                  revealjs:
                    footer: Own footer
                ---

                ## A
                """,
            "_metadata.yml": """
                title: Shared title
                lang: de
                format:
                  revealjs:
                    slide-number: c/t
                    footer: Shared footer
                execute:
                  echo: false
                """,
        },
    )
    config = load_qmd(qmd).config
    assert config.title == "Own title" and config.lang == "de"
    assert config.slides.footer == "Own footer" and config.slides.slide_number == "c/t"
    assert config.execute == {"echo": False}


def test_quarto_defaults_differ_from_a_lessons(tmp_path: Path):
    config = load_qmd(write(tmp_path, {"talk.qmd": "## A\n"})).config
    assert config.slides.slide_number is False  # Quarto shows no slide numbers unless asked
    assert config.slides.code_line_numbers is True
    assert config.slides.reveal_options() == {"slideNumber": False}


def test_unknown_and_unapplied_options_are_warnings_at_their_lines(tmp_path: Path):
    text = textwrap.dedent(
        """\
        ---
        title: T
        editor: visual
        colour: blue
        format:
          revealjs:
            trasition: fade
            theme: cosmo
            width: 90%
            embed-resources: true
          pdf: default
        jupyter: python3
        execute:
          freeze: auto
          cache: true
        ---

        ## A
        """
    )
    qmd = write(tmp_path, {"talk.qmd": text})
    found = warnings_of(qmd)
    expected = {
        "editor": "editor: visual",
        "colour": "colour: blue",
        "trasition": "trasition: fade",
        "cosmo": "theme: cosmo",  # a Bootstrap theme, not a reveal.js one
        "percent": "width: 90%",  # (a number of px is applied: tests/publish/test_deck_size.py)
        "embed-resources": "embed-resources: true",
        "pdf": "pdf: default",
    }
    for word, needle in expected.items():
        line = line_of(text, needle)
        assert any(w.startswith(f"{qmd}:{line}: warning") and word in w for w in found), (
            word,
            found,
        )
    assert len(found) == len(expected)  # freeze, cache and jupyter: python3 are accepted
    embed = next(w for w in found if "`format.revealjs.embed-resources" in w)
    assert "single self-contained file" in embed
    assert load_qmd(qmd).config.slides.theme == "default"


def test_another_kernel_is_an_error_another_engine_a_warning(tmp_path: Path):
    qmd = write(tmp_path / "k", {"talk.qmd": "---\njupyter: julia-1.9\n---\n\n## A\n"})
    with pytest.raises(DeckError) as error:
        load_qmd(qmd)
    (found,) = problems(error)
    message = "`jupyter: julia-1.9` is not available: only Python cells run"
    assert found.startswith(f"{qmd}:2: error [config] {message}")
    # `engine: knitr` with no R cell builds (a warning); an R cell is an error at its line
    qmd = write(tmp_path / "e", {"talk.qmd": "---\nengine: knitr\n---\n\n## A\n"})
    (warning,) = warnings_of(qmd)
    assert warning.startswith(f"{qmd}:2: warning [config] `engine: knitr`: only Python cells run")
    qmd.write_text(qmd.read_text() + "\n```{r}\n1 + 1\n```\n")
    with pytest.raises(DeckError) as error:
        load_qmd(qmd)
    assert [p.split(" error ")[0] for p in problems(error)] == [f"{qmd}:7:"]


def test_menu_and_chalkboard_true_are_accepted_false_is_a_warning(tmp_path: Path):
    text = "---\nformat:\n  revealjs:\n    menu: true\n    chalkboard: true\n---\n\n## A\n"
    assert warnings_of(write(tmp_path / "a", {"talk.qmd": text})) == []
    text = text.replace("menu: true", "menu: false").replace(
        "chalkboard: true", "chalkboard:\n      theme: whiteboard"
    )
    qmd = write(tmp_path / "b", {"talk.qmd": text})
    assert warnings_of(qmd) == [
        f"{qmd}:4: warning [config] `format.revealjs.menu: false`: the deck's slide menu stays "
        "available; false is not applied",
        f"{qmd}:5: warning [config] `format.revealjs.chalkboard: …`: the deck's own chalkboard "
        "is used; its settings here are not read",
    ]


def test_a_wrong_value_is_an_error_at_its_line(tmp_path: Path):
    text = "---\nformat:\n  revealjs:\n    slide-number: maybe\n---\n\n## A\n"
    qmd = write(tmp_path, {"talk.qmd": text})
    with pytest.raises(DeckError) as error:
        load_qmd(qmd)
    assert problems(error) == [
        f"{qmd}:4: error [config] `format.revealjs.slide-number: maybe` must be true, false, "
        "c/t, c, h/v or h.v"
    ]


def test_dark_theme_and_presentation_options_reach_reveal(tmp_path: Path):
    text = (
        "---\nformat:\n  revealjs:\n    theme: dark\n    slide-number: true\n"
        "    controls: false\n    progress: false\n---\n\n## A\n"
    )
    config = load_qmd(write(tmp_path, {"talk.qmd": text})).config
    assert config.slides.theme == "dark"
    assert config.slides.reveal_options() == {"controls": False, "progress": False}


# ---- parts, lines, title slide, other engines -----------------------------------------------


def test_parts_are_cut_at_headings_and_keep_the_files_lines():
    path = FIXTURES / "parts.qmd"
    text = path.read_text()
    lesson = load_qmd(path)
    assert [s.name for s in lesson.sections] == ["first-part", "second-part", "third-part"]
    slides = [s for section in lesson.sections for s in section.slides]
    assert [(s.title, s.loc.line) for s in slides] == [
        ("Parts", line_of(text, "title: Parts")),
        ("First part", line_of(text, "# First part")),
        ("One", line_of(text, "## One")),
        ("Second part", line_of(text, "# Second part")),
        ("Two", line_of(text, "## Two")),
        ("Third part", line_of(text, "# Third part")),
        ("Three", line_of(text, "## Three")),
    ]
    setup, base = lesson.sections[0].cells()
    assert setup.loc.line == line_of(text, "from helper") - 2 and not setup.replay
    code_line = line_of(text, "base = 10")
    assert (base.loc.line, base.code_line) == (code_line - 1, code_line)
    inline = lesson.sections[0].inlines[0]
    assert (inline.expr, inline.loc.line) == ("base", line_of(text, "The base is"))


def test_a_file_without_headings_is_cut_into_parts_of_about_six_slides(tmp_path: Path):
    text = "".join(f"## Slide {k}\n\ntext {k}\n\n" for k in range(1, 14))
    lesson = load_qmd(write(tmp_path, {"talk.qmd": text}))
    sizes = [len(s.slides) for s in lesson.sections]
    assert sizes == [6, 7]
    titles = [s.title for section in lesson.sections for s in section.slides]
    assert titles == [f"Slide {k}" for k in range(1, 14)]
    lines = [s.loc.line for section in lesson.sections for s in section.slides]
    assert lines == [4 * k - 3 for k in range(1, 14)]  # four lines a slide


def test_a_hidden_setup_cell_makes_no_slide(tmp_path: Path):
    text = "---\ntitle: T\n---\n\n```{python}\n#| include: false\nimport math\n```\n\n## A\n"
    lesson = load_qmd(write(tmp_path, {"talk.qmd": text}))
    slides = lesson.sections[0].slides
    assert [s.title for s in slides] == ["T", "A"]
    assert isinstance(slides[1].blocks[0], Cell)


def test_title_slide_from_the_front_matter(tmp_path: Path):
    text = (
        "---\ntitle: The title\nsubtitle: Sub\nauthor:\n  - name: A. Author\n  - B. Author\n"
        "date: 2026-11-29\n---\n\n## A\n"
    )
    lesson = load_qmd(write(tmp_path, {"talk.qmd": text}))
    title: Slide = lesson.sections[0].slides[0]
    assert (title.title, title.level, title.attrs) == ("The title", 1, {"id": "title-slide"})
    assert "title-slide" in title.classes
    shown = {b.classes[0]: b.blocks[0].text for b in title.blocks if isinstance(b, Div)}
    assert shown == {"subtitle": "Sub", "author": "A. Author, B. Author", "date": "2026-11-29"}


@pytest.mark.parametrize(
    ("engine", "cause"),
    [
        ("r", "R cells need R and knitr"),
        ("julia", "Julia cells need a Julia kernel"),
        ("ojs", "Observable JS cells run in Quarto's own OJS runtime"),
        ("shinylive-python", "shinylive cells need Pyodide in the browser"),
        ("mermaid", "mermaid diagrams are drawn by Quarto's bundled mermaid.js"),
        ("dot", "Graphviz diagrams are drawn by Quarto's bundled Graphviz"),
        ("bash", "only Python cells run here"),
    ],
)
def test_cells_of_another_engine_are_errors_at_their_line(tmp_path: Path, engine: str, cause: str):
    text = f"## A\n\ntext\n\n```{{{engine}}}\n1 + 1\n```\n"
    qmd = write(tmp_path, {"talk.qmd": text})
    with pytest.raises(DeckError) as error:
        load_qmd(qmd)
    (found,) = problems(error)
    assert found.startswith(f"{qmd}:5: error [engine] `{{{engine}}}` cells cannot run: {cause}")
    assert f"write ```{engine}" in found


def test_a_cell_option_quarto_has_but_this_build_does_not_apply_is_a_warning(tmp_path: Path):
    text = "## A\n\n```{python}\n#| code-fold: true\n#| colour: red\nx = 1\n```\n"
    qmd = write(tmp_path, {"talk.qmd": text})
    assert warnings_of(qmd) == [
        f"{qmd}:4: warning [option] cell option `code-fold` is not applied here; ignored",
        f"{qmd}:5: warning [option] unknown cell option `colour` (known: {known()}); ignored",
    ]


def known() -> str:
    from deck.source.attributes import CELL_OPTIONS

    return ", ".join(sorted(CELL_OPTIONS))


def test_eval_false_shows_the_code_and_never_runs_it(tmp_path: Path):
    text = "---\nexecute:\n  eval: false\n---\n\n## A\n\n```{python}\nnot python at all\n```\n"
    lesson = load_qmd(write(tmp_path, {"talk.qmd": text}))
    (block,) = lesson.sections[0].slides[0].blocks
    assert isinstance(block, Code) and block.text == "not python at all"
    assert lesson.sections[0].cells() == []


def test_static_code_keeps_its_line_steps(tmp_path: Path):
    text = '## A\n\n```{.python code-line-numbers="1-3|5"}\nx = 1\n```\n'
    (block,) = load_qmd(write(tmp_path, {"talk.qmd": text})).sections[0].slides[0].blocks
    assert isinstance(block, Code) and block.lang == "python"
    assert block.attrs == {"code-line-numbers": "1-3|5"}


# ---- replayed cells ---------------------------------------------------------------------------


def cell(code: str, line: int) -> Cell:
    return Cell(textwrap.dedent(code).strip(), {}, Loc("t.qmd", line), line + 1)


def test_a_part_replays_the_cells_that_bind_what_it_reads():
    setup = cell("import numpy as np\nimport torch", 1)
    weights = cell("w = np.ones(3)\nprint(w)", 10)
    unrelated = cell("z = torch.zeros(2)", 20)
    uses = cell("print(w.sum())", 30)
    assert replayed([setup, weights, unrelated], [uses], []) == [setup, weights]


def test_a_part_replays_cells_that_change_what_it_reads_in_place():
    make = cell("data = []", 1)
    grow = cell("data.append(1)", 5)
    fill = cell("def fill(xs):\n    xs.extend([2, 3])\nfill(data)", 9)
    other = cell("total = 0", 14)
    assert replayed([make, grow, fill, other], [cell("print(len(data))", 20)], []) == [
        make,
        grow,
        fill,
    ]


def test_module_settings_are_replayed_but_seeds_and_plain_calls_are_not():
    setup = cell("import torch\nimport matplotlib.pyplot as plt", 1)
    settings = cell("torch.set_printoptions(precision=3)\nplt.style.use('ggplot')", 5)
    seed = cell("torch.manual_seed(0)", 9)
    draw = cell("plt.plot([1, 2])\nplt.show()", 12)
    part = [cell("x = torch.randn(3)\nprint(x)", 20)]
    assert replayed([setup, settings, seed, draw], part, []) == [setup, settings]


def test_inline_expressions_and_function_bodies_count_as_reads():
    a = cell("scale = 2", 1)
    b = cell("def f(x):\n    y = x * scale\n    return y", 3)
    c = cell("y = 5", 8)
    assert replayed([a, b, c], [], ["f(3)"]) == [a, b]
    assert replayed([a, b, c], [cell("y = 1\nprint(y)", 20)], []) == []


def test_replayed_cells_run_first_and_show_nothing():
    first, second, third = load_qmd(FIXTURES / "parts.qmd").sections
    setup, base = first.cells()
    assert [(c.loc, c.replay) for c in second.cells()][0] == (setup.loc, True)  # `double`
    assert [(c.loc, c.replay) for c in third.cells()][:2] == [(setup.loc, True), (base.loc, True)]
    assert [c.replay for c in first.cells()] == [False, False]
    assert third.cells()[1].code == base.code


def test_a_prose_edit_reruns_nothing_and_a_cell_edit_only_its_part(tmp_path: Path):
    shutil.copytree(FIXTURES, tmp_path / "talk")
    qmd = tmp_path / "talk" / "parts.qmd"
    before = keys(qmd)
    edit(qmd, "Some prose.", "Other prose,\n\nlonger.")
    assert keys(qmd) == before
    edit(qmd, "print(double(3))", "print(double(4))")
    after = keys(qmd)
    assert [n for n in before if before[n] != after[n]] == ["second-part"]
    edit(qmd, "base = 10", "base = 11")  # read by the first and third parts
    changed = keys(qmd)
    assert [n for n in after if after[n] != changed[n]] == ["first-part", "third-part"]


# ---- command line, paths, watcher -----------------------------------------------------------


def test_outputs_may_lie_in_the_qmds_folder_but_not_around_it(tmp_path: Path):
    qmd = write(tmp_path / "talk", {"talk.qmd": "## A\n"})
    names = sources_for([str(qmd)], tmp_path)

    def options(out: Path) -> Options:
        return Options(out=out, figures=tmp_path / "fig", cache=tmp_path / "cache")

    check_paths(names, options(qmd.parent / "dist"))  # as Quarto's _site/
    for out in (qmd.parent, tmp_path):
        with pytest.raises(UsageError, match="must not contain the sources"):
            check_paths(names, options(out))


def test_two_files_built_into_one_folder_are_refused(tmp_path: Path):
    with pytest.raises(UsageError, match="both be built into talk"):
        sources_for(["a/talk.qmd", "b/talk.qmd"], tmp_path)
    with pytest.raises(UsageError, match="plain name"):
        sources_for(["my talk.qmd"], tmp_path)


def test_the_watcher_rebuilds_only_for_the_qmds_inputs(tmp_path: Path):
    shutil.copytree(FIXTURES, tmp_path / "talk")
    folder = tmp_path / "talk"
    roots = [QmdFile("features", folder / "features.qmd")]
    wanted = [
        "features.qmd",
        "_metadata.yml",
        "helper.py",
        "logo.svg",
        "extra.css",
        "img/square.svg",
    ]
    unwanted = [
        "notes.txt",
        "dist/features/media/img/square.svg",
        "dist/features/index.html",
        ".cache/x.json",
        "img/unused.svg",
        "other/module.py",
    ]
    assert [p for p in wanted if ignored(folder / p, roots)] == []
    assert [p for p in unwanted if not ignored(folder / p, roots)] == []


def test_the_build_uses_the_qmds_folder_not_a_content_folder(tmp_path: Path):
    qmd = write(tmp_path / "talk", {"mini.qmd": "## A\n\nHello.\n"})
    proc = run_cli(tmp_path, str(qmd), "--no-pdf", "--out", str(qmd.parent / "dist"))
    assert proc.returncode == 0, proc.stderr
    page = (qmd.parent / "dist" / "mini" / "index.html").read_text()
    assert '<html lang="en">' in page  # Quarto's default language
    again = run_cli(tmp_path, str(qmd), "--no-pdf", "--out", str(qmd.parent / "dist"))
    assert "mini: up to date" in again.stderr
    (qmd.parent / "notes.txt").write_text("not an input")
    (qmd.parent / "dist" / "mini" / "index.html").touch()
    assert (
        "up to date"
        in run_cli(tmp_path, str(qmd), "--no-pdf", "--out", str(qmd.parent / "dist")).stderr
    )
    (qmd.parent / "helper.py").write_text("X = 1\n")
    rebuilt = run_cli(tmp_path, str(qmd), "--no-pdf", "--out", str(qmd.parent / "dist"))
    assert rebuilt.returncode == 0 and "up to date" not in rebuilt.stderr


def test_a_qmd_whose_cell_tests_paths_of_its_folder_is_up_to_date_when_nothing_changed(
    tmp_path: Path,
):
    """A cell's tests of paths are checked from the .qmd's folder (as they were recorded), not
    from the file itself: `.` is the folder, so a build with nothing changed stays up to date."""
    cell = "```{python}\nimport os\nhere = os.path.isdir('.') and not os.path.exists('x')\n```\n"
    qmd = write(tmp_path / "talk", {"mini.qmd": f"## A\n\n{cell}\n`{{python}} here`\n"})
    for _ in range(2):
        proc = run_cli(tmp_path, str(qmd), "--no-pdf", "--out", str(tmp_path / "dist"))
        assert proc.returncode == 0, proc.stderr
    assert "mini: up to date" in proc.stderr
    (qmd.parent / "x").write_text("now there")  # (a path it tested changed: it runs again)
    again = run_cli(tmp_path, str(qmd), "--no-pdf", "--out", str(tmp_path / "dist"))
    assert "up to date" not in again.stderr and "ran" in again.stderr


def test_an_output_folder_holding_the_file_is_refused_with_exit_2(tmp_path: Path):
    qmd = write(tmp_path / "talk", {"mini.qmd": "## A\n"})
    proc = run_cli(tmp_path, str(qmd), "--no-pdf", "--out", str(tmp_path))
    assert proc.returncode == 2 and "must not contain the sources" in proc.stderr


SECTION = re.compile(r"<section\b([^>]*)>(.*?)</section>", re.S)


# ---- a .qmd and the same content as a lesson folder -------------------------------------------


@pytest.mark.slow
def test_a_qmd_and_the_same_lesson_folder_give_the_same_slides(tmp_path: Path):
    shutil.copytree(FIXTURES, tmp_path / "talk")
    (tmp_path / "content").mkdir()
    shutil.move(tmp_path / "talk" / "same", tmp_path / "content" / "same")
    lesson = run_cli(tmp_path, "same", "--no-pdf", "--out", "out-lesson")
    assert lesson.returncode == 0, lesson.stderr
    qmd = run_cli(tmp_path, "talk/same.qmd", "--no-pdf", "--out", "out-qmd")
    assert qmd.returncode == 0, qmd.stderr

    def shown(out: str) -> list[tuple[str, str]]:
        page = (tmp_path / out / "same" / "index.html").read_text()
        # where each computed value came from (file:line) differs too: drop the provenance
        page = re.sub(r' data-(loc|cells|marks|cell)="[^"]*"', "", page)
        page = re.sub(r'\n?<script type="application/json" class="value-sources">.*?</script>',
                      "", page, flags=re.S)  # fmt: skip
        found = SECTION.findall(page)
        assert found
        # where each slide came from differs (file, section name); what it shows may not
        return [
            (re.sub(r' data-(source|deck-section)="[^"]*"', "", attrs), body)
            for attrs, body in found
        ]

    assert shown("out-qmd") == shown("out-lesson")
