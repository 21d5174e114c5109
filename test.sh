#!/usr/bin/env bash
# Runs the whole test suite (setting up first if this clone has not been set up yet).
set -euo pipefail
cd "$(dirname "$0")"
bash setup.sh --no-build
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# a layout check's warm browser (deck/publish/layoutd.py) ends 5 s after its last request, so
# none outlives the suite (its default is 300 s)
export DECK_LAYOUTD_IDLE="${DECK_LAYOUTD_IDLE:-5}"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python -m mypy  # the engine's types (pyproject.toml, [tool.mypy])
.venv/bin/python -m pytest -n 2 "$@"
if [ "$#" -eq 0 ]; then
  # the whole suite: the lesson's training claims under every CPU capability this machine has,
  # math-library threads 1 and 2 and seeds beyond the slides' (README, "Any machine")
  .venv/bin/python tests/content/robustness.py --ci
fi
