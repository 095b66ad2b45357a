"""Verdict precedence when two faults meet in one case (fault injection: the real LLVM 22 build
with one or two tools replaced by scripts that fail two ways at once).

Each expected verdict is read off the definitions in docs/verdicts.md and `harness --help`, never
off the harness's own precedence code:
- `cannot-select`: the selector gave up ("Cannot select" with signal 6, GlobalISel's "cannot
  select" with exit 1), whatever else the message says;
- `llc-reject`: a clean diagnostic only: an `error:` line, a non-zero exit, no signal, no
  `LLVM ERROR`; so an `error:` line with a signal, an `LLVM ERROR`, an assertion or a
  register-allocation failure is a `crash` ("anything else");
- `verifier-reject`: the IR verifier refused the call (whatever the tool did after saying so);
- `timeout`: a tool ran past --timeout (whatever it printed before it was stopped);
- `mc-reject` is the assembler rejecting llc's text, so an assembler that dies by a signal is a
  `crash` even when it printed an error on a line of the function first.
"""

from __future__ import annotations

import pytest
from conftest import fake_build, run_json

# A case that passes on LLVM 22 (gfx942 has the instruction): any other verdict is the fault's.
CASE = ("--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx942", "--selector", "sdag", "--no-object")
SELECT_FAILED = "LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.mfma.f32.32x32x8f16"


def _passing_through(real: str, body: str) -> str:
    """A script that answers the harness's questions about the build (--version, -mcpu=help) as
    the real tool does, and does `body` with the case's module."""
    return f'case "$*" in *--version*|*help*) exec {real} "$@";; esac\n{body}'


def _verdict(cli, tmp_path, llvm, tool: str, body: str, *extra: str, timeout: str = "30") -> dict:
    real = llvm.bin_dir / tool
    fake = fake_build(tmp_path, llvm.bin_dir, tool, _passing_through(str(real), body))
    return run_json(cli, "try", "--llvm-bin", fake, *CASE, *extra, "--timeout", timeout)


# llc's two faults at once -> the verdict docs/verdicts.md defines for them.
LLC_FAULTS = {
    # The selector gave up and llc aborted (signal 6): SelectionDAG's documented form.
    "cannot-select-and-signal-6": (f'cat >/dev/null\necho "{SELECT_FAILED}" >&2\nkill -ABRT $$\n', "cannot-select"),
    # The selector gave up, then llc died of another signal: still the selector giving up.
    "cannot-select-and-segv": (f'cat >/dev/null\necho "{SELECT_FAILED}" >&2\nkill -SEGV $$\n', "cannot-select"),
    # GlobalISel's documented form: "cannot select" in an error: line, exit 1, no signal: both
    # llc-reject's letter and cannot-select's; the selector gave up.
    "gisel-cannot-select-as-a-clean-error": (
        'cat >/dev/null\necho "error: <unknown>:0:0: in function f void (): cannot select: G_INTRINSIC" >&2\nexit 1\n',
        "cannot-select",
    ),
    # An error: line and an LLVM ERROR, exit 1: not clean (LLVM ERROR), so a crash.
    "llvm-error-and-error-line": (
        'cat >/dev/null\necho "error: <unknown>:0:0: bad operand" >&2\necho "LLVM ERROR: out of range" >&2\nexit 1\n',
        "crash",
    ),
    # A clean-looking error: line, but llc was killed by a signal: a crash.
    "error-line-and-signal": ('cat >/dev/null\necho "error: <unknown>:0:0: bad operand" >&2\nkill -SEGV $$\n', "crash"),
    # An error: line and an assertion, exit 1: a crash.
    "error-line-and-assertion": (
        'cat >/dev/null\necho "error: bad operand" >&2\necho "llc: X.cpp:1: Assertion \\`x\' failed." >&2\nexit 1\n',
        "crash",
    ),
    # An error: line and a register-allocation failure, exit 1: a crash.
    "error-line-and-register-allocation": (
        'cat >/dev/null\necho "error: <unknown>:0:0: ran out of registers during register allocation" >&2\nexit 1\n',
        "crash",
    ),
    # The legalizer gave up and llc aborted with a crash dump: still the selector giving up.
    "unable-to-legalize-stack-dump-and-signal-6": (
        'cat >/dev/null\necho "LLVM ERROR: unable to legalize instruction: G_FOO" >&2\necho "Stack dump:" >&2\nkill -ABRT $$\n',
        "cannot-select",
    ),
    # An error: line and a crash dump, exit 1 (no signal): not clean, so a crash.
    "error-line-and-stack-dump": (
        'cat >/dev/null\necho "error: <unknown>:0:0: bad operand" >&2\necho "Stack dump:" >&2\nexit 1\n',
        "crash",
    ),
    # One clean fault alone, for contrast: the definition's own case.
    "clean-error-alone": ('cat >/dev/null\necho "error: <unknown>:0:0: in function f void (): bad" >&2\nexit 1\n', "llc-reject"),
}


@pytest.mark.parametrize("body, verdict", LLC_FAULTS.values(), ids=LLC_FAULTS.keys())
def test_two_llc_faults_give_the_verdict_the_docs_define(llvm_22_1_8, cli, tmp_path, body, verdict):
    got = _verdict(cli, tmp_path, llvm_22_1_8, "llc", body)
    assert got["verdict"] == verdict, got


def test_an_llc_that_says_cannot_select_and_then_hangs_is_a_timeout(llvm_22_1_8, cli, tmp_path):
    body = f'cat >/dev/null\necho "{SELECT_FAILED}" >&2\nexec sleep 600\n'
    got = _verdict(cli, tmp_path, llvm_22_1_8, "llc", body, timeout="2")
    assert got["verdict"] == "timeout", got


MC_FAULTS = {
    # llc's text is fine; llvm-mc prints an error on a line of the function, then hangs.
    "error-then-timeout": ('cat >/dev/null\necho "<stdin>:80:1: error: invalid operand" >&2\nexec sleep 600\n', "timeout"),
    # llvm-mc prints an error on a line of the function, then dies by a signal: it crashed.
    "error-then-signal": ('cat >/dev/null\necho "<stdin>:80:1: error: invalid operand" >&2\nkill -SEGV $$\n', "crash"),
}


@pytest.mark.parametrize("body, verdict", MC_FAULTS.values(), ids=MC_FAULTS.keys())
def test_two_assembler_faults_give_the_verdict_the_docs_define(llvm_22_1_8, cli, tmp_path, body, verdict):
    got = _verdict(cli, tmp_path, llvm_22_1_8, "llvm-mc", body, timeout="2")
    assert got["verdict"] == verdict, got


def test_the_verifier_refusing_the_call_and_llc_then_crashing_is_verifier_reject(llvm_22_1_8, cli, tmp_path):
    # A non-constant cbsz: the verifier refuses the call. llvm-as (which would decide it first)
    # is gone, and llc prints the real verifier's diagnostic and then dies by a signal.
    real = llvm_22_1_8.bin_dir / "llc"
    body = f'{real} "$@" 2>&1 >/dev/null | cat >&2\nkill -SEGV $$\n'
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llc", _passing_through(str(real), body))
    (fake / "llvm-as").unlink()
    got = run_json(cli, "try", "--llvm-bin", fake, *CASE, "--arg", "3=%x")
    assert got["verdict"] == "verifier-reject", got
    assert "immarg operand has non-immediate parameter" in got["detail"], got
    assert [t["returncode"] for t in got["tools"]] == [-11], got["tools"]  # (llc's own run decided it)


@pytest.mark.parametrize("body, verdict", MC_FAULTS.values(), ids=MC_FAULTS.keys())
def test_two_assembler_faults_on_a_module_of_two_cases_give_each_the_same_verdict(
    llvm_22_1_8, cli, spec_dir, tmp_path, body, verdict
):
    # Two cases that share one module: the assembler's faults say the same about both (a module
    # that ran out of time is not retried; one whose assembler died is retried case by case).
    real = llvm_22_1_8.bin_dir / "llvm-mc"
    fake = fake_build(tmp_path, llvm_22_1_8.bin_dir, "llvm-mc", _passing_through(str(real), body))
    spec = "matrix:\n  - intrinsic: wmma.f32.16x16x128.f8f6f4\n    fmt_a: [fp8, fp4]\n    fmt_b: fp4\n    selector: sdag\n"
    got = run_json(cli, "run", "--cases", spec_dir({"s.yaml": spec}), "--llvm-bin", fake, "--timeout", "2")
    assert [c["verdict"] for c in got["cases"]] == [verdict, verdict], got["cases"]
