"""What running a section produced: each cell's outputs and figures, the inline values, and
what the code depended on (`SectionResult`, JSON-able: the section cache keeps it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Output:
    """One displayed result of a cell: `kind` is "html", "text" or "stdout"."""

    kind: str
    data: str


@dataclass(frozen=True)
class Figure:
    file: str  # file name inside figures/<lesson>/ (an SVG)
    width_in: float
    height_in: float
    png: str = ""  # the same figure as PNG at twice its size, beside it (notebooks, PPTX)
    text_pt: float = 0.0  # its smallest text at its own size (a matplotlib figure's), 0: unknown


@dataclass(frozen=True)
class CellResult:
    line: int  # the .md line of the cell fence
    outputs: tuple[Output, ...]
    figures: tuple[Figure, ...]
    seconds: float


@dataclass(frozen=True)
class Dependency:
    """Something a section's results depend on, recorded while it ran and checked on lookup.

    `kind` is "file" (a file the section opened for reading: data, weights, fonts, a module
    outside site-packages), "engine" (a file of the deck package the worker used), "dist"
    (an installed distribution behind a module the section imported; `path` is its RECORD),
    or one of the kinds whose `sha256` is a state (see `deck.store.inputs`): "installed"
    (the identity of the imported files of a site-packages module), "listing", "glob",
    "stat", "env"; "output" (a file the section wrote: not checked) and "unknown" (something
    the section did that hides its inputs: never holds).
    `path` is relative to the lesson folder when inside it, else absolute. `sha256` is "" for a
    file that did not exist; `mtime_ns` is -1 when the stat cannot be trusted (hash again).
    """

    kind: str
    name: str  # what messages call it: "data.csv", "deck/show.py", "numpy 2.1.0"
    path: str
    sha256: str
    size: int
    mtime_ns: int
    ctime_ns: int = 0  # with `inode`: a same-size edit that sets the mtime back is still seen
    inode: int = 0

    def to_json(self) -> list[Any]:
        return [
            self.kind,
            self.name,
            self.path,
            self.sha256,
            self.size,
            self.mtime_ns,
            self.ctime_ns,
            self.inode,
        ]

    @staticmethod
    def from_json(data: list[Any]) -> Dependency:
        kind, name, path, sha256, size, mtime_ns, *identity = data
        ctime_ns, inode = (int(identity[0]), int(identity[1])) if identity else (0, 0)
        return Dependency(
            str(kind), str(name), str(path), str(sha256), int(size), int(mtime_ns), ctime_ns, inode
        )


@dataclass(frozen=True)
class SectionResult:
    """What executing a section produced; JSON-able via `to_json`/`from_json` (the worker's
    answer and the cache entry use this one form)."""

    key: str
    cells: tuple[CellResult, ...]
    inline: dict[str, str]  # expression -> text shown
    seconds: float
    figure_dir: str = ""  # where the figure files of this result are kept (cache folder)
    deps: tuple[Dependency, ...] = ()  # what the results depend on besides the key
    warnings: tuple[str, ...] = ()  # from the run that computed it (a thread left running)
    # what decided its floating-point kernels in the run that computed it (torch's CPU
    # capability and threads, the BLAS, the thread variables: `deck.host.kernels`);
    # {} when its cells imported neither torch nor numpy, or for a cache entry from before
    kernels: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"warnings": list(self.warnings)} if self.warnings else {}
        if self.kernels:
            extra["kernels"] = self.kernels
        return {
            **extra,
            "key": self.key,
            "seconds": self.seconds,
            "inline": self.inline,
            "cells": [
                {
                    "line": c.line,
                    "seconds": c.seconds,
                    "outputs": [[o.kind, o.data] for o in c.outputs],
                    "figures": [
                        [f.file, f.width_in, f.height_in, f.png, f.text_pt] for f in c.figures
                    ],
                }
                for c in self.cells
            ],
            "deps": [d.to_json() for d in self.deps],
        }

    @staticmethod
    def from_json(data: dict[str, Any], figure_dir: str = "") -> SectionResult:
        return SectionResult(
            key=str(data["key"]),
            seconds=float(data["seconds"]),
            inline={str(k): str(v) for k, v in data["inline"].items()},
            cells=tuple(
                CellResult(
                    line=int(c["line"]),
                    seconds=float(c["seconds"]),
                    outputs=tuple(Output(str(k), str(d)) for k, d in c["outputs"]),
                    figures=tuple(
                        Figure(
                            str(f),
                            float(w),
                            float(h),
                            str(more[0]) if more else "",
                            float(more[1]) if len(more) > 1 else 0.0,
                        )
                        for f, w, h, *more in c["figures"]
                    ),
                )
                for c in data["cells"]
            ),
            figure_dir=figure_dir,
            deps=tuple(Dependency.from_json(d) for d in data.get("deps", ())),
            warnings=tuple(str(w) for w in data.get("warnings", ())),
            kernels=dict(data.get("kernels") or {}),
        )
