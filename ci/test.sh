#!/usr/bin/env bash
# The project's own tests (pytest, in parallel), after installing what they need.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh --test
.venv/bin/ruff check --quiet .
.venv/bin/ruff format --check --quiet .
.venv/bin/mypy
.venv/bin/python -m pytest -n auto -q "$@"
