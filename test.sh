#!/usr/bin/env bash
# Runs the whole test suite (setting up first if this clone has not been set up yet).
set -euo pipefail
cd "$(dirname "$0")"
bash setup.sh --no-build
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check .
.venv/bin/ruff format --check .
exec .venv/bin/python -m pytest -n 2 "$@"
