"""Issue 20, item 2: the student notebook `dist/<lesson>/<lesson>.ipynb` (nbformat 4) with the
prose, values as computed, every cell with its build outputs, exercises blanked (kept whole in
`<lesson>-solutions.ipynb`) and `code/` so it runs; and how outputs are chosen (item 4)."""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
from pathlib import Path

import nbformat
import numpy as np
import pytest
from markdown_it import MarkdownIt
from PIL import Image

from catalogue import edit, tree, write_lesson
from fixture_build import FIXTURES, run_cli

LESSON = {
    "lesson.yml": """
        title: Notebook lesson
        subtitle: cells you can run
        lang: en
        exec:
          seed: 5
    """,
    "stats.py": '''
        """A lesson module the cells import."""


        def mean(xs):
            return sum(xs) / len(xs)
    ''',
    "data/points.csv": "1,2\n3,4\n5,7\n",
    "01-data.md": """
        # Data

        ## Reading

        ```{python}
        #| echo: true
        import numpy as np
        from stats import mean

        rows = [list(map(float, line.split(","))) for line in open("data/points.csv")]
        noise = np.random.normal(size=3)
        print(f"mean y = {mean([r[1] for r in rows]):.4f}")
        print(f"noise = {noise.sum():.6f}")
        ```

        The mean is `{python} f"{mean([r[1] for r in rows]):.3f}"` and $x_i^2$ stays math;
        a value that looks like markup: `{python} "<b>*x*</b> $y$"`.

        ::: notes
        2 minutes. Only the lecturer reads this.
        :::

        ## Hidden

        ```{python}
        total = float(np.random.rand(4).sum())
        print(f"total = {total:.5f}")
        ```

        ## Exercise

        ```{python}
        #| exercise: true
        # Compute the sum of the squares of the y values.
        squares = sum(r[1] ** 2 for r in rows)
        print(squares)
        ```

        ::: exercise
        Write a function that doubles a number.

        ```{python}
        def double(x):
            return 2 * x


        print(double(21))
        ```
        :::

        ::: answer
        `double = lambda x: 2 * x` works too.
        :::
    """,
    "02-again.md": """
        # Again

        ## Seeded again

        ```{python}
        #| label: wave
        #| fig-cap: A wave
        #| fig-alt: a sine curve
        import numpy as np
        import matplotlib.pyplot as plt

        first = float(np.random.rand())
        print(f"first draw = {first:.8f}")
        plt.figure(figsize=(4, 3))
        plt.plot(np.sin(np.linspace(0, 6, 50)))
        ```
    """,
}


def build(root: Path, *args: str) -> None:
    ran = run_cli(root, "nb", "--no-pdf", *args)
    assert ran.returncode == 0, ran.stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nb")
    write_lesson(root, LESSON, "nb")
    build(root)
    return root


def read(path: Path) -> nbformat.NotebookNode:
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert notebook.nbformat == 4
    return notebook


def code_cells(notebook) -> list:
    return [
        c for c in notebook.cells if c.cell_type == "code" and "setup" not in c.metadata["deck"]
    ]


def markdown(notebook) -> str:
    return "\n\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")


def test_prose_is_markdown_with_values_as_text_and_math_kept(built: Path):
    notebook = read(built / "dist/nb/nb.ipynb")
    text = markdown(notebook)
    assert "# Notebook lesson" in text and "## Reading" in text and "## Seeded again" in text
    assert "The mean is 4.333" in text  # (2 + 4 + 7) / 3, as the build computed it
    assert "$x_i^2$" in text  # math for Jupyter's renderer
    assert "Only the lecturer" not in text  # speaker notes stay with the lecturer
    # The value reads as computed: a Markdown renderer shows its characters, no markup, no math.
    rendered = MarkdownIt("commonmark").render(text)
    assert "&lt;b&gt;*x*&lt;/b&gt; $y$" in rendered
    assert "<b>" not in rendered and "<em>x</em>" not in rendered


def test_code_cells_in_order_with_their_outputs_and_hidden_ones_marked(built: Path):
    notebook = read(built / "dist/nb/nb.ipynb")
    values = json.loads((built / "dist/nb/values.json").read_text("utf-8"))
    cells = code_cells(notebook)
    firsts = [c.source.split("\n")[0] for c in cells]
    assert firsts == ["import numpy as np", "total = float(np.random.rand(4).sum())"] + firsts[2:]
    assert firsts[4] == "import numpy as np" and len(cells) == 5
    fences = [c.metadata["deck"]["line"] for c in cells]
    section = (built / "content/nb/01-data.md").read_text("utf-8").split("\n")
    assert all(section[line - 1] == "```{python}" for line in fences[:4])
    reading, hidden = cells[0], cells[1]
    assert "jupyter" not in reading.metadata and "hidden" not in reading.metadata["deck"]
    assert hidden.metadata["deck"]["hidden"] is True
    assert hidden.metadata["jupyter"]["source_hidden"] is True
    printed = [o.text for c in cells for o in c.outputs if o.output_type == "stream"]
    recorded = [o["text"] for o in values["outputs"] if o["kind"] == "stdout"]
    # the student notebook shows every non-exercise output the build made, as it made it
    assert printed == [recorded[0], recorded[1], recorded[4]]
    figure = [o for o in cells[-1].outputs if "image/svg+xml" in o.get("data", {})]
    assert len(figure) == 1 and figure[0].data["image/svg+xml"].lstrip().startswith("<?xml")
    assert figure[0].data["text/plain"] == "a sine curve"
    # and as PNG at twice its size (figsize 4×3 in at 96 CSS px an inch), shown at its own
    with Image.open(io.BytesIO(base64.b64decode(figure[0].data["image/png"]))) as png:
        assert png.format == "PNG" and png.size == (4 * 96 * 2, 3 * 96 * 2)
        dark = (np.asarray(png.convert("L")) < 128).sum()
    assert dark > 500  # the curve and axes were drawn (not a blank picture)
    assert figure[0].metadata == {"image/svg+xml": {"width": 384}, "image/png": {"width": 384}}


def test_exercises_are_stubs_for_students_and_whole_in_the_solutions(built: Path):
    student = code_cells(read(built / "dist/nb/nb.ipynb"))
    solutions = code_cells(read(built / "dist/nb/nb-solutions.ipynb"))
    for cells in (student, solutions):
        assert [c.metadata["deck"].get("exercise", False) for c in cells] == [
            False,
            False,
            True,
            True,
            False,
        ]
    squares, double = student[2], student[3]
    assert squares.source.startswith("# Compute the sum of the squares of the y values.")
    assert "squares =" not in squares.source and "nb-solutions.ipynb" in squares.source
    assert "def double" not in double.source and not squares.outputs and not double.outputs
    assert "squares = sum(r[1] ** 2 for r in rows)" in solutions[2].source
    assert solutions[2].outputs[0].text == "69.0\n" and solutions[3].outputs[0].text == "42\n"
    student_text = markdown(read(built / "dist/nb/nb.ipynb"))
    assert "Write a function that doubles a number." in student_text  # the instructions
    assert "lambda" not in student_text  # `::: answer` is for the solutions
    assert "lambda" in markdown(read(built / "dist/nb/nb-solutions.ipynb"))


def test_the_code_folder_holds_the_lessons_modules_and_data(built: Path):
    code = built / "dist/nb/code"
    files = sorted(p.relative_to(code).as_posix() for p in code.rglob("*") if p.is_file())
    # (and the deck's figure settings: the lesson draws with matplotlib)
    assert files == ["data/points.csv", "matplotlibrc", "requirements.txt", "stats.py"]
    assert (code / "data/points.csv").read_text() == LESSON["data/points.csv"]


def numbers(text: str) -> list[str]:
    return re.findall(r"-?\d+\.\d+|-?\d+", text)


@pytest.mark.slow
def test_the_notebook_runs_from_a_fresh_folder_and_prints_the_build_values(
    built: Path, tmp_path: Path
):
    """Every non-exercise cell run by a Jupyter kernel from a copy of dist/nb/: each printed
    number equals the one in values.json within the digits printed."""
    from nbclient import NotebookClient

    folder = tmp_path / "copy"
    shutil.copytree(built / "dist/nb", folder)
    notebook = read(folder / "nb.ipynb")
    notebook.cells = [c for c in notebook.cells if not c.metadata.get("deck", {}).get("exercise")]
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    ).execute()
    # a kernel may flush one print in several stream messages: what a cell printed is their join
    cells = code_cells(notebook)
    streams = [[o.text for o in c.outputs if o.output_type == "stream"] for c in cells]
    ran = ["".join(texts) for texts in streams if texts]
    values = json.loads((built / "dist/nb/values.json").read_text("utf-8"))
    recorded = [o["text"] for o in values["outputs"] if o["kind"] == "stdout"]
    expected = [recorded[0], recorded[1], recorded[4]]
    assert len(ran) == len(expected), ran
    for got, want in zip(ran, expected, strict=True):
        for a, b in zip(numbers(got), numbers(want), strict=True):
            digits = len(b.partition(".")[2])
            assert abs(float(a) - float(b)) <= 0.6 * 10**-digits, (got, want)


@pytest.mark.slow
def test_a_notes_edit_keeps_the_notebook_and_a_prose_edit_remakes_it(tmp_path: Path):
    write_lesson(tmp_path, LESSON, "nb")
    build(tmp_path)
    section = tmp_path / "content/nb/01-data.md"
    edit(section, "Only the lecturer reads this.", "Only the lecturer reads these notes.")
    ran = run_cli(tmp_path, "nb", "--no-pdf")
    assert re.search(r"kept +nb\.ipynb, nb-solutions\.ipynb, code/data/points\.csv", ran.stderr)
    edit(section, "stays math;", "stays math, always;")
    ran = run_cli(tmp_path, "nb", "--no-pdf")
    kept = re.search(r"kept +(.*)", ran.stderr)
    assert kept and "ipynb" not in kept.group(1) and "code/stats.py" in kept.group(1)
    assert "stays math, always" in markdown(read(tmp_path / "dist/nb/nb.ipynb"))


@pytest.mark.slow
def test_outputs_are_chosen_by_to_and_by_lesson_yml(tmp_path: Path):
    write_lesson(tmp_path, LESSON, "nb")
    build(tmp_path, "--to", "html")
    assert (tmp_path / "dist/nb/index.html").is_file()
    assert not (tmp_path / "dist/nb/nb.ipynb").exists()
    build(tmp_path)
    assert (tmp_path / "dist/nb/nb.ipynb").is_file()
    edit(tmp_path / "content/nb/lesson.yml", "lang: en", "lang: en\noutputs: [html, pdf]")
    build(tmp_path)  # (not made, but kept while it is as the lesson would make it)
    assert (tmp_path / "dist/nb/nb.ipynb").is_file()
    edit(tmp_path / "content/nb/01-data.md", "stays math;", "stays math, always;")
    build(tmp_path)
    assert not (tmp_path / "dist/nb/nb.ipynb").exists()
    assert not (tmp_path / "dist/nb/code").exists()
    build(tmp_path, "--to", "html,ipynb")  # the command line wins
    assert (tmp_path / "dist/nb/nb.ipynb").is_file()


def test_unknown_outputs_are_errors_naming_the_known_ones(tmp_path: Path):
    write_lesson(tmp_path, LESSON, "nb")
    ran = run_cli(tmp_path, "nb", "--to", "html,docx")
    assert ran.returncode == 2
    assert "unknown output 'docx' (known: html, pdf, single, ipynb, pptx, course)" in ran.stderr
    build(tmp_path)
    before = tree(tmp_path / "dist/nb")
    edit(tmp_path / "content/nb/lesson.yml", "lang: en", "lang: en\noutputs: [html, slides]")
    ran = run_cli(tmp_path, "nb", "--no-pdf")
    assert ran.returncode == 1
    assert re.search(r"lesson\.yml:4: error .*unknown output 'slides'", ran.stderr), ran.stderr
    assert tree(tmp_path / "dist/nb") == before  # the last good build's files, untouched
    page = (tmp_path / "dist/index.html").read_text("utf-8")  # (a failed build writes none:
    assert 'class="lesson lesson-has-failed"' not in page  # the next good build marks it)


def test_a_qmd_gets_the_same_notebook(tmp_path: Path):
    shutil.copytree(FIXTURES / "quarto", tmp_path / "talk")
    ran = run_cli(tmp_path, "talk/parts.qmd", "--out", "out", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    notebook = read(tmp_path / "out/parts/parts.ipynb")
    cells = code_cells(notebook)
    assert [c.source for c in cells] == [
        "from helper import double",
        "base = 10",
        "print(double(3))",
        "print(double(base))",
    ]
    assert [o.text for c in cells for o in c.outputs] == ["6\n", "20\n"]
    assert "The base is 10." in markdown(notebook)
    assert (tmp_path / "out/parts/code/helper.py").is_file()


def test_the_engine_files_shipped_in_code_run_deck_show_alone(tmp_path: Path):
    """A notebook cell's `from deck.show import …` runs on the engine files code/ ships and
    nothing else: the static walk of deck's imports must find every module they load."""
    import os
    import subprocess
    import sys

    from deck.publish.notebook import engine_modules
    from deck.theme import ENGINE

    for rel in engine_modules():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ENGINE.parent / rel, tmp_path / rel)
    (tmp_path / "helpers.py").write_text("def twice(x):\n    return 2 * x\n", "utf-8")
    code = (
        "import deck, helpers\n"
        "from deck.show import source, table, to_output\n"
        "print(deck.__file__)\n"
        "print(to_output(table([[1.5, 2.25]], rows=['r'], cols=['a', 'b'])).data)\n"
        "print(to_output(source(helpers.twice)).data)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    ran = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    where, *shown = ran.stdout.splitlines()
    assert Path(where).resolve().is_relative_to(tmp_path.resolve())  # the shipped copy
    text = "\n".join(shown)
    assert "<table" in text and "1.5" in text and "2.25" in text
    assert "def twice(x):" in re.sub(r"<[^>]+>", "", text)  # (highlighted)
