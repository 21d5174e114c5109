"""Issue 29, item 7d: a widget's `data=` that fails while the worker evaluates it (an
exception, a value JSON cannot hold) is reported with the expression the author wrote, never
the wrapper the build evaluates it in (`__import__("json").dumps(...)`)."""

from __future__ import annotations

from fixture_build import run_cli
from widget_lesson import write_widget_lesson

CELL = """
    ## A

    ```{python}
    import math
    I = [[1, 0], [0, 1]]
    ```

"""


def section(data: str) -> str:
    return CELL + f"    ::: {{.widget kind=\"attention-2x2\" data='{data}'}}\n    :::\n"


def test_a_widget_data_failure_quotes_the_authors_expression(tmp_path):
    files = {
        "01-nan.md": section('{"Q": [[math.nan, 0], [0, 1]], "K": I}'),
        "02-name.md": section('{"Q": I, "K": missing_name}'),
        "03-odd.md": section('{"Q": I, "K": object()}'),
        "04-text.md": section('{"Q": I, "K": I, "label": "\\udc80"}'),
    }
    write_widget_lesson(tmp_path, files, name="bad")
    ran = run_cli(tmp_path, "bad", "--no-pdf")
    assert ran.returncode == 1
    assert "__import__" not in ran.stderr and "dumps" not in ran.stderr, ran.stderr
    errors = {
        line.split(":")[0].rsplit("/", 1)[1]: line
        for line in ran.stderr.splitlines()
        if ": error [" in line
    }
    expected = {
        "01-nan.md": 'content/bad/01-nan.md:8: error [inline] widget data `{"Q": [[math.nan, '
        '0], [0, 1]], "K": I}` failed: ValueError: Out of range float values are not JSON',
        "02-name.md": 'content/bad/02-name.md:8: error [inline] widget data `{"Q": I, "K": '
        "missing_name}` failed: NameError: name 'missing_name' is not defined",
        "03-odd.md": 'content/bad/03-odd.md:8: error [inline] widget data `{"Q": I, "K": '
        "object()}` failed: ",
        "04-text.md": 'content/bad/04-text.md:8: error [inline] widget data `{"Q": I, "K": I, '
        '"label": "\\udc80"}` failed: the value of widget data `',
    }
    assert set(errors) == set(expected), ran.stderr
    for name, start in expected.items():
        assert errors[name].startswith(start), (errors[name], start)
