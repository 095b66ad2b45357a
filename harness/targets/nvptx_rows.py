"""The NVPTX `llvm.nvvm.mma.*` intrinsics the harness knows, one explicit row each, in the
style of LLVM's NVPTX `wmma.py` (`make_mma_ops([geoms], [types_a], [types_b], [types_c],
[types_d])`): support is membership in this list, never a predicate, and never read off llc.

Each row is what the PTX ISA says about one `mma` variant (sections "Warp-level matrix
multiply-accumulate instructions: mma" and "mma.sp / mma.sp::ordered_metadata"): its shape, the
A/B layouts, the PTX types of A, B, C and D, `.satfinite`, the single-bit operation (`.xor.popc`,
`.and.popc`), `.kind::<kind>`, the sparsity (`.sp` or `.sp::ordered_metadata`, and the values its
sparsity selector may take: "Sparse matrix storage"), the block scale (`.block_scale`, its
`.scale_vec::NX` and `.stype`: "Block Scaling for mma.sync", Table 36), the oldest SM that has
it ("Target ISA Notes"), the oldest PTX ISA version that has it ("PTX ISA Notes"), and per
operand how many registers each lane holds (the ISA's "Matrix Fragments for mma.mMnNkK" tables,
transcribed in FRAGMENT_REGS, and "Matrix fragments for multiply-accumulate operation with sparse
matrix A", in SPARSE_FRAGMENT_REGS). The intrinsic's name and the instruction's mnemonic are
computed from that data by LLVM's rules (`IntrinsicsNVVM.td` MMA_SIGNATURE, MMA_NAME,
MMA_SP_NAME, MMA_BLOCK_SCALE_NAME, MMA_SP_BLOCK_SCALE_NAME) and by the ISA's syntax, not
written by hand.

The rows are every `llvm.nvvm.mma.*` LLVM 22.1.8 declares: 144 dense, 192 sparse (`mma.sp.*`, 54
of them block-scaled) and 54 dense block-scaled (`mma.block.scale.*`); a test compares the set
with the build's IntrinsicsNVPTX.h.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from harness.targets import sms

# IR type of one fragment register per PTX type (IntrinsicsNVVM.td, wmma.py MMAType.llvm_type):
# f16 pairs as <2 x half>, f32 and f64 as themselves, everything else packed into an i32.
IR_REGISTER = {
    "f16": "<2 x half>",
    "f32": "float",
    "f64": "double",
    "s32": "i32",
    "bf16": "i32",
    "tf32": "i32",
    "s8": "i32",
    "u8": "i32",
    "s4": "i32",
    "u4": "i32",
    "b1": "i32",
    "e4m3": "i32",
    "e5m2": "i32",
    "e3m2": "i32",
    "e2m3": "i32",
    "e2m1": "i32",
}

# The SMs a row may name as its oldest, oldest first; each row's absent SM is the one before
# its own here. Where a row runs among all targets follows the ISA's rules in `sms`.
SM_ORDER = ("sm_70", "sm_75", "sm_80", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120a")


F8 = ["e4m3", "e5m2"]
F8F6F4 = ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1"]
I8 = ["s8", "u8"]
I4 = ["s4", "u4"]
LAYOUTS = ("row", "col")

# Registers per lane of each fragment, from the PTX ISA's "Matrix Fragments for mma.mMnNkK"
# tables: (shape, operand, PTX type) -> registers, operand "a", "b", or "cd" (C and D share one
# layout, "Accumulators (C or D)"). f64 is one .f64 register per element; every other type is
# packed into 32-bit registers (.f16x2, .b32; the e3m2/e2m3/e2m1 of .kind::f8f6f4 sit four to a
# .b32 like e4m3). mma.m8n8k4 with .f16 holds four 8x8x4 products per warp ("A warp executing
# mma.sync.m8n8k4 instruction computes 4 matrix multiply and accumulate operations").
FRAGMENT_REGS: dict[tuple[str, str, str], int] = {
    # .m8n8k4
    ("m8n8k4", "a", "f16"): 2,
    ("m8n8k4", "b", "f16"): 2,
    ("m8n8k4", "cd", "f16"): 4,
    ("m8n8k4", "cd", "f32"): 8,
    ("m8n8k4", "a", "f64"): 1,
    ("m8n8k4", "b", "f64"): 1,
    ("m8n8k4", "cd", "f64"): 2,
    # .m16n8k4
    ("m16n8k4", "a", "tf32"): 2,
    ("m16n8k4", "b", "tf32"): 1,
    ("m16n8k4", "cd", "f32"): 4,
    ("m16n8k4", "a", "f64"): 2,
    ("m16n8k4", "b", "f64"): 1,
    ("m16n8k4", "cd", "f64"): 4,
    # .m16n8k8
    ("m16n8k8", "a", "f16"): 2,
    ("m16n8k8", "b", "f16"): 1,
    ("m16n8k8", "a", "bf16"): 2,
    ("m16n8k8", "b", "bf16"): 1,
    ("m16n8k8", "a", "tf32"): 4,
    ("m16n8k8", "b", "tf32"): 2,
    ("m16n8k8", "a", "f64"): 4,
    ("m16n8k8", "b", "f64"): 2,
    ("m16n8k8", "cd", "f16"): 2,
    ("m16n8k8", "cd", "f32"): 4,
    ("m16n8k8", "cd", "f64"): 4,
    # .m16n8k16
    ("m16n8k16", "a", "f16"): 4,
    ("m16n8k16", "b", "f16"): 2,
    ("m16n8k16", "a", "bf16"): 4,
    ("m16n8k16", "b", "bf16"): 2,
    ("m16n8k16", "a", "f64"): 8,
    ("m16n8k16", "b", "f64"): 4,
    ("m16n8k16", "a", "s8"): 2,
    ("m16n8k16", "a", "u8"): 2,
    ("m16n8k16", "b", "s8"): 1,
    ("m16n8k16", "b", "u8"): 1,
    ("m16n8k16", "a", "e4m3"): 2,
    ("m16n8k16", "a", "e5m2"): 2,
    ("m16n8k16", "b", "e4m3"): 1,
    ("m16n8k16", "b", "e5m2"): 1,
    ("m16n8k16", "cd", "f16"): 2,
    ("m16n8k16", "cd", "f32"): 4,
    ("m16n8k16", "cd", "f64"): 4,
    ("m16n8k16", "cd", "s32"): 4,
    # .m8n8k16, .m8n8k32, .m8n8k128
    ("m8n8k16", "a", "s8"): 1,
    ("m8n8k16", "a", "u8"): 1,
    ("m8n8k16", "b", "s8"): 1,
    ("m8n8k16", "b", "u8"): 1,
    ("m8n8k16", "cd", "s32"): 2,
    ("m8n8k32", "a", "s4"): 1,
    ("m8n8k32", "a", "u4"): 1,
    ("m8n8k32", "b", "s4"): 1,
    ("m8n8k32", "b", "u4"): 1,
    ("m8n8k32", "cd", "s32"): 2,
    ("m8n8k128", "a", "b1"): 1,
    ("m8n8k128", "b", "b1"): 1,
    ("m8n8k128", "cd", "s32"): 2,
    # .m16n8k32
    ("m16n8k32", "a", "s8"): 4,
    ("m16n8k32", "a", "u8"): 4,
    ("m16n8k32", "b", "s8"): 2,
    ("m16n8k32", "b", "u8"): 2,
    ("m16n8k32", "a", "s4"): 2,
    ("m16n8k32", "a", "u4"): 2,
    ("m16n8k32", "b", "s4"): 1,
    ("m16n8k32", "b", "u4"): 1,
    **{("m16n8k32", "a", t): 4 for t in F8F6F4},
    **{("m16n8k32", "b", t): 2 for t in F8F6F4},
    ("m16n8k32", "cd", "s32"): 4,
    ("m16n8k32", "cd", "f16"): 2,
    ("m16n8k32", "cd", "f32"): 4,
    # .m16n8k64 (.e2m1 of .kind::mxf4 and .kind::mxf4nvf4 packs eight to a .b32, no 8-bit
    # container), .m16n8k128, .m16n8k256
    ("m16n8k64", "a", "e2m1"): 4,
    ("m16n8k64", "b", "e2m1"): 2,
    ("m16n8k64", "cd", "f32"): 4,
    ("m16n8k64", "a", "s4"): 4,
    ("m16n8k64", "a", "u4"): 4,
    ("m16n8k64", "b", "s4"): 2,
    ("m16n8k64", "b", "u4"): 2,
    ("m16n8k64", "cd", "s32"): 4,
    ("m16n8k128", "a", "b1"): 2,
    ("m16n8k128", "b", "b1"): 1,
    ("m16n8k128", "cd", "s32"): 4,
    ("m16n8k256", "a", "b1"): 4,
    ("m16n8k256", "b", "b1"): 2,
    ("m16n8k256", "cd", "s32"): 4,
}

# Registers per lane of each fragment of `mma.sp` / `mma.sp::ordered_metadata`, from the PTX ISA's
# "Matrix fragments for multiply-accumulate operation with sparse matrix A": A holds only its
# non-zero half (the compressed fragment: "two .b32 registers, with each register containing two
# non-zero .f16 elements out of 4 consecutive elements"), B the whole K x N matrix, C and D the
# layouts of dense mma. FP8/FP6/FP4 of .kind::f8f6f4 and .kind::mxf8f6f4 sit in 8-bit containers
# (m16n8k64); .e2m1 of .kind::mxf4 and .kind::mxf4nvf4 packs eight to a .b32 (m16n8k128).
SPARSE_FRAGMENT_REGS: dict[tuple[str, str, str], int] = {
    # .m16n8k16 and .m16n8k32 with .f16 / .bf16
    ("m16n8k16", "a", "f16"): 2,
    ("m16n8k16", "a", "bf16"): 2,
    ("m16n8k16", "b", "f16"): 2,
    ("m16n8k16", "b", "bf16"): 2,
    ("m16n8k32", "a", "f16"): 4,
    ("m16n8k32", "a", "bf16"): 4,
    ("m16n8k32", "b", "f16"): 4,
    ("m16n8k32", "b", "bf16"): 4,
    # .m16n8k8 and .m16n8k16 with .tf32
    ("m16n8k8", "a", "tf32"): 2,
    ("m16n8k8", "b", "tf32"): 2,
    ("m16n8k16", "a", "tf32"): 4,
    ("m16n8k16", "b", "tf32"): 4,
    # .m16n8k32 and .m16n8k64 with .u8 / .s8
    **{("m16n8k32", "a", t): 2 for t in ("s8", "u8")},
    **{("m16n8k32", "b", t): 2 for t in ("s8", "u8")},
    **{("m16n8k64", "a", t): 4 for t in ("s8", "u8")},
    **{("m16n8k64", "b", t): 4 for t in ("s8", "u8")},
    # .m16n8k64 and .m16n8k128 with .u4 / .s4
    **{("m16n8k64", "a", t): 2 for t in ("s4", "u4")},
    **{("m16n8k64", "b", t): 2 for t in ("s4", "u4")},
    **{("m16n8k128", "a", t): 4 for t in ("s4", "u4")},
    **{("m16n8k128", "b", t): 4 for t in ("s4", "u4")},
    # .m16n8k64 with .e4m3 / .e5m2 / .e3m2 / .e2m3 / .e2m1, .m16n8k128 with .e2m1 (.kind::mxf4*)
    **{("m16n8k64", "a", t): 4 for t in F8F6F4},
    **{("m16n8k64", "b", t): 4 for t in F8F6F4},
    ("m16n8k128", "a", "e2m1"): 4,
    ("m16n8k128", "b", "e2m1"): 4,
    # Accumulators (C or D): four .f32 / .s32 registers, or two .f16x2
    ("m16n8k8", "cd", "f32"): 4,
    ("m16n8k16", "cd", "f16"): 2,
    ("m16n8k16", "cd", "f32"): 4,
    ("m16n8k32", "cd", "f16"): 2,
    ("m16n8k32", "cd", "f32"): 4,
    ("m16n8k32", "cd", "s32"): 4,
    ("m16n8k64", "cd", "f16"): 2,
    ("m16n8k64", "cd", "f32"): 4,
    ("m16n8k64", "cd", "s32"): 4,
    ("m16n8k128", "cd", "f32"): 4,
    ("m16n8k128", "cd", "s32"): 4,
}


@dataclass(frozen=True)
class Row:
    shape: str  # m16n8k16
    a: str  # PTX types of A, B, C, D
    b: str
    c: str
    d: str
    regs: tuple[int, int, int, int]  # registers per lane of D, A, B, C (PTX ISA fragment tables)
    min_sm: str  # the oldest SM with the instruction (PTX ISA "Target ISA Notes")
    min_ptx: int  # the oldest PTX ISA version with it, times ten (PTX ISA "PTX ISA Notes")
    layouts: tuple[str, str] = ("row", "col")  # A and B layouts
    satfinite: bool = False
    b1op: str = ""  # "xor" or "and" (single-bit rows: `.xor.popc`, `.and.popc`)
    kind: str = ""  # `.kind::<kind>`: f8f6f4, or a block-scaled one (mxf4, mxf4nvf4, mxf8f6f4)
    sparsity: str = ""  # "sp" or "sp::ordered_metadata" (`mma.sp*`; A is the compressed half)
    selectors: tuple[int, ...] = ()  # the sparsity selector's valid values ("Sparse matrix storage")
    scale_vec: str = ""  # `.scale_vec::<scale_vec>` (1X, 2X, 4X) of a block-scaled row, "" when unwritten
    stype: str = ""  # the scale matrices' type (ue8m0, ue4m3): set exactly on block-scaled rows
    # False: the PTX ISA has no such instruction (an intrinsic older LLVM declared): no SM runs
    # it, and a correct build refuses it on the row's SM (`absent_sm`).
    isa: bool = True
    # The oldest and newest LLVM releases of those the harness is tested on (LLVM_RELEASES) that
    # declare the intrinsic (0: every newer one too); a test reads them off the builds' headers.
    llvm: tuple[int, int] = (22, 0)
    # An `a`-target row's family `f` targets have it too (`sms.has`); False: its family's `a`
    # targets only (the sparse block-scaled .kind::mxf4 and .kind::mxf4nvf4: ptxas 13.0 refuses
    # them on sm_120f and sm_121f, "Sparse mma with block scale not supported on .target").
    family_targets: bool = True

    @property
    def signature(self) -> str:
        """LLVM's MMA_SIGNATURE: FP8/F8F6F4 inputs by D, A, B and C; f16 inputs by D and C;
        others by A and B, or by A alone when B is the same."""
        if self.a in F8F6F4:
            return f"{self.d}.{self.a}.{self.b}.{self.c}"
        if self.a == "f16":
            return f"{self.d}.{self.c}"
        return self.a if self.a == self.b else f"{self.a}.{self.b}"

    @property
    def name(self) -> str:
        """The intrinsic's name without `llvm.nvvm.`, IntrinsicsNVVM.td's record name with `.` for
        `_` and `::`: mma[.<sparsity>][.<op>.popc].<shape>.<a>.<b>[.kind.<kind>][.satfinite]
        .<signature>, and for a block-scaled row mma[.<sparsity>].block.scale.<shape>.<a>.<b>.<kind>
        [.scale.<N>x].<signature>.<stype>."""
        parts = ["mma", *(self.sparsity.replace("::", "_").split("_") if self.sparsity else [])]
        if self.stype:
            parts += ["block", "scale", self.shape, *self.layouts, self.kind]
            parts += ["scale", self.scale_vec.lower()] if self.scale_vec else []
            return ".".join([*parts, self.signature, self.stype])
        parts += [self.b1op, "popc"] if self.b1op else []
        parts += [self.shape, *self.layouts]
        parts += ["kind", self.kind] if self.kind else []
        parts += ["satfinite"] if self.satfinite else []
        return ".".join([*parts, self.signature])

    @property
    def mnemonic(self) -> str:
        """The PTX ISA's spelling: mma[.<sparsity>].sync.aligned.<shape>.<a>.<b>[.kind::<kind>]
        [.block_scale[.scale_vec::<N>X]][.satfinite].<d>.<a>.<b>.<c>[.<op>.popc][.<stype>]."""
        parts = ["mma" + (f".{self.sparsity}" if self.sparsity else ""), "sync", "aligned", self.shape, *self.layouts]
        parts += [f"kind::{self.kind}"] if self.kind else []
        parts += ["block_scale"] if self.stype else []
        parts += [f"scale_vec::{self.scale_vec}"] if self.scale_vec else []
        parts += ["satfinite"] if self.satfinite else []
        parts += [self.d, self.a, self.b, self.c]
        parts += [self.b1op, "popc"] if self.b1op else []
        parts += [self.stype] if self.stype else []
        return ".".join(parts)

    @property
    def family(self) -> str:
        """The name's family (NVPTX.matrix_families): mma.sp for every sparse row, block-scaled
        or not; mma.block.scale for the dense block-scaled ones; mma for the rest."""
        return "mma.sp" if self.sparsity else "mma.block.scale" if self.stype else "mma"

    @property
    def cohort(self) -> str:
        """The rows LLVM declares together, which may share a lit file: the same sparsity, block
        scale and kind, introduced by the same PTX ISA version and declared by the same tested
        releases, e.g. `mma.sp.ptx71.llvm22`, `mma.ptx70.llvm14-19`. LLVM adds the mma
        intrinsics one PTX ISA feature at a time (mma.sp, then .kind::f8f6f4 and the m16n8 f64
        shapes, then .block_scale: one change each in the LLVM 22 cycle), so a build that
        declares one row of a cohort declares all of them, and a file's REQUIRES holds for all
        of its rows or for none."""
        words = ["mma", *(self.sparsity.replace("::", "_").split("_") if self.sparsity else [])]
        words += ["block", "scale", self.kind] if self.stype else ["kind", self.kind] if self.kind else []
        first, last = self.llvm
        return ".".join(words) + f".ptx{self.min_ptx}.llvm{first}" + (f"-{last}" if last else "")

    def runs_on(self, sm: str) -> bool:
        """Whether target `sm` has the instruction (`sms.has`); none has a row the ISA does not."""
        return self.isa and sms.has(self.min_sm, sm, self.family_targets)

    @property
    def absent_sm(self) -> str:
        """The newest SM older than the row's (none for sm_70, the oldest with mma); for a row the
        ISA does not have, its own SM."""
        if not self.isa:
            return self.min_sm
        first = SM_ORDER.index(self.min_sm)
        return SM_ORDER[first - 1] if first else ""

    def ptx_feature(self, sm: str) -> str:
        """llc's -mattr for this row on `sm`: `+ptxNN` where the row is newer than the target."""
        return sms.ptx_feature(self.min_ptx, sm)


def make_mma_ops(
    geoms: list[str],
    types_a: list[str],
    types_b: list[str],
    types_c: list[str],
    types_d: list[str],
    *,
    sm: str,
    ptx: int,
    layouts: tuple[tuple[str, str], ...] = (LAYOUTS,),
    satfinite: tuple[bool, ...] = (False,),
    b1ops: tuple[str, ...] = ("",),
    kind: str = "",
    sparsity: str = "",
    selectors: tuple[int, ...] = (),
    scales: tuple[tuple[str, str], ...] = (("", ""),),
    isa: bool = True,
    llvm: tuple[int, int] = (22, 0),
    family_targets: bool = True,
) -> list[Row]:
    """A row per geometry, A type, C type, B type (A's when `types_b` is empty) and D type (C's
    when `types_d` is empty), as wmma.py's make_mma_ops, times the layouts, `.satfinite` or not,
    single-bit operations and (scale_vec, stype) pairs listed. The registers come from
    FRAGMENT_REGS, or for a sparse row (`sparsity`) from SPARSE_FRAGMENT_REGS."""
    frag = SPARSE_FRAGMENT_REGS if sparsity else FRAGMENT_REGS
    rows = []
    for geom, ta, tc in product(geoms, types_a, types_c):
        for tb, td in product(types_b or [ta], types_d or [tc]):
            regs = (frag[(geom, "cd", td)], frag[(geom, "a", ta)], frag[(geom, "b", tb)], frag[(geom, "cd", tc)])
            for layout, satf, op, (vec, stype) in product(layouts, satfinite, b1ops, scales):
                rows.append(
                    Row(
                        geom,
                        ta,
                        tb,
                        tc,
                        td,
                        regs,
                        sm,
                        ptx,
                        layout,
                        satf,
                        op,
                        kind,
                        sparsity,
                        selectors,
                        vec,
                        stype,
                        isa,
                        llvm,
                        family_targets,
                    )
                )
    return rows


ALL_LAYOUTS = tuple(product(LAYOUTS, LAYOUTS))
BOTH = (False, True)  # with and without .satfinite

# The sparsity selector's valid values ("Sparse matrix storage"): which threads of each group of
# four consecutive threads contribute the metadata.
ONE_THREAD = (0, 1, 2, 3)  # "one thread ... indicated by a value in {0, 1, 2, 3}"
THREAD_PAIR = (0, 1)  # "a thread-pair ... either 0 (threads T0, T1) or 1 (threads T2, T3)"
ALL_THREADS = (0,)  # "all threads ... contribute the sparsity metadata. Hence ... must be 0"
SP, ORDERED = "sp", "sp::ordered_metadata"
# The LLVM releases the harness is tested on (Debian's llvm-14, -15, -16, -19, -22), and the
# `llvm` ranges of the rows: every release from 14 on, or 14 to 19 (the two rows 22 dropped).
LLVM_RELEASES = (14, 15, 16, 19, 22)
SINCE_14, UNTIL_19 = (14, 0), (14, 19)
# Table 36 (scale_vec, stype) pairs per block-scaled kind, "" where `.scale_vec_size` is left to
# its default (2X for .kind::mxf4, 1X for .kind::mxf8f6f4; .kind::mxf4nvf4 must write it).
MXF4_SCALES = (("", "ue8m0"), ("2X", "ue8m0"))
MXF4NVF4_SCALES = (("2X", "ue8m0"), ("4X", "ue4m3"))
MXF8F6F4_SCALES = (("", "ue8m0"), ("1X", "ue8m0"))

ROWS: tuple[Row, ...] = (
    # f16 inputs, named by D and C. m16n8k16 (sm_80, PTX 7.0) and m16n8k8 (sm_75, PTX 6.5) have
    # D = C; m8n8k4 (sm_70, PTX 6.4) takes any A/B layout and C f16 or f32, D f32 whenever C is.
    *make_mma_ops(["m16n8k16"], ["f16"], [], ["f16", "f32"], [], sm="sm_80", ptx=70, llvm=SINCE_14),
    *make_mma_ops(["m16n8k8"], ["f16"], [], ["f16", "f32"], [], sm="sm_75", ptx=65, llvm=SINCE_14),
    *make_mma_ops(["m8n8k4"], ["f16"], [], ["f16"], ["f16", "f32"], sm="sm_70", ptx=64, layouts=ALL_LAYOUTS, llvm=SINCE_14),
    *make_mma_ops(["m8n8k4"], ["f16"], [], ["f32"], ["f32"], sm="sm_70", ptx=64, layouts=ALL_LAYOUTS, llvm=SINCE_14),
    # Not in the ISA: m16n8k16 with .f16 inputs takes .dtype = .ctype ("mma.m16n8k16 ... .dtype
    # must be '.f32' when .ctype is '.f32'", ptxas). LLVM 14 to 19 declare these two and llc
    # selects them; LLVM 22 no longer declares them. A correct build refuses them on sm_80.
    *make_mma_ops(["m16n8k16"], ["f16"], [], ["f32"], ["f16"], sm="sm_80", ptx=70, isa=False, llvm=UNTIL_19),
    *make_mma_ops(["m16n8k16"], ["f16"], [], ["f16"], ["f32"], sm="sm_80", ptx=70, isa=False, llvm=UNTIL_19),
    # Alternate floating point: bf16 and tf32 accumulate in f32 (sm_80, PTX 7.0).
    *make_mma_ops(["m16n8k8", "m16n8k16"], ["bf16"], [], ["f32"], [], sm="sm_80", ptx=70, llvm=SINCE_14),
    *make_mma_ops(["m16n8k4", "m16n8k8"], ["tf32"], [], ["f32"], [], sm="sm_80", ptx=70, llvm=SINCE_14),
    # Double precision: m8n8k4 from sm_80 (PTX 7.0), the m16n8 shapes from sm_90 (PTX 7.8).
    *make_mma_ops(["m8n8k4"], ["f64"], [], ["f64"], [], sm="sm_80", ptx=70, llvm=SINCE_14),
    *make_mma_ops(["m16n8k4", "m16n8k8", "m16n8k16"], ["f64"], [], ["f64"], [], sm="sm_90", ptx=78),
    # FP8 (sm_89): m16n8k32 with f32 accumulate from PTX 8.4; f16 accumulate and m16n8k16 from 8.7.
    *make_mma_ops(["m16n8k32"], F8, F8, ["f32"], [], sm="sm_89", ptx=84),
    *make_mma_ops(["m16n8k32"], F8, F8, ["f16"], [], sm="sm_89", ptx=87),
    *make_mma_ops(["m16n8k16"], F8, F8, ["f16", "f32"], [], sm="sm_89", ptx=87),
    # .kind::f8f6f4 with FP8, FP6 and FP4 inputs: sm_120a with PTX 8.7 (and its family's `a`
    # and `f` targets from PTX 8.8, `sms.has`).
    *make_mma_ops(["m16n8k32"], F8F6F4, F8F6F4, ["f16", "f32"], [], sm="sm_120a", ptx=87, kind="f8f6f4"),
    # Integers, with and without .satfinite: m8n8k16/m8n8k32 from sm_75 (PTX 6.5), the m16n8 shapes
    # from sm_80 (PTX 7.0).
    *make_mma_ops(["m8n8k16"], I8, I8, ["s32"], [], sm="sm_75", ptx=65, satfinite=BOTH, llvm=SINCE_14),
    *make_mma_ops(["m16n8k16", "m16n8k32"], I8, I8, ["s32"], [], sm="sm_80", ptx=70, satfinite=BOTH, llvm=SINCE_14),
    *make_mma_ops(["m8n8k32"], I4, I4, ["s32"], [], sm="sm_75", ptx=65, satfinite=BOTH, llvm=SINCE_14),
    *make_mma_ops(["m16n8k32", "m16n8k64"], I4, I4, ["s32"], [], sm="sm_80", ptx=70, satfinite=BOTH, llvm=SINCE_14),
    # Single bit: .xor.popc at m8n8k128 from sm_75, at m16n8k128/k256 from sm_80 (PTX 7.0);
    # .and.popc from sm_80 and PTX 7.1.
    *make_mma_ops(["m8n8k128"], ["b1"], [], ["s32"], [], sm="sm_75", ptx=70, b1ops=("xor",), llvm=SINCE_14),
    *make_mma_ops(["m16n8k128", "m16n8k256"], ["b1"], [], ["s32"], [], sm="sm_80", ptx=70, b1ops=("xor",), llvm=SINCE_14),
    *make_mma_ops(
        ["m8n8k128", "m16n8k128", "m16n8k256"], ["b1"], [], ["s32"], [], sm="sm_80", ptx=71, b1ops=("and",), llvm=SINCE_14
    ),
    # mma.sp (sm_80, PTX 7.1): .f16/.bf16 at m16n8k16 and m16n8k32, .tf32 at m16n8k8 and m16n8k16,
    # D = C; integers with and without .satfinite; .e4m3/.e5m2 at m16n8k64 from sm_89 and PTX 8.4.
    *make_mma_ops(["m16n8k16"], ["bf16"], [], ["f32"], [], sm="sm_80", ptx=71, sparsity=SP, selectors=ONE_THREAD),
    *make_mma_ops(["m16n8k32"], ["bf16"], [], ["f32"], [], sm="sm_80", ptx=71, sparsity=SP, selectors=THREAD_PAIR),
    *make_mma_ops(["m16n8k8"], ["tf32"], [], ["f32"], [], sm="sm_80", ptx=71, sparsity=SP, selectors=ONE_THREAD),
    *make_mma_ops(["m16n8k16"], ["tf32"], [], ["f32"], [], sm="sm_80", ptx=71, sparsity=SP, selectors=THREAD_PAIR),
    *make_mma_ops(["m16n8k16"], ["f16"], [], ["f16", "f32"], [], sm="sm_80", ptx=71, sparsity=SP, selectors=ONE_THREAD),
    *make_mma_ops(["m16n8k32"], ["f16"], [], ["f16", "f32"], [], sm="sm_80", ptx=71, sparsity=SP, selectors=THREAD_PAIR),
    *make_mma_ops(["m16n8k32"], I8, I8, ["s32"], [], sm="sm_80", ptx=71, satfinite=BOTH, sparsity=SP, selectors=THREAD_PAIR),
    *make_mma_ops(["m16n8k64"], I8, I8, ["s32"], [], sm="sm_80", ptx=71, satfinite=BOTH, sparsity=SP, selectors=ALL_THREADS),
    *make_mma_ops(["m16n8k64"], I4, I4, ["s32"], [], sm="sm_80", ptx=71, satfinite=BOTH, sparsity=SP, selectors=THREAD_PAIR),
    *make_mma_ops(["m16n8k128"], I4, I4, ["s32"], [], sm="sm_80", ptx=71, satfinite=BOTH, sparsity=SP, selectors=ALL_THREADS),
    *make_mma_ops(["m16n8k64"], F8, F8, ["f32"], [], sm="sm_89", ptx=84, sparsity=SP, selectors=ALL_THREADS),
    # mma.sp::ordered_metadata: the same from PTX 8.5 (sm_80; FP8 sm_89), and .kind::f8f6f4 at
    # m16n8k64 with f16 or f32 accumulate (sm_120a, PTX 8.7).
    *make_mma_ops(["m16n8k16"], ["bf16"], [], ["f32"], [], sm="sm_80", ptx=85, sparsity=ORDERED, selectors=ONE_THREAD),
    *make_mma_ops(["m16n8k32"], ["bf16"], [], ["f32"], [], sm="sm_80", ptx=85, sparsity=ORDERED, selectors=THREAD_PAIR),
    *make_mma_ops(["m16n8k8"], ["tf32"], [], ["f32"], [], sm="sm_80", ptx=85, sparsity=ORDERED, selectors=ONE_THREAD),
    *make_mma_ops(["m16n8k16"], ["tf32"], [], ["f32"], [], sm="sm_80", ptx=85, sparsity=ORDERED, selectors=THREAD_PAIR),
    *make_mma_ops(["m16n8k16"], ["f16"], [], ["f16", "f32"], [], sm="sm_80", ptx=85, sparsity=ORDERED, selectors=ONE_THREAD),
    *make_mma_ops(["m16n8k32"], ["f16"], [], ["f16", "f32"], [], sm="sm_80", ptx=85, sparsity=ORDERED, selectors=THREAD_PAIR),
    *make_mma_ops(["m16n8k32"], I8, I8, ["s32"], [], sm="sm_80", ptx=85, satfinite=BOTH, sparsity=ORDERED, selectors=THREAD_PAIR),
    *make_mma_ops(["m16n8k64"], I8, I8, ["s32"], [], sm="sm_80", ptx=85, satfinite=BOTH, sparsity=ORDERED, selectors=ALL_THREADS),
    *make_mma_ops(["m16n8k64"], I4, I4, ["s32"], [], sm="sm_80", ptx=85, satfinite=BOTH, sparsity=ORDERED, selectors=THREAD_PAIR),
    *make_mma_ops(
        ["m16n8k128"], I4, I4, ["s32"], [], sm="sm_80", ptx=85, satfinite=BOTH, sparsity=ORDERED, selectors=ALL_THREADS
    ),
    *make_mma_ops(["m16n8k64"], F8, F8, ["f32"], [], sm="sm_89", ptx=85, sparsity=ORDERED, selectors=ALL_THREADS),
    *make_mma_ops(
        ["m16n8k64"],
        F8F6F4,
        F8F6F4,
        ["f16", "f32"],
        [],
        sm="sm_120a",
        ptx=87,
        kind="f8f6f4",
        sparsity=ORDERED,
        selectors=ALL_THREADS,
    ),
    # .block_scale (sm_120a, PTX 8.7), f32 accumulate: .kind::mxf4 and .kind::mxf4nvf4 on .e2m1
    # (dense m16n8k64, sparse m16n8k128), .kind::mxf8f6f4 on FP8/FP6/FP4 (dense m16n8k32, sparse
    # m16n8k64); sparse ones are mma.sp::ordered_metadata only, their selector 0.
    *make_mma_ops(["m16n8k64"], ["e2m1"], [], ["f32"], [], sm="sm_120a", ptx=87, kind="mxf4", scales=MXF4_SCALES),
    *make_mma_ops(["m16n8k64"], ["e2m1"], [], ["f32"], [], sm="sm_120a", ptx=87, kind="mxf4nvf4", scales=MXF4NVF4_SCALES),
    *make_mma_ops(["m16n8k32"], F8F6F4, F8F6F4, ["f32"], [], sm="sm_120a", ptx=87, kind="mxf8f6f4", scales=MXF8F6F4_SCALES),
    *make_mma_ops(
        ["m16n8k128"],
        ["e2m1"],
        [],
        ["f32"],
        [],
        sm="sm_120a",
        ptx=87,
        kind="mxf4",
        sparsity=ORDERED,
        selectors=ALL_THREADS,
        scales=MXF4_SCALES,
        family_targets=False,
    ),
    *make_mma_ops(
        ["m16n8k128"],
        ["e2m1"],
        [],
        ["f32"],
        [],
        sm="sm_120a",
        ptx=87,
        kind="mxf4nvf4",
        sparsity=ORDERED,
        selectors=ALL_THREADS,
        scales=MXF4NVF4_SCALES,
        family_targets=False,
    ),
    *make_mma_ops(
        ["m16n8k64"],
        F8F6F4,
        F8F6F4,
        ["f32"],
        [],
        sm="sm_120a",
        ptx=87,
        kind="mxf8f6f4",
        sparsity=ORDERED,
        selectors=ALL_THREADS,
        scales=MXF8F6F4_SCALES,
    ),
)

assert len({r.name for r in ROWS}) == len(ROWS), "duplicate NVPTX row names"
assert all(r.min_sm in SM_ORDER for r in ROWS)
