"""The sparse (mma.sp, mma.sp::ordered_metadata) and block-scaled (.block_scale) NVPTX rows of
harness.targets.nvptx_rows, against LLVM 22.1.8's own intrinsic list and against the PTX ISA read
again here, independently of the table: fragment registers from the shape and the element widths,
the sparsity selector's values from the metadata a group of four threads holds, the ISA's syntax
and its PTX/Target ISA notes. Then their catalog entries, IR, CHECK lines, the spec's sample, and
real llc + ptxas through the runner, `harness try` and lit.

Real tools only: tests that need llc with NVPTX or ptxas skip without them, unless $CI is set,
where their absence fails.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

from harness.checks import litgen
from harness.core import verdicts as V
from harness.specs import cases, emit, matrix
from harness.specs.cases import Case, FileClass, Planned
from harness.targets import NVPTX, catalog, nvptx_rows
from harness.tools import declared, runner

ROWS = tuple(r for r in nvptx_rows.ROWS if r.family != "mma")
ENTRIES = tuple(e for e in catalog.NVPTX_INTRINSICS if e.family != "mma")
SP_K16 = "mma.sp.m16n8k16.row.col.f16.f16"  # sm_80 and PTX 7.1: +ptx71 on sm_80
ORDERED_S4 = "mma.sp.ordered.metadata.m16n8k128.row.col.satfinite.u4.s4"
SP_FP8 = "mma.sp.m16n8k64.row.col.f32.e4m3.e5m2.f32"
NVF4 = "mma.block.scale.m16n8k64.row.col.mxf4nvf4.scale.4x.f32.e2m1.e2m1.f32.ue4m3"
SP_MXF8 = "mma.sp.ordered.metadata.block.scale.m16n8k64.row.col.mxf8f6f4.scale.1x.f32.e2m1.e4m3.f32.ue8m0"


def _case(name: str, cpu: str, args: tuple[tuple[int, str], ...] = (), opt: int = 0) -> Case:
    intr = catalog.lookup(name, cpu)
    return Case(intr, cpu, 0, 0, intr.a.regs[0], intr.b.regs[0], opt, args=args)


# ---- the rows against the build's own list ------------------------------------------------------


def test_the_rows_are_exactly_the_sparse_and_block_scaled_intrinsics_llvm_22_declares(llvm_22_1_8):
    names = declared.header_names(llvm_22_1_8, NVPTX)
    assert names is not None
    ours = {NVPTX.intrinsic_prefix + r.name: r for r in ROWS}
    for family, count in (("mma.sp", 192), ("mma.block.scale", 54)):
        theirs = {n for n in names if NVPTX.family(n) == family}
        assert len(theirs) == count and theirs == {n for n, r in ours.items() if r.family == family}, family
    assert sum(1 for r in ROWS if r.stype and r.sparsity) == 54  # mma.sp.ordered.metadata.block.scale.*
    assert len([r for r in nvptx_rows.ROWS if r.isa]) == len(names) == 390


# ---- the rows against the PTX ISA ----------------------------------------------------------------

# Bits one element occupies in a fragment register: FP6/FP4 of .kind::f8f6f4 and .kind::mxf8f6f4 sit
# in 8-bit containers; .e2m1 of .kind::mxf4 and .kind::mxf4nvf4 needs no padding ("Description").
ELEMENT_BITS = {"f32": 32, "s32": 32, "tf32": 32, "f16": 16, "bf16": 16, "s8": 8, "u8": 8, "s4": 4, "u4": 4}
PACKED_FP4 = ("mxf4", "mxf4nvf4")


def _bits(row: nvptx_rows.Row, ptx_type: str) -> int:
    if ptx_type in ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1"):
        return 4 if row.kind in PACKED_FP4 else 8
    return ELEMENT_BITS[ptx_type]


def _mnk(row: nvptx_rows.Row) -> tuple[int, int, int]:
    m, n, k = map(int, re.fullmatch(r"m(\d+)n(\d+)k(\d+)", row.shape).groups())
    return m, n, k


def _derived(row: nvptx_rows.Row) -> tuple[int, int, int, int]:
    """(D, A, B, C) registers per lane from the shape alone: a lane holds M*N/32 elements of C and
    D, K*N/32 of B, and M*K/32 of A, of which a sparse A keeps half ("the MxK matrix A is packed
    into MxK/2 elements"); every type here packs into 32-bit registers."""
    m, n, k = _mnk(row)
    a_elements = m * k // 32 // (2 if row.sparsity else 1)

    def regs(elements: int, ty: str) -> int:
        return elements * _bits(row, ty) // 32

    return regs(m * n // 32, row.d), regs(a_elements, row.a), regs(k * n // 32, row.b), regs(m * n // 32, row.c)


def test_registers_are_the_fragment_arithmetic_of_the_ptx_isa():
    assert len(ROWS) == 246
    for row in ROWS:
        assert row.regs == _derived(row), row.name
    sparse_a = {(r.shape, r.a, r.kind in PACKED_FP4): r.regs[1] for r in ROWS if r.sparsity}
    # The ISA's own words: "two .b32 registers, with each register containing two non-zero .f16
    # elements"; "four .b32 registers, with each register containing eight non-zero .u4 / .s4".
    assert sparse_a[("m16n8k16", "f16", False)] == 2 and sparse_a[("m16n8k128", "u4", False)] == 4
    assert sparse_a[("m16n8k128", "e2m1", True)] == sparse_a[("m16n8k64", "e2m1", False)] == 4


def _metadata_bits(row: nvptx_rows.Row) -> Fraction:
    """Metadata bits per element of A ("Sparse matrix storage"): 2:4 with two 2-bit indices per
    chunk of four; .tf32's 1:2 with a 4-bit index per chunk of two; .u4/.s4 and .kind::mxf4*'s
    .e2m1 pair-wise 4:8 with two 2-bit indices per chunk of eight."""
    if row.a == "tf32":
        return Fraction(4, 2)
    if row.a in ("s4", "u4") or row.kind in PACKED_FP4:
        return Fraction(4, 8)
    return Fraction(4, 4)


def test_the_sparsity_selector_picks_the_threads_that_hold_the_metadata():
    """A group of four consecutive lanes holds rows groupID and groupID + 8 of A: the metadata of
    2*K elements, in the 32-bit registers of as many of its threads as that needs; the selector
    names one of 4 / threads such sets."""
    for row in ROWS:
        if not row.sparsity:
            assert row.selectors == (), row.name
            continue
        threads = 2 * _mnk(row)[2] * _metadata_bits(row) / 32
        assert row.selectors == tuple(range(int(4 / threads))), row.name
    assert {r.selectors for r in ROWS if r.stype and r.sparsity} == {(0,)}  # "always 0" with .block_scale


# The PTX ISA's syntax for mma.sp and the block-scaled mma (PTX ISA 9.0, "Syntax"), one pattern per
# form, each placeholder the ISA's own set.
_SP = r"mma\.(sp|sp::ordered_metadata)\.sync\.aligned"
_ORDERED = r"mma\.sp::ordered_metadata\.sync\.aligned"
_F8F6F4 = r"(\.(e4m3|e5m2|e3m2|e2m3|e2m1)){2}"
_ISA_SYNTAX = [
    rf"{_SP}\.(m16n8k16|m16n8k32)\.row\.col\.(f16|f32)\.f16\.f16\.(f16|f32)",
    rf"{_SP}\.(m16n8k16|m16n8k32)\.row\.col\.f32\.bf16\.bf16\.f32",
    rf"{_SP}\.(m16n8k8|m16n8k16)\.row\.col\.f32\.tf32\.tf32\.f32",
    rf"{_SP}\.m16n8k64\.row\.col\.f32\.(e4m3|e5m2)\.(e4m3|e5m2)\.f32",
    rf"{_ORDERED}\.m16n8k64\.row\.col\.kind::f8f6f4\.(f16|f32){_F8F6F4}\.(f16|f32)",
    rf"{_SP}\.(m16n8k32|m16n8k64)\.row\.col(\.satfinite)?\.s32\.(u8|s8)\.(u8|s8)\.s32",
    rf"{_SP}\.(m16n8k64|m16n8k128)\.row\.col(\.satfinite)?\.s32\.(u4|s4)\.(u4|s4)\.s32",
    r"mma\.sync\.aligned\.m16n8k64\.row\.col\.kind::mxf4\.block_scale(\.scale_vec::2X)?\.f32\.e2m1\.e2m1\.f32\.ue8m0",
    r"mma\.sync\.aligned\.m16n8k64\.row\.col\.kind::mxf4nvf4\.block_scale\.scale_vec::(2X|4X)\.f32\.e2m1\.e2m1\.f32\.(ue8m0|ue4m3)",
    rf"mma\.sync\.aligned\.m16n8k32\.row\.col\.kind::mxf8f6f4\.block_scale(\.scale_vec::1X)?\.f32{_F8F6F4}\.f32\.ue8m0",
    rf"{_ORDERED}\.m16n8k128\.row\.col\.kind::mxf4\.block_scale(\.scale_vec::2X)?\.f32\.e2m1\.e2m1\.f32\.ue8m0",
    rf"{_ORDERED}\.m16n8k128\.row\.col\.kind::mxf4nvf4\.block_scale\.scale_vec::(2X|4X)\.f32\.e2m1\.e2m1\.f32\.(ue8m0|ue4m3)",
    rf"{_ORDERED}\.m16n8k64\.row\.col\.kind::mxf8f6f4\.block_scale(\.scale_vec::1X)?\.f32{_F8F6F4}\.f32\.ue8m0",
]
# Table 36: the (.scale_vec_size, .stype) pairs of each block-scaled kind (unwritten: the default).
_TABLE_36 = {"mxf4": {("", "ue8m0"), ("2X", "ue8m0")}, "mxf4nvf4": {("2X", "ue8m0"), ("4X", "ue4m3")}}
_TABLE_36["mxf8f6f4"] = {("", "ue8m0"), ("1X", "ue8m0")}


def test_every_mnemonic_is_ptx_isa_syntax_and_names_follow_llvm():
    for row in ROWS:
        assert sum(bool(re.fullmatch(p, row.mnemonic)) for p in _ISA_SYNTAX) == 1, row.mnemonic
        if row.stype:
            assert (row.scale_vec, row.stype) in _TABLE_36[row.kind], row.name
    assert len({r.mnemonic for r in ROWS}) == len(ROWS)
    # The ISA's own examples, and the names LLVM gives them (IntrinsicsNVVM.td's record names).
    assert {(r.name, r.mnemonic) for r in ROWS} >= {
        ("mma.sp.m16n8k16.row.col.f16.f16", "mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"),
        ("mma.sp.m16n8k32.row.col.bf16", "mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32"),
        ("mma.sp.m16n8k128.row.col.satfinite.u4", "mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.u4.s32"),
        (
            "mma.sp.ordered.metadata.m16n8k64.row.col.satfinite.s8",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.s8.s32",
        ),
        (
            "mma.sp.ordered.metadata.m16n8k64.row.col.kind.f8f6f4.f16.e2m3.e2m1.f16",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f16.e2m3.e2m1.f16",
        ),
        (NVF4, "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"),
        (
            "mma.block.scale.m16n8k32.row.col.mxf8f6f4.scale.1x.f32.e3m2.e2m1.f32.ue8m0",
            "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e3m2.e2m1.f32.ue8m0",
        ),
        (
            "mma.sp.ordered.metadata.block.scale.m16n8k128.row.col.mxf4.f32.e2m1.e2m1.f32.ue8m0",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0",
        ),
    }


def _isa_notes(row: nvptx_rows.Row) -> tuple[str, int]:
    """(oldest SM, oldest PTX ISA version x10) from the "Target ISA Notes" and "PTX ISA Notes" of
    mma.sp and mma, read again here: the newest of every note that applies to the row."""
    notes = [("sm_80", 71) if row.sparsity else ("sm_70", 64)]  # mma.sp: sm_80, PTX 7.1; mma: sm_70, 6.4
    if row.sparsity == "sp::ordered_metadata":  # sm_80, PTX 8.5
        notes.append(("sm_80", 85))
    if {row.a, row.b} & {"e4m3", "e5m2"}:  # .e4m3/.e5m2: sm_89, PTX 8.4
        notes.append(("sm_89", 84))
    if row.kind or {row.a, row.b} & {"e3m2", "e2m3", "e2m1"}:  # .kind, .block_scale, FP6/FP4: sm_120a, 8.7
        notes.append(("sm_120a", 87))
    return max(notes, key=lambda n: nvptx_rows.SM_ORDER.index(n[0]))[0], max(n[1] for n in notes)


def test_min_sm_and_ptx_are_the_isa_notes():
    for row in ROWS:
        assert (row.min_sm, row.min_ptx) == _isa_notes(row), row.name


# ---- catalog entries, IR and CHECK lines ----------------------------------------------------------


def test_entries_take_the_metadata_the_selector_and_the_scales_after_the_fragments():
    sp = catalog.lookup(SP_K16, "sm_80")
    assert sp.operands == (catalog.SRC_A, catalog.SRC_B, catalog.ACC, catalog.INDEX, "immarg i32 0")
    assert (sp.ranges, sp.index_type, sp.features, sp.absent_cpu) == (((4, 0, 3),), "i32", "+ptx71", "sm_75")
    assert sp.tuple_widths == {"D": (0, 2), "A": (1, 2), "B": (2, 2), "C": (3, 2)}  # C printed, then the metadata
    nvf4 = catalog.lookup(NVF4)
    assert nvf4.operands[3:] == ("i32 0", "i16 0", "i16 0", "i32 0", "i16 0", "i16 0") and nvf4.ranges == ()
    assert (nvf4.cpus, nvf4.absent_cpu, nvf4.index_type) == (("sm_120a",), "sm_100a", "")
    scaled = catalog.lookup(SP_MXF8)
    assert scaled.operands[3:5] == (catalog.INDEX, "immarg i32 0") and scaled.ranges == ((4, 0, 0),)
    for entry in ENTRIES:
        row = next(r for r in ROWS if r.name == (entry.base or entry.name))
        assert entry.gprs == row.regs and entry.mnemonic == row.mnemonic
        assert entry.ranges == (((4, row.selectors[0], row.selectors[-1]),) if row.sparsity else ())
    ordered = catalog.lookup_all(ORDERED_S4)  # PTX 8.5: above llc's default up to sm_90a
    assert [(e.cpus, e.features) for e in ordered] == [
        (("sm_80", "sm_89", "sm_90", "sm_90a"), "+ptx85"),
        (("sm_100a", "sm_120a"), ""),
    ]
    assert {e.absent_cpu for e in ENTRIES} == {"", "sm_75", "sm_80", "sm_100a"}


def test_the_call_passes_the_metadata_the_selector_and_the_scales():
    text = emit.module([_case(SP_K16, "sm_80", ((4, "3"),))]).text
    assert "<2 x half> %c0, <2 x half> %c1, i32 0, i32 3)" in text
    assert re.search(
        r"declare \{<2 x half>, <2 x half>\} @llvm\.nvvm\.mma\.sp\.m16n8k16\.row\.col\.f16\.f16\((<2 x half>, ){6}i32, i32\)",
        text,
    )
    text = emit.module([_case(NVF4, "sm_120a")]).text
    assert "float %c3, i32 0, i16 0, i16 0, i32 0, i16 0, i16 0)" in text
    outside = _case(SP_K16, "sm_80", ((4, "4"),))
    assert (outside.rejection, outside.file_class) == ("immarg-range", FileClass.IMMARG_RANGE)
    assert matrix.immarg_sets(catalog.lookup(SP_K16, "sm_80"), ["high", "outside"]) == [((4, "3"),), ((4, "4"),)]
    assert matrix.immarg_sets(catalog.lookup(SP_MXF8), ["high", "outside"]) == [((4, "1"),)]  # selector always 0


def test_check_lines_follow_c_with_the_metadata_and_the_selector_value():
    lines = litgen.shape_checks(_case(SP_K16, "sm_80", ((4, "2"),)))
    assert lines[1] == "; CHECK: mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16{{ *$}}"
    assert lines[-3:] == [
        "; CHECK-NEXT: {%{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}},{{$}}",  # C, then more operands
        "; CHECK-NEXT: {{[^ ,]+}},{{$}}",  # the metadata
        "; CHECK-NEXT: {{(0x)?}}2;{{$}}",  # the selector the call gave, ending the instruction
    ]
    scaled = litgen.shape_checks(_case(SP_MXF8, "sm_120a"))
    assert scaled[-1] == "; CHECK-NEXT: {{(0x)?}}0,{{$}}"  # the scales follow, their layout unchecked
    assert litgen.shape_checks(_case(NVF4, "sm_120a"))[-1].endswith("},{{$}}")  # C, then the scales


def test_the_spec_runs_every_row_at_full_density(repo_root):
    """Every sparse and block-scaled row, as every dense one: each entry on every SM it runs on at
    -O0 and -O2, on the SM before its first, and (sparse) its selector at its highest value and one
    past it."""
    planned = matrix.plan([repo_root / "cases" / "nvptx-mma.yaml"])
    got = {(c.intrinsic.name, c.cpu, c.opt, c.file_class) for c in (p.case for p in planned)}
    assert {p.selectors for p in planned} == {tuple(cases.SELECTORS)}
    for entry in catalog.NVPTX_INTRINSICS:
        if not entry.cpus:  # (the two rows only LLVM 14 to 19 declare: not in this spec)
            assert not any(e[0] == entry.name for e in got)
            continue
        for cpu in entry.cpus:
            assert {(entry.name, cpu, o, FileClass.EXACT) for o in (0, 2)} <= got, (entry.name, cpu)
        if entry.absent_cpu:
            assert (entry.name, entry.absent_cpu, 0, FileClass.ABSENT) in got, entry.name
        outside = (entry.name, entry.cpus[0], 0, FileClass.IMMARG_RANGE) in got
        assert outside == (entry.family != "mma" and bool(entry.ranges)), entry.name
    high = {c.intrinsic.name for c in (p.case for p in planned) if c.args and c.file_class == FileClass.EXACT}
    assert high == {e.name for e in ENTRIES if e.ranges and e.ranges[0][2] > e.ranges[0][1]}  # (a highest of 0 is the default)


# ---- the real tools ------------------------------------------------------------------------------


def _run(tc, planned_cases: list[Case]) -> dict[tuple[str, str, str], tuple[str, str]]:
    groups = cases.group([Planned(c, ("sdag",), ()) for c in planned_cases])
    return {
        (o.case.intrinsic.base or o.case.intrinsic.name, o.case.cpu, o.case.file_class): (o.verdict.verdict, o.verdict.detail)
        for o in runner.Runner(tc, 2).run(groups)
    }


def test_rows_pass_on_their_sm_and_fail_cleanly_on_the_one_before(nvptx_tc, ptxas_path, monkeypatch):
    monkeypatch.setenv("PTXAS", ptxas_path)
    on = [(SP_K16, "sm_80"), (ORDERED_S4, "sm_90"), (SP_FP8, "sm_89"), (NVF4, "sm_120a"), (SP_MXF8, "sm_120a")]
    off = [(SP_K16, "sm_75"), (ORDERED_S4, "sm_75"), (SP_FP8, "sm_80"), (NVF4, "sm_100a"), (SP_MXF8, "sm_100a")]
    got = _run(nvptx_tc, [_case(n, c) for n, c in on + off])
    for name, cpu in on:
        assert got[(name, cpu, FileClass.EXACT)] == (V.PASS, ""), (name, cpu)
    for name, cpu in off:
        verdict, detail = got[(name, cpu, FileClass.ABSENT)]
        assert verdict == V.CANNOT_SELECT and f"Cannot select: intrinsic %llvm.nvvm.{name}" in detail, (name, cpu)


def test_the_selector_at_its_highest_compiles_and_one_past_it_is_rejected(nvptx_tc, ptxas_path, monkeypatch):
    monkeypatch.setenv("PTXAS", ptxas_path)
    got = _run(nvptx_tc, [_case(SP_K16, "sm_80", ((4, "3"),)), _case(SP_K16, "sm_80", ((4, "4"),))])
    assert got[(SP_K16, "sm_80", FileClass.EXACT)] == (V.PASS, "")
    verdict, detail = got[(SP_K16, "sm_80", FileClass.IMMARG_RANGE)]
    assert verdict == V.VERIFIER_REJECT and detail.startswith("immarg value 4 out of range [0, 4)")


def test_try_builds_a_sparse_row_with_its_selector(nvptx_tc, ptxas_path, cli):
    name = "mma.sp.ordered.metadata.m16n8k32.row.col.f32.f32"
    proc = cli("try", "--intrinsic", name, "--cpu", "sm_89", "--arg", "4=1", "--json", env={"PTXAS": ptxas_path})
    rec = json.loads(proc.stdout)
    assert (rec["verdict"], rec["cpu"]) == (V.PASS, "sm_89"), proc.stdout + proc.stderr
    assert rec["tools"][0]["argv"][-2:] == ["-mattr=+ptx85", "-global-isel=0"]
    assert rec["tuples"]["text"] == {"a": "{%r1, %r2, %r3, %r4}", "b": "{%r5, %r6, %r7, %r8}"}


def _lit(lit_exe, root: Path, ptxas: str) -> dict[str, str]:
    proc = subprocess.run(
        [lit_exe, "-v", "--param", f"ptxas={ptxas}", "--param", "known_bugs=off", str(root / "cases" / "generated")],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return {
        m.group(2): m.group(1) for m in re.finditer(r"^(\w+): matrix-lowering :: cases/generated/(\S+\.ll) ", proc.stdout, re.M)
    }


def test_lit_files_of_the_rows_pass_and_a_wrong_selector_fails(nvptx_tc, ptxas_path, lit_exe, tmp_path, repo_root):
    root = tmp_path / "suite"
    (root / "cases" / "generated").mkdir(parents=True)
    shutil.copy(repo_root / "lit.cfg.py", root / "lit.cfg.py")
    shutil.copytree(repo_root / "harness", root / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(repo_root / "cases" / "known-bugs.yaml", root / "cases" / "known-bugs.yaml")
    files = {}
    for case in (_case(SP_K16, "sm_80", ((4, "3"),)), _case(NVF4, "sm_120a", opt=2), _case(SP_MXF8, "sm_120a")):
        group = cases.group([Planned(case, tuple(cases.SELECTORS), ("nvptx-mma.yaml",))])[0]
        files[group.filename] = litgen.lit_file(group)
    sp = files["mma.sp.ptx71.llvm22.sm_80.O0.exact.ll"]  # the sm_80 form (+ptx71) of the row, on sm_80
    assert "-mattr=+ptx71" in sp and "; CHECK-NEXT: {{(0x)?}}3;{{$}}" in sp
    files["planted.ll"] = sp.replace("{{(0x)?}}3;", "{{(0x)?}}2;")  # llc must print the selector it was given
    for name, body in files.items():
        (root / "cases" / "generated" / name).write_text(body)
    assert _lit(lit_exe, root, ptxas_path) == {**dict.fromkeys(files, "PASS"), "planted.ll": "FAIL"}
