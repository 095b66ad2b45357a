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

from dataclasses import dataclass


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

# AMDGPUMfmaIntrinsic: D = A * B + C. CBSZ/ABID (A-matrix broadcast) only do something on multi-block
# MFMAs (e.g. 32x32x1_2b, 16x16x4_4b, 4x4x4_16b). BLGP (B lane-group pattern) is encodable on all; the
# Calculator lists it as usable on every CDNA1/2 MFMA but only on the multi-block CDNA3 ones.
MFMA_OPERANDS = ("A", "B", "C", "immarg i32 cbsz 0..7", "immarg i32 abid 0..15", "immarg i32 blgp 0..7")
# The f64 MFMAs: on gfx942/gfx950 the BLGP field is NEG[2:0] (negate A, B, C); on gfx90a it is BLGP.
MFMA_F64_OPERANDS = ("A", "B", "C", "immarg i32 cbsz 0..7", "immarg i32 abid 0..15", "immarg i32 blgp 0..7")
# AMDGPUMfmaScaleIntrinsic: CBSZ/BLGP are the A/B formats (0 FP8, 1 BF8, 2 FP6, 3 BF6, 4 FP4);
# op_sel picks the scale byte of each v_mfma_ld_scale_b32 source (2 bits).
MFMA_SCALE_OPERANDS = (
    "A",
    "B",
    "C",
    "fmt_a",
    "fmt_b",
    "immarg i32 op_sel_a 0..3",
    "i32 scale_a",
    "immarg i32 op_sel_b 0..3",
    "i32 scale_b",
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
    "immarg i1 neg_a 0..1",
    "A",
    "immarg i1 neg_b 0..1",
    "B",
    "immarg i16 c_mod 0..3",
    "C",
    "immarg i1 reuse_a 0..1",
    "immarg i1 reuse_b 0..1",
)
# AMDGPUWmmaIntrinsicModsC.
WMMA_1250_FP8_OPERANDS = ("A", "B", "immarg i16 c_mod 0..3", "C", "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1")
# AMDGPUWmmaIntrinsicModsABClamp (.td calls the i1s A_mod/B_mod; on IU8 the ISA reads them as signedness).
WMMA_1250_IU8_OPERANDS = (
    "immarg i1 sign_a 0..1",
    "A",
    "immarg i1 sign_b 0..1",
    "B",
    "C",
    "immarg i1 reuse_a 0..1",
    "immarg i1 reuse_b 0..1",
    "immarg i1 clamp 0..1",
)
# AMDGPUWmmaIntrinsicModsC_MatrixFMT: matrix_a_fmt/matrix_b_fmt (0 FP8, 1 BF8, 2 FP6, 3 BF6, 4 FP4) are
# ImmArg in the .td; listed as fmt_a/fmt_b because they fix how many registers A and B really read.
WMMA_F8F6F4_OPERANDS = ("fmt_a", "A", "fmt_b", "B", "immarg i16 c_mod 0..3", "C")
# AMDGPUWmmaScaleIntrinsicModsC: scale_sel picks MATRIX_SCALE_ROW0/ROW1, scale_fmt is
# MATRIX_SCALE_FMT_E8/E5M3/E4M3 (2-bit field, 3 defined); scale_* are the runtime scale registers.
WMMA_SCALE_F8F6F4_OPERANDS = (
    "fmt_a",
    "A",
    "fmt_b",
    "B",
    "immarg i16 c_mod 0..3",
    "C",
    "immarg i32 scale_sel_a 0..1",
    "immarg i32 scale_fmt_a 0..2",
    "i32 scale_a",
    "immarg i32 scale_sel_b 0..1",
    "immarg i32 scale_fmt_b 0..2",
    "i32 scale_b",
    "immarg i1 reuse_a 0..1",
    "immarg i1 reuse_b 0..1",
)
WMMA_SCALE16_F8F6F4_OPERANDS = (
    "fmt_a",
    "A",
    "fmt_b",
    "B",
    "immarg i16 c_mod 0..3",
    "C",
    "immarg i32 scale_sel_a 0..1",
    "immarg i32 scale_fmt_a 0..2",
    "i64 scale_a",
    "immarg i32 scale_sel_b 0..1",
    "immarg i32 scale_fmt_b 0..2",
    "i64 scale_b",
    "immarg i1 reuse_a 0..1",
    "immarg i1 reuse_b 0..1",
)
# AMDGPUWmmaIntrinsicF4ModsC.
WMMA_F4_OPERANDS = ("A", "B", "immarg i16 c_mod 0..3", "C")
# AMDGPUWmmaScaleF4IntrinsicModsC.
WMMA_SCALE_F4_OPERANDS = (
    "A",
    "B",
    "immarg i16 c_mod 0..3",
    "C",
    "immarg i32 scale_sel_a 0..1",
    "immarg i32 scale_fmt_a 0..2",
    "i32 scale_a",
    "immarg i32 scale_sel_b 0..1",
    "immarg i32 scale_fmt_b 0..2",
    "i32 scale_b",
    "immarg i1 reuse_a 0..1",
    "immarg i1 reuse_b 0..1",
)
WMMA_SCALE16_F4_OPERANDS = (
    "A",
    "B",
    "immarg i16 c_mod 0..3",
    "C",
    "immarg i32 scale_sel_a 0..1",
    "immarg i32 scale_fmt_a 0..2",
    "i64 scale_a",
    "immarg i32 scale_sel_b 0..1",
    "immarg i32 scale_fmt_b 0..2",
    "i64 scale_b",
    "immarg i1 reuse_a 0..1",
    "immarg i1 reuse_b 0..1",
)
# AMDGPUSWmmacIntrinsicABIdx.
SWMMAC_1250_OPERANDS = (
    "immarg i1 neg_a 0..1",
    "A",
    "immarg i1 neg_b 0..1",
    "B",
    "C",
    "index",
    "immarg i1 reuse_a 0..1",
    "immarg i1 reuse_b 0..1",
)
# AMDGPUSWmmacIntrinsicIdxReuse.
SWMMAC_1250_FP8_OPERANDS = ("A", "B", "C", "index", "immarg i1 reuse_a 0..1", "immarg i1 reuse_b 0..1")
# AMDGPUSWmmacIntrinsicABIdxClamp (A_mod/B_mod are signedness on IU8).
SWMMAC_1250_IU8_OPERANDS = (
    "immarg i1 sign_a 0..1",
    "A",
    "immarg i1 sign_b 0..1",
    "B",
    "C",
    "index",
    "immarg i1 reuse_a 0..1",
    "immarg i1 reuse_b 0..1",
    "immarg i1 clamp 0..1",
)

# MFMA: CPUs and registers from the Matrix Instruction Calculator (cdna1-3) and mai.s/mai-gfx940.s/mai-gfx950.s
# (gfx950: those tests alone); gfx940 renamed most gfx908 mnemonics (mai-gfx940.s). All wave64.
MFMA_ROWS: tuple[Row, ...] = (
    Row(
        "mfma.f32.32x32x1f32",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_f32_32x32x1f32", "<32 x float>", "float", "float", (32, 1, 1, 32)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_32x32x1_2b_f32", "<32 x float>", "float", "float", (32, 1, 1, 32)),
        ),
    ),
    Row(
        "mfma.f32.16x16x1f32",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_f32_16x16x1f32", "<16 x float>", "float", "float", (16, 1, 1, 16)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_16x16x1_4b_f32", "<16 x float>", "float", "float", (16, 1, 1, 16)),
        ),
    ),
    Row(
        "mfma.f32.4x4x1f32",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_f32_4x4x1f32", "<4 x float>", "float", "float", (4, 1, 1, 4)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_4x4x1_16b_f32", "<4 x float>", "float", "float", (4, 1, 1, 4)),
        ),
    ),
    Row(
        "mfma.f32.32x32x2f32",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_f32_32x32x2f32", "<16 x float>", "float", "float", (16, 1, 1, 16)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_32x32x2_f32", "<16 x float>", "float", "float", (16, 1, 1, 16)),
        ),
    ),
    Row(
        "mfma.f32.16x16x4f32",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_f32_16x16x4f32", "<4 x float>", "float", "float", (4, 1, 1, 4)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_16x16x4_f32", "<4 x float>", "float", "float", (4, 1, 1, 4)),
        ),
    ),
    Row(
        "mfma.f32.32x32x4f16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_f32_32x32x4f16", "<32 x float>", "<4 x half>", "<4 x half>", (32, 2, 2, 32)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_32x32x4_2b_f16", "<32 x float>", "<4 x half>", "<4 x half>", (32, 2, 2, 32)),
        ),
    ),
    Row(
        "mfma.f32.16x16x4f16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_f32_16x16x4f16", "<16 x float>", "<4 x half>", "<4 x half>", (16, 2, 2, 16)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_16x16x4_4b_f16", "<16 x float>", "<4 x half>", "<4 x half>", (16, 2, 2, 16)),
        ),
    ),
    Row(
        "mfma.f32.4x4x4f16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_f32_4x4x4f16", "<4 x float>", "<4 x half>", "<4 x half>", (4, 2, 2, 4)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_4x4x4_16b_f16", "<4 x float>", "<4 x half>", "<4 x half>", (4, 2, 2, 4)),
        ),
    ),
    Row(
        "mfma.f32.32x32x8f16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_f32_32x32x8f16", "<16 x float>", "<4 x half>", "<4 x half>", (16, 2, 2, 16)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_32x32x8_f16", "<16 x float>", "<4 x half>", "<4 x half>", (16, 2, 2, 16)),
        ),
    ),
    Row(
        "mfma.f32.16x16x16f16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_f32_16x16x16f16", "<4 x float>", "<4 x half>", "<4 x half>", (4, 2, 2, 4)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_16x16x16_f16", "<4 x float>", "<4 x half>", "<4 x half>", (4, 2, 2, 4)),
        ),
    ),
    Row(
        "mfma.i32.32x32x4i8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_i32_32x32x4i8", "<32 x i32>", "i32", "i32", (32, 1, 1, 32)),
            Shape(("gfx942", "gfx950"), "v_mfma_i32_32x32x4_2b_i8", "<32 x i32>", "i32", "i32", (32, 1, 1, 32)),
        ),
    ),
    Row(
        "mfma.i32.16x16x4i8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_i32_16x16x4i8", "<16 x i32>", "i32", "i32", (16, 1, 1, 16)),
            Shape(("gfx942", "gfx950"), "v_mfma_i32_16x16x4_4b_i8", "<16 x i32>", "i32", "i32", (16, 1, 1, 16)),
        ),
    ),
    Row(
        "mfma.i32.4x4x4i8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx908", "gfx90a"), "v_mfma_i32_4x4x4i8", "<4 x i32>", "i32", "i32", (4, 1, 1, 4)),
            Shape(("gfx942", "gfx950"), "v_mfma_i32_4x4x4_16b_i8", "<4 x i32>", "i32", "i32", (4, 1, 1, 4)),
        ),
    ),
    # CDNA3 dropped it (replaced by v_mfma_i32_32x32x16_i8): gfx908/gfx90a only.
    Row(
        "mfma.i32.32x32x8i8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx908", "gfx90a"), "v_mfma_i32_32x32x8i8", "<16 x i32>", "i32", "i32", (16, 1, 1, 16)),),
    ),
    # CDNA3 dropped it (replaced by v_mfma_i32_16x16x32_i8): gfx908/gfx90a only.
    Row(
        "mfma.i32.16x16x16i8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx908", "gfx90a"), "v_mfma_i32_16x16x16i8", "<4 x i32>", "i32", "i32", (4, 1, 1, 4)),),
    ),
    # The original (one-register) BF16 MFMAs are gone from CDNA3: gfx908/gfx90a only.
    Row(
        "mfma.f32.32x32x2bf16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx908", "gfx90a"), "v_mfma_f32_32x32x2bf16", "<32 x float>", "<2 x i16>", "<2 x i16>", (32, 1, 1, 32)),),
    ),
    # The original (one-register) BF16 MFMAs are gone from CDNA3: gfx908/gfx90a only.
    Row(
        "mfma.f32.16x16x2bf16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx908", "gfx90a"), "v_mfma_f32_16x16x2bf16", "<16 x float>", "<2 x i16>", "<2 x i16>", (16, 1, 1, 16)),),
    ),
    # The original (one-register) BF16 MFMAs are gone from CDNA3: gfx908/gfx90a only.
    Row(
        "mfma.f32.4x4x2bf16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx908", "gfx90a"), "v_mfma_f32_4x4x2bf16", "<4 x float>", "<2 x i16>", "<2 x i16>", (4, 1, 1, 4)),),
    ),
    # The original (one-register) BF16 MFMAs are gone from CDNA3: gfx908/gfx90a only.
    Row(
        "mfma.f32.32x32x4bf16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx908", "gfx90a"), "v_mfma_f32_32x32x4bf16", "<16 x float>", "<2 x i16>", "<2 x i16>", (16, 1, 1, 16)),),
    ),
    # The original (one-register) BF16 MFMAs are gone from CDNA3: gfx908/gfx90a only.
    Row(
        "mfma.f32.16x16x8bf16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx908", "gfx90a"), "v_mfma_f32_16x16x8bf16", "<4 x float>", "<2 x i16>", "<2 x i16>", (4, 1, 1, 4)),),
    ),
    Row(
        "mfma.f32.32x32x4bf16.1k",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx90a",), "v_mfma_f32_32x32x4bf16_1k", "<32 x float>", "<4 x i16>", "<4 x i16>", (32, 2, 2, 32)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_32x32x4_2b_bf16", "<32 x float>", "<4 x i16>", "<4 x i16>", (32, 2, 2, 32)),
        ),
    ),
    Row(
        "mfma.f32.16x16x4bf16.1k",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx90a",), "v_mfma_f32_16x16x4bf16_1k", "<16 x float>", "<4 x i16>", "<4 x i16>", (16, 2, 2, 16)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_16x16x4_4b_bf16", "<16 x float>", "<4 x i16>", "<4 x i16>", (16, 2, 2, 16)),
        ),
    ),
    Row(
        "mfma.f32.4x4x4bf16.1k",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx90a",), "v_mfma_f32_4x4x4bf16_1k", "<4 x float>", "<4 x i16>", "<4 x i16>", (4, 2, 2, 4)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_4x4x4_16b_bf16", "<4 x float>", "<4 x i16>", "<4 x i16>", (4, 2, 2, 4)),
        ),
    ),
    Row(
        "mfma.f32.32x32x8bf16.1k",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx90a",), "v_mfma_f32_32x32x8bf16_1k", "<16 x float>", "<4 x i16>", "<4 x i16>", (16, 2, 2, 16)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_32x32x8_bf16", "<16 x float>", "<4 x i16>", "<4 x i16>", (16, 2, 2, 16)),
        ),
    ),
    Row(
        "mfma.f32.16x16x16bf16.1k",
        "mfma",
        MFMA_OPERANDS,
        (),
        (
            Shape(("gfx90a",), "v_mfma_f32_16x16x16bf16_1k", "<4 x float>", "<4 x i16>", "<4 x i16>", (4, 2, 2, 4)),
            Shape(("gfx942", "gfx950"), "v_mfma_f32_16x16x16_bf16", "<4 x float>", "<4 x i16>", "<4 x i16>", (4, 2, 2, 4)),
        ),
    ),
    Row(
        "mfma.f64.16x16x4f64",
        "mfma",
        MFMA_F64_OPERANDS,
        (),
        (
            Shape(("gfx90a",), "v_mfma_f64_16x16x4f64", "<4 x double>", "double", "double", (8, 2, 2, 8)),
            Shape(("gfx942", "gfx950"), "v_mfma_f64_16x16x4_f64", "<4 x double>", "double", "double", (8, 2, 2, 8)),
        ),
    ),
    Row(
        "mfma.f64.4x4x4f64",
        "mfma",
        MFMA_F64_OPERANDS,
        (),
        (
            Shape(("gfx90a",), "v_mfma_f64_4x4x4f64", "double", "double", "double", (2, 2, 2, 2)),
            Shape(("gfx942", "gfx950"), "v_mfma_f64_4x4x4_4b_f64", "double", "double", "double", (2, 2, 2, 2)),
        ),
    ),
    Row(
        "mfma.i32.16x16x32.i8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942", "gfx950"), "v_mfma_i32_16x16x32_i8", "<4 x i32>", "i64", "i64", (4, 2, 2, 4)),),
    ),
    Row(
        "mfma.i32.32x32x16.i8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942", "gfx950"), "v_mfma_i32_32x32x16_i8", "<16 x i32>", "i64", "i64", (16, 2, 2, 16)),),
    ),
    # XF32 is CDNA3 only: CDNA4 (gfx950) removed the XF32 MFMAs.
    Row(
        "mfma.f32.16x16x8.xf32",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942",), "v_mfma_f32_16x16x8_xf32", "<4 x float>", "<2 x float>", "<2 x float>", (4, 2, 2, 4)),),
    ),
    # XF32 is CDNA3 only: CDNA4 (gfx950) removed the XF32 MFMAs.
    Row(
        "mfma.f32.32x32x4.xf32",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942",), "v_mfma_f32_32x32x4_xf32", "<16 x float>", "<2 x float>", "<2 x float>", (16, 2, 2, 16)),),
    ),
    Row(
        "mfma.f32.16x16x32.bf8.bf8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942", "gfx950"), "v_mfma_f32_16x16x32_bf8_bf8", "<4 x float>", "i64", "i64", (4, 2, 2, 4)),),
    ),
    Row(
        "mfma.f32.16x16x32.bf8.fp8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942", "gfx950"), "v_mfma_f32_16x16x32_bf8_fp8", "<4 x float>", "i64", "i64", (4, 2, 2, 4)),),
    ),
    Row(
        "mfma.f32.16x16x32.fp8.bf8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942", "gfx950"), "v_mfma_f32_16x16x32_fp8_bf8", "<4 x float>", "i64", "i64", (4, 2, 2, 4)),),
    ),
    Row(
        "mfma.f32.16x16x32.fp8.fp8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942", "gfx950"), "v_mfma_f32_16x16x32_fp8_fp8", "<4 x float>", "i64", "i64", (4, 2, 2, 4)),),
    ),
    Row(
        "mfma.f32.32x32x16.bf8.bf8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942", "gfx950"), "v_mfma_f32_32x32x16_bf8_bf8", "<16 x float>", "i64", "i64", (16, 2, 2, 16)),),
    ),
    Row(
        "mfma.f32.32x32x16.bf8.fp8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942", "gfx950"), "v_mfma_f32_32x32x16_bf8_fp8", "<16 x float>", "i64", "i64", (16, 2, 2, 16)),),
    ),
    Row(
        "mfma.f32.32x32x16.fp8.bf8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942", "gfx950"), "v_mfma_f32_32x32x16_fp8_bf8", "<16 x float>", "i64", "i64", (16, 2, 2, 16)),),
    ),
    Row(
        "mfma.f32.32x32x16.fp8.fp8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx942", "gfx950"), "v_mfma_f32_32x32x16_fp8_fp8", "<16 x float>", "i64", "i64", (16, 2, 2, 16)),),
    ),
    Row(
        "mfma.f32.16x16x32.f16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx950",), "v_mfma_f32_16x16x32_f16", "<4 x float>", "<8 x half>", "<8 x half>", (4, 4, 4, 4)),),
    ),
    Row(
        "mfma.f32.32x32x16.f16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx950",), "v_mfma_f32_32x32x16_f16", "<16 x float>", "<8 x half>", "<8 x half>", (16, 4, 4, 16)),),
    ),
    Row(
        "mfma.i32.16x16x64.i8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx950",), "v_mfma_i32_16x16x64_i8", "<4 x i32>", "<4 x i32>", "<4 x i32>", (4, 4, 4, 4)),),
    ),
    Row(
        "mfma.i32.32x32x32.i8",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx950",), "v_mfma_i32_32x32x32_i8", "<16 x i32>", "<4 x i32>", "<4 x i32>", (16, 4, 4, 16)),),
    ),
    Row(
        "mfma.f32.16x16x32.bf16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx950",), "v_mfma_f32_16x16x32_bf16", "<4 x float>", "<8 x bfloat>", "<8 x bfloat>", (4, 4, 4, 4)),),
    ),
    Row(
        "mfma.f32.32x32x16.bf16",
        "mfma",
        MFMA_OPERANDS,
        (),
        (Shape(("gfx950",), "v_mfma_f32_32x32x16_bf16", "<16 x float>", "<8 x bfloat>", "<8 x bfloat>", (16, 4, 4, 16)),),
    ),
    # Widest form (FP8/BF8 in A and B); FP6/BF6 read 6 registers and FP4 4 (richer entry elsewhere).
    Row(
        "mfma.scale.f32.16x16x128.f8f6f4",
        "mfma",
        MFMA_SCALE_OPERANDS,
        ("A", "B"),
        (Shape(("gfx950",), "v_mfma_scale_f32_16x16x128_f8f6f4", "<4 x float>", "<8 x i32>", "<8 x i32>", (4, 8, 8, 4)),),
    ),
    # Widest form (FP8/BF8 in A and B); FP6/BF6 read 6 registers and FP4 4 (richer entry elsewhere).
    Row(
        "mfma.scale.f32.32x32x64.f8f6f4",
        "mfma",
        MFMA_SCALE_OPERANDS,
        ("A", "B"),
        (Shape(("gfx950",), "v_mfma_scale_f32_32x32x64_f8f6f4", "<16 x float>", "<8 x i32>", "<8 x i32>", (16, 8, 8, 16)),),
    ),
)

# SMFMAC: CPUs and registers from the Matrix Instruction Calculator (cdna3) and mai-gfx940.s/mai-gfx950.s
# (gfx950: those tests alone). Sparse A is half of B's K; the index is one 32-bit VGPR.
SMFMAC_ROWS: tuple[Row, ...] = (
    Row(
        "smfmac.f32.16x16x32.f16",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_16x16x32_f16",
                "<4 x float>",
                "<4 x half>",
                "<8 x half>",
                (4, 2, 4, 4),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.32x32x16.f16",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_32x32x16_f16",
                "<16 x float>",
                "<4 x half>",
                "<8 x half>",
                (16, 2, 4, 16),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.16x16x32.bf16",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_16x16x32_bf16",
                "<4 x float>",
                "<4 x i16>",
                "<8 x i16>",
                (4, 2, 4, 4),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.32x32x16.bf16",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_32x32x16_bf16",
                "<16 x float>",
                "<4 x i16>",
                "<8 x i16>",
                (16, 2, 4, 16),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.i32.16x16x64.i8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"), "v_smfmac_i32_16x16x64_i8", "<4 x i32>", "<2 x i32>", "<4 x i32>", (4, 2, 4, 4), index="i32"
            ),
        ),
    ),
    Row(
        "smfmac.i32.32x32x32.i8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_i32_32x32x32_i8",
                "<16 x i32>",
                "<2 x i32>",
                "<4 x i32>",
                (16, 2, 4, 16),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.16x16x64.bf8.bf8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_16x16x64_bf8_bf8",
                "<4 x float>",
                "<2 x i32>",
                "<4 x i32>",
                (4, 2, 4, 4),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.16x16x64.bf8.fp8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_16x16x64_bf8_fp8",
                "<4 x float>",
                "<2 x i32>",
                "<4 x i32>",
                (4, 2, 4, 4),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.16x16x64.fp8.bf8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_16x16x64_fp8_bf8",
                "<4 x float>",
                "<2 x i32>",
                "<4 x i32>",
                (4, 2, 4, 4),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.16x16x64.fp8.fp8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_16x16x64_fp8_fp8",
                "<4 x float>",
                "<2 x i32>",
                "<4 x i32>",
                (4, 2, 4, 4),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.32x32x32.bf8.bf8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_32x32x32_bf8_bf8",
                "<16 x float>",
                "<2 x i32>",
                "<4 x i32>",
                (16, 2, 4, 16),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.32x32x32.bf8.fp8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_32x32x32_bf8_fp8",
                "<16 x float>",
                "<2 x i32>",
                "<4 x i32>",
                (16, 2, 4, 16),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.32x32x32.fp8.bf8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_32x32x32_fp8_bf8",
                "<16 x float>",
                "<2 x i32>",
                "<4 x i32>",
                (16, 2, 4, 16),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.32x32x32.fp8.fp8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx942", "gfx950"),
                "v_smfmac_f32_32x32x32_fp8_fp8",
                "<16 x float>",
                "<2 x i32>",
                "<4 x i32>",
                (16, 2, 4, 16),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.16x16x64.f16",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (Shape(("gfx950",), "v_smfmac_f32_16x16x64_f16", "<4 x float>", "<8 x half>", "<16 x half>", (4, 4, 8, 4), index="i32"),),
    ),
    Row(
        "smfmac.f32.32x32x32.f16",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx950",), "v_smfmac_f32_32x32x32_f16", "<16 x float>", "<8 x half>", "<16 x half>", (16, 4, 8, 16), index="i32"
            ),
        ),
    ),
    Row(
        "smfmac.f32.16x16x64.bf16",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx950",),
                "v_smfmac_f32_16x16x64_bf16",
                "<4 x float>",
                "<8 x bfloat>",
                "<16 x bfloat>",
                (4, 4, 8, 4),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.32x32x32.bf16",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx950",),
                "v_smfmac_f32_32x32x32_bf16",
                "<16 x float>",
                "<8 x bfloat>",
                "<16 x bfloat>",
                (16, 4, 8, 16),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.i32.16x16x128.i8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (Shape(("gfx950",), "v_smfmac_i32_16x16x128_i8", "<4 x i32>", "<4 x i32>", "<8 x i32>", (4, 4, 8, 4), index="i32"),),
    ),
    Row(
        "smfmac.i32.32x32x64.i8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (Shape(("gfx950",), "v_smfmac_i32_32x32x64_i8", "<16 x i32>", "<4 x i32>", "<8 x i32>", (16, 4, 8, 16), index="i32"),),
    ),
    Row(
        "smfmac.f32.16x16x128.bf8.bf8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx950",), "v_smfmac_f32_16x16x128_bf8_bf8", "<4 x float>", "<4 x i32>", "<8 x i32>", (4, 4, 8, 4), index="i32"
            ),
        ),
    ),
    Row(
        "smfmac.f32.16x16x128.bf8.fp8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx950",), "v_smfmac_f32_16x16x128_bf8_fp8", "<4 x float>", "<4 x i32>", "<8 x i32>", (4, 4, 8, 4), index="i32"
            ),
        ),
    ),
    Row(
        "smfmac.f32.16x16x128.fp8.bf8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx950",), "v_smfmac_f32_16x16x128_fp8_bf8", "<4 x float>", "<4 x i32>", "<8 x i32>", (4, 4, 8, 4), index="i32"
            ),
        ),
    ),
    Row(
        "smfmac.f32.16x16x128.fp8.fp8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx950",), "v_smfmac_f32_16x16x128_fp8_fp8", "<4 x float>", "<4 x i32>", "<8 x i32>", (4, 4, 8, 4), index="i32"
            ),
        ),
    ),
    Row(
        "smfmac.f32.32x32x64.bf8.bf8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx950",),
                "v_smfmac_f32_32x32x64_bf8_bf8",
                "<16 x float>",
                "<4 x i32>",
                "<8 x i32>",
                (16, 4, 8, 16),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.32x32x64.bf8.fp8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx950",),
                "v_smfmac_f32_32x32x64_bf8_fp8",
                "<16 x float>",
                "<4 x i32>",
                "<8 x i32>",
                (16, 4, 8, 16),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.32x32x64.fp8.bf8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx950",),
                "v_smfmac_f32_32x32x64_fp8_bf8",
                "<16 x float>",
                "<4 x i32>",
                "<8 x i32>",
                (16, 4, 8, 16),
                index="i32",
            ),
        ),
    ),
    Row(
        "smfmac.f32.32x32x64.fp8.fp8",
        "smfmac",
        SMFMAC_OPERANDS,
        (),
        (
            Shape(
                ("gfx950",),
                "v_smfmac_f32_32x32x64_fp8_fp8",
                "<16 x float>",
                "<4 x i32>",
                "<8 x i32>",
                (16, 4, 8, 16),
                index="i32",
            ),
        ),
    ),
)

# WMMA: CPUs and registers from the Matrix Instruction Calculator (rdna3, rdna4) and gfx12_asm_wmma_w32/w64.s,
# gfx1250_asm_wmma_w32(_err).s (gfx1250: those tests alone, wave32 only).
WMMA_ROWS: tuple[Row, ...] = (
    # GFX11 only: D is tied to C; op_sel picks which 16-bit half of each register is written, the other half keeps C.
    Row(
        "wmma.f16.16x16x16.f16.tied",
        "wmma",
        WMMA_OPSEL_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1100",), "v_wmma_f16_16x16x16_f16", "<16 x half>", "<16 x half>", "<16 x half>", (8, 8, 8, 8)),
            Shape(("gfx1100",), "v_wmma_f16_16x16x16_f16", "<8 x half>", "<16 x half>", "<16 x half>", (4, 8, 8, 4), wave64=True),
        ),
    ),
    # GFX11 only: D is tied to C; op_sel picks which 16-bit half of each register is written, the other half keeps C.
    Row(
        "wmma.bf16.16x16x16.bf16.tied",
        "wmma",
        WMMA_OPSEL_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1100",), "v_wmma_bf16_16x16x16_bf16", "<16 x i16>", "<16 x i16>", "<16 x i16>", (8, 8, 8, 8)),
            Shape(("gfx1100",), "v_wmma_bf16_16x16x16_bf16", "<8 x i16>", "<16 x i16>", "<16 x i16>", (4, 8, 8, 4), wave64=True),
        ),
    ),
    Row(
        "wmma.f32.16x16x16.f16",
        "wmma",
        WMMA_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1100",), "v_wmma_f32_16x16x16_f16", "<8 x float>", "<16 x half>", "<16 x half>", (8, 8, 8, 8)),
            Shape(
                ("gfx1100",), "v_wmma_f32_16x16x16_f16", "<4 x float>", "<16 x half>", "<16 x half>", (4, 8, 8, 4), wave64=True
            ),
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_f16", "<8 x float>", "<8 x half>", "<8 x half>", (8, 4, 4, 8)),
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_f16", "<4 x float>", "<4 x half>", "<4 x half>", (4, 2, 2, 4), wave64=True),
        ),
    ),
    Row(
        "wmma.f32.16x16x16.bf16",
        "wmma",
        WMMA_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1100",), "v_wmma_f32_16x16x16_bf16", "<8 x float>", "<16 x i16>", "<16 x i16>", (8, 8, 8, 8)),
            Shape(("gfx1100",), "v_wmma_f32_16x16x16_bf16", "<4 x float>", "<16 x i16>", "<16 x i16>", (4, 8, 8, 4), wave64=True),
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_bf16", "<8 x float>", "<8 x i16>", "<8 x i16>", (8, 4, 4, 8)),
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_bf16", "<4 x float>", "<4 x i16>", "<4 x i16>", (4, 2, 2, 4), wave64=True),
        ),
    ),
    Row(
        "wmma.i32.16x16x16.iu8",
        "wmma",
        WMMA_IU_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1100",), "v_wmma_i32_16x16x16_iu8", "<8 x i32>", "<4 x i32>", "<4 x i32>", (8, 4, 4, 8)),
            Shape(("gfx1100",), "v_wmma_i32_16x16x16_iu8", "<4 x i32>", "<4 x i32>", "<4 x i32>", (4, 4, 4, 4), wave64=True),
            Shape(("gfx1200",), "v_wmma_i32_16x16x16_iu8", "<8 x i32>", "<2 x i32>", "<2 x i32>", (8, 2, 2, 8)),
            Shape(("gfx1200",), "v_wmma_i32_16x16x16_iu8", "<4 x i32>", "i32", "i32", (4, 1, 1, 4), wave64=True),
        ),
    ),
    Row(
        "wmma.i32.16x16x16.iu4",
        "wmma",
        WMMA_IU_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1100",), "v_wmma_i32_16x16x16_iu4", "<8 x i32>", "<2 x i32>", "<2 x i32>", (8, 2, 2, 8)),
            Shape(("gfx1100",), "v_wmma_i32_16x16x16_iu4", "<4 x i32>", "<2 x i32>", "<2 x i32>", (4, 2, 2, 4), wave64=True),
            Shape(("gfx1200",), "v_wmma_i32_16x16x16_iu4", "<8 x i32>", "i32", "i32", (8, 1, 1, 8)),
            Shape(("gfx1200",), "v_wmma_i32_16x16x16_iu4", "<4 x i32>", "i32", "i32", (4, 1, 1, 4), wave64=True),
        ),
    ),
    # GFX11: op_sel picks the 16-bit half of each D register (the other half is undefined); GFX12: results packed, op_sel must be 0.
    Row(
        "wmma.f16.16x16x16.f16",
        "wmma",
        WMMA_OPSEL_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1100",), "v_wmma_f16_16x16x16_f16", "<16 x half>", "<16 x half>", "<16 x half>", (8, 8, 8, 8)),
            Shape(("gfx1100",), "v_wmma_f16_16x16x16_f16", "<8 x half>", "<16 x half>", "<16 x half>", (4, 8, 8, 4), wave64=True),
            Shape(
                ("gfx1200",), "v_wmma_f16_16x16x16_f16", "<8 x half>", "<8 x half>", "<8 x half>", (4, 4, 4, 4), zero=("op_sel",)
            ),
            Shape(
                ("gfx1200",),
                "v_wmma_f16_16x16x16_f16",
                "<4 x half>",
                "<4 x half>",
                "<4 x half>",
                (2, 2, 2, 2),
                wave64=True,
                zero=("op_sel",),
            ),
        ),
    ),
    # GFX11: op_sel picks the 16-bit half of each D register (the other half is undefined); GFX12: results packed, op_sel must be 0.
    Row(
        "wmma.bf16.16x16x16.bf16",
        "wmma",
        WMMA_OPSEL_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1100",), "v_wmma_bf16_16x16x16_bf16", "<16 x i16>", "<16 x i16>", "<16 x i16>", (8, 8, 8, 8)),
            Shape(("gfx1100",), "v_wmma_bf16_16x16x16_bf16", "<8 x i16>", "<16 x i16>", "<16 x i16>", (4, 8, 8, 4), wave64=True),
            Shape(
                ("gfx1200",), "v_wmma_bf16_16x16x16_bf16", "<8 x i16>", "<8 x i16>", "<8 x i16>", (4, 4, 4, 4), zero=("op_sel",)
            ),
            Shape(
                ("gfx1200",),
                "v_wmma_bf16_16x16x16_bf16",
                "<4 x i16>",
                "<4 x i16>",
                "<4 x i16>",
                (2, 2, 2, 2),
                wave64=True,
                zero=("op_sel",),
            ),
        ),
    ),
    Row(
        "wmma.f32.16x16x16.fp8.fp8",
        "wmma",
        WMMA_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_fp8_fp8", "<8 x float>", "<2 x i32>", "<2 x i32>", (8, 2, 2, 8)),
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_fp8_fp8", "<4 x float>", "i32", "i32", (4, 1, 1, 4), wave64=True),
        ),
    ),
    Row(
        "wmma.f32.16x16x16.fp8.bf8",
        "wmma",
        WMMA_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_fp8_bf8", "<8 x float>", "<2 x i32>", "<2 x i32>", (8, 2, 2, 8)),
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_fp8_bf8", "<4 x float>", "i32", "i32", (4, 1, 1, 4), wave64=True),
        ),
    ),
    Row(
        "wmma.f32.16x16x16.bf8.fp8",
        "wmma",
        WMMA_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_bf8_fp8", "<8 x float>", "<2 x i32>", "<2 x i32>", (8, 2, 2, 8)),
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_bf8_fp8", "<4 x float>", "i32", "i32", (4, 1, 1, 4), wave64=True),
        ),
    ),
    Row(
        "wmma.f32.16x16x16.bf8.bf8",
        "wmma",
        WMMA_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_bf8_bf8", "<8 x float>", "<2 x i32>", "<2 x i32>", (8, 2, 2, 8)),
            Shape(("gfx1200",), "v_wmma_f32_16x16x16_bf8_bf8", "<4 x float>", "i32", "i32", (4, 1, 1, 4), wave64=True),
        ),
    ),
    Row(
        "wmma.i32.16x16x32.iu4",
        "wmma",
        WMMA_IU_OPERANDS,
        ("D", "A"),
        (
            Shape(("gfx1200",), "v_wmma_i32_16x16x32_iu4", "<8 x i32>", "<2 x i32>", "<2 x i32>", (8, 2, 2, 8)),
            Shape(("gfx1200",), "v_wmma_i32_16x16x32_iu4", "<4 x i32>", "i32", "i32", (4, 1, 1, 4), wave64=True),
        ),
    ),
    Row(
        "wmma.f32.16x16x4.f32",
        "wmma",
        WMMA_1250_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x4_f32", "<8 x float>", "<2 x float>", "<2 x float>", (8, 2, 2, 8)),),
    ),
    Row(
        "wmma.f32.16x16x32.bf16",
        "wmma",
        WMMA_1250_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x32_bf16", "<8 x float>", "<16 x bfloat>", "<16 x bfloat>", (8, 8, 8, 8)),),
    ),
    Row(
        "wmma.f32.16x16x32.f16",
        "wmma",
        WMMA_1250_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x32_f16", "<8 x float>", "<16 x half>", "<16 x half>", (8, 8, 8, 8)),),
    ),
    Row(
        "wmma.f16.16x16x32.f16",
        "wmma",
        WMMA_1250_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f16_16x16x32_f16", "<8 x half>", "<16 x half>", "<16 x half>", (4, 8, 8, 4)),),
    ),
    Row(
        "wmma.bf16.16x16x32.bf16",
        "wmma",
        WMMA_1250_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_bf16_16x16x32_bf16", "<8 x bfloat>", "<16 x bfloat>", "<16 x bfloat>", (4, 8, 8, 4)),),
    ),
    # D is BF16 (packed, 4 registers), C is F32 (8 registers).
    Row(
        "wmma.bf16f32.16x16x32.bf16",
        "wmma",
        WMMA_1250_OPERANDS,
        ("D", "A", "C"),
        (
            Shape(
                ("gfx1250",),
                "v_wmma_bf16f32_16x16x32_bf16",
                "<8 x bfloat>",
                "<16 x bfloat>",
                "<16 x bfloat>",
                (4, 8, 8, 8),
                acc="<8 x float>",
            ),
        ),
    ),
    Row(
        "wmma.f32.16x16x64.fp8.fp8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x64_fp8_fp8", "<8 x float>", "<8 x i32>", "<8 x i32>", (8, 8, 8, 8)),),
    ),
    Row(
        "wmma.f32.16x16x64.fp8.bf8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x64_fp8_bf8", "<8 x float>", "<8 x i32>", "<8 x i32>", (8, 8, 8, 8)),),
    ),
    Row(
        "wmma.f32.16x16x64.bf8.fp8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x64_bf8_fp8", "<8 x float>", "<8 x i32>", "<8 x i32>", (8, 8, 8, 8)),),
    ),
    Row(
        "wmma.f32.16x16x64.bf8.bf8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x64_bf8_bf8", "<8 x float>", "<8 x i32>", "<8 x i32>", (8, 8, 8, 8)),),
    ),
    Row(
        "wmma.f16.16x16x64.fp8.fp8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f16_16x16x64_fp8_fp8", "<8 x half>", "<8 x i32>", "<8 x i32>", (4, 8, 8, 4)),),
    ),
    Row(
        "wmma.f16.16x16x64.fp8.bf8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f16_16x16x64_fp8_bf8", "<8 x half>", "<8 x i32>", "<8 x i32>", (4, 8, 8, 4)),),
    ),
    Row(
        "wmma.f16.16x16x64.bf8.fp8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f16_16x16x64_bf8_fp8", "<8 x half>", "<8 x i32>", "<8 x i32>", (4, 8, 8, 4)),),
    ),
    Row(
        "wmma.f16.16x16x64.bf8.bf8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f16_16x16x64_bf8_bf8", "<8 x half>", "<8 x i32>", "<8 x i32>", (4, 8, 8, 4)),),
    ),
    Row(
        "wmma.f32.16x16x128.fp8.fp8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x128_fp8_fp8", "<8 x float>", "<16 x i32>", "<16 x i32>", (8, 16, 16, 8)),),
    ),
    Row(
        "wmma.f32.16x16x128.fp8.bf8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x128_fp8_bf8", "<8 x float>", "<16 x i32>", "<16 x i32>", (8, 16, 16, 8)),),
    ),
    Row(
        "wmma.f32.16x16x128.bf8.fp8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x128_bf8_fp8", "<8 x float>", "<16 x i32>", "<16 x i32>", (8, 16, 16, 8)),),
    ),
    Row(
        "wmma.f32.16x16x128.bf8.bf8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x128_bf8_bf8", "<8 x float>", "<16 x i32>", "<16 x i32>", (8, 16, 16, 8)),),
    ),
    Row(
        "wmma.f16.16x16x128.fp8.fp8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f16_16x16x128_fp8_fp8", "<8 x half>", "<16 x i32>", "<16 x i32>", (4, 16, 16, 4)),),
    ),
    Row(
        "wmma.f16.16x16x128.fp8.bf8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f16_16x16x128_fp8_bf8", "<8 x half>", "<16 x i32>", "<16 x i32>", (4, 16, 16, 4)),),
    ),
    Row(
        "wmma.f16.16x16x128.bf8.fp8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f16_16x16x128_bf8_fp8", "<8 x half>", "<16 x i32>", "<16 x i32>", (4, 16, 16, 4)),),
    ),
    Row(
        "wmma.f16.16x16x128.bf8.bf8",
        "wmma",
        WMMA_1250_FP8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_f16_16x16x128_bf8_bf8", "<8 x half>", "<16 x i32>", "<16 x i32>", (4, 16, 16, 4)),),
    ),
    Row(
        "wmma.i32.16x16x64.iu8",
        "wmma",
        WMMA_1250_IU8_OPERANDS,
        ("D", "A"),
        (Shape(("gfx1250",), "v_wmma_i32_16x16x64_iu8", "<8 x i32>", "<8 x i32>", "<8 x i32>", (8, 8, 8, 8)),),
    ),
    # Widest form (FP8/BF8 in A and B): FP6/BF6 read 12 registers and FP4 8 (richer entry elsewhere).
    Row(
        "wmma.f32.16x16x128.f8f6f4",
        "wmma",
        WMMA_F8F6F4_OPERANDS,
        ("D", "A", "B"),
        (Shape(("gfx1250",), "v_wmma_f32_16x16x128_f8f6f4", "<8 x float>", "<16 x i32>", "<16 x i32>", (8, 16, 16, 8)),),
    ),
    # Widest form (FP8/BF8 in A and B): FP6/BF6 read 12 registers and FP4 8 (richer entry elsewhere).
    Row(
        "wmma.scale.f32.16x16x128.f8f6f4",
        "wmma",
        WMMA_SCALE_F8F6F4_OPERANDS,
        ("D", "A", "B"),
        (Shape(("gfx1250",), "v_wmma_scale_f32_16x16x128_f8f6f4", "<8 x float>", "<16 x i32>", "<16 x i32>", (8, 16, 16, 8)),),
    ),
    # Widest form (FP8/BF8 in A and B): FP6/BF6 read 12 registers and FP4 8 (richer entry elsewhere).
    Row(
        "wmma.scale16.f32.16x16x128.f8f6f4",
        "wmma",
        WMMA_SCALE16_F8F6F4_OPERANDS,
        ("D", "A", "B"),
        (Shape(("gfx1250",), "v_wmma_scale16_f32_16x16x128_f8f6f4", "<8 x float>", "<16 x i32>", "<16 x i32>", (8, 16, 16, 8)),),
    ),
    # FP4 only (no format operands): A is 32x128 (16 registers), B 128x16 (8 registers).
    Row(
        "wmma.f32.32x16x128.f4",
        "wmma",
        WMMA_F4_OPERANDS,
        ("D", "A", "B"),
        (Shape(("gfx1250",), "v_wmma_f32_32x16x128_f4", "<16 x float>", "<16 x i32>", "<8 x i32>", (16, 16, 8, 16)),),
    ),
    # FP4 only (no format operands): A is 32x128 (16 registers), B 128x16 (8 registers).
    Row(
        "wmma.scale.f32.32x16x128.f4",
        "wmma",
        WMMA_SCALE_F4_OPERANDS,
        ("D", "A", "B"),
        (Shape(("gfx1250",), "v_wmma_scale_f32_32x16x128_f4", "<16 x float>", "<16 x i32>", "<8 x i32>", (16, 16, 8, 16)),),
    ),
    # FP4 only (no format operands): A is 32x128 (16 registers), B 128x16 (8 registers).
    Row(
        "wmma.scale16.f32.32x16x128.f4",
        "wmma",
        WMMA_SCALE16_F4_OPERANDS,
        ("D", "A", "B"),
        (Shape(("gfx1250",), "v_wmma_scale16_f32_32x16x128_f4", "<16 x float>", "<16 x i32>", "<8 x i32>", (16, 16, 8, 16)),),
    ),
)

# SWMMAC: CPUs and registers from the Matrix Instruction Calculator (rdna4), gfx12_asm_wmma_w32/w64.s and
# gfx1250_asm_wmma_w32(_err).s; gfx12 index types from the GlobalISel tests, gfx1250's from the index tuple width.
SWMMAC_ROWS: tuple[Row, ...] = (
    Row(
        "swmmac.f32.16x16x32.f16",
        "swmmac",
        SWMMAC_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1200",), "v_swmmac_f32_16x16x32_f16", "<8 x float>", "<8 x half>", "<16 x half>", (8, 4, 8, 8), index="i16"
            ),
            Shape(
                ("gfx1200",),
                "v_swmmac_f32_16x16x32_f16",
                "<4 x float>",
                "<4 x half>",
                "<8 x half>",
                (4, 2, 4, 4),
                index="i8",
                wave64=True,
            ),
        ),
    ),
    Row(
        "swmmac.f32.16x16x32.bf16",
        "swmmac",
        SWMMAC_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1200",), "v_swmmac_f32_16x16x32_bf16", "<8 x float>", "<8 x i16>", "<16 x i16>", (8, 4, 8, 8), index="i16"
            ),
            Shape(
                ("gfx1200",),
                "v_swmmac_f32_16x16x32_bf16",
                "<4 x float>",
                "<4 x i16>",
                "<8 x i16>",
                (4, 2, 4, 4),
                index="i8",
                wave64=True,
            ),
        ),
    ),
    Row(
        "swmmac.f16.16x16x32.f16",
        "swmmac",
        SWMMAC_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1200",), "v_swmmac_f16_16x16x32_f16", "<8 x half>", "<8 x half>", "<16 x half>", (4, 4, 8, 4), index="i16"
            ),
            Shape(
                ("gfx1200",),
                "v_swmmac_f16_16x16x32_f16",
                "<4 x half>",
                "<4 x half>",
                "<8 x half>",
                (2, 2, 4, 2),
                index="i8",
                wave64=True,
            ),
        ),
    ),
    Row(
        "swmmac.bf16.16x16x32.bf16",
        "swmmac",
        SWMMAC_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(("gfx1200",), "v_swmmac_bf16_16x16x32_bf16", "<8 x i16>", "<8 x i16>", "<16 x i16>", (4, 4, 8, 4), index="i16"),
            Shape(
                ("gfx1200",),
                "v_swmmac_bf16_16x16x32_bf16",
                "<4 x i16>",
                "<4 x i16>",
                "<8 x i16>",
                (2, 2, 4, 2),
                index="i8",
                wave64=True,
            ),
        ),
    ),
    Row(
        "swmmac.i32.16x16x32.iu8",
        "swmmac",
        SWMMAC_IU_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(("gfx1200",), "v_swmmac_i32_16x16x32_iu8", "<8 x i32>", "<2 x i32>", "<4 x i32>", (8, 2, 4, 8), index="i16"),
            Shape(
                ("gfx1200",), "v_swmmac_i32_16x16x32_iu8", "<4 x i32>", "i32", "<2 x i32>", (4, 1, 2, 4), index="i8", wave64=True
            ),
        ),
    ),
    Row(
        "swmmac.i32.16x16x32.iu4",
        "swmmac",
        SWMMAC_IU_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(("gfx1200",), "v_swmmac_i32_16x16x32_iu4", "<8 x i32>", "i32", "<2 x i32>", (8, 1, 2, 8), index="i16"),
            Shape(("gfx1200",), "v_swmmac_i32_16x16x32_iu4", "<4 x i32>", "i32", "i32", (4, 1, 1, 4), index="i16", wave64=True),
        ),
    ),
    Row(
        "swmmac.i32.16x16x64.iu4",
        "swmmac",
        SWMMAC_IU_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(("gfx1200",), "v_swmmac_i32_16x16x64_iu4", "<8 x i32>", "<2 x i32>", "<4 x i32>", (8, 2, 4, 8), index="i32"),
            Shape(
                ("gfx1200",), "v_swmmac_i32_16x16x64_iu4", "<4 x i32>", "i32", "<2 x i32>", (4, 1, 2, 4), index="i16", wave64=True
            ),
        ),
    ),
    Row(
        "swmmac.f32.16x16x32.fp8.fp8",
        "swmmac",
        SWMMAC_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1200",), "v_swmmac_f32_16x16x32_fp8_fp8", "<8 x float>", "<2 x i32>", "<4 x i32>", (8, 2, 4, 8), index="i16"
            ),
            Shape(
                ("gfx1200",),
                "v_swmmac_f32_16x16x32_fp8_fp8",
                "<4 x float>",
                "i32",
                "<2 x i32>",
                (4, 1, 2, 4),
                index="i8",
                wave64=True,
            ),
        ),
    ),
    Row(
        "swmmac.f32.16x16x32.fp8.bf8",
        "swmmac",
        SWMMAC_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1200",), "v_swmmac_f32_16x16x32_fp8_bf8", "<8 x float>", "<2 x i32>", "<4 x i32>", (8, 2, 4, 8), index="i16"
            ),
            Shape(
                ("gfx1200",),
                "v_swmmac_f32_16x16x32_fp8_bf8",
                "<4 x float>",
                "i32",
                "<2 x i32>",
                (4, 1, 2, 4),
                index="i8",
                wave64=True,
            ),
        ),
    ),
    Row(
        "swmmac.f32.16x16x32.bf8.fp8",
        "swmmac",
        SWMMAC_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1200",), "v_swmmac_f32_16x16x32_bf8_fp8", "<8 x float>", "<2 x i32>", "<4 x i32>", (8, 2, 4, 8), index="i16"
            ),
            Shape(
                ("gfx1200",),
                "v_swmmac_f32_16x16x32_bf8_fp8",
                "<4 x float>",
                "i32",
                "<2 x i32>",
                (4, 1, 2, 4),
                index="i8",
                wave64=True,
            ),
        ),
    ),
    Row(
        "swmmac.f32.16x16x32.bf8.bf8",
        "swmmac",
        SWMMAC_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1200",), "v_swmmac_f32_16x16x32_bf8_bf8", "<8 x float>", "<2 x i32>", "<4 x i32>", (8, 2, 4, 8), index="i16"
            ),
            Shape(
                ("gfx1200",),
                "v_swmmac_f32_16x16x32_bf8_bf8",
                "<4 x float>",
                "i32",
                "<2 x i32>",
                (4, 1, 2, 4),
                index="i8",
                wave64=True,
            ),
        ),
    ),
    Row(
        "swmmac.f32.16x16x64.f16",
        "swmmac",
        SWMMAC_1250_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",), "v_swmmac_f32_16x16x64_f16", "<8 x float>", "<16 x half>", "<32 x half>", (8, 8, 16, 8), index="i32"
            ),
        ),
    ),
    Row(
        "swmmac.f32.16x16x64.bf16",
        "swmmac",
        SWMMAC_1250_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",),
                "v_swmmac_f32_16x16x64_bf16",
                "<8 x float>",
                "<16 x bfloat>",
                "<32 x bfloat>",
                (8, 8, 16, 8),
                index="i32",
            ),
        ),
    ),
    Row(
        "swmmac.f16.16x16x64.f16",
        "swmmac",
        SWMMAC_1250_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",), "v_swmmac_f16_16x16x64_f16", "<8 x half>", "<16 x half>", "<32 x half>", (4, 8, 16, 4), index="i32"
            ),
        ),
    ),
    Row(
        "swmmac.bf16.16x16x64.bf16",
        "swmmac",
        SWMMAC_1250_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",),
                "v_swmmac_bf16_16x16x64_bf16",
                "<8 x bfloat>",
                "<16 x bfloat>",
                "<32 x bfloat>",
                (4, 8, 16, 4),
                index="i32",
            ),
        ),
    ),
    # D is tied to the F32 accumulator C, so the IR result has C's type and the operand is 8 registers
    # (the ISA notes the BF16 result itself lands in the low 4).
    Row(
        "swmmac.bf16f32.16x16x64.bf16",
        "swmmac",
        SWMMAC_1250_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",),
                "v_swmmac_bf16f32_16x16x64_bf16",
                "<8 x float>",
                "<16 x bfloat>",
                "<32 x bfloat>",
                (8, 8, 16, 8),
                index="i32",
            ),
        ),
    ),
    Row(
        "swmmac.f32.16x16x128.fp8.fp8",
        "swmmac",
        SWMMAC_1250_FP8_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",),
                "v_swmmac_f32_16x16x128_fp8_fp8",
                "<8 x float>",
                "<8 x i32>",
                "<16 x i32>",
                (8, 8, 16, 8),
                index="i64",
            ),
        ),
    ),
    Row(
        "swmmac.f32.16x16x128.fp8.bf8",
        "swmmac",
        SWMMAC_1250_FP8_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",),
                "v_swmmac_f32_16x16x128_fp8_bf8",
                "<8 x float>",
                "<8 x i32>",
                "<16 x i32>",
                (8, 8, 16, 8),
                index="i64",
            ),
        ),
    ),
    Row(
        "swmmac.f32.16x16x128.bf8.fp8",
        "swmmac",
        SWMMAC_1250_FP8_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",),
                "v_swmmac_f32_16x16x128_bf8_fp8",
                "<8 x float>",
                "<8 x i32>",
                "<16 x i32>",
                (8, 8, 16, 8),
                index="i64",
            ),
        ),
    ),
    Row(
        "swmmac.f32.16x16x128.bf8.bf8",
        "swmmac",
        SWMMAC_1250_FP8_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",),
                "v_swmmac_f32_16x16x128_bf8_bf8",
                "<8 x float>",
                "<8 x i32>",
                "<16 x i32>",
                (8, 8, 16, 8),
                index="i64",
            ),
        ),
    ),
    Row(
        "swmmac.f16.16x16x128.fp8.fp8",
        "swmmac",
        SWMMAC_1250_FP8_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",),
                "v_swmmac_f16_16x16x128_fp8_fp8",
                "<8 x half>",
                "<8 x i32>",
                "<16 x i32>",
                (4, 8, 16, 4),
                index="i64",
            ),
        ),
    ),
    Row(
        "swmmac.f16.16x16x128.fp8.bf8",
        "swmmac",
        SWMMAC_1250_FP8_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",),
                "v_swmmac_f16_16x16x128_fp8_bf8",
                "<8 x half>",
                "<8 x i32>",
                "<16 x i32>",
                (4, 8, 16, 4),
                index="i64",
            ),
        ),
    ),
    Row(
        "swmmac.f16.16x16x128.bf8.fp8",
        "swmmac",
        SWMMAC_1250_FP8_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",),
                "v_swmmac_f16_16x16x128_bf8_fp8",
                "<8 x half>",
                "<8 x i32>",
                "<16 x i32>",
                (4, 8, 16, 4),
                index="i64",
            ),
        ),
    ),
    Row(
        "swmmac.f16.16x16x128.bf8.bf8",
        "swmmac",
        SWMMAC_1250_FP8_OPERANDS,
        ("D", "A", "B", "index"),
        (
            Shape(
                ("gfx1250",),
                "v_swmmac_f16_16x16x128_bf8_bf8",
                "<8 x half>",
                "<8 x i32>",
                "<16 x i32>",
                (4, 8, 16, 4),
                index="i64",
            ),
        ),
    ),
    Row(
        "swmmac.i32.16x16x128.iu8",
        "swmmac",
        SWMMAC_1250_IU8_OPERANDS,
        ("D", "A", "B", "index"),
        (Shape(("gfx1250",), "v_swmmac_i32_16x16x128_iu8", "<8 x i32>", "<8 x i32>", "<16 x i32>", (8, 8, 16, 8), index="i64"),),
    ),
)

ROWS: tuple[Row, ...] = (*MFMA_ROWS, *SMFMAC_ROWS, *WMMA_ROWS, *SWMMAC_ROWS)
BY_NAME = {r.name: r for r in ROWS}
