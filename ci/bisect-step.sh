#!/usr/bin/env bash
# One step of `git bisect run` over LLVM builds: test the build in DIR (its bin/ directory) with lit.
#   exit 0    every test that ran passed (or failed as its known bug says)          -> good
#   exit 1    a test failed                                                          -> bad
#   exit 125  the build cannot judge: no llc, a tool missing (lit configuration
#             error), or every selected test UNSUPPORTED (no such target/CPU)       -> skip
#   exit 129  usage error, 128 this script's own failure                             -> abort the bisect
# Extra arguments go to lit, e.g. a filter or raw verdicts:
#   ci/bisect-step.sh DIR --filter overwide --param known_bugs=off
# `harness bisect-run` is the finer tool (per-case verdicts, --want, --invert); see docs/bisect.md.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ] || [ -z "$1" ] || [ "${1#-}" != "$1" ]; then
  echo "usage: ci/bisect-step.sh LLVM_BIN_DIR [lit args...]" >&2
  exit 129
fi
dir="$1"
shift
[ -x "$dir/llc" ] || { echo "bisect-step: no llc in $dir: skip" >&2; exit 125; }
lit="$here/.venv/bin/lit"
[ -x "$lit" ] || lit="$(command -v lit)" || { echo "bisect-step: no lit (run ci/setup.sh)" >&2; exit 128; }
out="$(mktemp)" || exit 128
trap 'rm -f "$out"' EXIT
"$lit" -s "$here/cases" --param llvm_bin="$dir" "$@" >"$out" 2>&1
rc=$?
cat "$out"
case $rc in
  0|1) ;;
  *) # lit's "fatal:" is its configuration failing on this build (a tool missing): skip. Anything
     # else (a bad flag, a --filter that matches nothing) is a usage error: abort the bisect.
     if grep -q "fatal:" "$out"; then
       echo "bisect-step: lit could not configure the suite for $dir (exit $rc): skip" >&2; exit 125
     fi
     echo "bisect-step: lit refused the arguments (exit $rc): aborting the bisect" >&2; exit 129 ;;
esac
total=$(sed -n 's/^Total Discovered Tests: *\([0-9]*\).*/\1/p' "$out")
unsupported=$(sed -n 's/^ *Unsupported *: *\([0-9]*\).*/\1/p' "$out")
excluded=$(sed -n 's/^ *Excluded *: *\([0-9]*\).*/\1/p' "$out")
ran=$(( ${total:-0} - ${unsupported:-0} - ${excluded:-0} ))
if [ "$ran" -le 0 ]; then
  echo "bisect-step: no test could run on $dir (${unsupported:-0} UNSUPPORTED of ${total:-0}): skip" >&2
  exit 125
fi
exit $rc
