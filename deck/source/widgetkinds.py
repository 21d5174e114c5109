"""The widget kinds a lesson defines (`widgets:` in lesson.yml): each `<path>.py` is loaded for
its data check, each `<path>.js` is bundled into the deck's widget script. A problem is an
error at the kind's line in lesson.yml."""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path

from deck.errors import Diagnostic
from deck.model import WidgetKind, WidgetSource


def load_widget_kinds(
    folder: Path, declared: tuple[WidgetSource, ...]
) -> tuple[tuple[WidgetKind, ...], list[Diagnostic]]:
    kinds, problems = [], []
    for widget in declared:
        try:
            kinds.append(load_kind(folder, widget))
        except KindProblem as problem:
            message = f"widget kind `{widget.name}`: {problem}"
            problems.append(Diagnostic(widget.loc, "widget", message))
    return tuple(kinds), problems


class KindProblem(Exception):
    pass


def load_kind(folder: Path, widget: WidgetSource) -> WidgetKind:
    root = folder.resolve()
    files = {}
    for suffix in (".py", ".js"):
        path = (folder / f"{widget.path}{suffix}").resolve()
        if root not in path.parents:
            raise KindProblem(f"{widget.path}{suffix} is outside the lesson's folder")
        if not path.is_file():
            what = "checks its data" if suffix == ".py" else "draws it"
            raise KindProblem(f"no file {widget.path}{suffix} (it {what})")
        files[suffix] = path
    module_name = f"deck_widget_{widget.name.replace('-', '_')}"  # (in sys.modules only while run)
    spec = importlib.util.spec_from_file_location(module_name, files[".py"])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the author's module: say where it broke
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == spec.origin]
        line = f" at line {frames[-1].lineno}" if frames else ""
        raise KindProblem(f"{widget.path}.py raised {type(exc).__name__}{line}: {exc}") from None
    finally:
        sys.modules.pop(module_name, None)
    check = getattr(module, "check", None)
    if not callable(check):
        raise KindProblem(f"{widget.path}.py has no function `check(data)`")
    summary = getattr(module, "SUMMARY", "")
    if not isinstance(summary, str):
        raise KindProblem(f"{widget.path}.py: `SUMMARY` must be text")
    return WidgetKind(widget.name, check, summary, files[".js"], files[".py"])
