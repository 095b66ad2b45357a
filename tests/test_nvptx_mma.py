"""NVPTX single-instruction mma (harness.nvptx.mma, harness.nvptx.single, harness.targets): the
table, the lit files through real lit, the runner's verdicts and register counts read from real
PTX, every rejection with the tool's own message, and a planted wrong count that lit catches.

Real tools only: tests that need llc with NVPTX or ptxas skip without them, unless $CI is set,
where their absence fails.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.nvptx import mma, mma_lit, single
from harness.targets import AMDGPU, NVPTX
from harness.tools import verdicts as V

K16_BF16 = "mma.m16n8k16.row.col.bf16"
CPUS = ("sm_80", "sm_90", "sm_100a")


@pytest.fixture(scope="module")
def outcomes(nvptx_tc, ptxas_path):
    return single.run(mma.cases(), nvptx_tc, ptxas_path)


def _by(outcomes, function, cpu="sm_90", opt=2, selector="sdag"):
    return next(
        o for o in outcomes if o.case.function == function and o.case.cpu == cpu and o.case.opt == opt and o.selector == selector
    )


# ---- the table -------------------------------------------------------------------------------------


def test_table_has_the_four_entries_with_their_register_counts():
    got = {v.name: (v.mnemonic, v.registers, v.cpus) for v in mma.ENTRIES}
    assert got == {
        "mma.m16n8k16.row.col.f32.f32": (
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
            {"a": 4, "b": 2, "c": 4, "d": 4},
            CPUS,
        ),
        "mma.m16n8k16.row.col.bf16": (
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
            {"a": 4, "b": 2, "c": 4, "d": 4},
            CPUS,
        ),
        "mma.m16n8k8.row.col.f32.f32": (
            "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
            {"a": 2, "b": 1, "c": 4, "d": 4},
            CPUS,
        ),
        "mma.m16n8k8.row.col.bf16": (
            "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
            {"a": 2, "b": 1, "c": 4, "d": 4},
            CPUS,
        ),
    }
    assert all(v.target is NVPTX for v in mma.ENTRIES)
    f16 = mma.lookup("llvm.nvvm.mma.m16n8k16.row.col.f32.f32")
    assert (f16.a.ir_type, f16.c.ir_type, f16.result) == ("<2 x half>", "float", "{float, float, float, float}")
    assert mma.lookup(K16_BF16).a.ir_type == "i32"


def test_no_variant_names_cover_the_seeds_rejections_and_are_unique():
    why = {v.name: v.why_none for v in mma.NO_VARIANT}
    assert why["mma.m16n8k16.row.col.bf16.f16"] == "mixed bf16×f16 inputs"
    assert why["mma.m16n8k16.row.col.bf16.f16.f16"] == "f16 accumulate with bf16 inputs"
    assert why["mma.m16n8k16.row.col.tf32"] == "tf32 at k16"
    # LLVM's own variants outside the contract are neither entries nor rejections.
    outside = {v.name for v in mma.VARIANTS if v.in_llvm and not v.in_contract}
    assert outside == {"mma.m16n8k16.row.col.f16.f16", "mma.m16n8k8.row.col.f16.f16", "mma.m16n8k8.row.col.tf32"}
    assert not outside & set(mma.BY_NAME)
    names = [v.name for v in mma.VARIANTS]
    assert len(names) == len(set(names)) == 16
    functions = [s.function for s in mma.subjects()]
    assert len(functions) == len(set(functions))


def test_targets_are_data():
    assert NVPTX.assembler("sm_90", "x.ptx").argv == ("ptxas", "-arch=sm_90", "-o", "/dev/null", "x.ptx")
    assert AMDGPU.assembler("gfx950", "x.s").argv == (
        "llvm-mc",
        "-triple=amdgcn",
        "-mcpu=gfx950",
        "-filetype=obj",
        "-o",
        "/dev/null",
        "x.s",
    )
    assert NVPTX.selectors == ("sdag",) and not NVPTX.has_selector("gisel") and AMDGPU.has_selector("gisel")
    assert NVPTX.requires("sm_100a") == "nvptx-registered-target, cpu-sm_100a, nvptx-ptx-kernel"


def test_ir_is_deterministic_and_loads_each_fragment():
    text = mma.kernel_ir(mma.lookup("mma.m16n8k8.row.col.bf16"))
    assert text == mma.kernel_ir(mma.lookup("mma.m16n8k8.row.col.bf16"))
    assert "define ptx_kernel void @mma_m16n8k8_row_col_bf16(ptr addrspace(1) %p)" in text
    call = re.search(r"call \{float, float, float, float\} @llvm\.nvvm\.mma\.m16n8k8\.row\.col\.bf16\((.*)\)", text)
    assert call.group(1) == "i32 %a0, i32 %a1, i32 %b0, float %c0, float %c1, float %c2, float %c3"
    assert text.count("store float") == 4


def test_registers_are_read_from_each_brace_group():
    multi = (
        "\tmma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32\n\t\t{%r8, %r9, %r10, %r11},\n\t\t{%r1, %r2},\n"
        "\t\t{%r3},\n\t\t{%r4, %r5, %r6, %r7};\n"
    )
    one = "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3}, {%f5, %f6, %f7, %f8};"
    assert single.registers(multi) == single.registers(one) == {"a": 2, "b": 1, "c": 4, "d": 4}
    assert single.registers("ret;") == {}


# ---- the real tools ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [v.name for v in mma.ENTRIES])
def test_every_entry_passes_with_its_registers_read_from_real_ptx(outcomes, name):
    entry = mma.lookup(name)
    mine = [o for o in outcomes if o.case.subject is entry]
    assert len(mine) == 3 * 2 * 2
    for o in mine:
        if o.selector == "gisel":
            assert o.verdict.verdict == V.UNSUPPORTED
            assert o.verdict.detail.endswith("error: target does not support generation of this file type")
            continue
        assert (o.verdict.verdict, o.verdict.detail) == (V.PASS, ""), (o.case, o.verdict.detail)
        assert o.verdict.details["registers"] == entry.registers
        assert o.verdict.details["instruction"].startswith(entry.mnemonic + " {")
        assert [os.path.basename(t.argv[0]) for t in o.verdict.tools] == ["llc", "ptxas"]


def test_verifier_rejections_carry_the_verifier_message(outcomes):
    for rejection in mma.VERIFIER:
        for o in (o for o in outcomes if o.case.subject is rejection):
            assert o.verdict.verdict == V.VERIFIER_REJECT, (rejection.kind, o.selector)
            assert o.verdict.detail == ("Intrinsic has incorrect argument type!\nptr @llvm.nvvm.mma.m16n8k16.row.col.bf16")
            assert o.verdict.details["verifier"]["message"] == mma.VERIFIER_MESSAGE


def test_no_variant_names_are_extern_calls_that_ptxas_rejects(outcomes):
    for variant in mma.NO_VARIANT:
        for o in (o for o in outcomes if o.case.subject is variant):
            if o.selector == "gisel":
                assert o.verdict.verdict == V.UNSUPPORTED
                continue
            assert o.verdict.verdict == V.MC_REJECT, variant.name
            assert re.fullmatch(
                r"ptxas <ptx>, line \d+; fatal   : Parsing error near '\.nvvm': syntax error", o.verdict.detail
            ), o.verdict.detail
            assert o.verdict.details["registers"] == {}


def test_counts_per_intrinsic_cpu_and_selector(outcomes):
    counts = single.counts(outcomes)
    for cpu in CPUS:
        assert counts[K16_BF16, cpu, "sdag"][V.PASS] == 2
        assert counts[K16_BF16, cpu, "sdag"][V.VERIFIER_REJECT] == 4  # two verifier cases at -O0 and -O2
        assert counts["mma.m16n8k8.row.col.f32.f32", cpu, "gisel"][V.UNSUPPORTED] == 2
        assert counts["mma.m16n8k16.row.col.tf32", cpu, "sdag"][V.MC_REJECT] == 2
    totals = {v: sum(r[v] for r in counts.values()) for v in V.ALL}
    assert totals == {**dict.fromkeys(V.ALL, 0), V.PASS: 24, V.MC_REJECT: 54, V.VERIFIER_REJECT: 24, V.UNSUPPORTED: 78}
    assert "mma.m16n8k8.row.col.bf16" in single.table(outcomes)


def _args(**kw):
    base = {
        "intrinsic": None,
        "cpu": None,
        "selector": None,
        "opt": None,
        "fmt_a": None,
        "fmt_b": None,
        "width_a": None,
        "width_b": None,
        "pipeline": None,
        "arg": [],
        "narrowing": "",
        "spec": None,
        "filter": None,
        "shard": None,
        "jobs": None,
        "llvm_bin": None,
        "timeout": 120.0,
    }
    return argparse.Namespace(**{**base, **kw})


def test_try_gives_the_register_counts(nvptx_tc, ptxas_path):
    rec = single.try_nvptx(_args(intrinsic=[K16_BF16], cpu="sm_90", selector="sdag"))
    assert (rec["verdict"], rec["registers"], rec["cpu"], rec["intrinsic"]) == (
        V.PASS,
        {"a": 4, "b": 2, "c": 4, "d": 4},
        "sm_90",
        K16_BF16,
    )
    assert rec["tools"][1]["argv"][1:3] == ["-arch=sm_90", "-o"]
    rec = single.try_nvptx(_args(intrinsic=["llvm.nvvm.mma.m16n8k8.row.col.f32.f32"], selector="sdag", opt=2))
    assert (rec["verdict"], rec["registers"], rec["cpu"]) == (V.PASS, {"a": 2, "b": 1, "c": 4, "d": 4}, "sm_90")
    assert single.try_nvptx(_args(intrinsic=["wmma.f32.16x16x128.f8f6f4"])) is None
    with pytest.raises(InputError, match="--fmt-a does not apply"):
        single.try_nvptx(_args(intrinsic=[K16_BF16], fmt_a="fp4"))
    with pytest.raises(InputError, match="runs on sm_80, sm_90, sm_100a, not gfx950"):
        single.try_nvptx(_args(intrinsic=[K16_BF16], cpu="gfx950"))


def test_run_selection_flags():
    chosen, sels = single.select(_args(intrinsic=["mma.m16n8k8.row.col.bf16"], opt=2, selector="gisel"))
    assert [(c.function, c.cpu, c.opt) for c in chosen] == [("mma_m16n8k8_row_col_bf16", cpu, 2) for cpu in CPUS]
    assert sels == ("gisel",)
    chosen, _ = single.select(_args(filter=["reject_*"]))
    assert {c.file_class for c in chosen} == {"verifier"} and len(chosen) == 2 * 3 * 2
    assert single.select(_args(fmt_a="fp4"))[0] == []
    assert single.select(_args(intrinsic=["wmma.f32.16x16x128.f8f6f4"]))[0] == []
    shards = [single.select(_args(shard=(k, 3)))[0] for k in (1, 2, 3)]
    key = lambda c: (c.function, c.cpu, c.opt)
    assert all(shards) and sorted(key(c) for shard in shards for c in shard) == sorted(map(key, mma.cases()))


# ---- lit -----------------------------------------------------------------------------------------


@pytest.fixture
def suite(tmp_path, repo_root) -> Path:
    root = tmp_path / "suite"
    (root / "cases" / "generated").mkdir(parents=True)
    shutil.copy(repo_root / "lit.cfg.py", root / "lit.cfg.py")
    shutil.copytree(repo_root / "harness", root / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(repo_root / "cases" / "nvptx-mma.yaml", root / "cases" / "nvptx-mma.yaml")
    return root


def _lit(lit_exe, root: Path, ptxas: str) -> dict[str, str]:
    proc = subprocess.run(
        [lit_exe, "-v", "--param", f"ptxas={ptxas}", str(root / "cases" / "generated")],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return {
        m.group(2): m.group(1)
        for m in re.finditer(r"^(\w+): matrix-lowering :: cases/generated/(\S+\.ll) ", proc.stdout, re.MULTILINE)
    }


def test_mma_sections_choose_subjects_and_cpus_and_none_means_no_files(tmp_path):
    (tmp_path / "a.yaml").write_text(
        "mma:\n  - intrinsic: [mma.m16n8k8.row.col.f32.f32, mma.m16n8k8.row.col.bf16]\n    cpu: sm_90\n"
    )
    chosen = mma.spec_cases(tmp_path)
    assert {(c.subject.name, c.cpu) for c in chosen} == {
        ("mma.m16n8k8.row.col.f32.f32", "sm_90"),
        ("mma.m16n8k8.row.col.bf16", "sm_90"),
    }
    assert sorted(mma_lit.mma_lit_files(tmp_path)) == [
        "nvptx.mma.m16n8k8.row.col.bf16.sm_90.ll",
        "nvptx.mma.m16n8k8.row.col.f32.f32.sm_90.ll",
    ]
    (tmp_path / "a.yaml").write_text("matrix:\n  - intrinsic: wmma.f32.32x16x128.f4\n")
    assert mma_lit.mma_lit_files(tmp_path) == {}
    (tmp_path / "a.yaml").write_text("mma:\n  - intrinsic: 'mma.m32*'\n")
    with pytest.raises(InputError, match=r"a.yaml:2:16: error: mma: no single-instruction subject matches"):
        mma.spec_cases(tmp_path)


def test_lit_files_pass_through_real_lit(nvptx_tc, ptxas_path, lit_exe, suite):
    files = mma_lit.mma_lit_files(suite / "cases")
    assert len(files) == (4 + 9 + 2) * 3
    for name, text in files.items():
        assert name.startswith("nvptx.mma.") and text.startswith("; NOTE: Do not autogenerate.")
        (suite / "cases" / "generated" / name).write_text(text)
    text = files["nvptx.mma.m16n8k16.row.col.bf16.sm_90.ll"]
    assert "; RUN: %if ptxas %{ ptxas -arch=sm_90 -o /dev/null %t.sdag.O2.ptx %}" in text
    assert "; CHECK-NEXT: {%{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}},{{$}}" in text
    assert "| FileCheck --check-prefix=GISEL %s" in text
    verifier = files["nvptx.mma.reject.a-type.m16n8k16.row.col.bf16.sm_80.ll"]
    assert "; RUN: not llvm-as -disable-output %s 2>&1 | FileCheck --check-prefix=VERIFY %s" in verifier
    assert _lit(lit_exe, suite, ptxas_path) == dict.fromkeys(files, "PASS")


def test_a_wrong_register_count_fails_lit(nvptx_tc, ptxas_path, lit_exe, suite):
    """Mutation: the same file expecting A 3 (k16) or B 2 (k8) registers must fail."""
    k16, k8 = mma.lookup(K16_BF16), mma.lookup("mma.m16n8k8.row.col.f32.f32")
    planted = {
        "k16_a3.ll": mma_lit.lit_file(k16, "sm_90", {**k16.registers, "a": 3}),
        "k8_b2.ll": mma_lit.lit_file(k8, "sm_80", {**k8.registers, "b": 2}),
        "right.ll": mma_lit.lit_file(k8, "sm_80"),
    }
    for name, text in planted.items():
        (suite / "cases" / "generated" / name).write_text(text)
    assert _lit(lit_exe, suite, ptxas_path) == {"k16_a3.ll": "FAIL", "k8_b2.ll": "FAIL", "right.ll": "PASS"}


def test_ptx_holding_another_instruction_gives_no_verdict(nvptx_tc, tmp_path, cli):
    # Fault injection: an llc whose PTX carries the k8 instruction where the call is k16.
    fake = tmp_path / "bin"
    fake.mkdir()
    for tool in ("opt", "llvm-mc", "llvm-as", "llvm-objdump", "FileCheck"):
        (fake / tool).symlink_to(nvptx_tc.bin_dir / tool)
    (fake / "llc").write_text(
        f'#!/bin/sh\nout=$({nvptx_tc.bin_dir / "llc"} "$@") || exit $?\n'
        "printf '%s\\n' \"$out\" | sed 's/mma.sync.aligned.m16n8k16/mma.sync.aligned.m16n8k8/'\n"
    )
    (fake / "llc").chmod(0o755)
    proc = cli("try", "--llvm-bin", fake, "--intrinsic", "mma.m16n8k16.row.col.bf16", "--cpu", "sm_90")
    assert proc.returncode == 2 and "where mma.m16n8k16.row.col.bf16 is one" in proc.stderr, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
