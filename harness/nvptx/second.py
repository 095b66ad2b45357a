"""NVIDIA's compiler as a second opinion on the tile kernels (harness.nvptx.tiles).

Per kernel of a `harness tile-ptx` directory, the same tile written as CUDA C: the
`mma.sync.aligned` as inline PTX, each lane loading its fragment registers from the same places
(harness.nvptx.fragments, a planted fault included) with the same packing (element 0 in the low
bits), and storing D the same way; the kernel keeps the llc kernel's name and parameters (A, B,
C, D). nvcc (`-arch=<sm> -ptx`) compiles it and ptxas closes NVIDIA's PTX for the same SM.
nvcc's front end costs about a second a run, so the kernels of one SM go through it together, in
units (`units`) whose tables fit one module's constant space, and each kernel's PTX is its part
of the unit's (`split`: the header, its tables, its .entry, verbatim); a kernel whose part ptxas
rejects, or whose unit nvcc rejects, is compiled again alone, and judged by that.

Without a GPU (`harness tile-compare DIR`), per kernel, NVIDIA's PTX against llc's: the mma
instructions per mnemonic (harness.nvptx.ptx.count_mma) and the registers in each of the mma's
brace groups, D, A, B and C (harness.core.verdicts.instruction / tuple_width). With a GPU
(`harness tile-compare DIR --gpu`, harness.nvptx.second_check), both kernels run on the same
inputs and their D must be bitwise equal.

DIR/nvidia/ gets <kernel>.cu, <kernel>.ptx (nvcc's) and manifest.json (NVIDIA_FORMAT): made in a
new directory inside DIR and renamed into place, replacing an earlier nvidia/.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.core import files, verdicts
from harness.core.errors import InputError
from harness.nvptx import fragments, gpu_check, ptx, second_check, tile_check, tiles
from harness.nvptx.gpu_check import BadInput
from harness.targets.nvptx_rows import IR_REGISTER, Row
from harness.tools import toolchain

NVIDIA, NVIDIA_FORMAT = second_check.NVIDIA, second_check.NVIDIA_FORMAT  # DIR/nvidia/manifest.json
GROUPS = ("d", "a", "b", "c")  # the mma's brace groups, in the instruction's order
# C types of one element in memory (tiles.MEMORY_IR) and of one fragment register with its asm
# constraint (a .f32 register "f", a .f64 "d", every 32-bit pattern "r").
C_MEMORY = {"i8": "unsigned char", "i16": "unsigned short", "i32": "unsigned", "float": "float", "double": "double"}
C_REGISTER = {"float": ("float", "f"), "double": ("double", "d")}
_BITS_REGISTER = ("unsigned", "r")
CONSTANT_BYTES = 60_000  # a unit's tables stay within the 64 KiB of constant space one module has


# ---- the kernel as CUDA C ----------------------------------------------------------------------


def registers(row: Row, op: str) -> int:
    """Fragment registers per lane of the operand (the ISA's tables: Row.regs is D, A, B, C)."""
    return dict(zip(GROUPS, row.regs))[op]


def slots(tile: tiles.Tile, op: str) -> list[int]:
    """Per lane, then element, the slot of the operand's element: index into the row-major
    [P, rows, columns] array (tiles.MEMORY_TEXT), as the llc kernel's @<op>_idx holds it."""
    places = fragments.placement(tile.row, op, tile.plant)
    _, rows, cols = fragments.matrix_shape(tile.row, op)
    return [(p * rows + r) * cols + c for lane in places for p, r, c in lane]


def _memory(row: Row, op: str) -> str:
    return C_MEMORY[tiles.MEMORY_IR[fragments.ptx_type(row, op)]]


def _register(row: Row, op: str) -> tuple[str, str]:
    return C_REGISTER.get(IR_REGISTER[fragments.ptx_type(row, op)], _BITS_REGISTER)


def table_name(tile: tiles.Tile, op: str) -> str:
    """The operand's slot table: named after the kernel, so that kernels share a translation unit."""
    return f"{tile.kernel}_{op}_idx"


def _load(tile: tiles.Tile, op: str) -> tuple[list[str], list[str]]:
    """(lines, register names): the lane's elements of A, B or C packed into its registers."""
    row = tile.row
    ptx_type = fragments.ptx_type(row, op)
    per, bits = fragments.per_register(ptx_type), fragments.ELEMENT_BITS[ptx_type]
    ctype, _ = _register(row, op)
    source = op.upper()
    lines = [f"  const int* {op}i = {table_name(tile, op)} + lane * {fragments.elements(row, op)};"]
    names = [f"{op}{r}" for r in range(registers(row, op))]
    for r, name in enumerate(names):
        if per == 1:
            lines.append(f"  {ctype} {name} = {source}[{op}i[{r}]];")
            continue
        parts = []
        for j in range(per):
            part = f"(unsigned){source}[{op}i[{r * per + j}]]"
            part = f"({part} & {(1 << bits) - 1}u)" if bits < 8 else part
            parts.append(f"({part} << {j * bits})" if j else part)
        lines.append(f"  {ctype} {name} = {' | '.join(parts)};")
    return lines, names


def _mma(row: Row, names: dict[str, list[str]]) -> list[str]:
    """The inline PTX: D's registers as outputs, A's, B's and C's as inputs, one brace group each."""
    groups, n = [], 0
    for op in GROUPS:
        groups.append("{" + ", ".join(f"%{n + i}" for i in range(len(names[op]))) + "}")
        n += len(names[op])
    outputs = ", ".join(f'"={_register(row, "d")[1]}"({name})' for name in names["d"])
    inputs = ", ".join(f'"{_register(row, op)[1]}"({name})' for op in "abc" for name in names[op])
    return [
        f'  asm volatile("{row.mnemonic} {", ".join(groups)};"',
        f"               : {outputs}",
        f"               : {inputs});",
    ]


def _store(tile: tiles.Tile, names: list[str]) -> list[str]:
    """Each element of D's registers to its slot (a 16-bit element from its half of the register)."""
    row = tile.row
    per, bits = fragments.per_register(row.d), fragments.ELEMENT_BITS[row.d]
    lines = [f"  const int* di = {table_name(tile, 'd')} + lane * {fragments.elements(row, 'd')};"]
    for r, name in enumerate(names):
        if per == 1:
            lines.append(f"  D[di[{r}]] = {name};")
            continue
        for j in range(per):
            part = f"({name} >> {j * bits})" if j else name
            lines.append(f"  D[di[{r * per + j}]] = ({_memory(row, 'd')}){part};")
    return lines


def cuda_source(tile: tiles.Tile) -> str:
    """The kernel as CUDA C (deterministic text)."""
    row = tile.row
    body = ["  unsigned lane;", '  asm("mov.u32 %0, %%laneid;" : "=r"(lane));']
    names: dict[str, list[str]] = {}
    for op in "abc":
        lines, names[op] = _load(tile, op)
        body += lines
    names["d"] = [f"d{r}" for r in range(registers(row, "d"))]
    body.append(f"  {_register(row, 'd')[0]} {', '.join(names['d'])};")
    body += _mma(row, names) + _store(tile, names["d"])
    params = [f"const {_memory(row, op)}* {op.upper()}" for op in "abc"] + [f"{_memory(row, 'd')}* D"]
    plant = tile.plant.name if tile.plant else "none (the PTX ISA's tables)"
    tables = []
    for op in "abcd":
        cells = slots(tile, op)
        tables.append(f"__constant__ int {table_name(tile, op)}[{len(cells)}] = {{{', '.join(map(str, cells))}}};")
    return "\n".join(
        [
            f"// {row.name}: D = A*B + C on one warp, {row.mnemonic}; planted fault: {plant}",
            f"// harness tile-compare: NVIDIA's side of {tile.kernel} (nvcc -arch={tile.sm} -ptx)",
            "",
            *tables,
            "",
            f'extern "C" __global__ void {tile.kernel}({", ".join(params)}) {{',
            *body,
            "}",
            "",
        ]
    )


# ---- what a PTX text holds of the mma ----------------------------------------------------------


@dataclass(frozen=True)
class Mma:
    """What one compiler's PTX holds of the kernel's mma: the instructions per mnemonic, and the
    registers in each brace group (D, A, B, C) of the first (None: not a brace group)."""

    found: dict[str, int]
    groups: tuple[int | None, ...]

    @property
    def widths(self) -> str:
        """`4/4/2/4`; `-` without an mma."""
        return "/".join("?" if w is None else str(w) for w in self.groups) or "-"


def read_mma(text: str) -> Mma:
    found = ptx.count_mma(text)
    got = verdicts.instruction(text.splitlines(), tuple(found)) if found else None
    return Mma(found, tuple(verdicts.tuple_width(o) for o in got[1]) if got else ())


def run_verdict(run: toolchain.ToolRun | None) -> str:
    if run is None:
        return "skipped"
    return "timeout" if run.timed_out else "crash" if (run.returncode or 0) < 0 else "pass" if run.ok else "reject"


@dataclass
class Second:
    """One kernel's second opinion: nvcc's and ptxas's runs, and the mma of llc's and nvcc's PTX."""

    tile: tiles.Tile
    nvcc: toolchain.ToolRun
    ptxas: toolchain.ToolRun | None  # None: nvcc failed
    llc: Mma
    nvidia: Mma
    alone: bool = False  # nvcc compiled the kernel alone, not in a unit with others

    @property
    def ptx_file(self) -> str:
        """nvcc's PTX in DIR/nvidia ("" when nvcc failed)."""
        return f"{self.tile.kernel}.ptx" if self.nvcc.ok else ""

    @property
    def judged(self) -> bool:
        """Whether NVIDIA's side answered: nvcc, or ptxas on nvcc's PTX, timing out or killed by
        a signal says nothing of llc's kernel (not judged, never a disagreement)."""
        return all(run_verdict(run) not in ("timeout", "crash") for run in (self.nvcc, self.ptxas))

    @property
    def disagrees(self) -> bool:
        return self.judged and bool(self.problems)

    @property
    def problems(self) -> list[str]:
        """Where NVIDIA's side fails or disagrees with llc's, in words (empty when they agree)."""
        if not self.nvcc.ok:
            return [ptx.failure("nvcc", self.nvcc)]
        out = []
        if self.ptxas is not None and not self.ptxas.ok:
            out.append(ptx.failure("ptxas", self.ptxas) + " (nvcc's PTX)")
        one = {self.tile.row.mnemonic: 1}
        if self.llc.found != self.nvidia.found:
            out.append(f"mma: llc {self.llc.found or 'none'}, nvcc {self.nvidia.found or 'none'}")
        elif self.llc.found != one:
            out.append(f"mma: both {self.llc.found or 'none'}; expected one {self.tile.row.mnemonic}")
        if self.llc.groups != self.nvidia.groups:
            out.append(f"registers per group D/A/B/C: llc {self.llc.widths}, nvcc {self.nvidia.widths}")
        return out

    def record(self) -> dict:
        return {
            "kernel": self.tile.kernel,
            "variant": self.tile.row.name,
            "plant": self.tile.plant.name if self.tile.plant else None,
            "sm": self.tile.sm,
            "ptx_only": self.tile.ptx_only,
            "cu": f"{self.tile.kernel}.cu",
            "ptx": self.ptx_file,
            "nvcc": run_verdict(self.nvcc),
            "compiled": "alone" if self.alone else "in a unit",
            "ptxas": run_verdict(self.ptxas),
            "mma": {"llc": self.llc.found, "nvcc": self.nvidia.found},
            "groups": {"llc": list(self.llc.groups), "nvcc": list(self.nvidia.groups)},
            "judged": self.judged,
            "agree": self.judged and not self.problems,
            "problems": self.problems,
        }


# ---- the manifest read, NVIDIA's side built ----------------------------------------------------

_ROWS = {r.name: r for r in tiles.dense_rows()}


def load(directory: Path) -> dict:
    """The tile-ptx manifest of `directory`, every tile checked (InputError, one line)."""
    try:
        return tile_check.load_manifest(directory)
    except BadInput as exc:
        path, text = str(directory / tile_check.MANIFEST), str(exc)
        at = re.match(r"((?::\d+)*): ", text.removeprefix(path)) if text.startswith(path) else None
        if at is None:
            raise InputError(text) from None
        raise InputError(text[len(path) + at.end() :], path + at.group(1)) from None


def tile_of(entry: dict, manifest: Path) -> tiles.Tile:
    """The kernel a manifest entry names: its row and planted fault, which must give its kernel
    name and SM (InputError otherwise)."""
    name, plant = entry["kernel"], entry.get("plant")
    row = _ROWS.get(entry["variant"])
    if row is None:
        raise InputError(f"tile {name}: {entry['variant']!r} is not a dense mma row", str(manifest))
    if plant is not None and plant not in fragments.PLANTS:
        raise InputError(f"tile {name}: {plant!r} is not a planted fault ({', '.join(fragments.PLANTS)})", str(manifest))
    tile = tiles.Tile(row, fragments.PLANTS[plant] if plant else None)
    if (tile.kernel, tile.sm) != (name, entry["sm"]):
        why = f"its variant and plant make kernel {tile.kernel} for {tile.sm}, not {name} for {entry['sm']}"
        raise InputError(f"tile {name}: {why}", str(manifest))
    return tile


def select(doc: dict, manifest: Path, globs: list[str]) -> list[tuple[tiles.Tile, dict]]:
    """(kernel, manifest entry) of each tile whose variant or kernel name matches a glob (all without one)."""
    chosen = [
        e for e in doc["tiles"] if not globs or any(fnmatch.fnmatchcase(n, g) for g in globs for n in (e["variant"], e["kernel"]))
    ]
    if not chosen:
        raise InputError(f"--variant {' '.join(globs)} matches no tile of the manifest", str(manifest))
    return [(tile_of(e, manifest), e) for e in chosen]


@dataclass(frozen=True)
class Tools:
    """NVIDIA's compiler (its path and `nvcc --version`'s release), the ptxas that closes its
    PTX, and the time each run may take."""

    nvcc: str
    version: str
    ptxas: str
    timeout: float

    def compile(self, sm: str, cu: Path, out: Path) -> toolchain.ToolRun:
        return toolchain.run_tool([self.nvcc, f"-arch={sm}", "-ptx", "-o", str(out), str(cu)], timeout=self.timeout)

    def close(self, sm: str, ptx_file: Path) -> toolchain.ToolRun:
        argv = ptx.ptxas_command(sm, str(ptx_file)).argv
        return toolchain.run_tool([self.ptxas, *argv[1:]], timeout=self.timeout)


def nvcc_version(nvcc: str, timeout: float) -> str:
    """`release 13.0, V13.0.88` of `nvcc --version` ("" when it does not run or say)."""
    run = toolchain.run_tool([nvcc, "--version"], timeout=timeout)
    found = re.search(r"release [\d.]+, V[\d.]+", run.stdout) if run.ok else None
    return found.group(0) if found else ""


def units(chosen: list[tiles.Tile]) -> list[list[tiles.Tile]]:
    """The kernels in translation units of one SM each, whose tables together fit the constant
    space of one module (nvcc's front end costs about a second per unit, the kernels little)."""
    out: list[list[tiles.Tile]] = []
    size = 0
    for tile in sorted(chosen, key=lambda t: t.sm):
        more = 4 * sum(len(slots(tile, op)) for op in "abcd")
        if not out or out[-1][0].sm != tile.sm or size + more > CONSTANT_BYTES:
            out.append([])
            size = 0
        out[-1].append(tile)
        size += more
    return out


def split(text: str, kernels: list[str]) -> dict[str, str]:
    """Each kernel's own PTX out of nvcc's PTX of a unit: the header (to `.address_size`), the
    kernel's `.const` tables and its `.entry`, verbatim (a kernel not found is left out)."""
    lines = text.splitlines()
    ends = [i for i, line in enumerate(lines) if line.startswith(".address_size")]
    if not ends:
        return {}
    head, out = lines[: ends[0] + 1], {}
    for kernel in kernels:
        tables = [line for line in lines if re.match(rf"\.const .*\s{kernel}_[abcd]_idx\[", line)]
        entry = re.search(rf"^\.visible \.entry {kernel}\(.*?^\}}$", text, re.M | re.S)
        if entry:
            out[kernel] = "\n".join([*head, "", *tables, "", entry.group(0), ""])
    return out


def compile_unit(unit: list[tiles.Tile], scratch: Path, tools: Tools) -> dict[str, tuple[toolchain.ToolRun, str]]:
    """nvcc on the unit's kernels as one translation unit: kernel -> (nvcc's run, the kernel's
    own PTX); empty when nvcc fails."""
    cu = scratch / f"unit-{unit[0].kernel}.cu"
    cu.write_text("\n".join(cuda_source(t) for t in unit), encoding="utf-8")
    run = tools.compile(unit[0].sm, cu, cu.with_suffix(".ptx"))
    if not run.ok:
        return {}
    return {k: (run, text) for k, text in split(_read(cu.with_suffix(".ptx")), [t.kernel for t in unit]).items()}


def judge_one(
    tile: tiles.Tile, llc_ptx: Path, batch: tuple[toolchain.ToolRun, str] | None, dirs: tuple[Path, Path], tools: Tools
) -> Second:
    """The kernel's PTX from its unit when ptxas accepts it there, else (the verdict then its
    own) from nvcc on the kernel alone; written to staging, and the mma of both texts read.
    `dirs`: the scratch and staging directories."""
    scratch, staging = dirs
    llc = read_mma(_read(llc_ptx))
    if batch is not None:
        run, text = batch
        piece = scratch / f"{tile.kernel}.ptx"
        piece.write_text(text, encoding="utf-8")
        closed = tools.close(tile.sm, piece)
        if closed.ok:
            return _kept(tile, staging, Second(tile, run, closed, llc, read_mma(text)), text)
    alone = scratch / f"{tile.kernel}.alone.ptx"
    run = tools.compile(tile.sm, staging / f"{tile.kernel}.cu", alone)
    if not run.ok:
        return Second(tile, run, None, llc, Mma({}, ()), alone=True)
    text = _read(alone)
    return _kept(tile, staging, Second(tile, run, tools.close(tile.sm, alone), llc, read_mma(text), alone=True), text)


def _kept(tile: tiles.Tile, staging: Path, made: Second, text: str) -> Second:
    with open(staging / f"{tile.kernel}.ptx", "x", encoding="utf-8") as fh:  # a new file in a new directory
        fh.write(text)
    return made


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None


def build_all(directory: Path, chosen: list[tuple[tiles.Tile, dict]], tools: Tools, jobs: int | None = None) -> list[Second]:
    """NVIDIA's side of every chosen kernel and its manifest, made in a new directory inside
    `directory` and renamed to directory/nvidia when complete."""
    check_out(directory)
    staging = _staging(directory)
    try:
        for tile, _ in chosen:
            with open(staging / f"{tile.kernel}.cu", "x", encoding="utf-8") as fh:
                fh.write(cuda_source(tile))
        with tempfile.TemporaryDirectory(prefix="tile-compare.") as tmp:
            batches: dict[str, tuple[toolchain.ToolRun, str]] = {}
            for found in toolchain.parallel(lambda u: compile_unit(u, Path(tmp), tools), units([t for t, _ in chosen]), jobs):
                batches.update(found)
            dirs = (Path(tmp), staging)
            judge = lambda te: judge_one(te[0], directory / te[1]["ptx"], batches.get(te[0].kernel), dirs, tools)
            made = toolchain.parallel(judge, chosen, jobs)
        with open(staging / tile_check.MANIFEST, "x", encoding="utf-8") as fh:
            fh.write(json.dumps(manifest(tools, made), indent=1) + "\n")
        publish(staging, directory)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # (gone once published)
    return made


def manifest(tools: Tools, made: list[Second]) -> dict:
    """DIR/nvidia/manifest.json."""
    return {
        "format": NVIDIA_FORMAT,
        "nvcc": tools.nvcc,
        "nvcc_version": tools.version,
        "nvcc_command": "nvcc -arch=<sm> -ptx -o <unit>.ptx <unit>.cu, a unit the kernels' .cu files of one SM "
        "(their tables within one module's constant space), each kernel's PTX its header, tables and .entry; "
        "a kernel whose part ptxas rejects, or of a unit nvcc rejects, again alone: nvcc -arch=<sm> -ptx <kernel>.cu",
        "ptxas": tools.ptxas,
        "compared": "with llc's <kernel>.ptx in ..: mma per mnemonic, registers per brace group D, A, B, C",
        "tiles": [s.record() for s in made],
    }


def check_out(directory: Path) -> None:
    """Refuse to write through a symbolic link (DIR or DIR/nvidia) or over a DIR/nvidia that is
    not an earlier tile-compare output (InputError)."""
    out = directory / NVIDIA
    for path in (directory, out):
        if path.is_symlink():
            raise InputError("is a symbolic link; give the directory itself", str(path))
    if not out.exists():
        return
    if not out.is_dir():
        raise InputError("exists and is not a directory", str(out))
    if any(out.iterdir()) and gpu_check.manifest_format(out) != NVIDIA_FORMAT:
        raise InputError("exists and is not a tile-compare output (no nvidia manifest); move it away", str(out))


def _staging(directory: Path) -> Path:
    try:
        return Path(tempfile.mkdtemp(prefix=f".{NVIDIA}.", dir=directory))
    except OSError as exc:
        raise InputError(f"cannot create a directory in it: {exc.strerror}", str(directory)) from None


def publish(staging: Path, directory: Path) -> None:
    """Rename the finished `staging` to directory/nvidia, replacing an earlier one."""
    check_out(directory)
    out, old = directory / NVIDIA, None
    os.chmod(staging, 0o777 & ~files.umask())  # (mkdtemp made it private)
    try:
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{NVIDIA}.old.", dir=directory))
            os.rename(out, old / NVIDIA)
        os.rename(staging, out)
    except OSError as exc:
        raise InputError(f"cannot move NVIDIA's side into place: {exc.strerror}", str(out)) from None
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def table(made: list[Second]) -> str:
    """One line per kernel (mma counts, registers per group on both sides, ptxas on nvcc's PTX,
    the verdict), then a summary naming the kernels that disagree."""
    rows = [("variant", "sm", "mma llc/nvcc", "D/A/B/C llc", "D/A/B/C nvcc", "ptxas", "verdict")]
    for s in made:
        mma = f"{sum(s.llc.found.values())}/{sum(s.nvidia.found.values())}"
        name = s.tile.variant + (" (PTX only)" if s.tile.ptx_only else "")
        verdict = ("" if s.judged else "not judged: ") + ("; ".join(s.problems) or "agree")
        rows.append((name, s.tile.sm, mma, s.llc.widths, s.nvidia.widths, run_verdict(s.ptxas), verdict))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r[:-1], widths)) + "  " + r[-1] for r in rows]
    compiled = [s for s in made if s.nvcc.ok]
    bad = [s.tile.variant for s in made if s.disagrees]
    unjudged = [s.tile.variant for s in made if not s.judged]
    only = sum(1 for s in compiled if s.tile.ptx_only)
    lines.append(
        f"{len(made)} kernels: {len(compiled)} compiled by nvcc ({len(compiled) - only} for {tiles.RUN_SM}, {only} PTX only), "
        f"{len(made) - len(bad) - len(unjudged)} agree with llc, {len(bad)} disagree"
        + (f": {', '.join(bad)}" if bad else "")
        + (f"; {len(unjudged)} not judged (nvcc or ptxas timed out or crashed): {', '.join(unjudged)}" if unjudged else "")
    )
    return "\n".join(lines)


def exit_status(made: list[Second]) -> int:
    """1 when some kernel disagrees, 0 when every judged one agrees, 125 when none was judged."""
    if any(s.disagrees for s in made):
        return 1
    return 0 if any(s.judged for s in made) else 125
