"""The tiled warp gemm of the seed (TVM TIRx `gemm` lowered to `mma.sync.aligned.m16n8k{16,8}`):
the case model, its validation, the K split, the fragment layouts and the LLVM IR emitter.

One warp computes D[M,N] = A[M,K] @ B[K,N] (+ C[M,N] when beta = 1), f16 or bf16 inputs, f32
accumulate. Every (m, n) tile of 16×8 gets its accumulator from C (beta = 1) or zero (beta = 0),
then one mma per K step: m16n8k16 steps first, then one m16n8k8 for a remainder of 8 (K = 24 is
k16 + k8). The kernel reads A, B (and C) from global memory straight into the registers the PTX
ISA fragment layouts name, and writes D from the accumulator layout.

Memory is row-major: A is [M, K] ([K, M] with transpose_a), B is [K, N] ([N, K] with
transpose_b), C and D are [M, N] float. The kernel's parameters are always (A, B, C, D); C is
not read when beta = 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.core.errors import InputError
from harness.kernels.kernel import TRIPLE, Kernel, Skipped, mixed_seed
from harness.specs.spec import quote

DTYPES = ("f16", "bf16")
DEFAULT_CPU = "sm_90"
MIN_SM = 80  # mma.sync m16n8k16 / m16n8k8 with f16 and bf16 inputs needs sm_80
_CPU = re.compile(r"sm_(\d+)([af]?)")
# The NVPTX processors of sm_80 and later that LLVM (22) has: llc only warns about any other
# -mcpu and ptxas has no such -arch, so a kernel for it could not be judged.
CPUS = ("sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a") + tuple(
    f"sm_{n}{suffix}" for n in (100, 101, 103, 110, 120, 121) for suffix in ("", "a", "f")
)
_IR_ELEM = {"f16": "half", "bf16": "bfloat"}


MAX_MMA = 1024  # mma.sync instructions one fully unrolled kernel may hold


class GemmError(InputError):
    """A case the mma.m16n8k* lowering rejects; `field` names the offending value (for a spec to
    point at it)."""

    def __init__(self, field_name: str, message: str):
        super().__init__(message)
        self.field = field_name


@dataclass(frozen=True)
class Instruction:
    """One mma shape: its K, the b32 registers of A and B per lane, and the intrinsic per dtype."""

    k: int
    a_regs: int
    b_regs: int

    @property
    def shape(self) -> str:
        return f"m16n8k{self.k}"

    def intrinsic(self, dtype: str) -> str:
        suffix = "f32.f32" if dtype == "f16" else "bf16"
        return f"llvm.nvvm.mma.{self.shape}.row.col.{suffix}"

    def mnemonic(self, dtype: str) -> str:
        """The PTX instruction llc prints for it."""
        return f"mma.sync.aligned.{self.shape}.row.col.f32.{dtype}.{dtype}.f32"


K16 = Instruction(16, a_regs=4, b_regs=2)  # kHi = 2: A = rM + 2·kHi registers, B = kHi
K8 = Instruction(8, a_regs=2, b_regs=1)  # kHi = 1
INSTRUCTIONS = (K16, K8)  # tried in this order, like MMA_INSTRUCTIONS in the seed


@dataclass(frozen=True)
class Layout:
    """Where a lane's fragment elements sit in its tile, as constants added to the lane's own
    coordinates (g = lane >> 2, t = lane & 3).

    A element (register r, half p): row g + a_row[rM], column 2·t + p + a_khi[kHi], with
    rM = r % 2 and kHi = r // 2. B element (register r = kHi, half p): K row 2·t + p + b_khi[kHi],
    column g (m16n8k8 has one K group, at offset 0). Accumulator element i: row g + d_row[i // 2],
    column 2·t + i % 2. `PTX` is the PTX
    ISA's layout; the others are deliberately wrong, for showing that the numerics catch them.
    """

    name: str = "ptx"
    a_row: tuple[int, int] = (0, 8)
    a_khi: tuple[int, int] = (0, 8)
    b_khi: tuple[int, int] = (0, 8)
    d_row: tuple[int, int] = (0, 8)
    what: str = "the PTX ISA's fragment layout"

    def a_slots(self, inst: Instruction) -> list[tuple[int, int, int, int]]:
        """(register, half, row offset from g, column offset from 2·t) of each A element."""
        khi = self.a_khi if inst.k == 16 else (0,)  # m16n8k8 has one K group: nothing to place
        return [(r, p, self.a_row[r % 2], p + khi[r // 2]) for r in range(inst.a_regs) for p in (0, 1)]

    def b_slots(self, inst: Instruction) -> list[tuple[int, int, int]]:
        """(register, half, K offset from 2·t) of each B element (column g)."""
        khi = self.b_khi if inst.k == 16 else (0,)
        return [(r, p, p + khi[r]) for r in range(inst.b_regs) for p in (0, 1)]

    def d_slots(self) -> list[tuple[int, int, int]]:
        """(accumulator index, row offset from g, column offset from 2·t)."""
        return [(i, self.d_row[i // 2], i % 2) for i in range(4)]


PTX = Layout()
LAYOUTS = {
    lay.name: lay
    for lay in (
        PTX,
        Layout("a-rows-swapped", a_row=(8, 0), what="A rows groupID <-> groupID + 8"),
        Layout("b-khi-swapped", b_khi=(8, 0), what="B's two K halves exchanged (m16n8k16 steps)"),
        Layout("d-rows-swapped", d_row=(8, 0), what="C loaded and D stored with the row halves exchanged"),
    )
}


PLANTS = {name: lay for name, lay in LAYOUTS.items() if lay is not PTX}  # the wrong layouts
MEMORY_TEXT = (
    "A [M,K] ([K,M] with transpose_a) and B [K,N] ([N,K] with transpose_b) as f16/bf16 16-bit patterns, "
    "C and D [M,N] f32, row-major; C is not read when beta = 0"
)


def layout(name: str) -> Layout:
    if name not in LAYOUTS:
        raise InputError(f"unknown fragment layout {name!r}; expected one of: {', '.join(LAYOUTS)}")
    return LAYOUTS[name]


@dataclass(frozen=True)
class GemmCase:
    """One tiled gemm kernel: D[M,N] = alpha·A@B + beta·C on one warp, checked on construction.

    Only what the mma.m16n8k* lowering accepts can be built (GemmError otherwise, with the reason
    and the field): alpha = 1, beta 0 or 1, f16/bf16 inputs, M, N, K multiples of 16, 8, 8, and
    an NVPTX CPU of sm_80 or later.
    """

    m: int
    n: int
    k: int
    dtype: str
    beta: int = 0
    transpose_a: bool = False
    transpose_b: bool = False
    cpu: str = DEFAULT_CPU
    alpha: float = 1.0

    def __post_init__(self):
        for name, size, tile in (("m", self.m, 16), ("n", self.n, 8), ("k", self.k, 8)):
            if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
                raise GemmError(name, f"gemm {name.upper()} must be a positive integer; got {quote(size)}")
            if size % tile:
                raise GemmError(
                    name, f"gemm mma.m16n8k* rejects {name.upper()} = {size}: not a multiple of {tile} (the m16n8k{{16,8}} tile)"
                )
        mmas = (self.m // 16) * (self.n // 8) * (self.k // 16 + self.k % 16 // 8)
        if mmas > MAX_MMA:
            # One warp runs the whole nest, fully unrolled: the kernel grows with M·N·K.
            raise GemmError(
                "m",
                f"gemm {self.m}x{self.n}x{self.k} unrolls to {mmas} mma.sync in one warp; at most {MAX_MMA} (e.g. 128x128x64)",
            )
        if self.dtype not in DTYPES:
            raise GemmError(
                "dtype",
                f"gemm mma.m16n8k* rejects dtype {quote(self.dtype)}: only f16 and bf16 inputs with f32 accumulate are supported",
            )
        if not _number(self.alpha) or self.alpha != 1:  # (no float(): a huge int overflows it)
            raise GemmError(
                "alpha",
                f"gemm mma.m16n8k* rejects alpha = {quote(self.alpha)}: mma.sync computes "
                f"D = A·B + C with no scaling, so alpha must be 1",
            )
        if not _number(self.beta) or self.beta not in (0, 1):
            raise GemmError(
                "beta",
                f"gemm mma.m16n8k* rejects beta = {quote(self.beta)}: beta must be 0 (D starts at zero) or 1 (D starts from C)",
            )
        object.__setattr__(self, "beta", int(self.beta))
        object.__setattr__(self, "alpha", 1.0)
        for name in ("transpose_a", "transpose_b"):
            if not isinstance(getattr(self, name), bool):
                raise GemmError(name, f"{name} must be true or false; got {quote(getattr(self, name))}")
        match = _CPU.fullmatch(self.cpu) if isinstance(self.cpu, str) else None
        if not match or int(match.group(1)) < MIN_SM:
            raise GemmError(
                "cpu",
                f"gemm mma.m16n8k* needs an NVPTX CPU sm_{MIN_SM} or later (such as sm_80, sm_90, sm_100a); got {quote(self.cpu)}",
            )
        if self.cpu not in CPUS:
            raise GemmError(
                "cpu",
                f"gemm: {quote(self.cpu)} is not an NVPTX CPU; from sm_{MIN_SM} on, LLVM has sm_80, sm_86, sm_87, sm_88, "
                "sm_89, sm_90, sm_90a, and sm_100, sm_101, sm_103, sm_110, sm_120, sm_121 (plain, a or f)",
            )

    @property
    def name(self) -> str:
        """The kernel's name (also its PTX file's stem), unique per case."""
        tr = ("t" if self.transpose_a else "n") + ("t" if self.transpose_b else "n")
        return f"gemm_{self.m}x{self.n}x{self.k}_{self.dtype}_beta{self.beta}_{tr}_{self.cpu}"

    @property
    def k_steps(self) -> list[tuple[int, Instruction]]:
        """(K offset, instruction) of each step: m16n8k16 while 16 fit, then m16n8k8."""
        steps = [(k0, K16) for k0 in range(0, self.k - self.k % 16, 16)]
        if self.k % 16:
            steps.append((self.k - 8, K8))
        return steps

    @property
    def tiles(self) -> int:
        return (self.m // 16) * (self.n // 8)

    def mma_counts(self) -> dict[str, int]:
        """PTX mnemonic -> how many the kernel holds: (M/16)·(N/8) per K step of that shape."""
        counts = {inst.mnemonic(self.dtype): 0 for inst in INSTRUCTIONS}
        for _, inst in self.k_steps:
            counts[inst.mnemonic(self.dtype)] += self.tiles
        return counts

    def sort_key(self) -> tuple:
        return (self.cpu, self.dtype, self.beta, self.transpose_a, self.transpose_b, self.m, self.n, self.k)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def kernel_ir(case: GemmCase, layout: Layout = PTX, name: str = "") -> str:
    """The kernel's LLVM IR module (deterministic text): fragment loads, the unrolled mma nest and
    the D stores, with the lanes' elements placed by `layout`; its .entry is `name` (default the
    case's)."""
    return _Emitter(case, layout, name or case.name).module()


@dataclass(frozen=True)
class GemmKernel(Kernel):
    """A gemm case as a kernel of a build, with the PTX ISA's layout or a wrong one planted
    (`plant`, one of PLANTS)."""

    case: GemmCase
    plant: Layout | None = None
    kind = "gemm"

    @property
    def name(self) -> str:
        return self.case.name + (f"__{self.plant.name.replace('-', '_')}" if self.plant else "")

    @property
    def variant(self) -> str:
        return self.case.name

    @property
    def sm(self) -> str:
        return self.case.cpu

    def ir(self) -> str:
        return kernel_ir(self.case, self.plant or PTX, self.name)

    def expected_mma(self) -> dict[str, int]:
        return {k: v for k, v in self.case.mma_counts().items() if v}

    def entry(self, seed: int) -> dict:
        c = self.case
        return {
            "kernel": self.name,
            "variant": c.name,
            "plant": self.plant.name if self.plant else None,
            "sm": c.cpu,
            "ptx_only": False,
            **{"m": c.m, "n": c.n, "k": c.k, "dtype": c.dtype, "beta": c.beta},
            **{"transpose_a": c.transpose_a, "transpose_b": c.transpose_b},
            "k_steps": [inst.shape for _, inst in c.k_steps],
            "seed": mixed_seed(seed, c.name),
        }


def noop_reason(case: GemmCase, lay: Layout) -> str:
    """Why the planted layout is no fault for this case ("" when it is one): B's K halves exist
    in m16n8k16 steps only."""
    only_b_khi = (lay.a_row, lay.a_khi, lay.d_row) == (PTX.a_row, PTX.a_khi, PTX.d_row)
    if only_b_khi and all(inst.k == 8 for _, inst in case.k_steps):
        return f"K = {case.k} is one m16n8k8 step: B has one K group, no K halves to exchange"
    return ""


def planted(cases: list[GemmCase], plants: list[Layout]) -> tuple[list[GemmKernel], list[Skipped]]:
    """The kernels of the cases: each with the PTX ISA's layout, or with each planted layout that
    is a fault for it (the others as Skipped)."""
    if not plants:
        return [GemmKernel(c) for c in cases], []
    kernels, skipped = [], []
    for case in cases:
        for lay in plants:
            why = noop_reason(case, lay)
            if why:
                skipped.append(Skipped(case.name, lay.name, why))
            else:
                kernels.append(GemmKernel(case, lay))
    if not kernels:
        raise InputError(f"no chosen gemm kernel can express the planted fault(s): {skipped[0].why}")
    return kernels, skipped


class KernelEmitter:
    """Lines of one kernel's body, with fresh SSA names (`%stem.N`)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.n = 0

    def emit(self, text: str) -> None:
        self.lines.append("  " + text)

    def tmp(self, stem: str) -> str:
        self.n += 1
        return f"%{stem}.{self.n}"


class _Emitter(KernelEmitter):
    def __init__(self, case: GemmCase, lay: Layout, name: str):
        super().__init__()
        self.case, self.layout, self.name = case, lay, name
        self.elem = _IR_ELEM[case.dtype]
        self.word = "<2 x half>" if case.dtype == "f16" else "i32"  # what the intrinsic takes

    def module(self) -> str:
        c = self.case
        self.emit("%lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()")
        self.emit("%g = lshr i32 %lane, 2")
        self.emit("%t = and i32 %lane, 3")
        self.emit("%t2 = shl i32 %t, 1")
        # Each operand's element index is base(lane) + a constant; see the module docstring.
        self._base("a", ("%t2", c.m, "%g") if c.transpose_a else ("%g", c.k, "%t2"))
        self._base("b", ("%g", c.k, "%t2") if c.transpose_b else ("%t2", c.n, "%g"))
        self._base("d", ("%g", c.n, "%t2"))
        steps = c.k_steps
        a = {(mt, s): self._a_fragment(mt, k0, inst) for mt in range(c.m // 16) for s, (k0, inst) in enumerate(steps)}
        b = {(s, nt): self._b_fragment(k0, nt, inst) for s, (k0, inst) in enumerate(steps) for nt in range(c.n // 8)}
        for mt in range(c.m // 16):
            for nt in range(c.n // 8):
                acc = self._c_fragment(mt, nt) if c.beta else ["0.0"] * 4
                for s, (_, inst) in enumerate(steps):
                    acc = self._mma(inst, a[mt, s], b[s, nt], acc, f"d{mt}_{nt}_{s}")
                self._store(mt, nt, acc)
        intrinsics = sorted({inst for _, inst in steps}, key=lambda i: -i.k)
        decls = ["declare i32 @llvm.nvvm.read.ptx.sreg.laneid()"] + [self._declare(i) for i in intrinsics]
        params = ", ".join(f"ptr addrspace(1) %{p}" for p in "ABCD")
        head = [
            f"; {self.name}: D[{c.m},{c.n}] = A[{c.m},{c.k}] @ B[{c.k},{c.n}]"
            + (" + C" if c.beta else "")
            + f", {c.dtype} inputs, f32 accumulate; A {'[K,M]' if c.transpose_a else '[M,K]'}, "
            f"B {'[N,K]' if c.transpose_b else '[K,N]'}; fragment layout {self.layout.name}",
            f'target triple = "{TRIPLE}"',
            "",
        ]
        body = [f"define ptx_kernel void @{self.name}({params}) {{", "entry:", *self.lines, "  ret void", "}"]
        return "\n".join(head + body + [""] + decls) + "\n"

    def _base(self, op: str, form: tuple[str, int, str]) -> None:
        """%op.base = outer·stride + inner (lane-dependent part of every index of `op`)."""
        outer, stride, inner = form
        self.emit(f"%{op}.scaled = mul i32 {outer}, {stride}")
        self.emit(f"%{op}.base = add i32 %{op}.scaled, {inner}")

    def _load(self, op: str, ptr: str, index: int, ty: str) -> str:
        i, p, v = self.tmp(f"{op}.i"), self.tmp(f"{op}.p"), self.tmp(f"{op}.v")
        self.emit(f"{i} = add i32 %{op}.base, {index}")
        self.emit(f"{p} = getelementptr inbounds {ty}, ptr addrspace(1) %{ptr}, i32 {i}")
        self.emit(f"{v} = load {ty}, ptr addrspace(1) {p}")
        return v

    def _pack(self, op: str, lo: str, hi: str) -> str:
        vec = f"<2 x {self.elem}>"
        v0, v1 = self.tmp(f"{op}.lo"), self.tmp(f"{op}.w")
        self.emit(f"{v0} = insertelement {vec} poison, {self.elem} {lo}, i32 0")
        self.emit(f"{v1} = insertelement {vec} {v0}, {self.elem} {hi}, i32 1")
        if self.case.dtype == "f16":
            return v1
        word = self.tmp(f"{op}.b32")
        self.emit(f"{word} = bitcast {vec} {v1} to i32")
        return word

    def _words(self, op: str, ptr: str, slots, index) -> list[str]:
        """Load each element of the slots and pack the pairs into b32 words, in register order."""
        halves: dict[int, dict[int, str]] = {}
        for slot in slots:
            reg, half = slot[0], slot[1]
            halves.setdefault(reg, {})[half] = self._load(op, ptr, index(*slot[2:]), self.elem)
        return [self._pack(op, halves[r][0], halves[r][1]) for r in sorted(halves)]

    def _a_fragment(self, mt: int, k0: int, inst: Instruction) -> list[str]:
        c, m0 = self.case, 16 * mt
        if c.transpose_a:  # A[K, M]: index (k0 + 2t + col)·M + m0 + g + row
            index = lambda row, col: (k0 + col) * c.m + m0 + row
        else:  # A[M, K]: index (m0 + g + row)·K + k0 + 2t + col
            index = lambda row, col: (m0 + row) * c.k + k0 + col
        return self._words("a", "A", self.layout.a_slots(inst), index)

    def _b_fragment(self, k0: int, nt: int, inst: Instruction) -> list[str]:
        c, n0 = self.case, 8 * nt
        if c.transpose_b:  # B[N, K]: index (n0 + g)·K + k0 + 2t + koff
            index = lambda koff: n0 * c.k + k0 + koff
        else:  # B[K, N]: index (k0 + 2t + koff)·N + n0 + g
            index = lambda koff: (k0 + koff) * c.n + n0
        return self._words("b", "B", self.layout.b_slots(inst), index)

    def _d_index(self, mt: int, nt: int, row: int, col: int) -> int:
        return (16 * mt + row) * self.case.n + 8 * nt + col

    def _c_fragment(self, mt: int, nt: int) -> list[str]:
        return [self._load("d", "C", self._d_index(mt, nt, row, col), "float") for _, row, col in self.layout.d_slots()]

    def _mma(self, inst: Instruction, a: list[str], b: list[str], acc: list[str], stem: str) -> list[str]:
        args = [f"{self.word} {w}" for w in a + b] + [f"float {x}" for x in acc]
        self.emit(f"%{stem} = call {{float, float, float, float}} @{inst.intrinsic(self.case.dtype)}({', '.join(args)})")
        out = []
        for i in range(4):
            self.emit(f"%{stem}.{i} = extractvalue {{float, float, float, float}} %{stem}, {i}")
            out.append(f"%{stem}.{i}")
        return out

    def _store(self, mt: int, nt: int, acc: list[str]) -> None:
        for i, row, col in self.layout.d_slots():
            idx, ptr = self.tmp("d.i"), self.tmp("d.p")
            self.emit(f"{idx} = add i32 %d.base, {self._d_index(mt, nt, row, col)}")
            self.emit(f"{ptr} = getelementptr inbounds float, ptr addrspace(1) %D, i32 {idx}")
            self.emit(f"store float {acc[i]}, ptr addrspace(1) {ptr}")

    def _declare(self, inst: Instruction) -> str:
        args = [self.word] * (inst.a_regs + inst.b_regs) + ["float"] * 4
        return f"declare {{float, float, float, float}} @{inst.intrinsic(self.case.dtype)}({', '.join(args)})"
