"""A lesson defines its own widget kinds (`widgets:` in lesson.yml): a data check and a script
from its folder. The engine holds none; problems point at lesson.yml's lines or the
directive's."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from catalogue import options_in as options
from catalogue import write_lesson
from deck.errors import DeckError
from deck.pipeline import build
from deck.progress import LogOnly

CHECK = '''
"""A counter: {"start": n}."""

from deck.widgetdata import DataProblem, mapping, number

SUMMARY = 'data: {"start": n}'


def check(data):
    mapping(data, "", ("start",))
    number(data["start"], "start", low=0)
    if data["start"] > 99:
        raise DataProblem("`start` must be below 100")
    return {"start": int(data["start"]), "checked": True}
'''
SCRIPT = """
// A counter: a button counting up from the data's start.
(function () {
  var lib = window.deckWidgets.helpers;
  window.deckWidgets.register("counter", {
    label: "Counter",
    live: function (body, data) {
      var button = lib.el("button", { type: "button", class: "count" }, String(data.start));
      button.addEventListener("click", function () {
        button.textContent = String(Number(button.textContent) + 1);
      });
      body.appendChild(button);
    },
    paper: function (body, data) { body.appendChild(lib.el("p", {}, String(data.start))); },
  });
})();
"""
SECTION = """
## Count

```{python}
start = 3
```

::: {.widget kind="counter" data='{"start": start}'}
:::
"""
YML = "title: W\nlang: en\nwidgets:\n  - widgets/counter\n"


def lesson(root: Path, **files: str) -> Path:
    base = {
        "lesson.yml": YML,
        "widgets/counter.py": CHECK,
        "widgets/counter.js": SCRIPT,
        "01-a.md": SECTION,
    }
    return write_lesson(root, {**base, **files}, name="w")


def errors(root: Path) -> list[str]:
    """The build's errors, paths as a user in `root` reads them."""
    with contextlib.chdir(root), pytest.raises(DeckError) as failed:
        build(["w"], options(Path(".")), LogOnly())
    return [str(d) for d in failed.value.diagnostics]


def test_a_lesson_kind_checks_its_data_and_ships_its_script(tmp_path: Path):
    lesson(tmp_path)
    report = build(["w"], options(tmp_path), LogOnly())
    assert report.published
    page = (tmp_path / "dist/w/index.html").read_text("utf-8")
    assert 'data-widget="counter"' in page
    assert '{"start":3,"checked":true}' in page  # what the lesson's check returned
    bundle = (tmp_path / "dist/w/assets/widgets.js").read_text("utf-8")
    runtime = bundle.index("window.deckWidgets = {")
    kind = bundle.index('register("counter"')
    start = bundle.index("window.deckWidgets.startPage();")
    assert runtime < kind < start  # registered after the runtime, before the widgets start


def test_the_engine_defines_no_kind(tmp_path: Path):
    lesson(tmp_path, **{"lesson.yml": "title: W\n"})
    assert errors(tmp_path) == [
        "content/w/01-a.md:7: error [widget] unknown widget kind `counter` (known kinds: none: "
        "a lesson names its kinds under `widgets:`)"
    ]


@pytest.mark.parametrize(
    ("files", "says"),
    [
        ({"widgets/counter.js": None}, "no file widgets/counter.js (it draws it)"),
        (
            {"widgets/counter.py": "raise ValueError('no')\n"},
            "widgets/counter.py raised ValueError at line 1: no",
        ),
        (
            {"widgets/counter.py": "SUMMARY = 'x'\n"},
            "widgets/counter.py has no function `check(data)`",
        ),
    ],
)
def test_a_broken_kind_is_an_error_at_its_line_in_lesson_yml(tmp_path, files, says):
    folder = lesson(tmp_path, **{k: v for k, v in files.items() if v is not None})
    for name, text in files.items():
        if text is None:
            (folder / name).unlink()
    assert errors(tmp_path) == [
        f"content/w/lesson.yml:4: error [widget] widget kind `counter`: {says}"
    ]


def test_a_path_outside_the_lesson_is_refused(tmp_path: Path):
    lesson(tmp_path, **{"lesson.yml": "title: W\nwidgets:\n  - ../counter\n  - /etc/passwd\n"})
    found = errors(tmp_path)
    assert found[:2] == [
        "content/w/lesson.yml:3: error [config] `widgets`: '../counter' must be a path inside "
        "the lesson's folder, without a suffix (`widgets/softmax-scaling` for "
        "widgets/softmax-scaling.py and .js)",
        "content/w/lesson.yml:4: error [config] `widgets`: '/etc/passwd' must be a path inside "
        "the lesson's folder, without a suffix (`widgets/softmax-scaling` for "
        "widgets/softmax-scaling.py and .js)",
    ]


def test_data_the_check_refuses_and_a_check_that_breaks_are_errors_at_the_directive(tmp_path):
    lesson(tmp_path, **{"01-a.md": SECTION.replace("start = 3", "start = 300")})
    assert errors(tmp_path) == [
        'content/w/01-a.md:7: error [widget] widget `counter` (data={"start": start}): '
        "`start` must be below 100"
    ]
    broken = CHECK.replace('return {"start"', 'return {"start": data["nope"], "x"')
    lesson(tmp_path, **{"widgets/counter.py": broken, "01-a.md": SECTION})
    assert errors(tmp_path) == [
        'content/w/01-a.md:7: error [widget] widget `counter` (data={"start": start}): '
        "counter.py's check raised KeyError: 'nope'"
    ]


def test_editing_a_check_renders_again_and_runs_no_cell(tmp_path: Path):
    folder = lesson(tmp_path)
    first = build(["w"], options(tmp_path), LogOnly())
    assert first.executed == ["w/01-a"]
    (folder / "widgets/counter.py").write_text(CHECK.replace('"checked": True', '"checked": 2'))
    again = build(["w"], options(tmp_path), LogOnly())
    assert again.executed == [] and again.reused == ["w/01-a"] and again.published
    page = (tmp_path / "dist/w/index.html").read_text("utf-8")
    assert '{"start":3,"checked":2}' in page


OLD_LESSON = """
## Scaling

```{python}
data = {"d_k": [1, 4], "unscaled": [[0.5, 0.5], [0.9, 0.1]], "scaled": [[0.5, 0.5], [0.6, 0.4]]}
```

::: {.widget kind="softmax-scaling" data="data"}
:::
"""


@pytest.mark.slow
def test_a_kind_deck_once_had_built_in_says_how_to_migrate(tmp_path: Path):
    """Issue 33, item 3: a lesson written when `softmax-scaling` was built in is told to copy
    the kind from the example lesson, and doing so builds it (CHANGELOG.md, 2026-12-01)."""
    lesson(tmp_path, **{"lesson.yml": "title: W\nlang: en\n", "01-a.md": OLD_LESSON})
    (message,) = errors(tmp_path)
    assert message.startswith("content/w/01-a.md:7: error [widget] unknown widget kind")
    assert "copy content/transformer/widgets/softmax-scaling.py and softmax-scaling.js" in message
    assert "list `widgets/softmax-scaling` under `widgets:`" in message
    assert "CHANGELOG.md" in message
    changelog = (Path(__file__).parents[2] / "CHANGELOG.md").read_text("utf-8")
    assert "softmax-scaling" in changelog and "### Widget kinds belong to the lesson" in changelog
    # the migration the message gives, done: the example lesson's files copied and listed
    example = Path(__file__).parents[2] / "content/transformer/widgets"
    folder = tmp_path / "content/w"
    for suffix in (".py", ".js"):
        (folder / f"widgets/softmax-scaling{suffix}").write_bytes(
            (example / f"softmax-scaling{suffix}").read_bytes()
        )
    (folder / "lesson.yml").write_text(
        "title: W\nlang: en\nwidgets:\n  - widgets/softmax-scaling\n", "utf-8"
    )
    report = build(["w"], options(tmp_path), LogOnly())
    assert report.published
    page = (tmp_path / "dist/w/index.html").read_text("utf-8")
    assert 'data-widget="softmax-scaling"' in page


def test_an_unknown_kind_deck_never_had_gets_no_migration(tmp_path: Path):
    lesson(tmp_path, **{"01-a.md": SECTION.replace('kind="counter"', 'kind="countr"')})
    (message,) = errors(tmp_path)
    assert "unknown widget kind `countr`" in message and "CHANGELOG" not in message
