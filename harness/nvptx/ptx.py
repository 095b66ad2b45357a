"""PTX for the gemm kernels: llc (through harness.tools.toolchain), mma counts read back from the PTX,
ptxas closing every kernel (`-arch=<cpu>`), and the manifest that `gpu_check` reads.

The manifest (`manifest.json` beside the PTX files) lists, per kernel: its PTX file, kernel
name, shape, dtype, alpha/beta, transposes, CPU, K steps, the expected and the found mma counts
per PTX mnemonic, the fragment layout it was built with and the seed of its random inputs.
"""

from __future__ import annotations

import json
import re
import signal
import zlib
from dataclasses import dataclass
from pathlib import Path

from harness.core import commands, files
from harness.core.commands import Command
from harness.core.errors import InputError
from harness.core.verdicts import first_error
from harness.nvptx.gemm import PTX, TRIPLE, GemmCase, Layout, kernel_ir
from harness.tools import toolchain

MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1
LLC_OPT = 2
DEFAULT_SEED = 20240611
# An mma instruction in llc's PTX: its mnemonic (`.kind::f8f6f4` and all), first on the line.
_MMA = re.compile(r"^\s*(mma\.sync\.aligned\.[\w.:]+)\s", re.MULTILINE)


def llc_command(case: GemmCase) -> Command:
    """llc turning the kernel's IR (stdin) into PTX text (stdout)."""
    return Command(("llc", f"-O{LLC_OPT}", f"-mtriple={TRIPLE}", f"-mcpu={case.cpu}"))


ptxas_command = commands.ptxas


find_ptxas = toolchain.find_ptxas


def signal_name(returncode: int) -> str:
    """`signal 11 (SIGSEGV)` for a run killed by a signal (a negative return code)."""
    try:
        return f"signal {-returncode} ({signal.Signals(-returncode).name})"
    except ValueError:
        return f"signal {-returncode}"


def failure(tool: str, run: toolchain.ToolRun) -> str:
    """Why a failed tool run failed, in words: timed out, crashed (by which signal), or its first error."""
    if run.timed_out:
        return f"{tool} timed out"
    if run.returncode is not None and run.returncode < 0:
        return f"{tool} crashed: killed by {signal_name(run.returncode)}"
    return f"{tool} rejects it: {first_error(run.stderr) or f'exit status {run.returncode}, no message'}"


def count_mma(ptx: str) -> dict[str, int]:
    """PTX mnemonic -> how many mma instructions of it the text holds."""
    out: dict[str, int] = {}
    for m in _MMA.finditer(ptx):
        out[m.group(1)] = out.get(m.group(1), 0) + 1
    return dict(sorted(out.items()))


def case_seed(case: GemmCase, seed: int) -> int:
    """The seed of one kernel's random inputs: the run's seed mixed with the kernel's name."""
    return (seed * 1_000_003 + zlib.crc32(case.name.encode())) % 2**32


@dataclass
class Built:
    """One kernel's PTX and what the tools said about it."""

    case: GemmCase
    layout: Layout
    ptx_file: str  # file name inside the output directory ("" when llc failed)
    found: dict[str, int]  # mma per mnemonic in the PTX
    llc: toolchain.ToolRun
    ptxas: toolchain.ToolRun | None  # None: not closed (no ptxas asked for)

    @property
    def problems(self) -> list[str]:
        """Why this kernel fails, in words (empty when it passes)."""
        if not self.llc.ok:
            return ["llc failed: " + failure("llc", self.llc).removeprefix("llc rejects it: ")]
        out = []
        expected = {k: v for k, v in self.case.mma_counts().items() if v}
        if self.found != expected:
            out.append(f"mma counts {self.found} differ from the expected {expected}")
        if self.ptxas is not None and not self.ptxas.ok:
            out.append(failure("ptxas", self.ptxas))
        return out

    @property
    def ptxas_verdict(self) -> str:
        if self.ptxas is None:
            return "skipped"
        if self.ptxas.timed_out:
            return "timeout"
        if self.ptxas.returncode is not None and self.ptxas.returncode < 0:
            return "crash"
        return "pass" if self.ptxas.ok else "reject"

    def record(self, seed: int) -> dict:
        return {
            **self.case.record(),
            "kernel": self.case.name,
            "ptx": self.ptx_file,
            "layout": self.layout.name,
            "seed": case_seed(self.case, seed),
            "mma_found": self.found,
            "ptxas": self.ptxas_verdict,
            "problems": self.problems,
        }


def check_build(tc: toolchain.Toolchain, cases: list[GemmCase]) -> str:
    """Why this LLVM build cannot make these kernels ("" when it can)."""
    if "nvptx64" not in tc.targets:
        return f"{tc.describe()} has no NVPTX (nvptx64) target"
    cpus = tc.cpus("nvptx64")
    missing = sorted({c.cpu for c in cases} - cpus)
    if missing:
        return f"{tc.describe()} does not know NVPTX CPU {', '.join(missing)}"
    return ""


def build_one(tc: toolchain.Toolchain, case: GemmCase, out_dir: Path, ptxas: str, layout: Layout = PTX) -> Built:
    """llc the kernel into `out_dir/<name>.ptx`, count its mma, and close it with ptxas if given."""
    llc = tc.run("llc", list(llc_command(case).args), kernel_ir(case, layout))
    if not llc.ok:
        return Built(case, layout, "", {}, llc, None)
    name = f"{case.name}.ptx"
    files.write_atomically(out_dir / name, llc.stdout)
    closed = None
    if ptxas:
        argv = list(ptxas_command(case.cpu, str(out_dir / name)).argv)
        closed = toolchain.run_tool([ptxas, *argv[1:]], timeout=tc.timeout)
    return Built(case, layout, name, count_mma(llc.stdout), llc, closed)


def build_all(
    tc: toolchain.Toolchain,
    cases: list[GemmCase],
    out_dir: Path,
    ptxas: str,
    layout: Layout = PTX,
    jobs: int | None = None,
    seed: int = DEFAULT_SEED,
) -> list[Built]:
    """Every kernel's PTX under `out_dir`, closed by ptxas, and the manifest written last. A run
    that is stopped (Ctrl-C, SIGTERM, an error) leaves none of its kernels' files and no manifest:
    the directory is a gemm-ptx output only once a run completes."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the output directory: {exc.strerror}", str(out_dir)) from None
    try:
        built = toolchain.parallel(lambda c: build_one(tc, c, out_dir, ptxas, layout), cases, jobs)
    except BaseException:
        for path in [out_dir / MANIFEST, *(out_dir / f"{c.name}.ptx" for c in cases)]:
            path.unlink(missing_ok=True)
        raise
    manifest = {
        "format": MANIFEST_FORMAT,
        "llvm": tc.version,
        "llc": f"-O{LLC_OPT} -mtriple={TRIPLE}",
        "ptxas": ptxas or None,
        "layout": layout.name,
        "seed": seed,
        "inputs": "A, B uniform in [-1, 1] rounded to the dtype; C uniform in [-1, 1] (f32)",
        "parameters": ["A", "B", "C", "D"],
        "launch": {"grid": [1, 1, 1], "block": [32, 1, 1]},
        "cases": [b.record(seed) for b in built],
    }
    files.write_atomically(out_dir / MANIFEST, json.dumps(manifest, indent=1) + "\n")
    return built


def table(built: list[Built], no_ptxas: bool = False) -> str:
    """One row per kernel: the mma counts found, ptxas's verdict, and any problem. Kernels whose
    PTX was not assembled are counted as such: because of --no-ptxas (`no_ptxas`), or llc failed."""
    rows = [("kernel", "k16", "k8", "ptxas", "verdict")]
    for b in built:
        k16 = sum(v for k, v in b.found.items() if ".m16n8k16." in k)
        k8 = sum(v for k, v in b.found.items() if ".m16n8k8." in k)
        ok = "pass" if b.ptxas_verdict != "skipped" else "counts pass (PTX not assembled)"
        rows.append((b.case.name, str(k16), str(k8), b.ptxas_verdict, "; ".join(b.problems) or ok))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r[:-1], widths)) + "  " + r[-1] for r in rows]
    bad = sum(1 for b in built if b.problems)
    unassembled = sum(1 for b in built if b.ptxas_verdict == "skipped")
    why = " (--no-ptxas): their mma counts only" if no_ptxas else ""
    lines.append(
        f"{len(built)} kernels, {len(built) - bad} pass, {bad} fail"
        + (f"; {unassembled} not assembled{why}" if unassembled else "")
    )
    return "\n".join(lines)
