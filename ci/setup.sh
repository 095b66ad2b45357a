#!/usr/bin/env bash
# Install what the harness needs and is missing: LLVM 22 (Debian packages) unless $LLVM_BIN
# points at another build, and a virtual environment .venv with the harness and its tools.
# Safe to re-run: each step is skipped when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${LLVM_BIN:-}" ] && [ ! -x /usr/lib/llvm-22/bin/llc ]; then
  echo "setup: installing llvm-22 llvm-22-tools (Debian packages)" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q llvm-22 llvm-22-tools >/dev/null
fi

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv" >&2
  "$PY" -m venv .venv
fi
stamp=".venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)"
if [ ! -e "$stamp" ]; then
  echo "setup: installing the harness and its Python dependencies into .venv" >&2
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
  rm -f .venv/.installed-*; touch "$stamp"
fi
