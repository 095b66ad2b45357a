"""`harness try` and `harness run` end to end, as subprocesses, on the real LLVM build."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import run_json

W, M = "wmma.f32.16x16x128.f8f6f4", "mfma.scale.f32.16x16x128.f8f6f4"
F4S = ("wmma.f32.32x16x128.f4", "wmma.scale.f32.32x16x128.f4", "wmma.scale16.f32.32x16x128.f4")
WMMA_REGS = {"fp8": 16, "bf8": 16, "fp6": 12, "bf6": 12, "fp4": 8}
MFMA_REGS = {"fp8": 8, "bf8": 8, "fp6": 6, "bf6": 6, "fp4": 4}
RUNTIME = {
    W: WMMA_REGS,
    "wmma.scale.f32.16x16x128.f8f6f4": WMMA_REGS,
    "wmma.scale16.f32.16x16x128.f8f6f4": WMMA_REGS,
    M: MFMA_REGS,
    "mfma.scale.f32.32x32x64.f8f6f4": MFMA_REGS,
}
EXPECTED_BY_CLASS = {"exact": "pass", "overwide": "mc-reject", "underwide": "verifier-reject"}


def _try(cli, *args):
    """One selector's record (SelectionDAG unless the args name one)."""
    proc = cli("try", "--json", *args, *(() if "--selector" in args else ("--selector", "sdag")))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize(
    "args,verdict,detail",
    [
        ((W, "fp4", "fp4", "16", "16", "sdag"), "mc-reject", "wrong register tuple size"),
        ((W, "fp4", "fp4", "16", "16", "gisel"), "mc-reject", "wrong register tuple size"),
        ((W, "fp4", "fp4", "8", "8", "sdag"), "pass", ""),
        ((W, "fp8", "fp8", "8", "exact", "sdag"), "verifier-reject", "invalid vector type for format"),
        ((M, "fp4", "fp4", "8", "8", "gisel"), "mc-reject", "wrong register tuple size"),
        ((M, "fp4", "fp4", "8", "8", "sdag"), "mc-reject", "wrong register tuple size"),
        ((M, "FP4_E2M1", "4", "exact", "exact", "gisel"), "pass", ""),
    ],
    ids=lambda v: "-".join(v) if isinstance(v, tuple) else None,
)
def test_try_gives_the_measured_verdict_for_one_case(llvm_22_1_8, cli, args, verdict, detail):
    name, fa, fb, wa, wb, sel = args
    rec = _try(cli, "--intrinsic", name, "--fmt-a", fa, "--fmt-b", fb, "--width-a", wa, "--width-b", wb, "--selector", sel)
    assert rec["verdict"] == verdict, rec["detail"]
    assert detail in rec["detail"]
    assert rec["selector"] == sel and rec["llvm"] == llvm_22_1_8.version


def test_try_reports_widths_required_registers_and_the_real_tools_it_ran(llvm_22_1_8, cli):
    rec = _try(
        cli,
        "--intrinsic",
        f"llvm.amdgcn.{W}",
        "--fmt-a",
        "MATRIX_FMT_FP4",
        "--fmt-b",
        "fp6",
        "--width-a",
        "16",
        "--width-b",
        "max",
    )
    assert (rec["fmt_a"], rec["fmt_b"], rec["width_a"], rec["width_b"]) == ("fp4", "fp6", 16, 16)
    assert (rec["required_a"], rec["required_b"]) == (8, 12)
    assert rec["function"] == "wmma_f32_16x16x128_f8f6f4__a_fp4_v16__b_fp6_v16"
    assert rec["verdict"] == "mc-reject"
    tools = {Path(t["argv"][0]).name: t for t in rec["tools"]}
    assert {"llc", "llvm-mc"} <= set(tools)
    assert all(Path(t["argv"][0]).parent == llvm_22_1_8.bin_dir for t in rec["tools"])
    assert tools["llc"]["returncode"] == 0
    assert tools["llvm-mc"]["returncode"] != 0 and "error: wrong register tuple size" in tools["llvm-mc"]["stderr"]


def test_try_overwide_fixed_fp4_is_cannot_select_not_crash(llvm_22_1_8, cli):
    rec = _try(cli, "--intrinsic", F4S[0], "--width-b", "16")
    assert rec["verdict"] == "cannot-select", rec["detail"]
    assert "annot select" in rec["detail"]
    assert (rec["width_a"], rec["width_b"]) == (16, 16)


def test_try_exact_fixed_fp4_passes_without_format_flags(llvm_22_1_8, cli):
    assert _try(cli, "--intrinsic", F4S[2])["verdict"] == "pass"


@pytest.mark.parametrize(
    "args,fragment",
    [
        (("--intrinsic", "wmma.f32.16x16x64.f8f6f4", "--fmt-a", "fp8", "--fmt-b", "fp8"), "unknown intrinsic"),
        (
            ("--intrinsic", "mma.m16n8k32.row.col.f32.f32"),
            "; did you mean mma.sp.m16n8k32.row.col.f32.f32, mma.m16n8k8.row.col.f32.f32, mma.m16n8k16.row.col.f32.f32",
        ),
        (("--intrinsic", W, "--fmt-a", "fp9", "--fmt-b", "fp8"), "fp9"),
        (("--intrinsic", W, "--fmt-a", "fp8"), "--fmt-b"),
        (("--intrinsic", W, "--fmt-a", "fp8", "--fmt-b", "fp8", "--width-a", "wide"), "--width-a"),
        (("--intrinsic", W, "--fmt-a", "fp8", "--fmt-b", "fp8", "--width-b", "0"), "--width-b"),
        (("--intrinsic", F4S[0], "--fmt-a", "fp8"), "--fmt-a"),
        (("--intrinsic", W, "--fmt-a", "fp8", "--fmt-b", "fp8", "--selector", "fastisel"), "fastisel"),
        (("--intrinsic", W, "--fmt-a", "fp8", "--fmt-b", "fp8", "--llvm-bin", "/nonexistent"), "/nonexistent"),
    ],
)
def test_try_bad_input_is_one_line_and_exit_2(cli, args, fragment):
    proc = cli("try", "--json", *args)
    assert proc.returncode == 2
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    assert len(lines) == 1 and "error" in lines[0] and fragment in lines[0], lines
    assert "Traceback" not in proc.stderr


def test_full_shipped_matrix_gives_the_measured_verdicts_case_by_case(llvm_22_1_8, cli, facts_cases):
    proc = cli("run", "--json", "--cases", facts_cases)
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    assert doc["llvm"] == llvm_22_1_8.version
    records = doc["cases"]

    runtime = [r for r in records if r["intrinsic"] in RUNTIME]
    assert Counter(r["verdict"] for r in runtime) == {"pass": 250, "mc-reject": 560, "verifier-reject": 1440}
    assert len(runtime) == 2250
    per_row = Counter((r["intrinsic"], r["selector"], r["verdict"]) for r in runtime)
    for name in RUNTIME:
        for sel in ("sdag", "gisel"):
            assert [per_row[(name, sel, v)] for v in ("pass", "mc-reject", "verifier-reject")] == [25, 56, 144]

    wrong = []
    for r in runtime:  # each verdict follows from the widths against the documented register counts
        regs = RUNTIME[r["intrinsic"]]
        need_a, need_b = regs[r["fmt_a"]], regs[r["fmt_b"]]
        cls = (
            "underwide"
            if r["width_a"] < need_a or r["width_b"] < need_b
            else "overwide"
            if r["width_a"] > need_a or r["width_b"] > need_b
            else "exact"
        )
        if r["verdict"] != EXPECTED_BY_CLASS[cls]:
            wrong.append((r["function"], r["selector"], r["verdict"], cls))
    assert wrong == []
    assert all("wrong register tuple size" in r["detail"] for r in runtime if r["verdict"] == "mc-reject")
    assert all("invalid vector type for format" in r["detail"] for r in runtime if r["verdict"] == "verifier-reject")

    f4 = [r for r in records if r["intrinsic"] in F4S]
    assert len(f4) == 3 * 6 * 2
    for r in f4:
        exact = (r["width_a"], r["width_b"]) == (16, 8)
        assert r["verdict"] == ("pass" if exact else "cannot-select"), r
    assert len(records) == len(runtime) + len(f4)


def test_run_filters_by_intrinsic_and_prints_a_table_with_totals(llvm_22_1_8, cli, facts_cases):
    proc = cli("run", "--cases", facts_cases, "--intrinsic", F4S[1])
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()]
    header = rows[0]
    assert header[:2] == ["intrinsic", "selector"] and header[-1] == "total"
    body = {tuple(r[:2]): dict(zip(header[2:], r[2:])) for r in rows if r and r[0] == F4S[1]}
    assert set(body) == {(F4S[1], "sdag"), (F4S[1], "gisel")}
    for counts in body.values():
        assert counts["pass"] == "1" and counts["cannot-select"] == "5" and counts["total"] == "6"
    (total,) = [r for r in rows if r and r[0] == "all"]
    assert dict(zip(header[2:], total[1:]))["total"] == "12"


def test_run_with_a_missing_llvm_dir_is_one_line_and_exit_2(cli, facts_cases):
    proc = cli("run", "--cases", facts_cases, "--llvm-bin", "/nonexistent")
    assert proc.returncode == 2
    assert len((proc.stdout + proc.stderr).strip().splitlines()) == 1 and "/nonexistent" in proc.stderr


def test_run_with_an_unknown_intrinsic_filter_is_one_line_and_exit_2(cli, facts_cases):
    proc = cli("run", "--cases", facts_cases, "--intrinsic", "wmma.f32.16x16x64.f8f6f4")
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2
    assert len((proc.stdout + proc.stderr).strip().splitlines()) == 1


# ---- try runs every selector of the target unless --selector names one -----------------------


def test_try_runs_both_selectors_one_line_each(cli, llvm_22_1_8):
    proc = cli("try", "--intrinsic", W, "--fmt-a", "fp4", "--fmt-b", "fp4", "--width-a", "16")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("wmma_f32_16x16x128_f8f6f4__a_fp4_v16__b_fp4_v8 [-O0, LLVM 22.1.8")
    assert [line.split()[:2] for line in lines[1:3]] == [["sdag", "mc-reject"], ["gisel", "mc-reject"]]
    assert all("known bug (expected pass): obj-text-mismatch" in line and len(line) <= 150 for line in lines[1:3])
    assert lines[3].startswith("(--selector S:") and len(lines) == 4


def test_try_json_with_both_selectors_is_run_s_document(cli, llvm_22_1_8):
    proc = cli("try", "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx1100", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [(c["selector"], c["expected"], c["judgment"]) for c in doc["cases"]] == [
        ("sdag", "llc-reject", "known-bug"),
        ("gisel", "llc-reject", "known-bug"),
    ]
    assert doc["judgments"] == {"unexpected": 0, "known-bug": 2, "expected": 0, "not-judged": 0} and doc["llvm"] == "22.1.8"


def test_try_on_nvptx_runs_its_one_selector_and_prints_no_amdgpu_registers(cli, nvptx_tc, ptxas_path):
    proc = cli("try", "--intrinsic", "mma.m16n8k16.row.col.f32.f32", "--cpu", "sm_90", "--json", env={"PTXAS": ptxas_path})
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["selector"] == "sdag" and record["verdict"] == "pass"
    assert set(record["metrics"]) == {"scratch_loads", "scratch_stores", "instructions"}
    amdgpu = _try(cli, "--intrinsic", "mfma.f32.32x32x8f16", "--cpu", "gfx942")
    assert {"vgpr", "agpr", "sgpr"} <= set(amdgpu["metrics"]) and amdgpu["metrics"]["agpr"] is not None


def test_a_run_narrowed_to_one_selector_names_the_files_lit_has(llvm_22_1_8, cli, tmp_path):
    # With no known-bugs glob to send the judge to lit's files, a run narrowed by --selector
    # still names each cell's real lit file (both selectors share it), not `....sdag.ll`.
    import shutil

    for spec in (Path(__file__).parent.parent / "cases").glob("*.yaml"):
        shutil.copy(spec, tmp_path)
    (tmp_path / "known-bugs.yaml").write_text("{}\n")
    given = ("run", "--cases", tmp_path, "--intrinsic", "mfma.f32.32x32x1f32", "-O", "0", "--json")
    both = {(c["function"], c["selector"]): c["file"] for c in run_json(cli, *given)["cases"]}
    one = {(c["function"], c["selector"]): c["file"] for c in run_json(cli, *given, "--selector", "sdag")["cases"]}
    assert one and all(not f.endswith(".sdag.ll") for f in one.values()), sorted(set(one.values()))
    assert one == {k: v for k, v in both.items() if k[1] == "sdag"}
    # The whole space's cells that no spec has (no lit file): the name they have unnarrowed.
    space = ("run", "--space", "full", "--intrinsic", "wmma.f32.32x16x128.f4", "--cpu", "gfx1250", "-O", "0", "--json")
    both = {(c["function"], c["selector"]): c["file"] for c in run_json(cli, *space)["cases"]}
    one = {(c["function"], c["selector"]): c["file"] for c in run_json(cli, *space, "--selector", "sdag")["cases"]}
    assert one == {k: v for k, v in both.items() if k[1] == "sdag"}
