"""The option reference, `docs/reference/settings.md`, written from the settings files' schemas (the
keys as `deck.source.schema` reads them): one table per settings file, each key with its type,
default and meaning. `tests/source/test_schema_reference.py` fails when the file differs from
what `reference_markdown()` gives; `write_reference()` writes it again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from deck.source.lessonyml import LESSON_PROJECT_SCHEMA, LESSON_SCHEMA, SLIDES_SCHEMA
from deck.source.project import PROJECT_SCHEMA
from deck.source.schema import Schema
from deck.source.schemacourse import COURSE_SCHEMA
from deck.source.schemaqmd import QUARTO_SCHEMA, REVEAL_OPTIONS, REVEALJS_SCHEMA

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "settings.md"
TABLES = (SLIDES_SCHEMA,)  # mappings inside a file with a table of their own

HEAD = """\
# Settings reference

<!-- Written by deck.source.schemadoc.reference_markdown() from the schemas the build reads
the files with; tests/source/test_schema_reference.py fails when this file differs. Write it
again with: .venv/bin/python -c "from deck.source.schemadoc import write_reference as w; w()"
-->

Every key is optional. A wrong value is an error at its `file:line` (the build stops and
`dist/` is left as it was), an unknown key a warning naming the nearest known key, and a key
that is read but not applied a warning at its line saying what happens instead. A key
`a.b` is `b` in the mapping `a:`.
"""


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rows(schema: Schema, prefix: str = "", skip: Schema | None = None) -> Iterator[list[str]]:
    """A table's rows: each key (those of a mapping of its own under it, as `a.b`, unless
    they have a table of their own); keys that share one declaration in one row; those `skip`
    declares the same way left out."""
    names = [n for n in schema if skip is None or skip.get(n) is not schema[n]]
    done: set[str] = set()
    for name in names:
        if name in done:
            continue
        key = schema[name]
        same = [n for n in names if schema[n] is key]
        done.update(same)
        yield [", ".join(f"`{prefix}{n}`" for n in same), key.type, key.default_text(), key.help]
        if key.keys is not None and key.keys not in TABLES:
            yield from rows(key.keys, f"{prefix}{name}.")


def table(found: Iterator[list[str]]) -> str:
    lines = ["| key | type | default | meaning |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(cell(c) or "—" for c in row) + " |" for row in found]
    return "\n".join(lines) + "\n"


# The deck's options and reveal.js's own, as a lesson's `slides:` and a `.qmd` take them.
DECK_OPTIONS = Schema(
    "deck options",
    {
        **{k: v for k, v in REVEALJS_SCHEMA.items() if not v.not_applied},
        **REVEAL_OPTIONS,
        **{k: v for k, v in REVEALJS_SCHEMA.items() if v.not_applied},  # (listed last)
    },
)


def deck_option_rows() -> Iterator[list[str]]:
    """The deck's options, with a lesson's default and treatment where they differ."""
    for row, name in zip(rows(DECK_OPTIONS), _row_keys(DECK_OPTIONS), strict=True):
        lesson, qmd = SLIDES_SCHEMA[name], DECK_OPTIONS[name]
        if lesson.default_text() != qmd.default_text():
            row[2] = f"{qmd.default_text()}; a lesson: {lesson.default_text()}"
        if lesson.not_applied != qmd.not_applied:
            row[3] += f"; in a lesson: {lesson.not_applied} (a warning)"
        yield row


def _row_keys(schema: Schema) -> list[str]:
    first: dict[int, str] = {}
    for name, key in schema.items():
        first.setdefault(id(key), name)
    return list(first.values())


def section(title: str, schema: Schema, found: Iterator[list[str]], more: str = "") -> str:
    text = f"## {title}\n\n{schema.about}{' ' + more if more else ''}\n\n"
    return text + table(found)


def reference_markdown() -> str:
    """`docs/reference/settings.md` as the schemas give it."""
    project_only = [n for n in LESSON_PROJECT_SCHEMA if n not in SLIDES_SCHEMA or n == "format"]
    parts = [
        HEAD,
        section("lesson.yml", LESSON_SCHEMA, rows(LESSON_SCHEMA)),
        section(
            "slides: (lesson.yml) and format: revealjs: (a .qmd)",
            REVEALJS_SCHEMA,
            deck_option_rows(),
            "The default is Quarto's where a lesson's differs.",
        ),
        section(
            ".qmd front matter and _metadata.yml",
            QUARTO_SCHEMA,
            rows(QUARTO_SCHEMA, skip=DECK_OPTIONS),
            "Every option of the table above may also stand at the top level.",
        ),
        section(
            "_quarto.yml",
            PROJECT_SCHEMA,
            rows(PROJECT_SCHEMA, skip=QUARTO_SCHEMA),
            "Every key of a `.qmd`'s front matter (the table above), and:",
        ),
        section(
            "_quarto.yml beside a lesson",
            LESSON_PROJECT_SCHEMA,
            iter([[", ".join(f"`{n}`" for n in project_only), "", "", "as in lesson.yml"]]),
            "It is read for these keys and the deck's options at its top level; every other "
            "key is one warning at its line (it does not apply to a lesson).",
        ),
        section("course.yml", COURSE_SCHEMA, rows(COURSE_SCHEMA)),
    ]
    return "\n".join(parts)


def write_reference(path: Path = REFERENCE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(reference_markdown(), "utf-8")
