"""Which Python runs a `.qmd`'s cells: the interpreter its author chose, as Quarto finds it.

In order: `QUARTO_PYTHON`; the `jupyter:` kernelspec's name resolved to its interpreter (the
kernel's `kernel.json` in Jupyter's usual folders; `python3` is the current environment's);
the active virtualenv (`VIRTUAL_ENV`) or conda environment (`CONDA_PREFIX`); else this
build's own. The worker needs only the standard
library there (figures when matplotlib is installed in it). A lesson folder always runs in
this build's environment (its packages are pinned in requirements.txt).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

GENERIC = {"python", "python3"}  # the default kernel's names: the current environment's Python


@dataclass(frozen=True)
class Interpreter:
    path: str
    why: str  # how it was chosen, for messages

    @property
    def own(self) -> bool:
        return os.path.realpath(self.path) == os.path.realpath(sys.executable)


def kernel_dirs() -> list[Path]:
    """Where Jupyter looks for kernelspecs (`jupyter --paths`' data folders)."""
    home = Path.home()
    found = [Path(p) / "kernels" for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    data = os.environ.get("JUPYTER_DATA_DIR") or str(home / ".local" / "share" / "jupyter")
    found.append(Path(data) / "kernels")
    for prefix in (sys.prefix, os.environ.get("CONDA_PREFIX"), "/usr/local", "/usr"):
        if prefix:
            found.append(Path(prefix) / "share" / "jupyter" / "kernels")
    return found


def kernel_python(name: str) -> str | None:
    """The interpreter a kernelspec named `name` starts (its `argv[0]`), if one is found."""
    for folder in kernel_dirs():
        spec = folder / name / "kernel.json"
        try:
            argv = json.loads(spec.read_text("utf-8")).get("argv") or []
        except (OSError, ValueError, AttributeError):
            continue
        if argv and "python" in Path(str(argv[0])).name:
            return str(argv[0])
    return None


def _env_python(prefix: str | None) -> str | None:
    if not prefix:
        return None
    found = Path(prefix) / "bin" / "python"
    return str(found) if found.exists() else None


def author_python(kernel: str | None = None) -> Interpreter:
    """The interpreter a `.qmd`'s cells run with (`kernel`: its `jupyter:` kernelspec name)."""
    chosen = os.environ.get("QUARTO_PYTHON")
    if chosen:
        return Interpreter(chosen, "QUARTO_PYTHON")
    if kernel and kernel.lower() not in GENERIC:  # `python3` names no environment of its own
        found = kernel_python(kernel)
        if found:
            return Interpreter(found, f"the `{kernel}` kernel")
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        found = _env_python(os.environ.get(variable))
        if found:
            return Interpreter(found, variable)
    return Interpreter(sys.executable, "this build's own")


@functools.cache
def describe(path: str) -> str:
    """The interpreter's version and prefix (part of the cache key), or why it cannot run."""
    try:
        proc = subprocess.run(
            [path, "-c", "import sys; print(sys.version); print(sys.prefix)"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as e:
        return f"unusable: {e}"
    return proc.stdout.strip() if proc.returncode == 0 else f"unusable: {proc.stderr.strip()}"
