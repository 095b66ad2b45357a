"""One single-warp kernel per dense `llvm.nvvm.mma.*` row (harness.targets.nvptx_rows): each
lane loads its A, B and C fragment registers from global memory at the places the PTX ISA's
fragment tables give (harness.nvptx.fragments), calls the intrinsic once, and stores D the same
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
import json
import os
import re
import shutil
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from harness.core import files
from harness.core.errors import InputError
from harness.nvptx import fragments, gpu_check, ptx, tile_check
from harness.nvptx.fragments import Plant
from harness.nvptx.gemm import TRIPLE, KernelEmitter
from harness.targets.nvptx_rows import IR_REGISTER, ROWS, Row
from harness.tools import toolchain

RUN_SM = "sm_90"  # the GPU the numerics run on (an H100/H200)
LLC_OPT = 2
MANIFEST = tile_check.MANIFEST
MANIFEST_FORMAT = tile_check.MANIFEST_FORMAT  # (a gemm manifest has none)

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
class Tile:
    """One kernel: a row, built for RUN_SM when it runs there (else for its own SM, PTX only),
    with the ISA's layout or a planted fault."""

    row: Row
    plant: Plant | None = None

    @property
    def ptx_only(self) -> bool:
        return not self.row.runs_on(RUN_SM)

    @property
    def sm(self) -> str:
        return self.row.min_sm if self.ptx_only else RUN_SM

    @property
    def kernel(self) -> str:
        """The kernel's name (also its PTX file's stem): a PTX identifier, unique per row and plant."""
        name = "tile_" + re.sub(r"\W", "_", self.row.name)
        return name + (f"__{self.plant.name.replace('-', '_')}" if self.plant else "")

    @property
    def variant(self) -> str:
        return self.row.name + (f" [{self.plant.name}]" if self.plant else "")

    def llc_args(self) -> list[str]:
        feature = self.row.ptx_feature(self.sm)
        return [f"-O{LLC_OPT}", f"-mtriple={TRIPLE}", f"-mcpu={self.sm}", *([f"-mattr={feature}"] if feature else [])]

    def entry(self, seed: int) -> dict:
        """What the manifest says of the kernel before it is built (`tile_check` reads it)."""
        row = self.row
        m, n, k = fragments.dims(row.shape)
        return {
            "kernel": self.kernel,
            "variant": row.name,
            "mnemonic": row.mnemonic,
            "sm": self.sm,
            "mattr": row.ptx_feature(self.sm),
            "ptx_only": self.ptx_only,
            "plant": self.plant.name if self.plant else None,
            "shape": row.shape,
            **{"m": m, "n": n, "k": k, "products": fragments.problems(row)},
            **{op: fragments.ptx_type(row, op) for op in fragments.OPERANDS},
            "layouts": list(row.layouts),
            "satfinite": row.satfinite,
            "b1op": row.b1op,
            "kind": row.kind,
            "seed": self.seed(seed),
        }

    def seed(self, seed: int) -> int:
        """Seed of the checker's random inputs: the run's seed mixed with the row's name (a
        planted kernel gets its row's inputs)."""
        return (seed * 1_000_003 + zlib.crc32(self.row.name.encode())) % 2**32


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
        body = [f"define ptx_kernel void @{tile.kernel}({params}) {{", "entry:", *self.lines, "  ret void", "}"]
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


# ---- building: llc, the mma count, ptxas, the manifest -----------------------------------------


@dataclass
class Built:
    """One kernel's PTX and what the tools said about it."""

    tile: Tile
    ptx_file: str  # file name in the output directory ("" when llc failed)
    found: dict[str, int]  # mma per PTX mnemonic in llc's text
    llc: toolchain.ToolRun
    ptxas: toolchain.ToolRun | None  # None: not closed

    @property
    def problems(self) -> list[str]:
        """Why this kernel fails, in words (empty when it passes)."""
        if not self.llc.ok:
            return [ptx.failure("llc", self.llc)]
        out = []
        if self.found != {self.tile.row.mnemonic: 1}:
            out.append(f"mma in the PTX {self.found or 'none'}; expected one {self.tile.row.mnemonic}")
        if self.ptxas is not None and not self.ptxas.ok:
            out.append(ptx.failure("ptxas", self.ptxas))
        return out

    @property
    def ptxas_verdict(self) -> str:
        run = self.ptxas
        if run is None:
            return "skipped"
        return "timeout" if run.timed_out else "crash" if (run.returncode or 0) < 0 else "pass" if run.ok else "reject"

    def record(self, seed: int) -> dict:
        return {
            **self.tile.entry(seed),
            "ptx": self.ptx_file,
            "mma_found": self.found,
            "ptxas": self.ptxas_verdict,
            "problems": self.problems,
        }


def check_build(tc: toolchain.Toolchain, tiles: list[Tile]) -> str:
    """Why this LLVM build cannot make these kernels ("" when it can)."""
    if "nvptx64" not in tc.targets:
        return f"{tc.describe()} has no NVPTX (nvptx64) target"
    missing = sorted({t.sm for t in tiles} - tc.cpus("nvptx64"))
    return f"{tc.describe()} does not know NVPTX CPU {', '.join(missing)}" if missing else ""


def build_one(tc: toolchain.Toolchain, tile: Tile, directory: Path, ptxas: str) -> Built:
    """llc the kernel into `directory/<kernel>.ptx`, count its mma, close it with ptxas if given."""
    llc = tc.run("llc", tile.llc_args(), kernel_ir(tile))
    if not llc.ok:
        return Built(tile, "", {}, llc, None)
    name = f"{tile.kernel}.ptx"
    with open(directory / name, "x", encoding="utf-8") as fh:  # a new file in a new directory
        fh.write(llc.stdout)
    closed = None
    if ptxas:
        argv = ptx.ptxas_command(tile.sm, str(directory / name)).argv
        closed = toolchain.run_tool([ptxas, *argv[1:]], timeout=tc.timeout)
    return Built(tile, name, ptx.count_mma(llc.stdout), llc, closed)


@dataclass(frozen=True)
class Skipped:
    """A planted fault the row's layout cannot express (its table has no such term)."""

    row: Row
    plant: Plant
    why: str

    def record(self) -> dict:
        return {"variant": self.row.name, "plant": self.plant.name, "why": self.why}


def build_all(
    tc: toolchain.Toolchain,
    tiles: list[Tile],
    out: Path,
    ptxas: str,
    skipped: list[Skipped],
    jobs: int | None = None,
    seed: int = ptx.DEFAULT_SEED,
) -> list[Built]:
    """Every kernel's PTX and the manifest, made in a new directory beside `out` and renamed
    to `out` when complete (an earlier tile-ptx output there is replaced)."""
    check_out(out)
    staging = _staging(out)
    try:
        built = toolchain.parallel(lambda t: build_one(tc, t, staging, ptxas), tiles, jobs)
        doc = manifest(tc, built, ptxas, skipped, seed)
        with open(staging / MANIFEST, "x", encoding="utf-8") as fh:
            fh.write(json.dumps(doc, indent=1) + "\n")
        publish(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # (gone once published)
    return built


def manifest(tc: toolchain.Toolchain, built: list[Built], ptxas: str, skipped: list[Skipped], seed: int) -> dict:
    plants = sorted({b.tile.plant.name for b in built if b.tile.plant} | {s.plant.name for s in skipped})
    return {
        "format": MANIFEST_FORMAT,
        "llvm": tc.version,
        "llc": f"-O{LLC_OPT} -mtriple={TRIPLE} -mcpu=<sm> [-mattr=<mattr>]",
        "ptxas": ptxas or None,
        "seed": seed,
        "memory": MEMORY_TEXT,
        "inputs": tile_check.INPUTS,
        "bounds": tile_check.BOUND,
        "parameters": ["A", "B", "C", "D"],
        "launch": {"grid": [1, 1, 1], "block": [32, 1, 1]},
        "plants": {name: fragments.PLANTS[name].what for name in plants},
        "not_planted": [s.record() for s in skipped],
        "tiles": [b.record(seed) for b in built],
    }


def select(globs: list[str], plants: list[Plant]) -> tuple[list[Tile], list[Skipped]]:
    """The kernels of the dense rows whose name (or kernel name) matches a glob (all without
    one): each row with the ISA's layout, or with each planted fault its layout can express
    (only the rows that run on RUN_SM: a PTX-only kernel is never run); the others as Skipped."""
    rows = [
        r for r in dense_rows() if not globs or any(fnmatch.fnmatchcase(n, g) for g in globs for n in (r.name, Tile(r).kernel))
    ]
    if not rows:
        raise InputError(f"--variant {' '.join(globs)} matches no dense mma row (e.g. 'mma.m16n8k16.*')")
    if not plants:
        return [Tile(r) for r in rows], []
    tiles, skipped = [], []
    for row in (r for r in rows if r.runs_on(RUN_SM)):
        for fault in plants:
            why = fragments.noop_reason(row, fault)
            if why:
                skipped.append(Skipped(row, fault, why))
            else:
                tiles.append(Tile(row, fault))
    if not tiles:
        why = f": {skipped[0].why}" if skipped else " (PTX only rows are never run, so never planted)"
        raise InputError(f"no chosen row on {RUN_SM} can express the planted fault(s){why}")
    return tiles, skipped


def check_out(out: Path) -> None:
    """Refuse an output path that is a symbolic link, not a directory, or a directory holding
    anything but an earlier tile-ptx output: its manifest and the PTX files that manifest names
    (InputError). The directory is replaced whole: a file someone put there would be lost."""
    if out.is_symlink():
        raise InputError("is a symbolic link; give the directory itself", str(out))
    if not out.exists():
        return
    if not out.is_dir():
        raise InputError("exists and is not a directory", str(out))
    if any(out.iterdir()) and gpu_check.manifest_format(out) != MANIFEST_FORMAT:
        raise InputError("exists and is not a tile-ptx output (no tile manifest); choose a new or empty directory", str(out))
    foreign = sorted(set(os.listdir(out)) - _written(out))
    if foreign:
        raise InputError(
            f"holds {foreign[0]!r}{f' and {len(foreign) - 1} more' if len(foreign) > 1 else ''}, which no tile-ptx "
            "run wrote there (the directory is replaced whole); move it away or choose another directory",
            str(out),
        )


def _written(out: Path) -> set[str]:
    """The names an earlier tile-ptx output holds: its manifest and the PTX files it lists."""
    try:
        doc = gpu_check.read_manifest(out, "")
    except gpu_check.BadInput:  # (replaced since it was looked at: nothing in it is known)
        return {MANIFEST}
    tiles = doc.get("tiles") if isinstance(doc, dict) else None
    listed = {t.get("ptx") for t in tiles if isinstance(t, dict)} if isinstance(tiles, list) else set()
    return {MANIFEST} | {name for name in listed if isinstance(name, str)}


def _staging(out: Path) -> Path:
    parent = out.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=parent))
    except OSError as exc:
        raise InputError(f"cannot create a directory beside it: {exc.strerror}", str(out)) from None


def publish(staging: Path, out: Path) -> None:
    """Rename the finished `staging` directory to `out`, replacing an earlier output there."""
    check_out(out)
    old = None
    os.chmod(staging, 0o777 & ~files.umask())  # (mkdtemp made it private)
    try:
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=staging.parent))
            os.rename(out, old / "out")
        os.rename(staging, out)
    except OSError as exc:
        raise InputError(f"cannot move the new output into place: {exc.strerror}", str(out)) from None
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def table(built: list[Built], skipped: list[Skipped]) -> str:
    """One line per kernel (its SM, -mattr, mma found, ptxas's verdict, problems), then the
    planted faults left out and a summary."""
    rows = [("variant", "sm", "mattr", "mma", "ptxas", "verdict")]
    for b in built:
        ok = "pass" + (f" (PTX only: needs {b.tile.sm})" if b.tile.ptx_only else "")
        mma = str(sum(b.found.values()))
        rows.append(
            (
                b.tile.variant,
                b.tile.sm,
                b.tile.row.ptx_feature(b.tile.sm) or "-",
                mma,
                b.ptxas_verdict,
                "; ".join(b.problems) or ok,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r[:-1], widths)) + "  " + r[-1] for r in rows]
    lines += [f"not planted: {s.row.name} [{s.plant.name}]: no-op, {s.why}" for s in skipped]
    bad = sum(1 for b in built if b.problems)
    only = sum(1 for b in built if b.tile.ptx_only)
    lines.append(
        f"{len(built)} kernels ({len(built) - only} for {RUN_SM}, {only} PTX only): {len(built) - bad} pass, {bad} fail"
        + (f"; {len(skipped)} planted faults are no-ops for their row's layout and not counted" if skipped else "")
    )
    return "\n".join(lines)
