"""Formats and the intrinsic catalog against facts measured on the real tools.

The expected values below are typed from the ISA / LLVM behaviour (register counts, argument
positions, mangled names, assembler spellings), never copied out of harness.targets.catalog.
"""

from __future__ import annotations

import re

import pytest

from harness.specs import emit
from harness.specs.cases import Case
from harness.targets import amdgpu_rows, catalog, families, formats, modifiers, nvptx_rows

FP8, BF8, FP6, BF6, FP4 = 0, 1, 2, 3, 4
WMMA_REGS = {FP8: 16, BF8: 16, FP6: 12, BF6: 12, FP4: 8}
MFMA_REGS = {FP8: 8, BF8: 8, FP6: 6, BF6: 6, FP4: 4}
WMMA_RT = ("wmma.f32.16x16x128.f8f6f4", "wmma.scale.f32.16x16x128.f8f6f4", "wmma.scale16.f32.16x16x128.f8f6f4")
MFMA_RT = ("mfma.scale.f32.16x16x128.f8f6f4", "mfma.scale.f32.32x32x64.f8f6f4")
F4 = ("wmma.f32.32x16x128.f4", "wmma.scale.f32.32x16x128.f4", "wmma.scale16.f32.32x16x128.f4")
WMMA_PRINTED = {FP8: "", BF8: "MATRIX_FMT_BF8", FP6: "MATRIX_FMT_FP6", BF6: "MATRIX_FMT_BF6", FP4: "MATRIX_FMT_FP4"}

ACCEPTED = [
    *[(text, v) for v in range(5) for text in (str(v), v)],
    ("fp8", FP8),
    ("BF8", BF8),
    ("Fp6", FP6),
    ("bF6", BF6),
    ("FP4", FP4),
    (" fp4 ", FP4),
    ("MATRIX_FMT_FP8", FP8),
    ("matrix_fmt_bf8", BF8),
    ("MATRIX_FMT_FP6", FP6),
    ("Matrix_Fmt_BF6", BF6),
    ("MATRIX_FMT_FP4", FP4),
    ("FP8_E4M3", FP8),
    ("fp8_e5m2", BF8),
    ("FP6_E2M3", FP6),
    ("fp6_e3m2", BF6),
    ("FP4_E2M1", FP4),
]
REJECTED = ["fp9", "5", "-1", 5, "", "e4m3", "fp16", "MATRIX_FMT_FP16", "FP8_E5M3", "4.0", True, False, None]


@pytest.mark.parametrize("text,value", ACCEPTED, ids=repr)
def test_every_documented_format_spelling_parses_to_its_number(text, value):
    assert formats.parse(text) == value


@pytest.mark.parametrize("text", REJECTED, ids=repr)
def test_unknown_format_spellings_are_rejected_with_the_accepted_list(text):
    with pytest.raises(ValueError) as err:
        formats.parse(text)
    message = str(err.value)
    assert "\n" not in message
    assert "FP4_E2M1" in message and "MATRIX_FMT_FP8" in message and "fp8" in message


@pytest.mark.parametrize("name", WMMA_RT + MFMA_RT)
def test_runtime_format_intrinsics_read_the_documented_register_counts(name):
    intr = catalog.lookup(name)
    regs, widths = (WMMA_REGS, (8, 12, 16)) if name in WMMA_RT else (MFMA_REGS, (4, 6, 8))
    assert intr.runtime_formats
    for side in (intr.a, intr.b):
        assert dict(side.regs) == regs
        assert tuple(side.widths) == widths
        assert set(side.formats) == {FP8, BF8, FP6, BF6, FP4}


@pytest.mark.parametrize("name", F4)
def test_fixed_fp4_intrinsics_have_no_format_operands_and_read_16_and_8_registers(name):
    intr = catalog.lookup(name)
    assert not intr.runtime_formats
    assert dict(intr.a.regs) == {FP4: 16}
    assert dict(intr.b.regs) == {FP4: 8}
    assert not intr.runtime_formats and "fmt_a" not in families.operand_names(intr.base or intr.name)


@pytest.mark.parametrize("name", WMMA_RT)
def test_wmma_sources_sit_at_args_1_and_3_and_formats_at_0_and_2(name):
    intr = catalog.lookup(name)
    assert (intr.arg_index(catalog.FMT_A), intr.arg_index(catalog.SRC_A)) == (0, 1)
    assert (intr.arg_index(catalog.FMT_B), intr.arg_index(catalog.SRC_B)) == (2, 3)


@pytest.mark.parametrize("name", MFMA_RT)
def test_mfma_sources_sit_at_args_0_and_1_and_formats_at_cbsz_3_and_blgp_4(name):
    intr = catalog.lookup(name)
    assert (intr.arg_index(catalog.SRC_A), intr.arg_index(catalog.SRC_B)) == (0, 1)
    assert (intr.arg_index(catalog.FMT_A), intr.arg_index(catalog.FMT_B)) == (3, 4)


@pytest.mark.parametrize(
    "name,fa,fb,wa,wb,symbol",
    [
        ("wmma.f32.16x16x128.f8f6f4", FP8, FP6, 16, 12, "llvm.amdgcn.wmma.f32.16x16x128.f8f6f4.v8f32.v16i32.v12i32"),
        (
            "wmma.scale16.f32.16x16x128.f8f6f4",
            FP4,
            FP8,
            8,
            16,
            "llvm.amdgcn.wmma.scale16.f32.16x16x128.f8f6f4.v8f32.v8i32.v16i32",
        ),
        ("mfma.scale.f32.16x16x128.f8f6f4", FP8, FP4, 8, 4, "llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v4i32"),
        ("mfma.scale.f32.32x32x64.f8f6f4", FP6, BF6, 6, 6, "llvm.amdgcn.mfma.scale.f32.32x32x64.f8f6f4.v6i32.v6i32"),
        ("wmma.f32.32x16x128.f4", FP4, FP4, 16, 8, "llvm.amdgcn.wmma.f32.32x16x128.f4.v16f32.v16i32.v8i32"),
    ],
)
def test_overloaded_name_is_mangled_result_a_b_for_wmma_and_a_b_for_mfma(name, fa, fb, wa, wb, symbol):
    intr = catalog.lookup(name)
    assert emit.callee(Case(intr, intr.cpus[0], fa, fb, wa, wb))[0] == symbol


def test_lookup_accepts_the_llvm_prefix_and_rejects_unknown_names():
    assert catalog.lookup("llvm.amdgcn.wmma.f32.16x16x128.f8f6f4") is catalog.lookup("wmma.f32.16x16x128.f8f6f4")
    with pytest.raises(KeyError, match="unknown intrinsic"):
        catalog.lookup("wmma.f32.16x16x64.f8f6f4")
    assert set(WMMA_RT + MFMA_RT + F4) == catalog.SEED_NAMES
    assert set(catalog.BY_BASE) == {r.name for r in amdgpu_rows.ROWS + nvptx_rows.ROWS}  # one name per row of the tables
    assert catalog.lookup("llvm.nvvm.mma.m16n8k8.row.col.tf32") is catalog.lookup("mma.m16n8k8.row.col.tf32")
    assert catalog.CPUS == (
        *("gfx1100", "gfx1200", "gfx1250", "gfx908", "gfx90a", "gfx942", "gfx950"),
        *("sm_100a", "sm_120a", "sm_80", "sm_89", "sm_90", "sm_90a"),
    )
    assert set(catalog.CPUS) == {cpu for i in catalog.INTRINSICS for cpu in i.cpus}  # (CPUS is declared, not derived)


@pytest.mark.parametrize("fmt", range(5))
def test_catalog_modifier_text_matches_assembler_spelling(fmt):
    wmma, mfma = catalog.lookup(WMMA_RT[0]).mnemonic, catalog.lookup(MFMA_RT[0]).mnemonic
    for side in "ab":
        want = f"matrix_{side}_fmt:{WMMA_PRINTED[fmt]}" if fmt != FP8 else ""
        assert modifiers.spelled({f"fmt_{side}": fmt}, wmma) == want
    assert modifiers.spelled({"fmt_a": fmt}, mfma) == (f"cbsz:{fmt}" if fmt else "")
    assert modifiers.spelled({"fmt_b": fmt}, mfma) == (f"blgp:{fmt}" if fmt else "")


def test_the_build_knows_every_catalog_intrinsic_overload(llvm, tool):
    """`opt -S` tags names it does not know; none of the catalog's exact overloads of an instruction
    some CPU has may be tagged (an entry no CPU runs is an intrinsic older builds declared)."""
    cases = [
        Case(i, i.cpus[0], min(i.a.regs), min(i.b.regs), i.a.regs[min(i.a.regs)], i.b.regs[min(i.b.regs)])
        for i in catalog.INTRINSICS
        if i.cpus
    ]
    decls = emit.declarations(cases)
    # An NVPTX row split into entries per -mattr declares its intrinsic once.
    shared = sum(len(forms) - 1 for forms in catalog.BY_BASE.values() if forms[0].fragments)
    assert len(decls) == len(cases) - shared
    run = tool("opt", ["-S", "-o", "-"], "\n".join(decls) + "\n")
    assert run.returncode == 0, run.stderr
    assert "Unknown intrinsic" not in run.stdout
    # The probe can fail: a name the build lacks is tagged.
    bogus = tool("opt", ["-S", "-o", "-"], decls[0].replace("16x16x128", "16x16x96") + "\n")
    assert "; Unknown intrinsic" in bogus.stdout


def _modifiers_per_function(asm: str, mnemonic: str, functions: set[str]) -> dict[str, list[str]]:
    """Function label -> the modifier tokens on its matrix instruction, read from llc's text."""
    out, current = {}, None
    for line in asm.splitlines():
        label = re.match(r"^([\w.]+):", line)
        if label and label.group(1) in functions:
            current = label.group(1)
        elif current and line.strip().startswith(mnemonic + " "):
            out[current] = re.findall(r"\b(?:matrix_[ab]_fmt:\w+|cbsz:\d+|blgp:\d+)", line)
    return out


@pytest.mark.parametrize("name", WMMA_RT + MFMA_RT)
def test_llc_prints_exactly_the_documented_format_modifiers_for_all_25_pairs(llvm, tool, name):
    """Guards the CHECK lines: the assembler omits FP8 / 0 and names every other format."""
    intr = catalog.lookup(name)
    regs = WMMA_REGS if name in WMMA_RT else MFMA_REGS
    cases = [Case(intr, intr.cpus[0], fa, fb, regs[fa], regs[fb]) for fa in range(5) for fb in range(5)]
    run = tool("llc", ["-O0", "-mtriple=amdgcn", f"-mcpu={intr.cpus[0]}"], emit.module(cases).text)
    assert run.returncode == 0, run.stderr[-2000:]
    found = _modifiers_per_function(run.stdout, intr.mnemonic, {c.function for c in cases})
    assert len(found) == 25, f"{intr.mnemonic} not printed for every function"
    for c in cases:
        if name in WMMA_RT:
            want = [f"matrix_{s}_fmt:{WMMA_PRINTED[f]}" for s, f in (("a", c.fmt_a), ("b", c.fmt_b)) if f != FP8]
        else:
            want = [f"{m}:{f}" for m, f in (("cbsz", c.fmt_a), ("blgp", c.fmt_b)) if f]
        assert found[c.function] == want, c.function
