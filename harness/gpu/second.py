"""NVIDIA's compiler as a second opinion on the kernels of a tile build (harness.kernels.tiles).

Per kernel of a `harness gpu build --kind tile` directory, the same tile as CUDA C
(harness.kernels.cuda). nvcc (`-arch=<sm> -ptx`) compiles it and ptxas closes NVIDIA's PTX for
the same SM. nvcc's front end costs about a second a run, so the kernels of one SM go through it
together, in units (`units`) whose tables fit one module's constant space, and each kernel's PTX
is its part of the unit's (`split`: the header, its tables, its .entry, verbatim); a kernel
whose part ptxas rejects, or whose unit nvcc rejects, is compiled again alone, and judged by that.

Without a GPU (`harness gpu compare DIR`), per kernel, NVIDIA's PTX against llc's: the mma
instructions per mnemonic (harness.gpu.build.count_mma) and the registers in each of the mma's
brace groups, D, A, B and C (harness.core.verdicts.instruction / tuple_width). With a GPU
(`harness gpu compare DIR --gpu`, harness.gpu.check), both kernels run on the same inputs and
their D must be bitwise equal.

DIR/nvidia/ gets <kernel>.cu, <kernel>.ptx (nvcc's) and manifest.json (NVIDIA_FORMAT): made in a
new directory inside DIR and renamed into place, replacing an earlier nvidia/.
"""

from __future__ import annotations

import fnmatch
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.core import commands, files, verdicts
from harness.core.errors import InputError
from harness.gpu import manifest
from harness.gpu.build import count_mma, failure, publish, refuse_lies, refuse_to_replace, run_verdict, staging_beside
from harness.gpu.check import columns
from harness.gpu.manifest import MANIFEST, NVIDIA, NVIDIA_FORMAT, BadInput
from harness.kernels import fragments
from harness.kernels.cuda import cuda_source, slots
from harness.kernels.kernel import RUN_SM
from harness.kernels.tiles import Tile, dense_rows
from harness.tools import toolchain

CONSTANT_BYTES = 60_000  # a unit's tables stay within the 64 KiB of constant space one module has


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
    found = count_mma(text)
    got = verdicts.instruction(text.splitlines(), tuple(found)) if found else None
    return Mma(found, tuple(verdicts.tuple_width(o) for o in got[1]) if got else ())


@dataclass
class Second:
    """One kernel's second opinion: nvcc's and ptxas's runs, and the mma of llc's and nvcc's PTX."""

    tile: Tile
    nvcc: toolchain.ToolRun
    ptxas: toolchain.ToolRun | None  # None: nvcc failed
    llc: Mma
    nvidia: Mma
    alone: bool = False  # nvcc compiled the kernel alone, not in a unit with others

    @property
    def ptx_file(self) -> str:
        """nvcc's PTX in DIR/nvidia ("" when nvcc failed)."""
        return f"{self.tile.name}.ptx" if self.nvcc.ok else ""

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
            return [failure("nvcc", self.nvcc)]
        out = []
        if self.ptxas is not None and not self.ptxas.ok:
            out.append(failure("ptxas", self.ptxas) + " (nvcc's PTX)")
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
            "kernel": self.tile.name,
            "variant": self.tile.row.name,
            "plant": self.tile.plant.name if self.tile.plant else None,
            "sm": self.tile.sm,
            "ptx_only": self.tile.ptx_only,
            "cu": f"{self.tile.name}.cu",
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

_ROWS = {r.name: r for r in dense_rows()}


def load(directory: Path) -> dict:
    """The manifest of a tile build in `directory`, every kernel checked (InputError, one line)."""
    try:
        doc, kind = manifest.load(directory)
    except BadInput as exc:
        path, text = str(directory / MANIFEST), str(exc)
        at = re.match(r"((?::\d+)*): ", text.removeprefix(path)) if text.startswith(path) else None
        if at is None:
            raise InputError(text) from None
        raise InputError(text[len(path) + at.end() :], path + at.group(1)) from None
    if kind.name != "tile":
        raise InputError(f"holds {kind.name} kernels; NVIDIA's side is written for tile kernels only", str(directory / MANIFEST))
    return doc


def tile_of(entry: dict, path: Path) -> Tile:
    """The kernel a manifest entry names: its row and planted fault, which must give its kernel
    name and SM (InputError otherwise)."""
    name, plant = entry["kernel"], entry.get("plant")
    row = _ROWS.get(entry["variant"])
    if row is None:
        raise InputError(f"kernel {name}: {entry['variant']!r} is not a dense mma row", str(path))
    if plant is not None and plant not in fragments.PLANTS:
        raise InputError(f"kernel {name}: {plant!r} is not a planted fault ({', '.join(fragments.PLANTS)})", str(path))
    tile = Tile(row, fragments.PLANTS[plant] if plant else None)
    if (tile.name, tile.sm) != (name, entry["sm"]):
        why = f"its variant and plant make kernel {tile.name} for {tile.sm}, not {name} for {entry['sm']}"
        raise InputError(f"kernel {name}: {why}", str(path))
    return tile


def select(doc: dict, path: Path, globs: list[str]) -> list[tuple[Tile, dict]]:
    """(kernel, manifest entry) of each kernel llc built whose variant or name matches a glob
    (all without one)."""
    built = [e for e in doc["kernels"] if e["ptx"]]
    chosen = [e for e in built if not globs or any(fnmatch.fnmatchcase(n, g) for g in globs for n in (e["variant"], e["kernel"]))]
    if not chosen:
        which = f"--filter {' '.join(globs)} matches" if globs else "the build has"
        raise InputError(f"{which} no kernel llc built", str(path))
    return [(tile_of(e, path), e) for e in chosen]


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
        argv = commands.ptxas(sm, str(ptx_file)).argv
        return toolchain.run_tool([self.ptxas, *argv[1:]], timeout=self.timeout)


def nvcc_version(nvcc: str) -> str:
    """`release 13.0, V13.0.88` of `nvcc --version`; InputError, one line, for a file that does
    not say it is nvcc (it would decide every verdict)."""
    return toolchain.identify(nvcc, "nvcc", toolchain.NVCC_SAYS)


def _output(run: toolchain.ToolRun, path: Path) -> str:
    """What nvcc wrote to `path`; a run that exited 0 without writing it gives no verdict."""
    if not path.is_file():
        raise InputError(f"{run.argv[0]} exited 0 but wrote no PTX (-o {path.name})")
    return _read(path)


def units(chosen: list[Tile]) -> list[list[Tile]]:
    """The kernels in translation units of one SM each, whose tables together fit the constant
    space of one module (nvcc's front end costs about a second per unit, the kernels little)."""
    out: list[list[Tile]] = []
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


def compile_unit(unit: list[Tile], scratch: Path, tools: Tools) -> dict[str, tuple[toolchain.ToolRun, str]]:
    """nvcc on the unit's kernels as one translation unit: kernel -> (nvcc's run, the kernel's
    own PTX); empty when nvcc fails."""
    cu = scratch / f"unit-{unit[0].name}.cu"
    cu.write_text("\n".join(cuda_source(t) for t in unit), encoding="utf-8")
    run = tools.compile(unit[0].sm, cu, cu.with_suffix(".ptx"))
    if not run.ok:
        return {}
    return {k: (run, text) for k, text in split(_output(run, cu.with_suffix(".ptx")), [t.name for t in unit]).items()}


def judge_one(
    tile: Tile, llc_ptx: Path, batch: tuple[toolchain.ToolRun, str] | None, dirs: tuple[Path, Path], tools: Tools
) -> Second:
    """The kernel's PTX from its unit when ptxas accepts it there, else (the verdict then its
    own) from nvcc on the kernel alone; written to staging, and the mma of both texts read.
    `dirs`: the scratch and staging directories."""
    scratch, staging = dirs
    llc = read_mma(_read(llc_ptx))
    if batch is not None:
        run, text = batch
        piece = scratch / f"{tile.name}.ptx"
        piece.write_text(text, encoding="utf-8")
        closed = tools.close(tile.sm, piece)
        if closed.ok:
            return _kept(tile, staging, Second(tile, run, closed, llc, read_mma(text)), text)
    alone = scratch / f"{tile.name}.alone.ptx"
    run = tools.compile(tile.sm, staging / f"{tile.name}.cu", alone)
    if not run.ok:
        return Second(tile, run, None, llc, Mma({}, ()), alone=True)
    text = _output(run, alone)
    return _kept(tile, staging, Second(tile, run, tools.close(tile.sm, alone), llc, read_mma(text), alone=True), text)


def _kept(tile: Tile, staging: Path, made: Second, text: str) -> Second:
    with open(staging / f"{tile.name}.ptx", "x", encoding="utf-8") as fh:  # a new file in a new directory
        fh.write(text)
    return made


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None


def build_all(directory: Path, chosen: list[tuple[Tile, dict]], tools: Tools, jobs: int | None = None) -> list[Second]:
    """NVIDIA's side of every chosen kernel and its manifest, made in a new directory inside
    `directory` and renamed to directory/nvidia when complete and some kernel was judged."""
    check_out(directory)
    staging = staging_beside(directory / NVIDIA)
    try:
        for tile, _ in chosen:
            with open(staging / f"{tile.name}.cu", "x", encoding="utf-8") as fh:
                fh.write(cuda_source(tile))
        with tempfile.TemporaryDirectory(prefix="gpu-compare.") as tmp:
            batches: dict[str, tuple[toolchain.ToolRun, str]] = {}
            for found in toolchain.parallel(lambda u: compile_unit(u, Path(tmp), tools), units([t for t, _ in chosen]), jobs):
                batches.update(found)
            dirs = (Path(tmp), staging)
            judge = lambda te: judge_one(te[0], directory / te[1]["ptx"], batches.get(te[0].name), dirs, tools)
            made = toolchain.parallel(judge, chosen, jobs)
        refuse_lies([(s.tile.name, run) for s in made for run in (s.nvcc, s.ptxas)])
        if not any(s.judged for s in made):  # (an earlier answer is kept: this run has none)
            return made
        with open(staging / MANIFEST, "x", encoding="utf-8") as fh:
            fh.write(files.json_text(manifest_doc(tools, made)) + "\n")
        publish(staging, directory / NVIDIA, lambda out: check_out(out.parent))
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # (gone once published)
    return made


def manifest_doc(tools: Tools, made: list[Second]) -> dict:
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
        "kernels": [s.record() for s in made],
    }


def check_out(directory: Path) -> None:
    """Refuse to write through a symbolic link (DIR or DIR/nvidia) or over a DIR/nvidia that is
    not an earlier gpu compare output, or holds files it did not write (InputError)."""
    if directory.is_symlink():
        raise InputError("is a symbolic link; give the directory itself", str(directory))
    refuse_to_replace(directory / NVIDIA, (NVIDIA_FORMAT,), "a gpu compare output")


def table(made: list[Second]) -> str:
    """One line per kernel (mma counts, registers per group on both sides, ptxas on nvcc's PTX,
    the verdict), then a summary naming the kernels that disagree."""
    rows = [("kernel", "sm", "mma llc/nvcc", "D/A/B/C llc", "D/A/B/C nvcc", "ptxas", "verdict")]
    for s in made:
        mma = f"{sum(s.llc.found.values())}/{sum(s.nvidia.found.values())}"
        name = s.tile.label + (" (PTX only)" if s.tile.ptx_only else "")
        verdict = ("" if s.judged else "not judged: ") + ("; ".join(s.problems) or "agree")
        rows.append((name, s.tile.sm, mma, s.llc.widths, s.nvidia.widths, run_verdict(s.ptxas), verdict))
    lines = columns(rows)
    compiled = [s for s in made if s.nvcc.ok]
    bad = [s.tile.label for s in made if s.disagrees]
    unjudged = [s.tile.label for s in made if not s.judged]
    only = sum(1 for s in compiled if s.tile.ptx_only)
    lines.append(
        f"{len(made)} kernels: {len(compiled)} compiled by nvcc ({len(compiled) - only} for {RUN_SM}, {only} PTX only), "
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
