"""Calls the verifier should reject are judged by one llvm-as run per module, for every selector
at once (the verifier llc runs first does not depend on the selector); whatever llvm-as does not
reject is compiled as any other case. Tool runs are counted through logging wrappers around the
real build (fault injection), never timed."""

from __future__ import annotations

import json
from pathlib import Path

TOOLS = ("llc", "llvm-mc", "opt", "llvm-as", "llvm-objdump", "FileCheck")
ONE = ("--spec", "verifier-rejections.yaml", "--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--json")


def logging_build(tmp_path: Path, real: Path, replace: dict[str, str] | None = None, drop: tuple[str, ...] = ()) -> Path:
    """The real build, each tool behind a wrapper that appends its arguments to runs.log; a tool
    in `replace` runs that shell text instead, one in `drop` is missing."""
    out = tmp_path / "bin"
    out.mkdir()
    for name in TOOLS:
        if name in drop:
            continue
        body = (replace or {}).get(name, f'exec {real / name} "$@"')
        (out / name).write_text(f'#!/bin/sh\necho "{name} $*" >> {tmp_path / "runs.log"}\n{body}\n')
        (out / name).chmod(0o755)
    return out


def _runs(tmp_path: Path, tool: str) -> list[str]:
    """The compile runs of `tool` (probes of the build's version and CPUs left out)."""
    lines = (tmp_path / "runs.log").read_text().splitlines()
    return [l for l in lines if l.split(" ")[0] == tool and "--version" not in l and "-mcpu=help" not in l]


def _verdicts(proc) -> dict[tuple[str, str], str]:
    assert proc.returncode == 0, proc.stderr
    return {(c["function"], c["selector"]): c["verdict"] for c in json.loads(proc.stdout)["cases"]}


def test_rejected_calls_cost_one_llvm_as_run_and_no_llc_run(llvm_22_1_8, cli, tmp_path):
    fake = logging_build(tmp_path, llvm_22_1_8.bin_dir)
    verdicts = _verdicts(cli("run", "--llvm-bin", fake, *ONE))
    assert len(verdicts) > 10 and set(verdicts.values()) == {"verifier-reject"}, verdicts
    assert {sel for _, sel in verdicts} == {"sdag", "gisel"}
    assert len(_runs(tmp_path, "llvm-as")) == 1, _runs(tmp_path, "llvm-as")
    assert _runs(tmp_path, "llc") == []


def test_without_llvm_as_llc_gives_the_same_verdicts(llvm_22_1_8, cli, tmp_path):
    with_as = _verdicts(cli("run", "--llvm-bin", llvm_22_1_8.bin_dir, *ONE))
    fake = logging_build(tmp_path, llvm_22_1_8.bin_dir, drop=("llvm-as",))
    assert _verdicts(cli("run", "--llvm-bin", fake, *ONE)) == with_as
    assert len(_runs(tmp_path, "llc")) == 2  # one module per selector


def test_what_llvm_as_accepts_is_left_to_llc(llvm_22_1_8, cli, tmp_path):
    """An llvm-as that accepts every module decides nothing: llc's own verifier still rejects
    each call, per selector."""
    fake = logging_build(tmp_path, llvm_22_1_8.bin_dir, replace={"llvm-as": "cat >/dev/null\nexit 0"})
    verdicts = _verdicts(cli("run", "--llvm-bin", fake, *ONE))
    assert set(verdicts.values()) == {"verifier-reject"}, verdicts
    assert len(_runs(tmp_path, "llvm-as")) == 1 and len(_runs(tmp_path, "llc")) == 2


def test_calls_the_verifier_accepts_cost_no_llvm_as_run(llvm_22_1_8, cli, tmp_path):
    """A codegen module goes straight to llc, one task per selector: llvm-as would decide nothing."""
    fake = logging_build(tmp_path, llvm_22_1_8.bin_dir)
    proc = cli("run", "--llvm-bin", fake, "--spec", "f4-fixed-format.yaml", "--intrinsic", "wmma.f32.32x16x128.f4", "--json")
    verdicts = _verdicts(proc)
    assert len(verdicts) > 2 and "verifier-reject" not in set(verdicts.values()), verdicts
    assert _runs(tmp_path, "llvm-as") == [] and _runs(tmp_path, "llc") != []
