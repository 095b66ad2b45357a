"""One single-warp kernel per dense `llvm.nvvm.mma.*` row (harness.targets.nvptx_rows): each
lane loads its A, B and C fragment registers from global memory at the places the PTX ISA's
fragment tables give (harness.kernels.fragments), calls the intrinsic once, and stores D the same
way, so that D = A·B + C on a GPU shows whether llc's lowering (and the tables) hold.

Memory: A [P, M, K], B [P, K, N], C and D [P, M, N], row-major, one element per slot (P = 4 for
mma.m8n8k4 .f16, one product per quad pair, else 1). A slot is the element's bits: .f16/.bf16 an
i16, .tf32 an i32 (f32 bits), .f32 a float, .f64 a double, .s32 an i32, the 8-bit types a byte,
.s4/.u4 a byte's low nibble, .b1 a byte's low bit. Each operand's places, per lane and element,
are a constant table (`@a_idx` ...) of slot indices computed here from the ISA's formulas; the
kernel reads its lane's entries, loads the elements and packs them into registers (element 0 in
the low bits). The kernels' parameters are always (A, B, C, D).

The rows that run on sm_90 (not `.kind::f8f6f4`, sm_120a only) are built for sm_90; the others
for their own target, to be closed by ptxas only ("PTX only").
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from harness.core.errors import InputError, quoted
from harness.kernels import fragments
from harness.kernels.fragments import Plant
from harness.kernels.gemm import KernelEmitter
from harness.kernels.kernel import RUN_SM, TRIPLE, Kernel, Skipped, mixed_seed
from harness.targets.nvptx_rows import IR_REGISTER, ROWS, Row

# Global memory's IR type for one element of each PTX type (see the module docstring).
MEMORY_IR = {
    "f16": "i16",
    "bf16": "i16",
    "tf32": "i32",
    "f32": "float",
    "f64": "double",
    "s32": "i32",
    **{t: "i8" for t in ("s8", "u8", "s4", "u4", "b1", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1")},
}
MEMORY_TEXT = (
    "A [P,M,K], B [P,K,N], C and D [P,M,N], row-major, one element per slot (P = 4 for m8n8k4 .f16, "
    "one product per quad pair): f16/bf16 as 16-bit patterns, tf32 as f32 bits, f32, f64, s32 as "
    "themselves, s8/u8/e4m3/e5m2 a byte, s4/u4 a byte's low nibble, b1 a byte's low bit"
)
_POINTER = {"a": "%A", "b": "%B", "c": "%C", "d": "%D"}


def dense_rows() -> list[Row]:
    """Every dense `llvm.nvvm.mma.*` row of an ISA instruction (not mma.sp, not block-scaled)."""
    return [r for r in ROWS if r.family == "mma" and r.isa]


@dataclass(frozen=True)
class Tile(Kernel):
    """One kernel of a dense mma row, built for RUN_SM when the row runs there (else for its own
    SM, PTX only), with the ISA's layout or a planted fault."""

    row: Row
    plant: Plant | None = None
    kind = "tile"

    @property
    def ptx_only(self) -> bool:
        return not self.row.runs_on(RUN_SM)

    @property
    def sm(self) -> str:
        return self.row.min_sm if self.ptx_only else RUN_SM

    @property
    def name(self) -> str:
        """The kernel's name (also its PTX file's stem): a PTX identifier, unique per row and plant."""
        name = "tile_" + re.sub(r"\W", "_", self.row.name)
        return name + (f"__{self.plant.name.replace('-', '_')}" if self.plant else "")

    @property
    def variant(self) -> str:
        return self.row.name

    @property
    def mattr(self) -> str:
        return self.row.ptx_feature(self.sm)

    def ir(self) -> str:
        return kernel_ir(self)

    def expected_mma(self) -> dict[str, int]:
        return {self.row.mnemonic: 1}

    def entry(self, seed: int) -> dict:
        """What the manifest says of the kernel before it is built (harness.gpu.kinds reads it)."""
        row = self.row
        m, n, k = fragments.dims(row.shape)
        return {
            "kernel": self.name,
            "variant": row.name,
            "plant": self.plant.name if self.plant else None,
            "sm": self.sm,
            "ptx_only": self.ptx_only,
            "mnemonic": row.mnemonic,
            "mattr": self.mattr,
            "shape": row.shape,
            **{"m": m, "n": n, "k": k, "products": fragments.problems(row)},
            **{op: fragments.ptx_type(row, op) for op in fragments.OPERANDS},
            "layouts": list(row.layouts),
            "satfinite": row.satfinite,
            "b1op": row.b1op,
            "kind": row.kind,
            "seed": mixed_seed(seed, row.name),
        }


def kernel_ir(tile: Tile) -> str:
    """The kernel's LLVM IR module (deterministic text)."""
    return _Emitter(tile).module()


class _Emitter(KernelEmitter):
    def __init__(self, tile: Tile):
        super().__init__()
        self.tile, self.row = tile, tile.row
        self.globals: list[str] = []

    def module(self) -> str:
        row, tile = self.row, self.tile
        self.emit("%lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()")
        args = [f"{IR_REGISTER[fragments.ptx_type(row, op)]} {v}" for op in "abc" for v in self._registers(op)]
        result = self._result_type()
        self.emit(f"%mma = call {result} @llvm.nvvm.{row.name}({', '.join(args)})")
        self._store()
        arg_types = [IR_REGISTER[fragments.ptx_type(row, op)] for op in "abc" for _ in range(self._regs(op))]
        params = ", ".join(f"ptr addrspace(1) %{p}" for p in "ABCD")
        plant = tile.plant.name if tile.plant else "none (the PTX ISA's tables)"
        head = [
            f"; {row.name}: D = A·B + C on one warp, {row.mnemonic}; planted fault: {plant}",
            f'target triple = "{TRIPLE}"',
            "",
            *self.globals,
            "",
        ]
        body = [f"define ptx_kernel void @{tile.name}({params}) {{", "entry:", *self.lines, "  ret void", "}"]
        decls = [
            "declare i32 @llvm.nvvm.read.ptx.sreg.laneid()",
            f"declare {result} @llvm.nvvm.{row.name}({', '.join(arg_types)})",
        ]
        return "\n".join([*head, *body, "", *decls]) + "\n"

    def _regs(self, op: str) -> int:
        return fragments.elements(self.row, op) // fragments.per_register(fragments.ptx_type(self.row, op))

    def _result_type(self) -> str:
        return "{" + ", ".join([IR_REGISTER[self.row.d]] * self._regs("d")) + "}"

    def _table(self, op: str) -> int:
        """Emit @<op>_idx, the slot index of each (lane, element) of the operand; its row length."""
        places = fragments.placement(self.row, op, self.tile.plant)
        _, rows, cols = fragments.matrix_shape(self.row, op)
        flat = [(p * rows + r) * cols + c for lane in places for p, r, c in lane]
        cells = ", ".join(f"i32 {i}" for i in flat)
        self.globals.append(f"@{op}_idx = internal addrspace(4) constant [{len(flat)} x i32] [{cells}]")
        per_lane = len(places[0])
        self.emit(f"%{op}.base = mul i32 %lane, {per_lane}")
        return len(flat)

    def _slot(self, op: str, size: int, element: int) -> str:
        """Pointer to the slot of the lane's `element` of operand `op`."""
        off, ip, idx, ptr = self.tmp(f"{op}.o"), self.tmp(f"{op}.ip"), self.tmp(f"{op}.i"), self.tmp(f"{op}.p")
        self.emit(f"{off} = add i32 %{op}.base, {element}")
        self.emit(f"{ip} = getelementptr inbounds [{size} x i32], ptr addrspace(4) @{op}_idx, i32 0, i32 {off}")
        self.emit(f"{idx} = load i32, ptr addrspace(4) {ip}")
        memory = MEMORY_IR[fragments.ptx_type(self.row, op)]
        self.emit(f"{ptr} = getelementptr inbounds {memory}, ptr addrspace(1) {_POINTER[op]}, i32 {idx}")
        return ptr

    def _registers(self, op: str) -> list[str]:
        """Load the lane's elements of A, B or C and pack them into the fragment's registers."""
        ptx = fragments.ptx_type(self.row, op)
        memory, per = MEMORY_IR[ptx], fragments.per_register(ptx)
        size = self._table(op)
        values = []
        for e in range(fragments.elements(self.row, op)):
            value = self.tmp(f"{op}.v")
            self.emit(f"{value} = load {memory}, ptr addrspace(1) {self._slot(op, size, e)}")
            values.append(value)
        if per == 1 and memory == IR_REGISTER[ptx]:
            return values
        return [self._pack(op, ptx, values[r * per : (r + 1) * per]) for r in range(len(values) // per)]

    def _pack(self, op: str, ptx: str, values: list[str]) -> str:
        """One 32-bit register of `values`, element 0 in the low bits, as the intrinsic takes it."""
        bits, memory = fragments.ELEMENT_BITS[ptx], MEMORY_IR[ptx]
        word = ""
        for j, value in enumerate(values):
            part = value
            if memory != "i32":
                part = self.tmp(f"{op}.z")
                self.emit(f"{part} = zext {memory} {value} to i32")
            if bits < 8:
                masked = self.tmp(f"{op}.m")
                self.emit(f"{masked} = and i32 {part}, {(1 << bits) - 1}")
                part = masked
            if j:
                shifted = self.tmp(f"{op}.s")
                self.emit(f"{shifted} = shl i32 {part}, {j * bits}")
                joined = self.tmp(f"{op}.w")
                self.emit(f"{joined} = or i32 {word}, {shifted}")
                part = joined
            word = part
        if IR_REGISTER[ptx] == "i32":
            return word
        register = self.tmp(f"{op}.r")
        self.emit(f"{register} = bitcast i32 {word} to {IR_REGISTER[ptx]}")
        return register

    def _store(self) -> None:
        """Store each element of D's registers to its slot."""
        ptx = self.row.d
        memory, per, bits = MEMORY_IR[ptx], fragments.per_register(ptx), fragments.ELEMENT_BITS[ptx]
        size = self._table("d")
        for r in range(self._regs("d")):
            reg = self.tmp("d.r")
            self.emit(f"{reg} = extractvalue {self._result_type()} %mma, {r}")
            if per == 1:
                self.emit(f"store {memory} {reg}, ptr addrspace(1) {self._slot('d', size, r)}")
                continue
            word = self.tmp("d.w")
            self.emit(f"{word} = bitcast {IR_REGISTER[ptx]} {reg} to i32")
            for j in range(per):
                shifted, part = self.tmp("d.s"), self.tmp("d.t")
                self.emit(f"{shifted} = lshr i32 {word}, {j * bits}")
                self.emit(f"{part} = trunc i32 {shifted} to {memory}")
                self.emit(f"store {memory} {part}, ptr addrspace(1) {self._slot('d', size, r * per + j)}")


def select(globs: list[str], plants: list[Plant]) -> tuple[list[Tile], list[Skipped]]:
    """The kernels of the dense rows whose name (or kernel name) matches a glob (all without
    one): each row with the ISA's layout, or with each planted fault its layout can express
    (only the rows that run on RUN_SM: a PTX-only kernel is never run); the others as Skipped."""
    rows = [r for r in dense_rows() if not globs or any(fnmatch.fnmatchcase(n, g) for g in globs for n in (r.name, Tile(r).name))]
    if not rows:
        raise InputError(f"--filter {quoted(' '.join(globs))} matches no dense mma row (e.g. 'mma.m16n8k16.*')")
    if not plants:
        return [Tile(r) for r in rows], []
    tiles, skipped = [], []
    for row in (r for r in rows if r.runs_on(RUN_SM)):
        for fault in plants:
            why = fragments.noop_reason(row, fault)
            if why:
                skipped.append(Skipped(row.name, fault.name, why))
            else:
                tiles.append(Tile(row, fault))
    if not tiles:
        why = f": {skipped[0].why}" if skipped else " (PTX only rows are never run, so never planted)"
        raise InputError(f"no chosen row on {RUN_SM} can express the planted fault(s){why}")
    return tiles, skipped
