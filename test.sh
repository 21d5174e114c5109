#!/usr/bin/env bash
# The test suite (setting up first if this clone has not been set up yet):
#   bash test.sh --all   everything: ruff, mypy, every test, then the lesson's robustness check
#                        (the README's second command; .ci/run runs it)
#   bash test.sh         the same without the tests marked `slow` (the lesson's training claims
#                        recomputed, the reference deck, builds killed at random moments…) and
#                        without the robustness check: the edit loop's suite
#   bash test.sh ARGS    ruff on the engine only, mypy, then `pytest -n 2 --dist worksteal ARGS`
#                        (e.g. `-k softmax`, a lesson's tests; `-m slow`)
# What ruff checks (`ruff check` and `ruff format --check`, pyproject.toml's settings): with no
# ARGS and with --all, the whole repository: the engine, the lessons' modules (content/) and the
# Python cells inside their .md files, and the lessons' tests (tests/lessons/); with ARGS, only
# the engine (deck/, build.py, bench/ and tests/ but tests/lessons/), so a lecturer's own code
# never stops their tests from running (lint it with `bash test.sh`, or `.venv/bin/ruff check
# content/LESSON`). mypy checks the engine's types (deck/) every time.
set -euo pipefail
cd "$(dirname "$0")"
all=0
if [ "${1:-}" = "--all" ]; then
  all=1
  shift
fi
bash setup.sh --no-build
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# a layout check's warm browser (deck/publish/layoutd.py) ends 5 s after its last request, so
# none outlives the suite (its default is 300 s)
export DECK_LAYOUTD_IDLE="${DECK_LAYOUTD_IDLE:-5}"
if [ "$all" -eq 1 ] || [ "$#" -eq 0 ]; then
  lint=(.)  # everything (CI: .ci/run runs --all)
else
  lint=(deck build.py bench tests --extend-exclude tests/lessons)  # the engine only
fi
.venv/bin/ruff check "${lint[@]}"
.venv/bin/ruff format --check "${lint[@]}"
.venv/bin/python -m mypy  # the engine's types (pyproject.toml, [tool.mypy])
if [ "$all" -eq 1 ]; then
  .venv/bin/python -m pytest -n 2 --dist worksteal "$@"
  # the lesson's training claims under every CPU capability this machine has, math-library
  # threads 1 and 2 and seeds beyond the slides' (README, "Any machine")
  .venv/bin/python tests/content/robustness.py --ci
elif [ "$#" -eq 0 ]; then
  .venv/bin/python -m pytest -n 2 --dist worksteal -m "not slow"
else
  .venv/bin/python -m pytest -n 2 --dist worksteal "$@"
fi
