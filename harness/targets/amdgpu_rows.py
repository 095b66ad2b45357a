"""Every AMDGPU matrix intrinsic LLVM 22.1.8 declares, as explicit rows.

All 142 `llvm.amdgcn.(mfma|smfmac|wmma|swmmac).*` names of IntrinsicsAMDGPU.h, one `Row` each.
Signatures (operand order, which operands are ImmArg, which types are `llvm_any*_ty` and so mangled)
come from IntrinsicsAMDGPU.td. Which CPUs have each instruction, its mnemonic there and the 32-bit
registers each operand occupies come from the ISA as AMD's Matrix Instruction Calculator encodes it
(v1.3.1: per-architecture instruction lists with M/N/K/blocks/types for cdna1-3, rdna3, rdna4; the
registers follow from those) and from LLVM's assembler tests, which spell mnemonics and register
tuples per CPU (llvm/test/MC/AMDGPU: mai.s, mai-gfx940.s, mai-gfx950.s and its gfx950 XF32 error
test, gfx12_asm_wmma_w32/w64.s, gfx1250_asm_wmma_w32(_err).s); CDNA4 (gfx950) and gfx1250, which the
Calculator predates, come from those tests alone. Concrete IR types of the overloaded WMMA/SWMMAC
forms per CPU generation and wave size follow LLVM's tests (wmma_multiple_32/64.ll,
GlobalISel/wmma-gfx12-w32/w64.ll, the AMDGPU uniformity test with the gfx1250 calls). Nothing here is
taken from what llc prints: llc is the tool under test.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import groupby
from typing import Literal


@dataclass(frozen=True)
class Shape:
    """One concrete form of a row: the CPUs (and wave size) it holds on, the instruction the ISA
    names there, the IR types of the call, and the registers each operand occupies."""

    cpus: tuple[str, ...]
    mnemonic: str  # lower case, as llvm-mc spells it on these CPUs, e.g. "v_mfma_f32_32x32x1_2b_f32"
    result: str  # IR type of D, e.g. "<16 x float>"
    a: str  # IR type of A, e.g. "<4 x half>", "float", "i64"
    b: str  # IR type of B
    regs: tuple[int, int, int, int]  # 32-bit registers of D, A, B, C per the ISA
    acc: str = ""  # IR type of C when it differs from D (e.g. wmma.bf16f32), else ""
    index: str = ""  # IR type of the sparsity index (smfmac, swmmac), else ""
    wave64: bool = False  # this form is compiled with -mattr=+wavefrontsize64 (gfx11/gfx12 WMMA/SWMMAC in wave64)
    zero: tuple[str, ...] = ()  # immargs that must be 0 on these CPUs (gfx12's op_sel), whatever the row's range


@dataclass(frozen=True)
class Row:
    name: str  # without "llvm.amdgcn.", e.g. "mfma.f32.32x32x1f32"
    family: str  # "mfma" | "smfmac" | "wmma" | "swmmac"
    operands: tuple[str, ...]
    overload: tuple[str, ...]
    shapes: tuple[Shape, ...]


# Operand lists, one per signature class of IntrinsicsAMDGPU.td. Immarg ranges are the ISA field
# widths (CBSZ 3 bits, ABID 4 bits, BLGP 3 bits, C modifier 2 bits) or the values the .td comments
# and the ISA define; where an instruction gives a field less meaning the comment says so.

# fmt: off
# AMDGPUMfmaIntrinsic: D = A * B + C. CBSZ/ABID (A-matrix broadcast) only do something on multi-block
# MFMAs (e.g. 32x32x1_2b, 16x16x4_4b, 4x4x4_16b). BLGP (B lane-group pattern) is encodable on all; the
# Calculator lists it as usable on every CDNA1/2 MFMA but only on the multi-block CDNA3 ones.
MFMA_OPERANDS = ("A", "B", "C", "immarg i32 cbsz 0..7", "immarg i32 abid 0..15", "immarg i32 blgp 0..7")
# The f64 MFMAs: on gfx942/gfx950 the BLGP field is NEG[2:0] (negate A, B, C); on gfx90a it is BLGP.
MFMA_F64_OPERANDS = ("A", "B", "C", "immarg i32 cbsz 0..7", "immarg i32 abid 0..15", "immarg i32 blgp 0..7")
# AMDGPUMfmaScaleIntrinsic: CBSZ/BLGP are the A/B formats (0 FP8, 1 BF8, 2 FP6, 3 BF6, 4 FP4);
# op_sel picks the scale byte of each v_mfma_ld_scale_b32 source (2 bits).
MFMA_SCALE_OPERANDS = (
    "A", "B", "C", "fmt_a", "fmt_b",
    "immarg i32 op_sel_a 0..3", "i32 scale_a", "immarg i32 op_sel_b 0..3", "i32 scale_b",
)
# AMDGPUMSmfmacIntrinsic: the sparsity index takes the SrcC slot (D is tied to the accumulator C).
# SMFMAC reuses CBSZ/ABID to choose the index set inside the index VGPR rather than for A broadcast.
SMFMAC_OPERANDS = ("A", "B", "C", "index", "immarg i32 cbsz 0..7", "immarg i32 abid 0..15")

# AMDGPUWmmaIntrinsic.
WMMA_OPERANDS = ("A", "B", "C")
# AMDGPUWmmaIntrinsicOPSEL: op_sel (high half) is meaningful on gfx11 only; gfx12 requires 0.
WMMA_OPSEL_OPERANDS = ("A", "B", "C", "immarg i1 op_sel 0..1")
# AMDGPUWmmaIntrinsicIU: sign_a/sign_b select signed (1) or unsigned (0) integer sources.
WMMA_IU_OPERANDS = ("immarg i1 sign_a 0..1", "A", "immarg i1 sign_b 0..1", "B", "C", "immarg i1 clamp 0..1")
# AMDGPUSWmmacIntrinsicIdx.
SWMMAC_OPERANDS = ("A", "B", "C", "index")
# AMDGPUSWmmacIntrinsicIUIdx.
SWMMAC_IU_OPERANDS = ("immarg i1 sign_a 0..1", "A", "immarg i1 sign_b 0..1", "B", "C", "index", "immarg i1 clamp 0..1")

# gfx1250. c_mod: 0 none, 1 neg, 2 abs, 3 neg(abs). reuse_a/reuse_b are operand-reuse hints.
# AMDGPUWmmaIntrinsicModsAllReuse / ModsAllDiff.
WMMA_1250_OPERANDS = (
    "immarg i1 neg_a 0..1", "A", "immarg i1 neg_b 0..1", "B", "immarg i16 c_mod 0..3", "C",
    "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1",
)
# AMDGPUWmmaIntrinsicModsC.
WMMA_1250_FP8_OPERANDS = ("A", "B", "immarg i16 c_mod 0..3", "C", "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1")
# AMDGPUWmmaIntrinsicModsABClamp (.td calls the i1s A_mod/B_mod; on IU8 the ISA reads them as signedness).
WMMA_1250_IU8_OPERANDS = (
    "immarg i1 sign_a 0..1", "A", "immarg i1 sign_b 0..1", "B", "C",
    "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1", "immarg i1 clamp 0..1",
)
# AMDGPUWmmaIntrinsicModsC_MatrixFMT: matrix_a_fmt/matrix_b_fmt (0 FP8, 1 BF8, 2 FP6, 3 BF6, 4 FP4) are
# ImmArg in the .td; listed as fmt_a/fmt_b because they fix how many registers A and B really read.
WMMA_F8F6F4_OPERANDS = ("fmt_a", "A", "fmt_b", "B", "immarg i16 c_mod 0..3", "C")
# AMDGPUWmmaScaleIntrinsicModsC: scale_sel picks MATRIX_SCALE_ROW0/ROW1, scale_fmt is
# MATRIX_SCALE_FMT_E8/E5M3/E4M3 (2-bit field, 3 defined); scale_* are the runtime scale registers.
WMMA_SCALE_F8F6F4_OPERANDS = (
    "fmt_a", "A", "fmt_b", "B", "immarg i16 c_mod 0..3", "C",
    "immarg i32 scale_sel_a 0..1", "immarg i32 scale_fmt_a 0..2", "i32 scale_a",
    "immarg i32 scale_sel_b 0..1", "immarg i32 scale_fmt_b 0..2", "i32 scale_b",
    "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1",
)
WMMA_SCALE16_F8F6F4_OPERANDS = (
    "fmt_a", "A", "fmt_b", "B", "immarg i16 c_mod 0..3", "C",
    "immarg i32 scale_sel_a 0..1", "immarg i32 scale_fmt_a 0..2", "i64 scale_a",
    "immarg i32 scale_sel_b 0..1", "immarg i32 scale_fmt_b 0..2", "i64 scale_b",
    "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1",
)
# AMDGPUWmmaIntrinsicF4ModsC.
WMMA_F4_OPERANDS = ("A", "B", "immarg i16 c_mod 0..3", "C")
# AMDGPUWmmaScaleF4IntrinsicModsC.
WMMA_SCALE_F4_OPERANDS = (
    "A", "B", "immarg i16 c_mod 0..3", "C",
    "immarg i32 scale_sel_a 0..1", "immarg i32 scale_fmt_a 0..2", "i32 scale_a",
    "immarg i32 scale_sel_b 0..1", "immarg i32 scale_fmt_b 0..2", "i32 scale_b",
    "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1",
)
WMMA_SCALE16_F4_OPERANDS = (
    "A", "B", "immarg i16 c_mod 0..3", "C",
    "immarg i32 scale_sel_a 0..1", "immarg i32 scale_fmt_a 0..2", "i64 scale_a",
    "immarg i32 scale_sel_b 0..1", "immarg i32 scale_fmt_b 0..2", "i64 scale_b",
    "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1",
)
# AMDGPUSWmmacIntrinsicABIdx.
SWMMAC_1250_OPERANDS = (
    "immarg i1 neg_a 0..1", "A", "immarg i1 neg_b 0..1", "B", "C", "index",
    "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1",
)
# AMDGPUSWmmacIntrinsicIdxReuse.
SWMMAC_1250_FP8_OPERANDS = ("A", "B", "C", "index", "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1")
# AMDGPUSWmmacIntrinsicABIdxClamp (A_mod/B_mod are signedness on IU8).
SWMMAC_1250_IU8_OPERANDS = (
    "immarg i1 sign_a 0..1", "A", "immarg i1 sign_b 0..1", "B", "C", "index",
    "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1", "immarg i1 clamp 0..1",
)
# fmt: on


# The tables below give one Shape per line, in the spirit of LLVM's NVPTX wmma.py; a row's shapes are
# its consecutive lines (same name), in order, and one helper per family turns the lines of one
# signature class (operand list, overloaded operands) into Rows. Columns:
#   name      without "llvm.amdgcn."
#   cpus      the CPUs of this form, space-separated
#   wave      (WMMA/SWMMAC) 32, or 64 for a form compiled with +wavefrontsize64 (Shape.wave64)
#   mnemonic  (MFMA only) where it is not v_ + the name with "_" for "."; every other line's
#             mnemonic is that, less the ".tied" of the tied WMMAs (the same instruction)
#   D, A, B   IR types in LLVM's overload-suffix spelling (families.mangle): v16f32 = <16 x float>,
#             v8bf16 = <8 x bfloat>, v4i16 = <4 x i16>, f32 = float, f64 = double, i64 = i64
#   regs      32-bit registers of D, A, B, C
#   index     IR type of the sparsity index (SMFMAC, SWMMAC)
_Regs = tuple[int, int, int, int]
_Wave = Literal[32, 64]
_SCALAR = {"f16": "half", "bf16": "bfloat", "f32": "float", "f64": "double"}


def _ir(spelled: str) -> str:
    """The IR type of an overload-suffix spelling: v16f32 -> <16 x float>, f64 -> double, i64 -> i64."""
    m = re.fullmatch(r"v(\d+)(\w+)", spelled)
    return f"<{m[1]} x {_SCALAR.get(m[2], m[2])}>" if m else _SCALAR.get(spelled, spelled)


def _mnemonic(name: str, given: str = "") -> str:
    return given or "v_" + name.removesuffix(".tied").replace(".", "_")


def _rows(family: str, operands: tuple[str, ...], overload: tuple[str, ...], shapes: list[tuple[str, Shape]]) -> tuple[Row, ...]:
    """One Row per run of lines with the same name, its shapes in table order."""
    return tuple(
        Row(name, family, operands, overload, tuple(s for _, s in run)) for name, run in groupby(shapes, lambda ns: ns[0])
    )


def _mfma(
    operands: tuple[str, ...], overload: tuple[str, ...], lines: Iterable[tuple[str, str, str, str, str, str, _Regs]]
) -> tuple[Row, ...]:
    """Lines: name, cpus, mnemonic ("" where it is v_<name>), D, A, B, regs."""
    shapes = []
    for name, cpus, mnemonic, d, a, b, regs in lines:
        shapes.append((name, Shape(tuple(cpus.split()), _mnemonic(name, mnemonic), _ir(d), _ir(a), _ir(b), regs)))
    return _rows("mfma", operands, overload, shapes)


def _smfmac(
    operands: tuple[str, ...], overload: tuple[str, ...], lines: Iterable[tuple[str, str, str, str, str, _Regs, str]]
) -> tuple[Row, ...]:
    """Lines: name, cpus, D, A, B, regs, index."""
    shapes = []
    for name, cpus, d, a, b, regs, index in lines:
        shapes.append((name, Shape(tuple(cpus.split()), _mnemonic(name), _ir(d), _ir(a), _ir(b), regs, index=index)))
    return _rows("smfmac", operands, overload, shapes)


def _wmma(
    operands: tuple[str, ...],
    overload: tuple[str, ...],
    lines: Iterable[tuple[str, str, _Wave, str, str, str, _Regs]],
    acc: str = "",
    zero_gfx12: tuple[str, ...] = (),
) -> tuple[Row, ...]:
    """Lines: name, cpus, wave, D, A, B, regs. `acc`: C's type where it is not D's; `zero_gfx12`: the
    immargs that must be 0 on the gfx1200 forms."""
    shapes = []
    for name, cpus, wave, d, a, b, regs in lines:
        zero = zero_gfx12 if cpus == "gfx1200" else ()
        shape = Shape(
            tuple(cpus.split()), _mnemonic(name), _ir(d), _ir(a), _ir(b), regs, acc=_ir(acc), wave64=wave == 64, zero=zero
        )
        shapes.append((name, shape))
    return _rows("wmma", operands, overload, shapes)


def _swmmac(
    operands: tuple[str, ...], overload: tuple[str, ...], lines: Iterable[tuple[str, str, _Wave, str, str, str, _Regs, str]]
) -> tuple[Row, ...]:
    """Lines: name, cpus, wave, D, A, B, regs, index."""
    shapes = []
    for name, cpus, wave, d, a, b, regs, index in lines:
        shape = Shape(tuple(cpus.split()), _mnemonic(name), _ir(d), _ir(a), _ir(b), regs, index=index, wave64=wave == 64)
        shapes.append((name, shape))
    return _rows("swmmac", operands, overload, shapes)


# fmt: off
# MFMA: CPUs and registers from the Matrix Instruction Calculator (cdna1-3) and mai.s/mai-gfx940.s/mai-gfx950.s
# (gfx950: those tests alone); gfx940 renamed most gfx908 mnemonics (mai-gfx940.s). All wave64.
MFMA_ROWS: tuple[Row, ...] = (
    *_mfma(MFMA_OPERANDS, (), [
        # name                        cpus             mnemonic                      D         A        B        regs
        ("mfma.f32.32x32x1f32",      "gfx908 gfx90a", "",                           "v32f32", "f32",   "f32",   (32, 1, 1, 32)),
        ("mfma.f32.32x32x1f32",      "gfx942 gfx950", "v_mfma_f32_32x32x1_2b_f32",  "v32f32", "f32",   "f32",   (32, 1, 1, 32)),
        ("mfma.f32.16x16x1f32",      "gfx908 gfx90a", "",                           "v16f32", "f32",   "f32",   (16, 1, 1, 16)),
        ("mfma.f32.16x16x1f32",      "gfx942 gfx950", "v_mfma_f32_16x16x1_4b_f32",  "v16f32", "f32",   "f32",   (16, 1, 1, 16)),
        ("mfma.f32.4x4x1f32",        "gfx908 gfx90a", "",                           "v4f32",  "f32",   "f32",   (4, 1, 1, 4)),
        ("mfma.f32.4x4x1f32",        "gfx942 gfx950", "v_mfma_f32_4x4x1_16b_f32",   "v4f32",  "f32",   "f32",   (4, 1, 1, 4)),
        ("mfma.f32.32x32x2f32",      "gfx908 gfx90a", "",                           "v16f32", "f32",   "f32",   (16, 1, 1, 16)),
        ("mfma.f32.32x32x2f32",      "gfx942 gfx950", "v_mfma_f32_32x32x2_f32",     "v16f32", "f32",   "f32",   (16, 1, 1, 16)),
        ("mfma.f32.16x16x4f32",      "gfx908 gfx90a", "",                           "v4f32",  "f32",   "f32",   (4, 1, 1, 4)),
        ("mfma.f32.16x16x4f32",      "gfx942 gfx950", "v_mfma_f32_16x16x4_f32",     "v4f32",  "f32",   "f32",   (4, 1, 1, 4)),
        ("mfma.f32.32x32x4f16",      "gfx908 gfx90a", "",                           "v32f32", "v4f16", "v4f16", (32, 2, 2, 32)),
        ("mfma.f32.32x32x4f16",      "gfx942 gfx950", "v_mfma_f32_32x32x4_2b_f16",  "v32f32", "v4f16", "v4f16", (32, 2, 2, 32)),
        ("mfma.f32.16x16x4f16",      "gfx908 gfx90a", "",                           "v16f32", "v4f16", "v4f16", (16, 2, 2, 16)),
        ("mfma.f32.16x16x4f16",      "gfx942 gfx950", "v_mfma_f32_16x16x4_4b_f16",  "v16f32", "v4f16", "v4f16", (16, 2, 2, 16)),
        ("mfma.f32.4x4x4f16",        "gfx908 gfx90a", "",                           "v4f32",  "v4f16", "v4f16", (4, 2, 2, 4)),
        ("mfma.f32.4x4x4f16",        "gfx942 gfx950", "v_mfma_f32_4x4x4_16b_f16",   "v4f32",  "v4f16", "v4f16", (4, 2, 2, 4)),
        ("mfma.f32.32x32x8f16",      "gfx908 gfx90a", "",                           "v16f32", "v4f16", "v4f16", (16, 2, 2, 16)),
        ("mfma.f32.32x32x8f16",      "gfx942 gfx950", "v_mfma_f32_32x32x8_f16",     "v16f32", "v4f16", "v4f16", (16, 2, 2, 16)),
        ("mfma.f32.16x16x16f16",     "gfx908 gfx90a", "",                           "v4f32",  "v4f16", "v4f16", (4, 2, 2, 4)),
        ("mfma.f32.16x16x16f16",     "gfx942 gfx950", "v_mfma_f32_16x16x16_f16",    "v4f32",  "v4f16", "v4f16", (4, 2, 2, 4)),
        ("mfma.i32.32x32x4i8",       "gfx908 gfx90a", "",                           "v32i32", "i32",   "i32",   (32, 1, 1, 32)),
        ("mfma.i32.32x32x4i8",       "gfx942 gfx950", "v_mfma_i32_32x32x4_2b_i8",   "v32i32", "i32",   "i32",   (32, 1, 1, 32)),
        ("mfma.i32.16x16x4i8",       "gfx908 gfx90a", "",                           "v16i32", "i32",   "i32",   (16, 1, 1, 16)),
        ("mfma.i32.16x16x4i8",       "gfx942 gfx950", "v_mfma_i32_16x16x4_4b_i8",   "v16i32", "i32",   "i32",   (16, 1, 1, 16)),
        ("mfma.i32.4x4x4i8",         "gfx908 gfx90a", "",                           "v4i32",  "i32",   "i32",   (4, 1, 1, 4)),
        ("mfma.i32.4x4x4i8",         "gfx942 gfx950", "v_mfma_i32_4x4x4_16b_i8",    "v4i32",  "i32",   "i32",   (4, 1, 1, 4)),
        # CDNA3 dropped it (replaced by v_mfma_i32_32x32x16_i8): gfx908/gfx90a only.
        ("mfma.i32.32x32x8i8",       "gfx908 gfx90a", "",                           "v16i32", "i32",   "i32",   (16, 1, 1, 16)),
        # CDNA3 dropped it (replaced by v_mfma_i32_16x16x32_i8): gfx908/gfx90a only.
        ("mfma.i32.16x16x16i8",      "gfx908 gfx90a", "",                           "v4i32",  "i32",   "i32",   (4, 1, 1, 4)),
        # The original (one-register) BF16 MFMAs are gone from CDNA3: gfx908/gfx90a only.
        ("mfma.f32.32x32x2bf16",     "gfx908 gfx90a", "",                           "v32f32", "v2i16", "v2i16", (32, 1, 1, 32)),
        ("mfma.f32.16x16x2bf16",     "gfx908 gfx90a", "",                           "v16f32", "v2i16", "v2i16", (16, 1, 1, 16)),
        ("mfma.f32.4x4x2bf16",       "gfx908 gfx90a", "",                           "v4f32",  "v2i16", "v2i16", (4, 1, 1, 4)),
        ("mfma.f32.32x32x4bf16",     "gfx908 gfx90a", "",                           "v16f32", "v2i16", "v2i16", (16, 1, 1, 16)),
        ("mfma.f32.16x16x8bf16",     "gfx908 gfx90a", "",                           "v4f32",  "v2i16", "v2i16", (4, 1, 1, 4)),
        ("mfma.f32.32x32x4bf16.1k",  "gfx90a",        "",                           "v32f32", "v4i16", "v4i16", (32, 2, 2, 32)),
        ("mfma.f32.32x32x4bf16.1k",  "gfx942 gfx950", "v_mfma_f32_32x32x4_2b_bf16", "v32f32", "v4i16", "v4i16", (32, 2, 2, 32)),
        ("mfma.f32.16x16x4bf16.1k",  "gfx90a",        "",                           "v16f32", "v4i16", "v4i16", (16, 2, 2, 16)),
        ("mfma.f32.16x16x4bf16.1k",  "gfx942 gfx950", "v_mfma_f32_16x16x4_4b_bf16", "v16f32", "v4i16", "v4i16", (16, 2, 2, 16)),
        ("mfma.f32.4x4x4bf16.1k",    "gfx90a",        "",                           "v4f32",  "v4i16", "v4i16", (4, 2, 2, 4)),
        ("mfma.f32.4x4x4bf16.1k",    "gfx942 gfx950", "v_mfma_f32_4x4x4_16b_bf16",  "v4f32",  "v4i16", "v4i16", (4, 2, 2, 4)),
        ("mfma.f32.32x32x8bf16.1k",  "gfx90a",        "",                           "v16f32", "v4i16", "v4i16", (16, 2, 2, 16)),
        ("mfma.f32.32x32x8bf16.1k",  "gfx942 gfx950", "v_mfma_f32_32x32x8_bf16",    "v16f32", "v4i16", "v4i16", (16, 2, 2, 16)),
        ("mfma.f32.16x16x16bf16.1k", "gfx90a",        "",                           "v4f32",  "v4i16", "v4i16", (4, 2, 2, 4)),
        ("mfma.f32.16x16x16bf16.1k", "gfx942 gfx950", "v_mfma_f32_16x16x16_bf16",   "v4f32",  "v4i16", "v4i16", (4, 2, 2, 4)),
    ]),
    *_mfma(MFMA_F64_OPERANDS, (), [
        ("mfma.f64.16x16x4f64",      "gfx90a",        "",                           "v4f64",  "f64",   "f64",   (8, 2, 2, 8)),
        ("mfma.f64.16x16x4f64",      "gfx942 gfx950", "v_mfma_f64_16x16x4_f64",     "v4f64",  "f64",   "f64",   (8, 2, 2, 8)),
        ("mfma.f64.4x4x4f64",        "gfx90a",        "",                           "f64",    "f64",   "f64",   (2, 2, 2, 2)),
        ("mfma.f64.4x4x4f64",        "gfx942 gfx950", "v_mfma_f64_4x4x4_4b_f64",    "f64",    "f64",   "f64",   (2, 2, 2, 2)),
    ]),
    *_mfma(MFMA_OPERANDS, (), [
        # name                               cpus             mnemonic   D         A         B         regs
        ("mfma.i32.16x16x32.i8",            "gfx942 gfx950", "",        "v4i32",  "i64",    "i64",    (4, 2, 2, 4)),
        ("mfma.i32.32x32x16.i8",            "gfx942 gfx950", "",        "v16i32", "i64",    "i64",    (16, 2, 2, 16)),
        # XF32 is CDNA3 only: CDNA4 (gfx950) removed the XF32 MFMAs.
        ("mfma.f32.16x16x8.xf32",           "gfx942",        "",        "v4f32",  "v2f32",  "v2f32",  (4, 2, 2, 4)),
        ("mfma.f32.32x32x4.xf32",           "gfx942",        "",        "v16f32", "v2f32",  "v2f32",  (16, 2, 2, 16)),
        ("mfma.f32.16x16x32.bf8.bf8",       "gfx942 gfx950", "",        "v4f32",  "i64",    "i64",    (4, 2, 2, 4)),
        ("mfma.f32.16x16x32.bf8.fp8",       "gfx942 gfx950", "",        "v4f32",  "i64",    "i64",    (4, 2, 2, 4)),
        ("mfma.f32.16x16x32.fp8.bf8",       "gfx942 gfx950", "",        "v4f32",  "i64",    "i64",    (4, 2, 2, 4)),
        ("mfma.f32.16x16x32.fp8.fp8",       "gfx942 gfx950", "",        "v4f32",  "i64",    "i64",    (4, 2, 2, 4)),
        ("mfma.f32.32x32x16.bf8.bf8",       "gfx942 gfx950", "",        "v16f32", "i64",    "i64",    (16, 2, 2, 16)),
        ("mfma.f32.32x32x16.bf8.fp8",       "gfx942 gfx950", "",        "v16f32", "i64",    "i64",    (16, 2, 2, 16)),
        ("mfma.f32.32x32x16.fp8.bf8",       "gfx942 gfx950", "",        "v16f32", "i64",    "i64",    (16, 2, 2, 16)),
        ("mfma.f32.32x32x16.fp8.fp8",       "gfx942 gfx950", "",        "v16f32", "i64",    "i64",    (16, 2, 2, 16)),
        ("mfma.f32.16x16x32.f16",           "gfx950",        "",        "v4f32",  "v8f16",  "v8f16",  (4, 4, 4, 4)),
        ("mfma.f32.32x32x16.f16",           "gfx950",        "",        "v16f32", "v8f16",  "v8f16",  (16, 4, 4, 16)),
        ("mfma.i32.16x16x64.i8",            "gfx950",        "",        "v4i32",  "v4i32",  "v4i32",  (4, 4, 4, 4)),
        ("mfma.i32.32x32x32.i8",            "gfx950",        "",        "v16i32", "v4i32",  "v4i32",  (16, 4, 4, 16)),
        ("mfma.f32.16x16x32.bf16",          "gfx950",        "",        "v4f32",  "v8bf16", "v8bf16", (4, 4, 4, 4)),
        ("mfma.f32.32x32x16.bf16",          "gfx950",        "",        "v16f32", "v8bf16", "v8bf16", (16, 4, 4, 16)),
    ]),
    # Widest form (FP8/BF8 in A and B); FP6/BF6 read 6 registers and FP4 4 (richer entry elsewhere).
    *_mfma(MFMA_SCALE_OPERANDS, ("A", "B"), [
        ("mfma.scale.f32.16x16x128.f8f6f4", "gfx950",        "",        "v4f32",  "v8i32",  "v8i32",  (4, 8, 8, 4)),
        ("mfma.scale.f32.32x32x64.f8f6f4",  "gfx950",        "",        "v16f32", "v8i32",  "v8i32",  (16, 8, 8, 16)),
    ]),
)

# SMFMAC: CPUs and registers from the Matrix Instruction Calculator (cdna3) and mai-gfx940.s/mai-gfx950.s
# (gfx950: those tests alone). Sparse A is half of B's K; the index is one 32-bit VGPR.
SMFMAC_ROWS: tuple[Row, ...] = (
    *_smfmac(SMFMAC_OPERANDS, (), [
        # name                            cpus             D         A         B          regs            index
        ("smfmac.f32.16x16x32.f16",      "gfx942 gfx950", "v4f32",  "v4f16",  "v8f16",   (4, 2, 4, 4),   "i32"),
        ("smfmac.f32.32x32x16.f16",      "gfx942 gfx950", "v16f32", "v4f16",  "v8f16",   (16, 2, 4, 16), "i32"),
        ("smfmac.f32.16x16x32.bf16",     "gfx942 gfx950", "v4f32",  "v4i16",  "v8i16",   (4, 2, 4, 4),   "i32"),
        ("smfmac.f32.32x32x16.bf16",     "gfx942 gfx950", "v16f32", "v4i16",  "v8i16",   (16, 2, 4, 16), "i32"),
        ("smfmac.i32.16x16x64.i8",       "gfx942 gfx950", "v4i32",  "v2i32",  "v4i32",   (4, 2, 4, 4),   "i32"),
        ("smfmac.i32.32x32x32.i8",       "gfx942 gfx950", "v16i32", "v2i32",  "v4i32",   (16, 2, 4, 16), "i32"),
        ("smfmac.f32.16x16x64.bf8.bf8",  "gfx942 gfx950", "v4f32",  "v2i32",  "v4i32",   (4, 2, 4, 4),   "i32"),
        ("smfmac.f32.16x16x64.bf8.fp8",  "gfx942 gfx950", "v4f32",  "v2i32",  "v4i32",   (4, 2, 4, 4),   "i32"),
        ("smfmac.f32.16x16x64.fp8.bf8",  "gfx942 gfx950", "v4f32",  "v2i32",  "v4i32",   (4, 2, 4, 4),   "i32"),
        ("smfmac.f32.16x16x64.fp8.fp8",  "gfx942 gfx950", "v4f32",  "v2i32",  "v4i32",   (4, 2, 4, 4),   "i32"),
        ("smfmac.f32.32x32x32.bf8.bf8",  "gfx942 gfx950", "v16f32", "v2i32",  "v4i32",   (16, 2, 4, 16), "i32"),
        ("smfmac.f32.32x32x32.bf8.fp8",  "gfx942 gfx950", "v16f32", "v2i32",  "v4i32",   (16, 2, 4, 16), "i32"),
        ("smfmac.f32.32x32x32.fp8.bf8",  "gfx942 gfx950", "v16f32", "v2i32",  "v4i32",   (16, 2, 4, 16), "i32"),
        ("smfmac.f32.32x32x32.fp8.fp8",  "gfx942 gfx950", "v16f32", "v2i32",  "v4i32",   (16, 2, 4, 16), "i32"),
        ("smfmac.f32.16x16x64.f16",      "gfx950",        "v4f32",  "v8f16",  "v16f16",  (4, 4, 8, 4),   "i32"),
        ("smfmac.f32.32x32x32.f16",      "gfx950",        "v16f32", "v8f16",  "v16f16",  (16, 4, 8, 16), "i32"),
        ("smfmac.f32.16x16x64.bf16",     "gfx950",        "v4f32",  "v8bf16", "v16bf16", (4, 4, 8, 4),   "i32"),
        ("smfmac.f32.32x32x32.bf16",     "gfx950",        "v16f32", "v8bf16", "v16bf16", (16, 4, 8, 16), "i32"),
        ("smfmac.i32.16x16x128.i8",      "gfx950",        "v4i32",  "v4i32",  "v8i32",   (4, 4, 8, 4),   "i32"),
        ("smfmac.i32.32x32x64.i8",       "gfx950",        "v16i32", "v4i32",  "v8i32",   (16, 4, 8, 16), "i32"),
        ("smfmac.f32.16x16x128.bf8.bf8", "gfx950",        "v4f32",  "v4i32",  "v8i32",   (4, 4, 8, 4),   "i32"),
        ("smfmac.f32.16x16x128.bf8.fp8", "gfx950",        "v4f32",  "v4i32",  "v8i32",   (4, 4, 8, 4),   "i32"),
        ("smfmac.f32.16x16x128.fp8.bf8", "gfx950",        "v4f32",  "v4i32",  "v8i32",   (4, 4, 8, 4),   "i32"),
        ("smfmac.f32.16x16x128.fp8.fp8", "gfx950",        "v4f32",  "v4i32",  "v8i32",   (4, 4, 8, 4),   "i32"),
        ("smfmac.f32.32x32x64.bf8.bf8",  "gfx950",        "v16f32", "v4i32",  "v8i32",   (16, 4, 8, 16), "i32"),
        ("smfmac.f32.32x32x64.bf8.fp8",  "gfx950",        "v16f32", "v4i32",  "v8i32",   (16, 4, 8, 16), "i32"),
        ("smfmac.f32.32x32x64.fp8.bf8",  "gfx950",        "v16f32", "v4i32",  "v8i32",   (16, 4, 8, 16), "i32"),
        ("smfmac.f32.32x32x64.fp8.fp8",  "gfx950",        "v16f32", "v4i32",  "v8i32",   (16, 4, 8, 16), "i32"),
    ]),
)

# WMMA: CPUs and registers from the Matrix Instruction Calculator (rdna3, rdna4) and gfx12_asm_wmma_w32/w64.s,
# gfx1250_asm_wmma_w32(_err).s (gfx1250: those tests alone, wave32 only).
WMMA_ROWS: tuple[Row, ...] = (
    # GFX11 only: D is tied to C; op_sel picks which 16-bit half of each register is written, the other half keeps C.
    *_wmma(WMMA_OPSEL_OPERANDS, ("D", "A"), [
        # name                                 cpus       wave   D         A          B          regs
        ("wmma.f16.16x16x16.f16.tied",        "gfx1100", 32,    "v16f16", "v16f16",  "v16f16",  (8, 8, 8, 8)),
        ("wmma.f16.16x16x16.f16.tied",        "gfx1100", 64,    "v8f16",  "v16f16",  "v16f16",  (4, 8, 8, 4)),
        ("wmma.bf16.16x16x16.bf16.tied",      "gfx1100", 32,    "v16i16", "v16i16",  "v16i16",  (8, 8, 8, 8)),
        ("wmma.bf16.16x16x16.bf16.tied",      "gfx1100", 64,    "v8i16",  "v16i16",  "v16i16",  (4, 8, 8, 4)),
    ]),
    *_wmma(WMMA_OPERANDS, ("D", "A"), [
        ("wmma.f32.16x16x16.f16",             "gfx1100", 32,    "v8f32",  "v16f16",  "v16f16",  (8, 8, 8, 8)),
        ("wmma.f32.16x16x16.f16",             "gfx1100", 64,    "v4f32",  "v16f16",  "v16f16",  (4, 8, 8, 4)),
        ("wmma.f32.16x16x16.f16",             "gfx1200", 32,    "v8f32",  "v8f16",   "v8f16",   (8, 4, 4, 8)),
        ("wmma.f32.16x16x16.f16",             "gfx1200", 64,    "v4f32",  "v4f16",   "v4f16",   (4, 2, 2, 4)),
        ("wmma.f32.16x16x16.bf16",            "gfx1100", 32,    "v8f32",  "v16i16",  "v16i16",  (8, 8, 8, 8)),
        ("wmma.f32.16x16x16.bf16",            "gfx1100", 64,    "v4f32",  "v16i16",  "v16i16",  (4, 8, 8, 4)),
        ("wmma.f32.16x16x16.bf16",            "gfx1200", 32,    "v8f32",  "v8i16",   "v8i16",   (8, 4, 4, 8)),
        ("wmma.f32.16x16x16.bf16",            "gfx1200", 64,    "v4f32",  "v4i16",   "v4i16",   (4, 2, 2, 4)),
    ]),
    *_wmma(WMMA_IU_OPERANDS, ("D", "A"), [
        ("wmma.i32.16x16x16.iu8",             "gfx1100", 32,    "v8i32",  "v4i32",   "v4i32",   (8, 4, 4, 8)),
        ("wmma.i32.16x16x16.iu8",             "gfx1100", 64,    "v4i32",  "v4i32",   "v4i32",   (4, 4, 4, 4)),
        ("wmma.i32.16x16x16.iu8",             "gfx1200", 32,    "v8i32",  "v2i32",   "v2i32",   (8, 2, 2, 8)),
        ("wmma.i32.16x16x16.iu8",             "gfx1200", 64,    "v4i32",  "i32",     "i32",     (4, 1, 1, 4)),
        ("wmma.i32.16x16x16.iu4",             "gfx1100", 32,    "v8i32",  "v2i32",   "v2i32",   (8, 2, 2, 8)),
        ("wmma.i32.16x16x16.iu4",             "gfx1100", 64,    "v4i32",  "v2i32",   "v2i32",   (4, 2, 2, 4)),
        ("wmma.i32.16x16x16.iu4",             "gfx1200", 32,    "v8i32",  "i32",     "i32",     (8, 1, 1, 8)),
        ("wmma.i32.16x16x16.iu4",             "gfx1200", 64,    "v4i32",  "i32",     "i32",     (4, 1, 1, 4)),
    ]),
    # GFX11: op_sel picks the 16-bit half of each D register (the other half is undefined);
    # GFX12: results packed, op_sel must be 0.
    *_wmma(WMMA_OPSEL_OPERANDS, ("D", "A"), [
        ("wmma.f16.16x16x16.f16",             "gfx1100", 32,    "v16f16", "v16f16",  "v16f16",  (8, 8, 8, 8)),
        ("wmma.f16.16x16x16.f16",             "gfx1100", 64,    "v8f16",  "v16f16",  "v16f16",  (4, 8, 8, 4)),
        ("wmma.f16.16x16x16.f16",             "gfx1200", 32,    "v8f16",  "v8f16",   "v8f16",   (4, 4, 4, 4)),
        ("wmma.f16.16x16x16.f16",             "gfx1200", 64,    "v4f16",  "v4f16",   "v4f16",   (2, 2, 2, 2)),
        ("wmma.bf16.16x16x16.bf16",           "gfx1100", 32,    "v16i16", "v16i16",  "v16i16",  (8, 8, 8, 8)),
        ("wmma.bf16.16x16x16.bf16",           "gfx1100", 64,    "v8i16",  "v16i16",  "v16i16",  (4, 8, 8, 4)),
        ("wmma.bf16.16x16x16.bf16",           "gfx1200", 32,    "v8i16",  "v8i16",   "v8i16",   (4, 4, 4, 4)),
        ("wmma.bf16.16x16x16.bf16",           "gfx1200", 64,    "v4i16",  "v4i16",   "v4i16",   (2, 2, 2, 2)),
    ], zero_gfx12=("op_sel",)),
    *_wmma(WMMA_OPERANDS, ("D", "A"), [
        ("wmma.f32.16x16x16.fp8.fp8",         "gfx1200", 32,    "v8f32",  "v2i32",   "v2i32",   (8, 2, 2, 8)),
        ("wmma.f32.16x16x16.fp8.fp8",         "gfx1200", 64,    "v4f32",  "i32",     "i32",     (4, 1, 1, 4)),
        ("wmma.f32.16x16x16.fp8.bf8",         "gfx1200", 32,    "v8f32",  "v2i32",   "v2i32",   (8, 2, 2, 8)),
        ("wmma.f32.16x16x16.fp8.bf8",         "gfx1200", 64,    "v4f32",  "i32",     "i32",     (4, 1, 1, 4)),
        ("wmma.f32.16x16x16.bf8.fp8",         "gfx1200", 32,    "v8f32",  "v2i32",   "v2i32",   (8, 2, 2, 8)),
        ("wmma.f32.16x16x16.bf8.fp8",         "gfx1200", 64,    "v4f32",  "i32",     "i32",     (4, 1, 1, 4)),
        ("wmma.f32.16x16x16.bf8.bf8",         "gfx1200", 32,    "v8f32",  "v2i32",   "v2i32",   (8, 2, 2, 8)),
        ("wmma.f32.16x16x16.bf8.bf8",         "gfx1200", 64,    "v4f32",  "i32",     "i32",     (4, 1, 1, 4)),
    ]),
    *_wmma(WMMA_IU_OPERANDS, ("D", "A"), [
        ("wmma.i32.16x16x32.iu4",             "gfx1200", 32,    "v8i32",  "v2i32",   "v2i32",   (8, 2, 2, 8)),
        ("wmma.i32.16x16x32.iu4",             "gfx1200", 64,    "v4i32",  "i32",     "i32",     (4, 1, 1, 4)),
    ]),
    *_wmma(WMMA_1250_OPERANDS, ("D", "A"), [
        ("wmma.f32.16x16x4.f32",              "gfx1250", 32,    "v8f32",  "v2f32",   "v2f32",   (8, 2, 2, 8)),
        ("wmma.f32.16x16x32.bf16",            "gfx1250", 32,    "v8f32",  "v16bf16", "v16bf16", (8, 8, 8, 8)),
        ("wmma.f32.16x16x32.f16",             "gfx1250", 32,    "v8f32",  "v16f16",  "v16f16",  (8, 8, 8, 8)),
        ("wmma.f16.16x16x32.f16",             "gfx1250", 32,    "v8f16",  "v16f16",  "v16f16",  (4, 8, 8, 4)),
        ("wmma.bf16.16x16x32.bf16",           "gfx1250", 32,    "v8bf16", "v16bf16", "v16bf16", (4, 8, 8, 4)),
    ]),
    # D is BF16 (packed, 4 registers), C is F32 (8 registers).
    *_wmma(WMMA_1250_OPERANDS, ("D", "A", "C"), [
        ("wmma.bf16f32.16x16x32.bf16",        "gfx1250", 32,    "v8bf16", "v16bf16", "v16bf16", (4, 8, 8, 8)),
    ], acc="v8f32"),
    *_wmma(WMMA_1250_FP8_OPERANDS, ("D", "A"), [
        ("wmma.f32.16x16x64.fp8.fp8",         "gfx1250", 32,    "v8f32",  "v8i32",   "v8i32",   (8, 8, 8, 8)),
        ("wmma.f32.16x16x64.fp8.bf8",         "gfx1250", 32,    "v8f32",  "v8i32",   "v8i32",   (8, 8, 8, 8)),
        ("wmma.f32.16x16x64.bf8.fp8",         "gfx1250", 32,    "v8f32",  "v8i32",   "v8i32",   (8, 8, 8, 8)),
        ("wmma.f32.16x16x64.bf8.bf8",         "gfx1250", 32,    "v8f32",  "v8i32",   "v8i32",   (8, 8, 8, 8)),
        ("wmma.f16.16x16x64.fp8.fp8",         "gfx1250", 32,    "v8f16",  "v8i32",   "v8i32",   (4, 8, 8, 4)),
        ("wmma.f16.16x16x64.fp8.bf8",         "gfx1250", 32,    "v8f16",  "v8i32",   "v8i32",   (4, 8, 8, 4)),
        ("wmma.f16.16x16x64.bf8.fp8",         "gfx1250", 32,    "v8f16",  "v8i32",   "v8i32",   (4, 8, 8, 4)),
        ("wmma.f16.16x16x64.bf8.bf8",         "gfx1250", 32,    "v8f16",  "v8i32",   "v8i32",   (4, 8, 8, 4)),
        ("wmma.f32.16x16x128.fp8.fp8",        "gfx1250", 32,    "v8f32",  "v16i32",  "v16i32",  (8, 16, 16, 8)),
        ("wmma.f32.16x16x128.fp8.bf8",        "gfx1250", 32,    "v8f32",  "v16i32",  "v16i32",  (8, 16, 16, 8)),
        ("wmma.f32.16x16x128.bf8.fp8",        "gfx1250", 32,    "v8f32",  "v16i32",  "v16i32",  (8, 16, 16, 8)),
        ("wmma.f32.16x16x128.bf8.bf8",        "gfx1250", 32,    "v8f32",  "v16i32",  "v16i32",  (8, 16, 16, 8)),
        ("wmma.f16.16x16x128.fp8.fp8",        "gfx1250", 32,    "v8f16",  "v16i32",  "v16i32",  (4, 16, 16, 4)),
        ("wmma.f16.16x16x128.fp8.bf8",        "gfx1250", 32,    "v8f16",  "v16i32",  "v16i32",  (4, 16, 16, 4)),
        ("wmma.f16.16x16x128.bf8.fp8",        "gfx1250", 32,    "v8f16",  "v16i32",  "v16i32",  (4, 16, 16, 4)),
        ("wmma.f16.16x16x128.bf8.bf8",        "gfx1250", 32,    "v8f16",  "v16i32",  "v16i32",  (4, 16, 16, 4)),
    ]),
    *_wmma(WMMA_1250_IU8_OPERANDS, ("D", "A"), [
        ("wmma.i32.16x16x64.iu8",             "gfx1250", 32,    "v8i32",  "v8i32",   "v8i32",   (8, 8, 8, 8)),
    ]),
    # Widest form (FP8/BF8 in A and B): FP6/BF6 read 12 registers and FP4 8 (richer entry elsewhere).
    *_wmma(WMMA_F8F6F4_OPERANDS, ("D", "A", "B"), [
        ("wmma.f32.16x16x128.f8f6f4",         "gfx1250", 32,    "v8f32",  "v16i32",  "v16i32",  (8, 16, 16, 8)),
    ]),
    # Widest form (FP8/BF8 in A and B): FP6/BF6 read 12 registers and FP4 8 (richer entry elsewhere).
    *_wmma(WMMA_SCALE_F8F6F4_OPERANDS, ("D", "A", "B"), [
        ("wmma.scale.f32.16x16x128.f8f6f4",   "gfx1250", 32,    "v8f32",  "v16i32",  "v16i32",  (8, 16, 16, 8)),
    ]),
    # Widest form (FP8/BF8 in A and B): FP6/BF6 read 12 registers and FP4 8 (richer entry elsewhere).
    *_wmma(WMMA_SCALE16_F8F6F4_OPERANDS, ("D", "A", "B"), [
        ("wmma.scale16.f32.16x16x128.f8f6f4", "gfx1250", 32,    "v8f32",  "v16i32",  "v16i32",  (8, 16, 16, 8)),
    ]),
    # FP4 only (no format operands): A is 32x128 (16 registers), B 128x16 (8 registers).
    *_wmma(WMMA_F4_OPERANDS, ("D", "A", "B"), [
        ("wmma.f32.32x16x128.f4",             "gfx1250", 32,    "v16f32", "v16i32",  "v8i32",   (16, 16, 8, 16)),
    ]),
    # FP4 only (no format operands): A is 32x128 (16 registers), B 128x16 (8 registers).
    *_wmma(WMMA_SCALE_F4_OPERANDS, ("D", "A", "B"), [
        ("wmma.scale.f32.32x16x128.f4",       "gfx1250", 32,    "v16f32", "v16i32",  "v8i32",   (16, 16, 8, 16)),
    ]),
    # FP4 only (no format operands): A is 32x128 (16 registers), B 128x16 (8 registers).
    *_wmma(WMMA_SCALE16_F4_OPERANDS, ("D", "A", "B"), [
        ("wmma.scale16.f32.32x16x128.f4",     "gfx1250", 32,    "v16f32", "v16i32",  "v8i32",   (16, 16, 8, 16)),
    ]),
)

# SWMMAC: CPUs and registers from the Matrix Instruction Calculator (rdna4), gfx12_asm_wmma_w32/w64.s and
# gfx1250_asm_wmma_w32(_err).s; gfx12 index types from the GlobalISel tests, gfx1250's from the index tuple width.
SWMMAC_ROWS: tuple[Row, ...] = (
    *_swmmac(SWMMAC_OPERANDS, ("D", "A", "B", "index"), [
        # name                            cpus       wave   D         A          B          regs           index
        ("swmmac.f32.16x16x32.f16",      "gfx1200", 32,    "v8f32",  "v8f16",   "v16f16",  (8, 4, 8, 8),  "i16"),
        ("swmmac.f32.16x16x32.f16",      "gfx1200", 64,    "v4f32",  "v4f16",   "v8f16",   (4, 2, 4, 4),  "i8"),
        ("swmmac.f32.16x16x32.bf16",     "gfx1200", 32,    "v8f32",  "v8i16",   "v16i16",  (8, 4, 8, 8),  "i16"),
        ("swmmac.f32.16x16x32.bf16",     "gfx1200", 64,    "v4f32",  "v4i16",   "v8i16",   (4, 2, 4, 4),  "i8"),
        ("swmmac.f16.16x16x32.f16",      "gfx1200", 32,    "v8f16",  "v8f16",   "v16f16",  (4, 4, 8, 4),  "i16"),
        ("swmmac.f16.16x16x32.f16",      "gfx1200", 64,    "v4f16",  "v4f16",   "v8f16",   (2, 2, 4, 2),  "i8"),
        ("swmmac.bf16.16x16x32.bf16",    "gfx1200", 32,    "v8i16",  "v8i16",   "v16i16",  (4, 4, 8, 4),  "i16"),
        ("swmmac.bf16.16x16x32.bf16",    "gfx1200", 64,    "v4i16",  "v4i16",   "v8i16",   (2, 2, 4, 2),  "i8"),
    ]),
    *_swmmac(SWMMAC_IU_OPERANDS, ("D", "A", "B", "index"), [
        ("swmmac.i32.16x16x32.iu8",      "gfx1200", 32,    "v8i32",  "v2i32",   "v4i32",   (8, 2, 4, 8),  "i16"),
        ("swmmac.i32.16x16x32.iu8",      "gfx1200", 64,    "v4i32",  "i32",     "v2i32",   (4, 1, 2, 4),  "i8"),
        ("swmmac.i32.16x16x32.iu4",      "gfx1200", 32,    "v8i32",  "i32",     "v2i32",   (8, 1, 2, 8),  "i16"),
        ("swmmac.i32.16x16x32.iu4",      "gfx1200", 64,    "v4i32",  "i32",     "i32",     (4, 1, 1, 4),  "i16"),
        ("swmmac.i32.16x16x64.iu4",      "gfx1200", 32,    "v8i32",  "v2i32",   "v4i32",   (8, 2, 4, 8),  "i32"),
        ("swmmac.i32.16x16x64.iu4",      "gfx1200", 64,    "v4i32",  "i32",     "v2i32",   (4, 1, 2, 4),  "i16"),
    ]),
    *_swmmac(SWMMAC_OPERANDS, ("D", "A", "B", "index"), [
        ("swmmac.f32.16x16x32.fp8.fp8",  "gfx1200", 32,    "v8f32",  "v2i32",   "v4i32",   (8, 2, 4, 8),  "i16"),
        ("swmmac.f32.16x16x32.fp8.fp8",  "gfx1200", 64,    "v4f32",  "i32",     "v2i32",   (4, 1, 2, 4),  "i8"),
        ("swmmac.f32.16x16x32.fp8.bf8",  "gfx1200", 32,    "v8f32",  "v2i32",   "v4i32",   (8, 2, 4, 8),  "i16"),
        ("swmmac.f32.16x16x32.fp8.bf8",  "gfx1200", 64,    "v4f32",  "i32",     "v2i32",   (4, 1, 2, 4),  "i8"),
        ("swmmac.f32.16x16x32.bf8.fp8",  "gfx1200", 32,    "v8f32",  "v2i32",   "v4i32",   (8, 2, 4, 8),  "i16"),
        ("swmmac.f32.16x16x32.bf8.fp8",  "gfx1200", 64,    "v4f32",  "i32",     "v2i32",   (4, 1, 2, 4),  "i8"),
        ("swmmac.f32.16x16x32.bf8.bf8",  "gfx1200", 32,    "v8f32",  "v2i32",   "v4i32",   (8, 2, 4, 8),  "i16"),
        ("swmmac.f32.16x16x32.bf8.bf8",  "gfx1200", 64,    "v4f32",  "i32",     "v2i32",   (4, 1, 2, 4),  "i8"),
    ]),
    *_swmmac(SWMMAC_1250_OPERANDS, ("D", "A", "B", "index"), [
        ("swmmac.f32.16x16x64.f16",      "gfx1250", 32,    "v8f32",  "v16f16",  "v32f16",  (8, 8, 16, 8), "i32"),
        ("swmmac.f32.16x16x64.bf16",     "gfx1250", 32,    "v8f32",  "v16bf16", "v32bf16", (8, 8, 16, 8), "i32"),
        ("swmmac.f16.16x16x64.f16",      "gfx1250", 32,    "v8f16",  "v16f16",  "v32f16",  (4, 8, 16, 4), "i32"),
        ("swmmac.bf16.16x16x64.bf16",    "gfx1250", 32,    "v8bf16", "v16bf16", "v32bf16", (4, 8, 16, 4), "i32"),
        # D is tied to the F32 accumulator C, so the IR result has C's type and the operand is 8 registers
        # (the ISA notes the BF16 result itself lands in the low 4).
        ("swmmac.bf16f32.16x16x64.bf16", "gfx1250", 32,    "v8f32",  "v16bf16", "v32bf16", (8, 8, 16, 8), "i32"),
    ]),
    *_swmmac(SWMMAC_1250_FP8_OPERANDS, ("D", "A", "B", "index"), [
        ("swmmac.f32.16x16x128.fp8.fp8", "gfx1250", 32,    "v8f32",  "v8i32",   "v16i32",  (8, 8, 16, 8), "i64"),
        ("swmmac.f32.16x16x128.fp8.bf8", "gfx1250", 32,    "v8f32",  "v8i32",   "v16i32",  (8, 8, 16, 8), "i64"),
        ("swmmac.f32.16x16x128.bf8.fp8", "gfx1250", 32,    "v8f32",  "v8i32",   "v16i32",  (8, 8, 16, 8), "i64"),
        ("swmmac.f32.16x16x128.bf8.bf8", "gfx1250", 32,    "v8f32",  "v8i32",   "v16i32",  (8, 8, 16, 8), "i64"),
        ("swmmac.f16.16x16x128.fp8.fp8", "gfx1250", 32,    "v8f16",  "v8i32",   "v16i32",  (4, 8, 16, 4), "i64"),
        ("swmmac.f16.16x16x128.fp8.bf8", "gfx1250", 32,    "v8f16",  "v8i32",   "v16i32",  (4, 8, 16, 4), "i64"),
        ("swmmac.f16.16x16x128.bf8.fp8", "gfx1250", 32,    "v8f16",  "v8i32",   "v16i32",  (4, 8, 16, 4), "i64"),
        ("swmmac.f16.16x16x128.bf8.bf8", "gfx1250", 32,    "v8f16",  "v8i32",   "v16i32",  (4, 8, 16, 4), "i64"),
    ]),
    *_swmmac(SWMMAC_1250_IU8_OPERANDS, ("D", "A", "B", "index"), [
        ("swmmac.i32.16x16x128.iu8",     "gfx1250", 32,    "v8i32",  "v8i32",   "v16i32",  (8, 8, 16, 8), "i64"),
    ]),
)
# fmt: on

ROWS: tuple[Row, ...] = (*MFMA_ROWS, *SMFMAC_ROWS, *WMMA_ROWS, *SWMMAC_ROWS)
BY_NAME = {r.name: r for r in ROWS}
