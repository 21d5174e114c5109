"""Build the lessons in content/ into dist/: `python build.py --help`.

Any Python can start it: when this one is not the project's `.venv`, the build re-runs itself
with `.venv/bin/python` if there is one, and otherwise says in one line how to set up.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV_PYTHON = ROOT / ".venv" / "bin" / "python"
NEEDED = ("yaml", "jinja2", "markdown", "pygments")


def _in_venv() -> bool:
    return Path(sys.prefix).resolve() == (ROOT / ".venv").resolve()


def _has_dependencies() -> bool:
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in NEEDED)


def ensure_environment() -> None:
    if _in_venv() or os.environ.get("DECK_NO_REEXEC"):
        return
    if VENV_PYTHON.is_file():
        os.environ["DECK_NO_REEXEC"] = "1"  # never loop, whatever the venv holds
        os.execv(VENV_PYTHON, [str(VENV_PYTHON), str(Path(__file__).resolve()), *sys.argv[1:]])
    if not _has_dependencies():
        print(
            "build.py: this Python lacks deck's packages and there is no .venv: "
            f"run `bash {ROOT / 'setup.sh'}` first",
            file=sys.stderr,
        )
        sys.exit(1)


if __name__ == "__main__":
    ensure_environment()
    sys.path.insert(0, str(ROOT))
    from deck import buildd

    code = buildd.run(sys.argv)  # (a warm service's fork runs it: deck/buildd.py)
    if code is None:
        from deck.cli import main

        code = main()
        buildd.start()  # (for the next build)
    sys.exit(code)
