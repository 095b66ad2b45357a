#!/usr/bin/env bash
# Install what the harness needs and is missing: LLVM 22 (Debian packages) unless $LLVM_BIN
# points at another build, and a virtual environment .venv with the harness and its tools.
# With --test, also what the project's own tests use: the older Debian builds llvm-14, -15, -16
# and -19 (real builds that know older MFMA/WMMA rows but not gfx950/gfx1250: verdicts across
# builds, bisect skips, matrix comparisons) and
# chromium with its driver (the HTML report is tested in a real browser).
# Safe to re-run: each step is skipped when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

want=()
if [ -z "${LLVM_BIN:-}" ] && [ ! -x /usr/lib/llvm-22/bin/llc ]; then
  want+=(llvm-22 llvm-22-tools)
fi
if [ "${1:-}" = "--test" ]; then
  for v in 14 15 16 19; do
    [ -x /usr/lib/llvm-$v/bin/llc ] || want+=(llvm-$v)
  done
  { [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; } || want+=(chromium chromium-driver)
fi
if [ ${#want[@]} -gt 0 ]; then
  echo "setup: installing ${want[*]} (Debian packages)" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${want[@]}" >/dev/null
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
# Bytecode for the harness's modules: a `harness` process then reads them instead of compiling
# ~50 modules (0.1 s a run) where PYTHONDONTWRITEBYTECODE is set; stale files go by mtime.
.venv/bin/python -m compileall -q harness >/dev/null

# ptxas closes llc's NVPTX output. Without a CUDA install, the pip wheel nvidia-cuda-nvcc has one
# (the harness finds it in .venv's site-packages); $PTXAS or PATH name another.
if [ -z "${PTXAS:-}" ] && ! command -v ptxas >/dev/null && [ ! -x /usr/local/cuda/bin/ptxas ] \
   && ! ls .venv/lib/python3*/site-packages/nvidia/cu*/bin/ptxas >/dev/null 2>&1; then
  echo "setup: installing ptxas (pip nvidia-cuda-nvcc) into .venv" >&2
  .venv/bin/python -m pip install -q --disable-pip-version-check nvidia-cuda-nvcc
fi
