#!/usr/bin/env bash
# One step of `git bisect run` over LLVM builds: test the build in DIR (its bin/ directory).
#   exit 0   every generated test passed (or failed as its known bug says)     -> good
#   exit 1   a test failed                                                      -> bad
#   exit 125 the build could not be tested (no llc, lit configuration error)  -> skip
# lit itself exits 2 on a configuration error, which git bisect would count as "bad".
# Extra arguments go to lit, e.g. a filter: ci/bisect-step.sh DIR --filter overwide
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:?usage: ci/bisect-step.sh LLVM_BIN_DIR [lit args...]}"
shift
[ -x "$dir/llc" ] || { echo "bisect-step: no llc in $dir: skip" >&2; exit 125; }
lit="$here/.venv/bin/lit"; [ -x "$lit" ] || lit="$(command -v lit)" || { echo "bisect-step: no lit (run ci/setup.sh)" >&2; exit 125; }
"$lit" -q "$here/cases" --param llvm_bin="$dir" "$@"
case $? in
  0) exit 0 ;;
  1) exit 1 ;;
  *) echo "bisect-step: lit could not run the suite on $dir: skip" >&2; exit 125 ;;
esac
