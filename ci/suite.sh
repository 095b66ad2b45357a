#!/usr/bin/env bash
# The main job: the regression suite on the default LLVM 22 toolchain (or $LLVM_BIN), via lit,
# then the verdict table for every case. Extra arguments go to lit (e.g. --param llvm_bin=DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
.venv/bin/lit -sv cases/ "$@"
.venv/bin/harness run
