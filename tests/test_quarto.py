"""Quarto files build unchanged: `python build.py talk.qmd` (issue 11).

Loading (front matter, `_metadata.yml`, parts, real lines, replayed cells) is checked on the
loaded lesson; every block and cell option on a built deck (`fixtures/quarto/features.qmd`);
the reference deck `../shared/bench/attention.qmd` is built as it is, with its PDFs.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from catalogue import edit, keys
from deck.errors import DeckError
from deck.model import Cell, Code, Div, Loc, Slide
from deck.options import Options
from deck.pipeline import UsageError, check_paths
from deck.preview.watch import ignored
from deck.source.qmd import load_qmd
from deck.source.registry import QmdFile, sources_for
from deck.source.replay import replayed
from fixture_build import ROOT, Built, run_build

FIXTURES = Path(__file__).parent / "fixtures" / "quarto"
# `../shared/bench/attention.qmd` from a clone's root (or from a worktree kept one level down).
REFERENCE = (
    next(
        (
            p
            for p in (ROOT.parent, ROOT.parent.parent)
            if (p / "shared/bench/attention.qmd").is_file()
        ),
        ROOT.parent,
    )
    / "shared/bench/attention.qmd"
)


def write(folder: Path, files: dict[str, str]) -> Path:
    """Files (dedented) in `folder`; returns the path of the first one."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    return folder / next(iter(files))


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the only line holding `needle`."""
    (line,) = [k for k, t in enumerate(text.split("\n"), start=1) if needle in t]
    return line


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
            theme: solarized
            width: 1050
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
        "solarized": "theme: solarized",
        "1050": "width: 1050",
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
    assert "single self-contained file" in next(w for w in found if "embed-resources" in w)
    assert load_qmd(qmd).config.slides.theme == "default"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("engine: knitr", "`engine: knitr` is not available: only Python cells run here"),
        ("jupyter: julia-1.9", "`jupyter: julia-1.9` is not available: only Python cells run"),
    ],
)
def test_another_engine_is_an_error(tmp_path: Path, setting: str, message: str):
    qmd = write(tmp_path, {"talk.qmd": f"---\n{setting}\n---\n\n## A\n"})
    with pytest.raises(DeckError) as error:
        load_qmd(qmd)
    (found,) = problems(error)
    assert found.startswith(f"{qmd}:2: error [config] {message}")


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


@pytest.mark.parametrize("engine", ["r", "julia", "ojs"])
def test_cells_of_another_engine_are_errors_at_their_line(tmp_path: Path, engine: str):
    text = f"## A\n\ntext\n\n```{{{engine}}}\n1 + 1\n```\n"
    qmd = write(tmp_path, {"talk.qmd": text})
    with pytest.raises(DeckError) as error:
        load_qmd(qmd)
    (found,) = problems(error)
    assert found.startswith(f"{qmd}:5: error [engine] `{{{engine}}}` cells cannot run")
    assert "only Python cells run" in found


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
    proc = run_build(tmp_path, str(qmd), "--no-pdf", "--out", str(qmd.parent / "dist"))
    assert proc.returncode == 0, proc.stderr
    page = (qmd.parent / "dist" / "mini" / "index.html").read_text()
    assert '<html lang="en">' in page  # Quarto's default language
    again = run_build(tmp_path, str(qmd), "--no-pdf", "--out", str(qmd.parent / "dist"))
    assert "mini: up to date" in again.stderr
    (qmd.parent / "notes.txt").write_text("not an input")
    (qmd.parent / "dist" / "mini" / "index.html").touch()
    assert (
        "up to date"
        in run_build(tmp_path, str(qmd), "--no-pdf", "--out", str(qmd.parent / "dist")).stderr
    )
    (qmd.parent / "helper.py").write_text("X = 1\n")
    rebuilt = run_build(tmp_path, str(qmd), "--no-pdf", "--out", str(qmd.parent / "dist"))
    assert rebuilt.returncode == 0 and "up to date" not in rebuilt.stderr


def test_an_output_folder_holding_the_file_is_refused_with_exit_2(tmp_path: Path):
    qmd = write(tmp_path / "talk", {"mini.qmd": "## A\n"})
    proc = run_build(tmp_path, str(qmd), "--no-pdf", "--out", str(tmp_path))
    assert proc.returncode == 2 and "must not contain the sources" in proc.stderr


# ---- every feature on a built deck ----------------------------------------------------------


@pytest.fixture(scope="module")
def features(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("quarto")
    shutil.copytree(FIXTURES, root / "talk")
    proc = run_build(root, "talk/features.qmd", "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    return Built(root, "features", proc)


SECTION = re.compile(r"<section\b([^>]*)>(.*?)</section>", re.S)


def slides_of(built: Built) -> list[tuple[str, str]]:
    """(attributes, inner HTML) of every slide, in order."""
    return SECTION.findall((built.out / "index.html").read_text("utf-8"))


def slide(built: Built, title: str) -> str:
    (found,) = [body for _, body in slides_of(built) if f">{title}</h" in body]
    return found


def test_callouts_have_their_kind_title_and_icon(features: Built):
    body = slide(features, "Callouts")
    found = re.findall(r'class="callout callout-(\w+)[^"]*".*?callout-title">(.*?)</span>', body)
    assert found == [
        ("note", "Note"),
        ("tip", "Custom tip title"),
        ("warning", "Careful"),
        ("caution", "Caution"),
        ("important", "Important"),
    ]
    assert "callout-style-simple" in body and body.count("callout-titled-icon") == 4
    assert 'class="katex"' in body  # math in a callout


def test_tabset_has_one_panel_per_heading_and_shows_the_first(features: Built):
    body = slide(features, "Tabs and footnotes")
    assert re.findall(r'role="tab"[^>]*>([^<]*)</button>', body) == ["First tab", "Second tab"]
    panes = re.findall(r'<div class="tab-pane( active)?" role="tabpanel"', body)
    assert panes == [" active", ""]


def test_footnotes_are_numbered_on_their_slide_and_listed_at_its_foot(features: Built):
    body = slide(features, "Tabs and footnotes")
    assert re.findall(r'<sup class="footnote-ref">(\d)</sup>', body) == ["1", "2"]
    notes = re.search(r'<ol class="aside-footnotes">(.*?)</ol>', body).group(1)
    items = re.findall(r"<li>(.*?)</li>", notes)
    assert "An inline footnote with" in items[0] and "katex" in items[0]
    assert items[1] == "A referenced footnote."
    assert "[^ref]" not in body and "^[" not in body


def test_aside_goes_to_the_foot_and_a_slides_footer_replaces_the_decks(features: Built):
    body = slide(features, "Tabs and footnotes")
    assert '<div class="aside"><p>An aside at the foot.</p></div>' in body
    assert "This slide&#x27;s own footer" in body or "This slide's own footer" in body
    assert "footer-default" not in body
    other = slide(features, "Callouts")
    deck_footer = re.search(r'<div class="footer footer-default">(.*?)</div>', other).group(1)
    assert deck_footer.startswith("Deck footer with ") and 'class="katex"' in deck_footer


def test_logo_and_stylesheet_are_copied_and_linked(features: Built):
    page = (features.out / "index.html").read_text()
    assert '<link rel="stylesheet" href="media/extra.css">' in page
    assert len(slides_of(features)) == page.count('<img class="slide-logo" src="media/logo.svg"')
    for name in ("logo.svg", "extra.css", "img/square.svg", "img/circle.svg"):
        assert (features.out / "media" / name).read_bytes() == (FIXTURES / name).read_bytes()


def test_images_become_figures_with_their_size_and_placement(features: Built):
    attrs, body = next(s for s in slides_of(features) if ">Images</h2>" in s[1])
    assert 'data-background-color="#f0f4f8"' in attrs
    figure = re.search(r"<figure>(.*?)</figure>", body).group(1)
    assert re.fullmatch(
        r'<img alt="A blue square" src="media/img/square.svg" width="200"\s*/?>'
        r"<figcaption>A blue square</figcaption>",
        figure,
    ), figure
    circle = re.search(r"<img[^>]*circle[^>]*>", body).group(0)
    assert 'alt="A red circle"' in circle and 'class="absolute"' in circle
    assert "position: absolute; top: 150px; left: 800px; width: 120px; height: 120px" in circle


def test_stack_fit_text_and_fragments(features: Built):
    stack = slide(features, "Stack")
    assert re.search(r'<div class="r-stack">\s*<p><img[^>]*class="fragment"', stack)
    assert stack.count('class="fragment"') == 2
    assert '<div class="r-fit-text"><p>Big text</p></div>' in slide(features, "Fit")
    spans = slide(features, "Columns, fragments, spans")
    assert '<div class="fragment fade-up" data-fragment-index="1">' in spans
    assert '<span class="fragment highlight-red">highlighted</span>' in spans
    assert '<span class="smallcaps">small caps</span>' in spans


def test_incremental_lists_and_columns(features: Built):
    body = slide(features, "Columns, fragments, spans")
    incremental = re.search(r'<div class="incremental">(.*?)</div>', body, re.S).group(1)
    assert re.findall(r'<li class="fragment">(.*?)</li>', incremental) == ["appears", "one by one"]
    flat = re.search(r'<div class="nonincremental">(.*?)</div>', body, re.S).group(1)
    assert "fragment" not in flat
    assert '<div class="column" style="width:40%">' in body


def test_stepped_code_lays_each_step_over_the_first(features: Built):
    body = slide(features, "Stepped code")
    layers = re.findall(
        r'<div class="(highlight has-line-numbers[^"]*)"><pre><code>(.*?)</code>', body, re.S
    )
    assert [klass for klass, _ in layers] == [
        "highlight has-line-numbers has-highlights",
        "highlight has-line-numbers has-highlights fragment code-step",
    ]
    marked = [
        [n for n, line in enumerate(code.split("\n"), start=1) if "highlight-line" in line]
        for _, code in layers
    ]
    assert marked == [[1, 2], [4]]


def test_cell_options_echo_line_numbers_and_output_location(features: Built):
    body = slide(features, "Cells")
    columns = re.search(r'<div class="columns column-output-location">(.*)', body, re.S).group(1)
    code, output = re.findall(r'<div class="column">(.*?)</div></div>', columns, re.S)[0], columns
    assert "values" in code and 'code-line highlight-line"><span class="n">total' in code
    assert '<pre class="stdout">6\n</pre>' in output
    # output: asis: printed Markdown becomes slide markup, math included
    assert "<strong>Bold</strong> from a cell and" in body and 'class="katex"' in body


def test_error_true_shows_the_exception_and_warnings_are_shown(features: Built):
    body = slide(features, "Errors and warnings")
    text = features.root.joinpath("talk/features.qmd").read_text()
    line = line_of(text, "1 / 0")
    assert (
        f'<pre class="error">features.qmd:{line}: ZeroDivisionError: division by zero</pre>' in body
    )
    assert re.search(r'<pre class="warning">features.qmd:\d+: UserWarning: watch out</pre>', body)


def test_figure_size_alignment_and_missing_alt_text_warning(features: Built):
    body = slide(features, "Figure")
    figure = re.search(
        r'<figure class="fig-align-center"><img src="figures/([^"]+)" alt="A line"', body
    )
    assert figure, body
    svg = (features.out / "figures" / figure.group(1)).read_text()
    assert re.search(r'width="288pt" height="144pt"', svg)  # 4 × 2 inches
    line = line_of(features.root.joinpath("talk/features.qmd").read_text(), 'fig-cap: "A line"')
    assert (
        f"talk/features.qmd:{line - 2}: warning [figure] figure has no alt text "
        "(`#| fig-alt: …`): its caption is used" in features.proc.stderr
    )


def test_output_location_slide_adds_a_slide_after_its_own(features: Built):
    titled = [(attrs, body) for attrs, body in slides_of(features) if ">Output slide</h2>" in body]
    (code_attrs, code), (out_attrs, out) = titled
    assert "print" in code and "60" not in code
    assert "output-location-slide" in out_attrs and '<pre class="stdout">60\n</pre>' in out
    values = json.loads((features.out / "values.json").read_text())
    assert values["slides"] == len(slides_of(features))
    (record,) = [o for o in values["outputs"] if o["text"] == "60\n"]
    assert record["slide"] == 1 + [b for _, b in slides_of(features)].index(out)


def test_more_output_locations_fenced_echo_include_and_raw_html(features: Built):
    body = slide(features, "More cells")
    assert '<div class="fragment"><pre class="stdout">after a click\n</pre></div>' in body
    beside = re.search(r'<div class="column fragment">(.*?)</div></div>', body, re.S).group(1)
    assert "beside, after a click" in beside
    assert "```{python}" in html.unescape(re.sub(r"<.*?>", "", body))  # echo: fenced
    assert "never shown" not in body
    assert '<p class="raw-html">Raw <em>HTML</em></p>' in body


def test_eval_false_code_is_shown_and_notes_and_values_work(features: Built):
    body = slide(features, "Not run")
    assert "this" in body and "fail" in body and "error" not in body
    assert '<aside class="notes"><p>Speaker notes for the last slide.</p></aside>' in body
    values = json.loads((features.out / "values.json").read_text())
    assert [v["text"] for v in values["values"] if v["expr"] == "total"] == ["6"]


def test_title_slide_is_first(features: Built):
    attrs, body = slides_of(features)[0]
    assert 'id="title-slide"' in attrs and "<h1>Quarto features</h1>" in body
    assert "Ada Lovelace, Alan Turing" in body and "2026-11-29" in body


def test_slide_attributes_backgrounds_and_rules(features: Built):
    shown = slides_of(features)
    (attrs,) = [a for a, _ in shown if "data-background-image" in a]
    assert 'data-background-image="media/img/square.svg"' in attrs
    assert 'data-auto-animate="true"' in attrs
    (after,) = [k for k, (a, _) in enumerate(shown) if a is attrs]
    assert "An untitled slide after a rule." in shown[after + 1][1]
    assert "<h2>" not in shown[after + 1][1]
    assert re.search(r'class="[^"]*\bsmaller\b', next(a for a, b in shown if ">Callouts<" in b))
    assert re.search(r'class="[^"]*\bscrollable\b', next(a for a, b in shown if ">Fit<" in b))


def test_a_missing_image_is_an_error_at_its_slide(tmp_path: Path):
    qmd = write(tmp_path, {"talk.qmd": "## A\n\n![A cat](cat.png)\n"})
    proc = run_build(tmp_path, str(qmd), "--no-pdf")
    assert proc.returncode == 1
    assert "talk.qmd:3: error [media] file `cat.png` not found" in proc.stderr


# ---- a .qmd and the same content as a lesson folder -------------------------------------------


def test_a_qmd_and_the_same_lesson_folder_give_the_same_slides(tmp_path: Path):
    shutil.copytree(FIXTURES, tmp_path / "talk")
    (tmp_path / "content").mkdir()
    shutil.move(tmp_path / "talk" / "same", tmp_path / "content" / "same")
    lesson = run_build(tmp_path, "same", "--no-pdf", "--out", "out-lesson")
    assert lesson.returncode == 0, lesson.stderr
    qmd = run_build(tmp_path, "talk/same.qmd", "--no-pdf", "--out", "out-qmd")
    assert qmd.returncode == 0, qmd.stderr

    def shown(out: str) -> list[tuple[str, str]]:
        page = (tmp_path / out / "same" / "index.html").read_text()
        # where each computed value came from (file:line) differs too: drop the provenance
        page = re.sub(r' data-(loc|cells|marks)="[^"]*"', "", page)
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


# ---- the reference deck ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Built:
    if not REFERENCE.is_file():
        pytest.skip(f"the reference deck {REFERENCE} is not there")
    root = tmp_path_factory.mktemp("reference")
    # The file as it is; beside it, Quarto's own way to add settings: a longer cell timeout,
    # as its training cell takes minutes on a busy 2-core machine.
    shutil.copyfile(REFERENCE, root / "attention.qmd")
    (root / "_metadata.yml").write_text("exec:\n  timeout: 3600\n")
    command = [sys.executable, str(ROOT / "build.py"), "attention.qmd"]
    proc = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stderr
    return Built(root, "attention", proc)


def test_reference_deck_builds_with_every_slide_in_pages(reference: Built):
    from pypdf import PdfReader

    text = REFERENCE.read_text()
    expected = 1 + len(re.findall(r"^## ", text, re.M))  # the title slide and every `##`
    values = json.loads((reference.out / "values.json").read_text())
    assert values["slides"] == len(slides_of(reference)) == expected
    assert len(PdfReader(reference.out / "slides.pdf").pages) == expected


def test_reference_deck_notes_are_on_their_slides(reference: Built):
    lines = REFERENCE.read_text().split("\n")
    notes = {}  # the line of the slide's `##` → the first line of its notes
    for k, line in enumerate(lines):
        if line == "::: notes":
            heading = max(j for j in range(k) if lines[j].startswith("## "))
            notes[heading + 1] = lines[k + 1]
    assert len(notes) == 6
    asides = {
        int(re.search(r'data-source="[^"]*:(\d+)"', attrs).group(1)): re.findall(
            r'<aside class="notes">(.*?)</aside>', body, re.S
        )
        for attrs, body in slides_of(reference)
    }
    assert {line for line, found in asides.items() if found} == set(notes)
    for line, first in notes.items():
        shown = html.unescape(re.sub(r"<.*?>", "", asides[line][0]))
        assert first in shown, (line, first)


def test_reference_deck_math_is_all_typeset(reference: Built):
    text = REFERENCE.read_text()
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)  # math in code is Python
    formulas = len(re.findall(r"\$\$.+?\$\$|\$[^$\n]+\$", prose, re.S))
    page = (reference.out / "index.html").read_text()
    assert page.count('<span class="katex">') == formulas
    visible = re.sub(r"<(pre|code|annotation)\b.*?</\1>", "", page, flags=re.S)
    assert "$" not in re.sub(r"<script\b.*?</script>", "", visible, flags=re.S)


def test_reference_deck_figures_and_values(reference: Built):
    values = json.loads((reference.out / "values.json").read_text())
    assert len(values["figures"]) == REFERENCE.read_text().count("plt.show()") == 3
    for figure in values["figures"]:
        assert (reference.out / figure["file"]).read_bytes().startswith(b"<?xml")
    assert reference.proc.stderr.count("figure has no alt text") == 3
    # the first inline value, computed here independently
    import torch

    torch.manual_seed(0)
    x = torch.randn(3, 8)
    w_q, w_k, _ = (torch.randn(8, 8) / 8**0.5 for _ in range(3))
    weights = torch.softmax((x @ w_q) @ (x @ w_k).T / 8**0.5, dim=-1)
    assert values["values"][0]["text"] == f"{weights[0, 1].item():.3f}"


# ---- in Chromium --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def page(browser, features: Built):  # noqa: ANN001 - Playwright's browser
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((features.out / "index.html").as_uri())
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    yield page
    assert errors == []
    page.close()


def go_to(page, title: str) -> None:  # noqa: ANN001 - Playwright's page
    index = page.evaluate(
        """title => [...document.querySelectorAll('.reveal .slides > section')]
             .findIndex(s => s.querySelector('h1, h2')?.textContent === title)""",
        title,
    )
    assert index >= 0, title
    # reveal.js writes the first slide's hash a moment after loading: let that land first.
    page.wait_for_function("location.hash !== ''")
    page.evaluate(f"Reveal.slide({index}, 0, -1)")
    page.wait_for_function(
        "i => Reveal.getIndices().h === i && location.hash === '#/' + i", arg=index
    )


def visible(page, selector: str) -> bool:  # noqa: ANN001
    return page.evaluate(
        """selector => { const el = document.querySelector(selector);
             const style = getComputedStyle(el);
             return el.getClientRects().length > 0 && style.visibility !== 'hidden'
                    && style.opacity !== '0'; }""",
        selector,
    )


@pytest.mark.browser
def test_a_tab_shows_its_panel_when_clicked(page):  # noqa: ANN001
    go_to(page, "Tabs and footnotes")
    first = ".present .tab-pane[data-tab='0']"
    second = ".present .tab-pane[data-tab='1']"
    assert visible(page, first) and not visible(page, second)
    page.click(".present .panel-tabset-tabby button[data-tab='1']")
    assert visible(page, second) and not visible(page, first)
    assert page.get_attribute(".present button[data-tab='1']", "aria-selected") == "true"


@pytest.mark.browser
def test_code_steps_come_one_click_at_a_time(page):  # noqa: ANN001
    go_to(page, "Stepped code")
    step = ".present .code-step"
    page.wait_for_timeout(100)
    assert not visible(page, step)
    page.evaluate("Reveal.nextFragment()")
    page.wait_for_function(
        "s => getComputedStyle(document.querySelector(s)).opacity === '1'", arg=step
    )
    assert visible(page, step)


@pytest.mark.browser
def test_footer_and_logo_sit_inside_the_slide(page):  # noqa: ANN001
    go_to(page, "Callouts")
    boxes = page.evaluate(
        """() => ['.present', '.present .footer', '.present .slide-logo'].map(s => {
             const r = document.querySelector(s).getBoundingClientRect();
             return [r.left, r.top, r.right, r.bottom]; })"""
    )
    (left, top, right, bottom), *inner = boxes
    for x0, y0, x1, y1 in inner:
        assert left <= x0 < x1 <= right and top <= y0 < y1 <= bottom


@pytest.mark.browser
def test_the_dark_theme_and_hidden_slide_numbers(browser, tmp_path: Path):  # noqa: ANN001
    text = "---\nformat:\n  revealjs:\n    theme: dark\n---\n\n## Dark\n\nText.\n"
    qmd = write(tmp_path, {"dark.qmd": text})
    proc = run_build(tmp_path, str(qmd), "--no-pdf")
    assert proc.returncode == 0, proc.stderr
    page = browser.new_page()
    page.goto((tmp_path / "dist/dark/index.html").as_uri())
    page.wait_for_function("document.documentElement.dataset.deckReady === 'true'")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    color = page.evaluate("getComputedStyle(document.querySelector('.present p')).color")
    numbers = page.evaluate("getComputedStyle(document.querySelector('.slide-number')).display")
    page.close()
    assert background == "rgb(25, 25, 25)" and color == "rgb(230, 230, 230)"
    assert numbers == "none"  # Quarto shows no slide numbers unless asked
