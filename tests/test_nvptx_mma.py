"""NVPTX mma rows (harness.targets.nvptx_rows) through the one pipeline: the rows against the PTX
ISA's fragment arithmetic and the build's own intrinsic list, the IR of fragment operands, PTX
parsing (brace groups, ptxas' located errors, the verifier naming a declaration), module
batching, and the runner's verdicts, `try`, and lit files from real llc and ptxas — plus a
planted wrong register count that lit catches and a planted wrong instruction the runner names.

Real tools only: tests that need llc with NVPTX or ptxas skip without them, unless $CI is set,
where their absence fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.checks import litgen
from harness.core import verdicts as V
from harness.specs import cases, emit
from harness.specs.cases import Case, FileClass, Planned
from harness.targets import NVPTX, catalog, nvptx_rows, sms
from harness.tools import declared, runner, toolchain

K16_BF16 = "mma.m16n8k16.row.col.bf16"
K8_F16 = "mma.m16n8k8.row.col.f16.f16"
# The dense rows (family mma); the sparse and block-scaled ones are tests/test_nvptx_sparse_rows.py's.
ROWS = tuple(r for r in nvptx_rows.ROWS if r.family == "mma" and r.isa)
DENSE_ENTRIES = tuple(e for e in catalog.NVPTX_INTRINSICS if e.family == "mma" and e.cpus)
NOT_ISA = {r.name for r in nvptx_rows.ROWS if not r.isa}  # intrinsics only LLVM 14 to 19 declare
# What the table must hold: the 144 dense llvm.nvvm.mma.* of LLVM 22.1.8, as entries (163: a row
# whose -mattr differs between its SMs is one entry per -mattr), and their cases in
# nvptx-mma.yaml (SelectionDAG: every SM a row runs on at -O0 and -O2; one absent SM per row
# but the twelve m8n8k4 f16 ones, whose sm_70 is the oldest SM with mma).
N_ROWS, N_ENTRIES, N_EXACT, N_ABSENT = 144, 163, 1184, 132


def _case(name: str, cpu: str = "sm_90", width_a: int | None = None, elem_a: str = "", opt: int = 0) -> Case:
    intr = catalog.lookup(name, cpu)
    return Case(intr, cpu, 0, 0, width_a or intr.a.regs[0], intr.b.regs[0], opt, elem_a=elem_a)


# ---- the rows -------------------------------------------------------------------------------------

# Bits one element occupies in a fragment register (PTX ISA "Matrix Data-types"); the FP6/FP4 types
# of .kind::f8f6f4 sit in 8-bit containers ("four .b32 registers, with each register containing four
# .e4m3 / .e5m2 / .e3m2 / .e2m3 / .e2m1 elements", Matrix Fragments for mma.m16n8k32).
ELEMENT_BITS = {
    "f64": 64, "f32": 32, "s32": 32, "tf32": 32, "f16": 16, "bf16": 16, "s8": 8, "u8": 8,
    "e4m3": 8, "e5m2": 8, "e3m2": 8, "e2m3": 8, "e2m1": 8, "s4": 4, "u4": 4, "b1": 1,
}  # fmt: skip


def _derived(row: nvptx_rows.Row) -> tuple[int, int, int, int]:
    """(D, A, B, C) registers per lane from the shape alone: per MMA a lane holds M*K/32 elements
    of A, K*N/32 of B and M*N/32 of C and D; a warp's m8n8k4 with .f16 does four MMAs ("A warp
    executing mma.sync.m8n8k4 instruction computes 4 matrix multiply and accumulate operations").
    Types up to 32 bits pack into 32-bit registers; f64 takes one register per element."""
    m, n, k = map(int, re.fullmatch(r"m(\d+)n(\d+)k(\d+)", row.shape).groups())
    per_warp = 4 if (row.shape, row.a) == ("m8n8k4", "f16") else 1

    def regs(elements: int, ty: str) -> int:
        elements *= per_warp
        return elements if ty == "f64" else elements * ELEMENT_BITS[ty] // 32

    return regs(m * n // 32, row.d), regs(m * k // 32, row.a), regs(k * n // 32, row.b), regs(m * n // 32, row.c)


def test_registers_are_the_fragment_arithmetic_of_the_ptx_isa():
    assert len(ROWS) == N_ROWS
    for row in ROWS:
        assert row.regs == _derived(row), row


def test_the_rows_are_exactly_the_dense_mma_intrinsics_llvm_22_declares(llvm_22_1_8):
    names = declared.header_names(llvm_22_1_8, NVPTX)
    assert names is not None
    dense = {n for n in names if NVPTX.family(n) == "mma"}  # not mma.sp.*, not mma.block.scale.*
    assert len(dense) == N_ROWS and all(NVPTX.family(NVPTX.intrinsic_prefix + r.name) == r.family for r in ROWS)
    assert {NVPTX.intrinsic_prefix + r.name for r in ROWS} == dense


# The PTX ISA's syntax for dense mma.sync (PTX ISA 9.0, "mma" Syntax), one pattern per form, each
# placeholder the ISA's own set. A mnemonic must be one of these strings.
_ISA_SYNTAX = [
    r"mma\.sync\.aligned\.m8n8k4\.(row|col)\.(row|col)\.(f16|f32)\.f16\.f16\.(f16|f32)",
    r"mma\.sync\.aligned\.(m16n8k8|m16n8k16)\.row\.col\.(f16|f32)\.f16\.f16\.(f16|f32)",
    r"mma\.sync\.aligned\.m16n8k4\.row\.col\.f32\.tf32\.tf32\.f32",
    r"mma\.sync\.aligned\.m16n8k8\.row\.col\.f32\.(bf16|tf32)\.(bf16|tf32)\.f32",
    r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32",
    r"mma\.sync\.aligned\.(m16n8k16|m16n8k32)\.row\.col\.(f16|f32)\.(e4m3|e5m2)\.(e4m3|e5m2)\.(f16|f32)",
    r"mma\.sync\.aligned\.m16n8k32\.row\.col\.kind::f8f6f4\.(f16|f32)(\.(e4m3|e5m2|e3m2|e2m3|e2m1)){2}\.(f16|f32)",
    r"mma\.sync\.aligned\.(m8n8k4|m16n8k4|m16n8k8|m16n8k16)\.row\.col\.f64\.f64\.f64\.f64",
    r"mma\.sync\.aligned\.(m8n8k16|m16n8k16|m16n8k32)\.row\.col(\.satfinite)?\.s32\.(u8|s8)\.(u8|s8)\.s32",
    r"mma\.sync\.aligned\.(m8n8k32|m16n8k32|m16n8k64)\.row\.col(\.satfinite)?\.s32\.(u4|s4)\.(u4|s4)\.s32",
    r"mma\.sync\.aligned\.(m8n8k128|m16n8k128|m16n8k256)\.row\.col\.s32\.b1\.b1\.s32\.(xor|and)\.popc",
]


def test_every_mnemonic_is_ptx_isa_syntax_and_names_follow_llvm():
    for row in ROWS:
        assert sum(bool(re.fullmatch(p, row.mnemonic)) for p in _ISA_SYNTAX) >= 1, row.mnemonic
    assert len({r.mnemonic for r in ROWS}) == N_ROWS
    # The ISA's own examples, and the names LLVM gives them (MMA_SIGNATURE).
    assert {(r.name, r.mnemonic) for r in ROWS} >= {
        ("mma.m8n8k4.row.col.f32.f16", "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16"),
        ("mma.m8n8k4.col.row.f32.f32", "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32"),
        ("mma.m16n8k32.row.col.satfinite.s8.u8", "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32"),
        ("mma.xor.popc.m16n8k128.row.col.b1", "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc"),
        ("mma.and.popc.m8n8k128.row.col.b1", "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc"),
        (
            "mma.m16n8k32.row.col.kind.f8f6f4.f32.e2m1.e3m2.f32",
            "mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e3m2.f32",
        ),
        ("mma.m16n8k16.row.col.f16.e4m3.e5m2.f16", "mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e5m2.f16"),
        ("mma.m16n8k8.row.col.f64", "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64"),
        ("mma.m16n8k64.row.col.u4.s4", "mma.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32"),
    }


def _isa_notes(row: nvptx_rows.Row) -> tuple[str, int]:
    """(oldest SM, oldest PTX ISA version x10) from the ISA's "Target ISA Notes" and "PTX ISA Notes"
    for mma, read again here: the newest of every note that applies to the row."""
    notes = [("sm_70", 64)]  # mma: sm_70, PTX 6.4
    a, shape = row.a, row.shape
    if a == "f16":
        notes.append({"m8n8k4": ("sm_70", 64), "m16n8k8": ("sm_75", 65), "m16n8k16": ("sm_80", 70)}[shape])
    if a in ("bf16", "tf32"):
        notes.append(("sm_80", 70))
    if a == "f64":
        notes.append(("sm_80", 70) if shape == "m8n8k4" else ("sm_90", 78))
    if a in nvptx_rows.I8 + nvptx_rows.I4:
        notes.append(("sm_75", 65) if shape in ("m8n8k16", "m8n8k32") else ("sm_80", 70))
    if a == "b1":
        notes.append(("sm_75", 70) if shape == "m8n8k128" else ("sm_80", 70))
        if row.b1op == "and":  # .and in single-bit mma: sm_80, PTX 7.1
            notes.append(("sm_80", 71))
    if {a, row.b} & {"e4m3", "e5m2"}:  # .e4m3/.e5m2: sm_89, PTX 8.4
        notes.append(("sm_89", 84))
        if shape == "m16n8k16" or row.d == "f16":  # .m16n8k16 and .f16 dtype/ctype with FP8: PTX 8.7
            notes.append(("sm_89", 87))
    if row.kind or {a, row.b} & {"e3m2", "e2m3", "e2m1"}:  # .kind, .e3m2/.e2m3/.e2m1: sm_120a, PTX 8.7
        notes.append(("sm_120a", 87))
    return max(notes, key=lambda n: nvptx_rows.SM_ORDER.index(n[0]))[0], max(n[1] for n in notes)


def test_min_sm_and_ptx_are_the_isa_notes():
    for row in ROWS:
        assert (row.min_sm, row.min_ptx) == _isa_notes(row), row.name


def test_where_a_row_runs_and_its_absent_sm():
    """A baseline feature of sm_X is on every later target, `a` or not; an `a` target's own
    features (.kind::f8f6f4, FP6/FP4 of sm_120a) are on that target alone."""
    by = {r.name: r for r in ROWS}
    f64 = by["mma.m16n8k16.row.col.f64"]
    assert [c for c in NVPTX.cpus if f64.runs_on(c)] == ["sm_90", "sm_90a", "sm_100a", "sm_120a"] and f64.absent_sm == "sm_89"
    kind = by["mma.m16n8k32.row.col.kind.f8f6f4.f32.e4m3.e4m3.f32"]
    assert [c for c in NVPTX.cpus if kind.runs_on(c)] == ["sm_120a"] and kind.absent_sm == "sm_100a"
    assert by["mma.m16n8k32.row.col.f32.e4m3.e4m3.f32"].absent_sm == "sm_80"
    assert by["mma.m8n8k4.row.row.f16.f16"].absent_sm == ""  # sm_70 is the oldest SM with mma
    assert NVPTX.cpus == ("sm_80", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120a")


def test_entries_split_a_row_by_the_ptx_version_llc_needs_on_each_sm():
    """llc 22 writes each SM's own PTX version unless -mattr=+ptxNN says more, and refuses one
    below the SM's own: a row newer than that default on some SMs is one entry per -mattr."""
    entries = DENSE_ENTRIES
    assert len(entries) == N_ENTRIES and {e.target for e in catalog.NVPTX_INTRINSICS} == {NVPTX}
    for row in ROWS:
        forms = catalog.lookup_all(row.name)
        cpus = [c for f in forms for c in f.cpus]
        assert cpus == [c for c in NVPTX.cpus if row.runs_on(c)], row.name
        for form in forms:
            assert {row.ptx_feature(c) for c in form.cpus} == {form.features}, form.name
            assert (form.base or form.name) == row.name and form.mnemonic == row.mnemonic and form.gprs == row.regs
        assert [f.absent_cpu for f in forms] == [row.absent_sm] + [""] * (len(forms) - 1)
    k89, k100 = catalog.lookup_all("mma.m16n8k32.row.col.f32.e4m3.e5m2.f32")
    assert (k89.name, k89.cpus, k89.features) == (
        "mma.m16n8k32.row.col.f32.e4m3.e5m2.f32.sm_89",
        ("sm_89", "sm_90", "sm_90a"),
        "+ptx84",
    )
    assert (k100.cpus, k100.features) == (("sm_100a", "sm_120a"), "")
    assert catalog.lookup("mma.m16n8k32.row.col.f32.e4m3.e5m2.f32", "sm_90") is k89
    and80, and89 = catalog.lookup_all("mma.and.popc.m8n8k128.row.col.b1")
    assert (and80.cpus, and80.features, and80.absent_cpu, and89.features) == (("sm_80",), "+ptx71", "sm_75", "")
    assert {len(catalog.lookup_all(r.name)) for r in ROWS if r.min_ptx <= 70 or r.min_sm == "sm_90"} == {1}


def test_catalog_entries_of_the_rows():
    k16, k8 = catalog.lookup(K16_BF16), catalog.lookup(K8_F16)
    assert (k16.symbol, k16.cpus, k16.absent_cpu, k16.target) == ("llvm.nvvm." + K16_BF16, NVPTX.cpus, "sm_75", NVPTX)
    assert k16.mnemonics("sm_90") == ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",)
    assert k16.tuple_widths == {"D": (0, 4), "A": (1, 4), "B": (2, 2), "C": (3, 4)}
    # f16 at k8 came with sm_75: its absent SM is sm_70; f16 accumulate is two <2 x half> registers.
    assert (k8.absent_cpu, k8.result, k8.acc_type) == ("sm_70", "{<2 x half>, <2 x half>}", "<2 x half>")
    assert catalog.lookup("llvm.nvvm." + K8_F16) is k8
    # One IR type per register: f64 as double, integers and FP8/FP6/FP4 packed into i32.
    f64, s8 = catalog.lookup("mma.m8n8k4.row.col.f64"), catalog.lookup("mma.m16n8k32.row.col.satfinite.u8.s8")
    assert (f64.result, f64.a.elem, f64.acc_type, f64.a.regs[0]) == ("{double, double}", "double", "double", 1)
    assert (s8.result, s8.a.elem, s8.b.elem, s8.a.regs[0], s8.b.regs[0]) == ("{i32, i32, i32, i32}", "i32", "i32", 4, 2)
    kind = catalog.lookup("mma.m16n8k32.row.col.kind.f8f6f4.f16.e2m1.e2m3.f16")
    assert (kind.cpus, kind.absent_cpu, kind.features, kind.result, kind.a.elem) == (
        ("sm_120a",),
        "sm_100a",
        "",
        "{<2 x half>, <2 x half>}",
        "i32",
    )


def test_fragment_operands_are_one_per_register():
    text = emit.module([_case(K8_F16)]).text
    fn = "mma_m16n8k8_row_col_f16_f16__a_f16_v2__b_f16_v1"
    assert f"define {{<2 x half>, <2 x half>}} @{fn}(<2 x half> %a0, <2 x half> %a1, <2 x half> %b0, <2 x half> %c0" in text
    assert "@llvm.nvvm.mma.m16n8k8.row.col.f16.f16(<2 x half> %a0, <2 x half> %a1, <2 x half> %b0, " in text
    assert "declare {<2 x half>, <2 x half>} @llvm.nvvm.mma.m16n8k8.row.col.f16.f16(<2 x half>, <2 x half>, " in text
    short, retyped = _case(K16_BF16, width_a=1), _case(K16_BF16, elem_a="float")
    assert (short.file_class, retyped.file_class) == (FileClass.ILLEGAL, FileClass.ILLEGAL)
    assert (short.signature, retyped.signature, _case(K16_BF16).signature) == (".a1xi32", ".a4xfloat", "")
    assert emit.callee(short)[1] == "i32, i32, i32, float, float, float, float"


def test_cases_declaring_an_intrinsic_differently_never_share_a_module():
    planned = [Planned(c, ("sdag",), ()) for c in (_case(K16_BF16), _case(K16_BF16, width_a=1), _case(K16_BF16, elem_a="float"))]
    groups = cases.group(planned)
    assert len({g.filename for g in groups}) == 3
    modules = runner.batches(groups)
    assert sorted(len(m.members) for m in modules) == [1, 1, 1]
    for m in modules:  # each module is valid IR as far as declarations go
        assert len(emit.declarations([c for _, c in m.members])) == 1


# ---- PTX as the runner reads it ----------------------------------------------------------------

PTX = """\
.visible .func  (.param .align 4 .b8 func_retval0[16]) k(
\t.param .b32 k_param_0
)
{
\tmma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32
\t\t{%r8, %r9, %r10, %r11},
\t\t{%r1, %r2},
\t\t{%r3},
\t\t{%r4, %r5, %r6, %r7};
$L__BB0_1:
\tret;
}
"""


def test_brace_groups_functions_and_located_ptxas_errors():
    body = V.split_functions(PTX, {"k"})["k"]
    assert body[-1] == "}" and "\tret;" in body  # a block label does not end the function
    found = V.instruction(body, ("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",))
    assert [V.tuple_width(o) for o in found[1]] == [4, 2, 1, 4]
    assert V.shape_mismatch(found[1], {"A": (1, 4)}) == "A {%r1, %r2} is 2 register(s), the row's 4"
    owners = V.asm_owners(PTX, {"k"})
    assert owners[5] == "k" and owners[12] == "k" and 13 not in owners
    err = "ptxas <text>, line 5; error   : Feature '.bf16' requires .target sm_80 or higher\nptxas fatal   : aborted"
    assert V.located_errors(err) == [(5, 0, "Feature '.bf16' requires .target sm_80 or higher")]
    assert V.mc_rejections(err, PTX, {"k"})[0] == {"k": "Feature '.bf16' requires .target sm_80 or higher: " + found[0]}
    assert V.fatal(err) and not V.fatal("a fatality: none")


def test_the_verifier_naming_a_declaration_on_old_and_new_builds():
    new = "Intrinsic has incorrect argument type!\nptr @llvm.nvvm.mma.m16n8k16.row.col.bf16\nllc: error: x"
    old = "Intrinsic has incorrect argument type!\n{ float } (i32, float)* @llvm.nvvm.mma.m16n8k16.row.col.bf16\n"
    for text in (new, old):
        assert list(V.declaration_diagnostics(text)) == ["llvm.nvvm.mma.m16n8k16.row.col.bf16"]
    assert V.declaration_diagnostics("ptr @x\nptr @y") == {}


# ---- the real tools ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def records(nvptx_tc, ptxas_path):
    proc = subprocess.run(
        [os.sys.executable, "-m", "harness", "run", "--spec", "nvptx-mma.yaml", "--json"],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PTXAS": ptxas_path},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["cases"]


def _dense(records: list[dict]) -> list[dict]:
    return [r for r in records if catalog.lookup(r["intrinsic"]).family == "mma" and r["intrinsic"] not in NOT_ISA]


def _isa(records: list[dict]) -> list[dict]:
    return [r for r in records if r["intrinsic"] not in NOT_ISA]


def test_every_row_passes_on_every_sm_with_ptxas_closing_it(records):
    exact = [r for r in _dense(records) if r["class"] == "exact" and r["selector"] == "sdag"]
    assert len(exact) == N_EXACT == sum(2 * len(e.cpus) for e in DENSE_ENTRIES)
    assert {(r["verdict"], r["detail"]) for r in exact} == {(V.PASS, "")}
    ran = {(catalog.lookup(r["intrinsic"]).base or r["intrinsic"], r["cpu"]) for r in exact}
    assert ran == {(row.name, c) for row in ROWS for c in NVPTX.cpus if row.runs_on(c)}
    for r in exact:
        row = catalog.lookup(r["intrinsic"])
        assert V.tuple_width(r["tuples"]["text"]["a"]) == row.gprs[1] and V.tuple_width(r["tuples"]["text"]["b"]) == row.gprs[2]


def test_globalisel_is_unsupported_with_llcs_own_message(records):
    gisel = [r for r in _isa(records) if r["selector"] == "gisel" and r["class"] not in ("illegal", "immarg-range")]
    assert gisel and {(r["verdict"], r["detail"]) for r in gisel} == {
        (V.UNSUPPORTED, "llc: error: target does not support generation of this file type")
    }


def test_an_sm_without_the_instruction_cannot_select_it(records):
    absent = [r for r in _dense(records) if r["class"] == "absent" and r["selector"] == "sdag"]
    assert len(absent) == N_ABSENT == sum(1 for row in ROWS if row.absent_sm)
    assert {(catalog.lookup(r["intrinsic"]).base or r["intrinsic"], r["cpu"]) for r in absent} == {
        (row.name, row.absent_sm) for row in ROWS if row.absent_sm
    }
    assert {r["cpu"] for r in absent} == {"sm_70", "sm_75", "sm_80", "sm_89", "sm_100a"}
    # Given the row's PTX version (+ptx70), llc selects m16n8k8 bf16/tf32 for sm_75 and ptxas
    # refuses it; every other absent cell aborts in the selector.
    selected = {"mma.m16n8k8.row.col.bf16", "mma.m16n8k8.row.col.tf32"}
    for r in absent:
        if r["intrinsic"] in selected:
            assert r["verdict"] == V.MC_REJECT and "requires .target sm_80 or higher" in r["detail"], r
        else:
            assert r["verdict"] == V.CANNOT_SELECT and "Cannot select: intrinsic %llvm.nvvm.mma." in r["detail"], r
    assert {r["intrinsic"] for r in absent if r["verdict"] == V.MC_REJECT} == selected


def test_a_rejected_declaration_rejects_its_calls_and_no_other(nvptx_tc):
    # One module, two intrinsics: the verifier names the declaration with a register short; the
    # calls of the other intrinsic are not its to judge.
    short, other = _case(K16_BF16, width_a=1), _case(K8_F16)
    module = emit.module([short, other])
    assert len(emit.declarations([short, other])) == 2
    found = runner.Runner(nvptx_tc, 1, facts=False).verify([short, other], module)
    assert list(found) == [short.function] and found[short.function].verdict == V.VERIFIER_REJECT
    assert found[short.function].detail.endswith(f"ptr @llvm.nvvm.{K16_BF16}")


def test_a_wrong_signature_is_a_verifier_reject_naming_the_declaration(records):
    illegal = [r for r in records if r["class"] == "illegal"]
    assert len(illegal) == 2 * 2 * 2  # two rows, one register short and another type, both selectors
    for r in illegal:
        assert r["verdict"] == V.VERIFIER_REJECT
        assert r["detail"].endswith(f"ptr @llvm.nvvm.{r['intrinsic']}")
        assert r["verifier"]["message"] in litgen.FRAGMENT_MESSAGES


def test_try_names_both_tools_and_the_register_groups(nvptx_tc, ptxas_path, cli):
    proc = cli("try", "--intrinsic", "llvm.nvvm." + K16_BF16, "--cpu", "sm_80", "--json", env={"PTXAS": ptxas_path})
    rec = json.loads(proc.stdout)
    assert (rec["verdict"], rec["cpu"], rec["target"] if "target" in rec else "nvptx") == (V.PASS, "sm_80", "nvptx")
    assert [os.path.basename(t["argv"][0]) for t in rec["tools"]] == ["llc", "ptxas"]
    assert rec["tools"][1]["argv"][1:] == ["-arch=sm_80", "-o", "/dev/null", "/dev/stdin"]
    assert rec["tuples"]["text"] == {"a": "{%r1, %r2, %r3, %r4}", "b": "{%r5, %r6}"}


def test_without_ptxas_the_verdict_says_nothing_closed_the_text(nvptx_tc, monkeypatch):
    # Fault injection: the one lookup of ptxas finds none.
    monkeypatch.setitem(toolchain.EXTERNAL, "ptxas", lambda explicit=None: "")
    groups = cases.group([Planned(_case(K16_BF16), ("sdag",), ())])
    [outcome] = runner.Runner(nvptx_tc, 1).run(groups)
    assert outcome.verdict.verdict == V.UNSUPPORTED
    assert outcome.verdict.detail.startswith("no ptxas to close llc's text")
    assert outcome.verdict.details["tuples"]["text"]["a"] == "{%r1, %r2, %r3, %r4}"


def test_ptx_holding_another_instruction_is_wrong_shape(nvptx_tc, ptxas_path, tmp_path, cli):
    # Fault injection: an llc whose PTX carries the f16 instruction where the call is bf16 (the
    # registers are alike, so ptxas takes it: only the shape check can tell).
    fake = tmp_path / "bin"
    fake.mkdir()
    for tool in ("opt", "llvm-mc", "llvm-as", "llvm-objdump", "FileCheck"):
        (fake / tool).symlink_to(nvptx_tc.bin_dir / tool)
    (fake / "llc").write_text(
        f'#!/bin/sh\nout=$({nvptx_tc.bin_dir / "llc"} "$@") || exit $?\n'
        "printf '%s\\n' \"$out\" | sed 's/f32.bf16.bf16.f32/f32.f16.f16.f32/'\n"
    )
    (fake / "llc").chmod(0o755)
    proc = cli("try", "--llvm-bin", fake, "--intrinsic", K16_BF16, "--cpu", "sm_90", "--json", env={"PTXAS": ptxas_path})
    rec = json.loads(proc.stdout)
    assert rec["verdict"] == V.WRONG_SHAPE, proc.stdout + proc.stderr
    assert rec["detail"] == (
        "llc selected mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, not mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
    )


# ---- lit -----------------------------------------------------------------------------------------


@pytest.fixture
def suite(tmp_path, repo_root) -> Path:
    root = tmp_path / "suite"
    (root / "cases" / "generated").mkdir(parents=True)
    shutil.copy(repo_root / "lit.cfg.py", root / "lit.cfg.py")
    shutil.copytree(repo_root / "harness", root / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(repo_root / "cases" / "known-bugs.yaml", root / "cases" / "known-bugs.yaml")
    return root


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
        m.group(2): m.group(1)
        for m in re.finditer(r"^(\w+): matrix-lowering :: cases/generated/(\S+\.ll) ", proc.stdout, re.MULTILINE)
    }


def _file(case: Case) -> tuple[str, str]:
    group = cases.group([Planned(case, tuple(cases.SELECTORS), ("nvptx-mma.yaml",))])[0]
    return group.filename, litgen.lit_file(group)


def test_lit_files_pass_through_real_lit_and_a_wrong_count_fails(nvptx_tc, ptxas_path, lit_exe, suite):
    files = dict(map(_file, (_case(K16_BF16, opt=2), _case(K8_F16, "sm_80"), _case(K16_BF16, "sm_80", width_a=1))))
    text = files["mma.ptx70.llvm14.sm_90.O2.exact.ll"]  # (the file of the rows LLVM 14 on declares)
    assert "; RUN: %if ptxas %{ ptxas -arch=sm_90 -o /dev/null %t.sdag.s %}" in text
    assert "; CHECK-NEXT: {%{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}},{{$}}" in text  # B: two registers
    assert "| FileCheck --check-prefix=NOSEL %s" in text
    # Mutation: the same file expecting B with three registers must fail.
    planted = text.replace(
        "; CHECK-NEXT: {%{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}},",
        "; CHECK-NEXT: {%{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}, %{{[a-z]+[0-9]+}}},",
    )
    assert planted != text
    files["planted.ll"] = planted
    for name, body in files.items():
        (suite / "cases" / "generated" / name).write_text(body)
    expected = {**dict.fromkeys(files, "PASS"), "planted.ll": "FAIL"}
    assert _lit(lit_exe, suite, ptxas_path) == expected


# ---- what a hostile review found ----------------------------------------------------------------


def test_brace_groups_on_the_mnemonics_own_line():
    line = "\tmma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r6, %r7}, {%r1, %r2}, {%r3}, {%r4, %r5};"
    found = V.instruction([line], ("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",))
    assert [V.tuple_width(o) for o in found[1]] == [2, 2, 1, 2]


def _fake_ptxas(tmp_path: Path, body: str) -> str:
    path = tmp_path / "ptxas"
    path.write_text("#!/bin/sh\ncat > /dev/null\n" + body)
    path.chmod(0o755)
    return str(path)


def test_a_ptxas_that_cannot_judge_the_text_gives_no_mc_reject(nvptx_tc, tmp_path, monkeypatch):
    # Fault injection: a ptxas of a CUDA without the SM (its message names no line), and one
    # that rejects the header's .version (a line outside every function).
    groups = cases.group([Planned(_case(K16_BF16), ("sdag",), ())])
    for body, words in (
        ("echo \"ptxas fatal   : Value 'sm_90' is not defined for option 'gpu-name'\" >&2\nexit 255\n", "is not defined"),
        ('echo "ptxas /dev/stdin, line 5; fatal   : Unsupported .version 8.6" >&2\nexit 255\n', "Unsupported .version"),
    ):
        monkeypatch.setitem(toolchain.EXTERNAL, "ptxas", lambda body=body: _fake_ptxas(tmp_path, body))
        [outcome] = runner.Runner(nvptx_tc, 1).run(groups)
        assert outcome.verdict.verdict == V.UNSUPPORTED and outcome.verdict.detail.startswith("ptxas cannot judge this text: ")
        assert words in outcome.verdict.detail


def test_a_ptxas_rejection_inside_a_function_names_ptxas(nvptx_tc, tmp_path, monkeypatch):
    groups = cases.group([Planned(_case(K16_BF16), ("sdag",), ())])
    line = 'echo "ptxas /dev/stdin, line $(grep -n mma.sync /dev/stdin | cut -d: -f1); error   : Bad" >&2\nexit 255\n'
    path = tmp_path / "ptxas"
    path.write_text("#!/bin/sh\n" + line)
    path.chmod(0o755)
    monkeypatch.setitem(toolchain.EXTERNAL, "ptxas", lambda: str(path))
    [outcome] = runner.Runner(nvptx_tc, 1).run(groups)
    assert outcome.verdict.verdict == V.MC_REJECT
    assert outcome.verdict.detail.startswith("ptxas: Bad: mma.sync.aligned.m16n8k16"), outcome.verdict.detail


def test_report_merges_nvptx_records_without_register_counts(nvptx_tc, ptxas_path, cli, tmp_path):
    run = cli("run", "--spec", "nvptx-mma.yaml", "--filter", "mma_m16n8k8_row_col_tf32*", "--json", env={"PTXAS": ptxas_path})
    assert run.returncode == 0, run.stderr
    (tmp_path / "r.json").write_text(run.stdout)
    compiled = next(c for c in json.loads(run.stdout)["cases"] if c["verdict"] == V.PASS)
    assert "vgpr" not in compiled["metrics"]  # (AMDGPU's register counts: NVPTX has none)
    proc = cli("report", tmp_path / "r.json")
    assert proc.returncode == 0 and "mma.m16n8k8.row.col.tf32" in proc.stdout, proc.stderr


def test_bisect_run_votes_on_an_nvptx_row_under_its_own_selectors(nvptx_tc, ptxas_path, cli):
    proc = cli("bisect-run", "--llvm-bin", nvptx_tc.bin_dir, "--intrinsic", K16_BF16, env={"PTXAS": ptxas_path})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith(
        "1 pass (1 expected, 0 known bug, 0 unexpected, 0 not judged (unsupported or timeout)): every case gives the verdict its class expects"
    )


def test_an_amdgpu_build_without_llvm_mc_is_bad_input_not_unsupported(llvm, cli, tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    for tool in ("llc", "opt", "llvm-as", "llvm-objdump", "FileCheck"):
        (fake / tool).symlink_to(llvm.bin_dir / tool)
    proc = cli("try", "--llvm-bin", fake, "--intrinsic", "wmma.f32.16x16x128.f8f6f4", "--fmt-a", "fp8", "--fmt-b", "fp8")
    assert proc.returncode == 2 and f"no llvm-mc in {fake}" in proc.stderr, proc.stdout + proc.stderr


def test_snapshot_on_an_nvptx_row_is_refused_where_the_spec_says_it(tmp_path, cli):
    (tmp_path / "s.yaml").write_text(f"matrix:\n  - intrinsic: {K16_BF16}\n    selector: sdag\n    snapshot: true\n")
    proc = cli("expand", "--cases", tmp_path)
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        == f"harness: {tmp_path / 's.yaml'}:4:15: error: snapshot: snapshots are written for AMDGPU rows only, not {K16_BF16}'s"
    )


@pytest.mark.parametrize("version", ["22", "19", "14"])
def test_an_older_build_selects_what_the_isa_lacks_and_ptxas_refuses_it(ptxas_path, cli, version):
    """LLVM 14 and 19 declare mma.m16n8k16.row.col.{f16.f32,f32.f16} and llc prints an
    m16n8k16 with D and C of different types, which ptxas refuses: a finding. 22 does not know them."""
    bin_dir = Path(f"/usr/lib/llvm-{version}/bin")
    if not (bin_dir / "llc").exists():
        if os.environ.get("CI"):
            pytest.fail(f"{bin_dir} is missing (ci/setup.sh --test installs llvm-{version})")
        pytest.skip(f"{bin_dir} is missing (apt-get install llvm-{version})")
    for name in sorted(NOT_ISA):
        proc = cli("try", "--llvm-bin", bin_dir, "--intrinsic", name, "--json", env={"PTXAS": ptxas_path})
        rec = json.loads(proc.stdout)
        if version == "22":
            assert (rec["verdict"], rec["cpu"]) == (V.UNSUPPORTED, "sm_80") and "intrinsic unknown" in rec["detail"], proc.stdout
            continue
        assert (rec["verdict"], rec["cpu"]) == (V.MC_REJECT, "sm_80"), proc.stdout
        assert rec["detail"].startswith("ptxas: .dtype must be ") and "shape '.m16n8k16'" in rec["detail"], rec["detail"]


# ---- a ptxas that crashes or hangs -----------------------------------------------------------


@pytest.mark.parametrize(
    "kind, verdict, detail", [("segv", "crash", "ptxas killed by signal 11"), ("hang", "timeout", "ptxas ran past 8 s")]
)
def test_try_nvptx_ptxas_crash_and_timeout_are_not_rejections(cli, nvptx_tc, bad_ptxas, kind, verdict, detail):
    proc = cli(
        "try", "--intrinsic", "mma.m16n8k16.row.col.bf16", "--cpu", "sm_90", "--timeout", "8", "--json",
        env={"PTXAS": str(bad_ptxas[kind])},
    )  # fmt: skip
    assert "Traceback" not in proc.stderr, proc.stderr
    record = json.loads(proc.stdout)
    assert record["verdict"] == verdict and detail in record["detail"], record


def test_each_sm_s_ptx_version_is_the_one_llc_writes_there(nvptx_tc):
    """The PTX ISA version that introduced each target (`sms`, which decides when a row needs
    -mattr=+ptxNN) is the one llc writes there without -mattr, for every SM llc lists (llc
    writes nothing older than PTX 3.2)."""
    written, wanted = {}, {}
    for sm in _listed_sms(nvptx_tc):
        run = nvptx_tc.run("llc", [f"-mtriple={NVPTX.triple}", f"-mcpu={sm}"], "define void @f() {\n  ret void\n}\n")
        found = re.search(r"^\.version (\d+)\.(\d)$", run.stdout, re.MULTILINE)
        assert run.ok and found, (sm, run.stderr)
        written[sm] = int(found.group(1)) * 10 + int(found.group(2))
        wanted[sm] = max(sms.BY_NAME[sm].ptx, 32)
    assert len(written) >= 40 and written == wanted


def _listed_sms(tc) -> list[str]:
    run = tc.run("llc", [f"-mtriple={NVPTX.triple}", "-mcpu=help"], "")
    block = (run.stdout + run.stderr).split("Available CPUs for this target:")[1].split("Available features")[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


def test_every_sm_llc_lists_is_in_the_table(nvptx_tc):
    listed = _listed_sms(nvptx_tc)
    assert [s for s in listed if s not in sms.BY_NAME] == []


# (row, target, has it): the PTX ISA's target rules written out by hand: a baseline feature from
# its SM on, an `a` target's family features on that family's `a` and `f` targets (PTX 8.8).
SM_FACTS = [
    ("mma.m8n8k4.row.col.f16.f16", "sm_70", True),
    ("mma.m8n8k4.row.col.f16.f16", "sm_72", True),
    ("mma.m8n8k4.row.col.f16.f16", "sm_62", False),
    ("mma.m16n8k16.row.col.f32.f32", "sm_86", True),
    ("mma.m16n8k16.row.col.f32.f32", "sm_75", False),
    ("mma.m16n8k16.row.col.f32.f32", "sm_121f", True),
    ("mma.m16n8k32.row.col.f32.e4m3.e4m3.f32", "sm_88", False),  # FP8: sm_89 on
    ("mma.m16n8k32.row.col.f32.e4m3.e4m3.f32", "sm_89", True),
    ("mma.m16n8k32.row.col.f32.e4m3.e4m3.f32", "sm_110", True),
    ("mma.m16n8k32.row.col.kind.f8f6f4.f32.e4m3.e4m3.f32", "sm_120f", True),
    ("mma.m16n8k32.row.col.kind.f8f6f4.f32.e4m3.e4m3.f32", "sm_121a", True),
    ("mma.m16n8k32.row.col.kind.f8f6f4.f32.e4m3.e4m3.f32", "sm_121f", True),
    ("mma.m16n8k32.row.col.kind.f8f6f4.f32.e4m3.e4m3.f32", "sm_120", False),
    ("mma.m16n8k32.row.col.kind.f8f6f4.f32.e4m3.e4m3.f32", "sm_121", False),
    ("mma.m16n8k32.row.col.kind.f8f6f4.f32.e4m3.e4m3.f32", "sm_100f", False),  # another family
    ("mma.m16n8k32.row.col.kind.f8f6f4.f32.e4m3.e4m3.f32", "sm_103a", False),
    # the sparse block-scaled mxf4/mxf4nvf4: the family's `a` targets only (ptxas 13.0)
    ("mma.block.scale.m16n8k64.row.col.mxf4.f32.e2m1.e2m1.f32.ue8m0", "sm_120f", True),
    ("mma.sp.ordered.metadata.block.scale.m16n8k128.row.col.mxf4.f32.e2m1.e2m1.f32.ue8m0", "sm_120f", False),
    ("mma.sp.ordered.metadata.block.scale.m16n8k128.row.col.mxf4.f32.e2m1.e2m1.f32.ue8m0", "sm_121f", False),
    ("mma.sp.ordered.metadata.block.scale.m16n8k128.row.col.mxf4.f32.e2m1.e2m1.f32.ue8m0", "sm_121a", True),
    ("mma.sp.ordered.metadata.block.scale.m16n8k64.row.col.mxf8f6f4.f32.e4m3.e4m3.f32.ue8m0", "sm_121f", True),
]


@pytest.mark.parametrize("name, sm, has", SM_FACTS)
def test_which_targets_have_a_row_follows_the_ptx_isa(name, sm, has):
    row = {r.name: r for r in nvptx_rows.ROWS}[name]
    assert row.runs_on(sm) == has
    assert any(f.runs_on(sm) for f in catalog.lookup_all(name)) == has


def test_a_row_on_a_target_beyond_the_tables_cpus_gets_the_ptx_version_it_needs_there():
    """m8n8k4 (PTX 6.4) on sm_72 (PTX 6.1) needs +ptx64; a row of PTX 8.5 on sm_86 (7.1) and
    sm_90 (7.8) +ptx85, on sm_100a (8.6) nothing;
    sm_120a's rows (8.7) on sm_121a (8.8) nothing; an entry's own CPUs keep its own -mattr."""
    assert catalog.lookup("mma.m8n8k4.row.col.f16.f16", "sm_72").features_on("sm_72") == "+ptx64"
    sp = catalog.lookup("mma.sp.ordered.metadata.m16n8k16.row.col.bf16", "sm_86")
    assert sp.features_on("sm_86") == "+ptx85" and sp.features_on("sm_90") == "+ptx85" and sp.features_on("sm_100a") == ""
    k = catalog.lookup("mma.m16n8k32.row.col.kind.f8f6f4.f32.e4m3.e4m3.f32", "sm_121a")
    assert k.features_on("sm_121a") == "" and k.features_on("sm_120a") == k.features
    for form in catalog.lookup_all("mma.m16n8k32.row.col.f32.e4m3.e5m2.f32"):
        assert all(form.features_on(c) == form.features for c in form.cpus)


def test_a_family_feature_compiles_on_its_family_and_is_refused_on_the_plain_target(nvptx_tc, cli):
    """sm_120a's block-scaled mma on sm_121a: llc and ptxas take it (a pass, expected); on plain
    sm_121 llc must refuse it (it aborts: the known bug of every absent NVPTX cell)."""
    name = "mma.block.scale.m16n8k32.row.col.mxf8f6f4.scale.1x.f32.e4m3.e4m3.f32.ue8m0"
    for sm, verdict, judgment in (("sm_121a", "pass", "expected"), ("sm_121", "cannot-select", "known-bug")):
        proc = cli("try", "--intrinsic", name, "--cpu", sm, "--json")
        assert proc.returncode == 0, proc.stderr[-2000:]
        rec = json.loads(proc.stdout)
        assert (rec["verdict"], rec["judgment"]) == (verdict, judgment), rec
