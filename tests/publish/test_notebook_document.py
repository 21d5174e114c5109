"""Issue 30: the notebook is written from the document the deck was rendered from. Run by a
Jupyter kernel as a student would: Chinese labels draw (no glyph warning), the quizzes list
their choices in the slides' order and the solutions give the answer the deck's key gives
(computed answers too), an exercise stub prints nothing, a legend call shows no
`<Legend at 0x…>`, the title is there once, and a French lesson gets no Chinese stub."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from catalogue import write_lesson
from fixture_build import run_cli

QUIZ = """
::: {{.quiz #{name}}}
{question}

- [ ] `{{python}} choices[0]`
- [ ] `{{python}} choices[1]`
- [ ] `{{python}} choices[2]`
- [ ] `{{python}} choices[3]`
:::
"""


def lesson(lang: str) -> dict[str, str]:
    quizzes = "".join(
        QUIZ.format(name=f"q{k}", question=f"第 {k} 题：哪个是 {k} 的平方？").replace(
            "::: {.quiz", f'::: {{.quiz answer="answers[{k}]"'
        )
        for k in range(4)
    ).replace("\n", "\n            ")
    return {
        "lesson.yml": f"""
            title: 图与测验
            lang: {lang}
            quiz:
              shuffle: true
            exec:
              seed: 3
        """,
        "01-all.md": f"""
            # 图与测验 {{.title-slide}}

            ## 一张中文标签的图

            ```{{python}}
            #| fig-alt: 一条上升的曲线
            import matplotlib.pyplot as plt

            plt.figure(figsize=(4, 3))
            plt.plot([0, 1, 2], [0, 1, 4], label="平方")
            plt.title("注意力权重")
            plt.legend()
            ```

            ## 测验

            ```{{python}}
            answers = [k * k for k in range(4)]
            choices = [str(v) for v in (0, 1, 4, 9)]
            answers = [str(a) for a in answers]
            ```
            {quizzes}

            ## 练习

            ```{{python}}
            #| exercise: true
            # 计算 3 的平方
            square = 3 ** 2
            print(square)
            ```
        """,
    }


@pytest.fixture(scope="module", params=["zh-CN", "fr-FR"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nbdoc")
    write_lesson(root, lesson(request.param), "nbdoc")
    ran = run_cli(root, "nbdoc", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    return root / "dist/nbdoc"


def run(folder: Path, name: str, tmp_path: Path) -> nbformat.NotebookNode:
    """The notebook run by a Jupyter kernel from a copy of the folder, outputs cleared first."""
    from nbclient import NotebookClient

    copy = tmp_path / name
    shutil.copytree(folder, copy)
    notebook = nbformat.read(copy / name, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    resources = {"metadata": {"path": str(copy)}}
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources=resources).execute()
    return notebook


def shown(notebook: nbformat.NotebookNode) -> str:
    """Everything the run cells showed: streams and each display's text. A kernel may flush one
    message in several stream outputs, so a cell's streams are joined as one text."""
    parts = []
    for cell in notebook.cells:
        outputs = cell.get("outputs", [])
        parts.append("".join(o.get("text", "") for o in outputs if o.output_type == "stream"))
        parts.extend(o.get("data", {}).get("text/plain", "") for o in outputs)
    return "\n".join(parts)


def quizzes(notebook: nbformat.NotebookNode) -> list[tuple[list[str], str | None]]:
    """Each quiz's choices as the notebook lists them, and the answer line that follows."""
    found = []
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.split("\n")
        for k, line in enumerate(lines):
            if line.startswith("- A. "):
                choices = [re.sub(r"^- [A-Z]\. ", "", c) for c in lines[k : k + 4]]
                rest = "\n".join(lines[k + 4 :])
                answer = re.search(r"\*\*(?:答案|Answer): ([A-Z])\. (.*?)\*\*", rest)
                found.append((choices, answer.groups() if answer else None))
    return found


@pytest.mark.slow
def test_the_run_notebook_draws_chinese_and_shows_what_the_deck_shows(built: Path, tmp_path: Path):
    notebook = run(built, "nbdoc-solutions.ipynb", tmp_path)
    text = shown(notebook)
    assert "Glyph" not in text and "missing from font" not in text
    assert "matplotlib.legend.Legend" not in text and "Ellipsis" not in text
    assert "9" in text  # the exercise's solution ran and printed
    student = run(built, "nbdoc.ipynb", tmp_path)
    assert "Ellipsis" not in shown(student)
    exercise = [c for c in student.cells if "exercise" in c.metadata.get("tags", [])]
    assert (
        exercise and "3 ** 2" not in exercise[0].source and "# 计算 3 的平方" in exercise[0].source
    )


def test_quizzes_list_choices_in_the_slides_order_with_the_decks_answer(built: Path):
    values = json.loads((built / "values.json").read_text("utf-8"))
    recorded = values["quizzes"]
    assert len(recorded) == 4
    orders = {tuple(q["choices"]) for q in recorded}
    assert len(orders) > 1  # shuffled: not all in one order (else the test proves nothing)
    students = quizzes(nbformat.read(built / "nbdoc.ipynb", as_version=4))
    solutions = quizzes(nbformat.read(built / "nbdoc-solutions.ipynb", as_version=4))
    assert [c for c, _ in students] == [q["choices"] for q in recorded]
    assert all(a is None for _, a in students)  # no answer for students
    for (choices, answer), q in zip(solutions, recorded, strict=True):
        assert choices == q["choices"]
        assert answer == ("ABCD"[q["answer"]], q["answer_text"])


def test_the_title_is_written_once_and_the_stub_speaks_the_lessons_language(built: Path):
    notebook = nbformat.read(built / "nbdoc.ipynb", as_version=4)
    titles = [c for c in notebook.cells if c.cell_type == "markdown" and "# 图与测验" in c.source]
    assert len(titles) == 1
    lang = notebook.metadata["deck"]["lang"]
    stub = next(c for c in notebook.cells if "exercise" in c.metadata.get("tags", []))
    if lang.startswith("zh"):
        assert "练习" in stub.source
    else:
        assert "Exercise: write your code here" in stub.source and "练习" not in stub.source


@pytest.mark.parametrize(
    "code, quiet",
    [
        ("ax.legend()", "ax.legend();"),
        ("x = 1\nax.legend()  # the key", "x = 1\nax.legend();  # the key"),
        ("ax.legend(\n    loc='upper right',\n)\n", "ax.legend(\n    loc='upper right',\n);\n"),
        ("x = f(1)", "x = f(1)"),  # an assignment shows nothing anyway
        ("print(f(1))", "print(f(1))"),
        ("with ctx():\n    ax.legend()", "with ctx():\n    ax.legend()"),
        ("ax.legend()\nx = 2  # done", "ax.legend()\nx = 2  # done"),
        ("s = '''\nax.legend()'''", "s = '''\nax.legend()'''"),
        ("ax.set_title('图')", "ax.set_title('图');"),  # (columns count UTF-8 bytes)
    ],
)
def test_a_cell_ending_in_a_call_the_slide_hid_is_quiet(code, quiet):
    from types import SimpleNamespace

    from deck.publish.nbcells import quiet_last_value

    assert quiet_last_value(code, SimpleNamespace(outputs=())) == quiet
    shown = SimpleNamespace(outputs=(SimpleNamespace(kind="text"),))  # the slide showed it
    assert quiet_last_value(code, shown) == code
