"""The NVPTX `llvm.nvvm.mma.*` intrinsics the harness knows, one explicit row each, in the
style of LLVM's NVPTX `wmma.py` (`make_mma_ops([shapes], [types])`): support is membership in
this list, never a predicate.

Each row is what the PTX ISA says about one `mma.sync.aligned` variant: its shape, the element
types of A, B, C and D, the oldest SM that has it, and per operand its fragment: how many
32-bit registers each lane holds (the ISA's "Matrix Fragments for mma.m16n8kK" tables) and the
IR type of one register as the intrinsic takes it (`IntrinsicsNVVM.td`: f16 pairs as
`<2 x half>`, bf16 pairs and tf32 as `i32`, f32 as `float`). The intrinsic's name follows
LLVM's MMA_SIGNATURE rule: f16 inputs are named by D and C, other inputs by A.
"""

from __future__ import annotations

from dataclasses import dataclass

# IR type of one 32-bit fragment register, per PTX element type.
IR_REGISTER = {"f16": "<2 x half>", "bf16": "i32", "tf32": "i32", "f32": "float"}
# SMs in order; a row runs on every SM the harness tests from its oldest on.
SM_ORDER = ("sm_70", "sm_75", "sm_80", "sm_89", "sm_90", "sm_90a", "sm_100a", "sm_120a")


@dataclass(frozen=True)
class Row:
    shape: str  # m16n8k16
    a: str  # PTX element types of A, B, C, D
    b: str
    c: str
    d: str
    regs: tuple[int, int, int, int]  # 32-bit registers per lane of D, A, B, C (PTX ISA fragment tables)
    min_sm: str  # the oldest SM with the instruction (PTX ISA "Target ISA notes")

    @property
    def name(self) -> str:
        """The intrinsic's name without `llvm.nvvm.`."""
        ids = [self.d, self.c] if self.a == "f16" else [self.a] if self.a == self.b else [self.a, self.b]
        return f"mma.{self.shape}.row.col.{'.'.join(ids)}"

    @property
    def mnemonic(self) -> str:
        return f"mma.sync.aligned.{self.shape}.row.col.{self.d}.{self.a}.{self.b}.{self.c}"

    @property
    def family(self) -> str:
        return "mma"


def make_mma_ops(shape: str, inputs: list[str], accumulators: list[str], regs: dict, min_sm: str) -> list[Row]:
    """A row per input type (A and B alike) and accumulator type (C and D alike) listed;
    `regs[(input, acc)]` is (D, A, B, C) registers."""
    return [Row(shape, i, i, acc, acc, regs[(i, acc)], min_sm) for i in inputs for acc in accumulators if (i, acc) in regs]


ROWS: tuple[Row, ...] = (
    # m16n8k16: A 16x16, B 16x8, C/D 16x8 per warp; f16 and bf16 pack two elements per register.
    *make_mma_ops("m16n8k16", ["f16"], ["f16", "f32"], {("f16", "f16"): (2, 4, 2, 2), ("f16", "f32"): (4, 4, 2, 4)}, "sm_80"),
    *make_mma_ops("m16n8k16", ["bf16"], ["f32"], {("bf16", "f32"): (4, 4, 2, 4)}, "sm_80"),
    # m16n8k8: half the K; f16 at k8 came with sm_75 (Turing), bf16 and tf32 with sm_80.
    *make_mma_ops("m16n8k8", ["f16"], ["f16", "f32"], {("f16", "f16"): (2, 2, 1, 2), ("f16", "f32"): (4, 2, 1, 4)}, "sm_75"),
    *make_mma_ops("m16n8k8", ["bf16", "tf32"], ["f32"], {("bf16", "f32"): (4, 2, 1, 4), ("tf32", "f32"): (4, 4, 2, 4)}, "sm_80"),
)

assert len({r.name for r in ROWS}) == len(ROWS), "duplicate NVPTX row names"
