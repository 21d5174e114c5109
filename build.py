"""Build the lessons in content/ into dist/: `python build.py --help`.

Any Python can start it: when this one is not the project's `.venv`, the build re-runs itself
with `.venv/bin/python` if there is one, and otherwise says in one line how to set up.
"""

import os
import sys

# (os.path, not pathlib: a build the warm service runs imports nothing more than it needs)
ROOT = os.path.dirname(os.path.realpath(__file__))
VENV_PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
NEEDED = ("yaml", "jinja2", "markdown", "pygments")


def _in_venv() -> bool:
    return os.path.realpath(sys.prefix) == os.path.realpath(os.path.join(ROOT, ".venv"))


def _has_dependencies() -> bool:
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in NEEDED)


def ensure_environment() -> None:
    if _in_venv() or os.environ.get("DECK_NO_REEXEC"):
        return
    if os.path.isfile(VENV_PYTHON):
        os.environ["DECK_NO_REEXEC"] = "1"  # never loop, whatever the venv holds
        os.execv(VENV_PYTHON, [VENV_PYTHON, os.path.realpath(__file__), *sys.argv[1:]])
    if not _has_dependencies():
        print(
            "build.py: this Python lacks deck's packages and there is no .venv: "
            f"run `bash {os.path.join(ROOT, 'setup.sh')}` first",
            file=sys.stderr,
        )
        sys.exit(1)


if __name__ == "__main__":
    ensure_environment()
    sys.path.insert(0, ROOT)
    from deck import buildclient

    code = buildclient.run(sys.argv)  # (a warm service's fork runs it: deck/buildd.py)
    if code is None:
        # the service for the next build, started now: it is ready when this build ends,
        # however soon the next one comes (or once the one that did not answer has gone)
        started = buildclient.start()
        from deck.cli import main

        code = main()
        if not started:
            buildclient.start()
        from deck import warm

        buildclient.hand_over(warm.handed())  # (what it parsed and rendered, for the next)
    sys.exit(code)
