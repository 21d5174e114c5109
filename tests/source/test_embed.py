"""Quarto's `{{< embed nb.ipynb#cell >}}` (issue 17, item 1): a notebook's saved outputs, read
with nbformat, at the shortcode's place; `echo=true` adds the code; every cell when none is
named (Markdown cells too, their headings starting slides); a missing notebook or cell is an
error at the shortcode's line and leaves the last good build as it was."""

from __future__ import annotations

import base64
import re
import struct
import zlib
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from catalogue import assert_failed_cleanly, line_of, write
from deck.errors import DeckError
from deck.model import Code, Prose, walk_blocks
from deck.source.qmd import load_qmd
from fixture_build import run_cli


def png(width: int, height: int) -> bytes:
    """A real PNG of one grey colour (checked by its header after the round trip)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    rows = b"".join(b"\0" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


PICTURE = png(7, 5)
KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
ARRAY = {"text/plain": "array([0, 1, 2])"}
FIGURE = {"image/png": base64.b64encode(PICTURE).decode(), "text/plain": "<Figure>"}


def notebook(folder: Path, name: str = "analysis.ipynb") -> Path:
    nb = new_notebook(
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        }
    )
    nb.cells = [
        new_markdown_cell("## From the notebook\n\nWritten in a Markdown cell.", id="intro"),
        new_code_cell(
            "#| label: total\nx = 6 * 7\nprint('the answer is', x)",
            id="c-sum",
            outputs=[new_output("stream", name="stdout", text="the answer is 42\n")],
        ),
        new_code_cell(
            "import numpy as np\nnp.arange(3)",
            id="c-array",
            metadata={"tags": ["an-array"]},
            outputs=[new_output("execute_result", data=ARRAY, execution_count=2)],
        ),
        new_code_cell(
            "show_picture()",
            id="c-fig",
            outputs=[
                new_output(
                    "display_data",
                    data={
                        "image/png": base64.b64encode(PICTURE).decode(),
                        "text/plain": "<Figure>",
                    },
                )
            ],
        ),
        new_code_cell("y = 1", id="c-quiet", outputs=[]),
    ]
    nbformat.validate(nb)
    path = folder / name
    nbformat.write(nb, str(path))
    return path


def texts(path: Path) -> list[str]:
    return [
        "\n".join(b.text for b in walk_blocks(s.blocks) if isinstance(b, Prose | Code))
        for section in load_qmd(path).sections
        for s in section.slides
    ]


def test_a_cells_outputs_by_id_label_and_tag(tmp_path: Path):
    notebook(tmp_path)
    qmd = write(
        tmp_path,
        {
            "talk.qmd": "---\ntitle: T\n---\n\n## Sum\n\n{{< embed analysis.ipynb#c-sum >}}\n\n"
            "## Label and tag\n\n{{< embed analysis.ipynb#total,an-array >}}\n"
        },
    )
    first, second = texts(qmd)[-2:]
    assert "the answer is 42" in first
    assert "x = 6 * 7" not in first  # the output only: no echo
    assert "the answer is 42" in second and "array([0, 1, 2])" in second
    assert second.index("the answer is 42") < second.index("array([0, 1, 2])")


def test_echo_shows_the_code_without_its_options_and_a_picture_is_inline(tmp_path: Path):
    notebook(tmp_path)
    write(
        tmp_path,
        {
            "talk.qmd": "## A\n\n{{< embed analysis.ipynb#c-sum echo=true >}}\n\n"
            "## B\n\n{{< embed analysis.ipynb#c-fig >}}\n"
        },
    )
    ran = run_cli(tmp_path, "talk.qmd", "--no-pdf")
    assert ran.returncode == 0, ran.stderr
    page = (tmp_path / "dist" / "talk" / "index.html").read_text("utf-8")
    shown = re.sub(r"<[^>]+>", "", page)  # (the code is highlighted: its text, not its spans)
    assert "#| label" not in shown
    assert shown.index("x = 6 * 7") < shown.index("the answer is 42")
    found = re.search(r'src="data:image/png;base64,([^"]+)"', page)
    assert found and base64.b64decode(found.group(1)) == PICTURE


def test_the_whole_notebook_carries_its_markdown_slides(tmp_path: Path):
    notebook(tmp_path)
    qmd = write(tmp_path, {"talk.qmd": "## Before\n\nmine\n\n{{< embed analysis.ipynb >}}\n"})
    slides = [s for section in load_qmd(qmd).sections for s in section.slides]
    assert [s.title for s in slides] == ["Before", "From the notebook"]
    shown = texts(qmd)[1]
    assert "Written in a Markdown cell." in shown
    assert "the answer is 42" in shown and "array([0, 1, 2])" in shown


def test_a_cell_by_position(tmp_path: Path):
    notebook(tmp_path)
    qmd = write(tmp_path, {"talk.qmd": "## P\n\n{{< embed analysis.ipynb[3] >}}\n"})
    (shown,) = texts(qmd)
    assert "array([0, 1, 2])" in shown and "answer" not in shown


@pytest.mark.parametrize(
    ("shortcode", "says"),
    [
        ("{{< embed missing.ipynb#c-sum >}}", "`missing.ipynb`: no such notebook"),
        ("{{< embed analysis.ipynb#nope >}}", "has no cell with the id, label or tag `nope`"),
        ("{{< embed analysis.ipynb#c-quiet >}}", "has no output to embed"),
        ("{{< embed analysis.ipynb[9] >}}", "has no cell 9 (it has 5)"),
        ("{{< embed ../outside.ipynb >}}", "outside the project folder"),
        ("see {{< embed analysis.ipynb#c-sum >}} here", "stands on a line of its own"),
    ],
)
def test_a_bad_embed_is_an_error_at_its_line(tmp_path: Path, shortcode: str, says: str):
    notebook(tmp_path)
    text = f"## Good\n\nfine\n\n## Bad\n\n{shortcode}\n"
    qmd = write(tmp_path, {"talk.qmd": text})
    with pytest.raises(DeckError) as caught:
        load_qmd(qmd)
    (problem,) = [str(d) for d in caught.value.diagnostics]
    assert problem.startswith(f"{qmd}:{line_of(text, shortcode)}: error [shortcode] `embed`")
    assert says in problem


def test_a_failed_embed_keeps_the_last_good_build(tmp_path: Path):
    nb = notebook(tmp_path)
    write(tmp_path, {"talk.qmd": "## A\n\n{{< embed analysis.ipynb#c-sum >}}\n"})
    assert run_cli(tmp_path, "talk.qmd", "--no-pdf").returncode == 0
    # the notebook is an input: an edit of it is seen; a cell taken out is an error at line 3
    nb_text = nb.read_text("utf-8").replace('"c-sum"', '"c-renamed"')
    nb.write_text(nb_text, "utf-8")
    assert_failed_cleanly(
        tmp_path, ["talk.qmd", "--no-pdf"], "talk.qmd:3", says="no cell with the id"
    )
