"""A GPU build: each kernel's PTX through llc, the mma instructions read back from it against
what the kernel must hold, ptxas closing it for its SM, and the manifest that harness.gpu.check
reads on the GPU machine (harness.gpu.manifest). Every kind of kernel (harness.kernels.kernel)
is built the same way.

The output directory is made whole beside its place and renamed into it when complete: a run
that is stopped leaves nothing half-written, and an earlier build there is replaced, never a
directory holding anything else. A tool that prints an error yet exits 0 gives no verdict: the
build stops with one line naming it.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.core import commands, files, verdicts
from harness.core.errors import InputError
from harness.gpu import manifest
from harness.gpu.check import columns
from harness.gpu.kinds import KINDS
from harness.gpu.manifest import FORMAT, MANIFEST
from harness.kernels.kernel import DEFAULT_SEED, LLC_OPT, TRIPLE, Kernel, Skipped
from harness.targets import NVPTX
from harness.tools import declared, toolchain

# An mma instruction in PTX: its mnemonic (`.kind::f8f6f4` and all), first on the line.
_MMA = re.compile(r"^\s*(mma\.sync\.aligned\.[\w.:]+)\s", re.MULTILINE)
PARAMETERS = ["A", "B", "C", "D"]
LAUNCH = {"grid": [1, 1, 1], "block": [32, 1, 1]}


def count_mma(ptx: str) -> dict[str, int]:
    """PTX mnemonic -> how many mma instructions of it the text holds."""
    out: dict[str, int] = {}
    for m in _MMA.finditer(ptx):
        out[m.group(1)] = out.get(m.group(1), 0) + 1
    return dict(sorted(out.items()))


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
    return f"{tool} rejects it: {verdicts.first_error(run.stderr) or f'exit status {run.returncode}, no message'}"


def run_verdict(run: toolchain.ToolRun | None) -> str:
    """skipped (not run), timeout, crash, pass or reject."""
    if run is None:
        return "skipped"
    return "timeout" if run.timed_out else "crash" if (run.returncode or 0) < 0 else "pass" if run.ok else "reject"


def refuse_lies(runs: list[tuple[str, toolchain.ToolRun | None]]) -> None:
    """A tool that exited 0 yet printed an error gives no verdict: InputError naming it, its
    kernel and the line (`runs`: kernel name, its run; llc's stdout is its PTX, not a message)."""
    for name, run in runs:
        if run is None or not run.ok:
            continue
        said = run.stderr if os.path.basename(run.argv[0]) == "llc" else f"{run.stderr}\n{run.stdout}"
        line = next((l.strip() for l in said.splitlines() if verdicts.says_error(l)), "")
        if line:
            raise InputError(f"{run.argv[0]} exited 0 but printed an error on {name}: {line[:200]}")


@dataclass
class Built:
    """One kernel's PTX and what the tools said of it."""

    kernel: Kernel
    ptx_file: str  # file name in the output directory ("" when llc failed)
    found: dict[str, int]  # mma per PTX mnemonic in llc's text
    llc: toolchain.ToolRun
    ptxas: toolchain.ToolRun | None  # None: not closed

    @property
    def judged(self) -> bool:
        """Whether the kernel has a verdict: ptxas timing out or killed by a signal says nothing
        of llc's PTX (not judged, never a failure)."""
        return run_verdict(self.ptxas) not in ("timeout", "crash")

    @property
    def problems(self) -> list[str]:
        """Why this kernel fails, or is not judged, in words (empty when it passes)."""
        if not self.llc.ok:
            return [failure("llc", self.llc)]
        out = []
        expected = self.kernel.expected_mma()
        if self.found != expected:
            out.append(f"mma in the PTX {self.found or 'none'}; expected {expected}")
        if self.ptxas is not None and not self.ptxas.ok:
            out.append(failure("ptxas", self.ptxas))
        return out

    def moved(self, staging: Path, out: Path) -> Built:
        """The same, ptxas's messages naming the PTX file where it is published, not where it was made."""
        if self.ptxas is None:
            return self
        where = lambda text: text.replace(str(staging), str(out))
        return dataclasses.replace(
            self, ptxas=dataclasses.replace(self.ptxas, stdout=where(self.ptxas.stdout), stderr=where(self.ptxas.stderr))
        )

    def record(self, seed: int) -> dict:
        return {
            **self.kernel.entry(seed),
            "ptx": self.ptx_file,
            "mma_expected": self.kernel.expected_mma(),
            "mma_found": self.found,
            "ptxas": run_verdict(self.ptxas),
            "judged": self.judged,
            "problems": self.problems,
        }


def exit_status(built: list[Built]) -> int:
    """1 when a judged kernel fails, 0 when every judged one passes, 125 when none was judged."""
    judged = [b for b in built if b.judged]
    return 1 if any(b.problems for b in judged) else 0 if judged else 125


def unsupported(tc: toolchain.Toolchain, kernels: list[Kernel]) -> dict[str, str]:
    """Kernel name -> why this build cannot make it: an intrinsic its `declare` lines name that
    the build does not declare (its IntrinsicsNVPTX.h, else opt: as `run` asks)."""
    wanted: dict[str, list[str]] = {}
    decls: dict[str, tuple[str, str]] = {}
    for k in kernels:
        for line in k.ir().splitlines():
            name = line.split("@", 1)[1].split("(", 1)[0] if line.startswith("declare ") else ""
            if name.startswith("llvm.nvvm.") and not name.startswith("llvm.nvvm.read.ptx"):
                decls[name] = (name, line)
                wanted.setdefault(k.name, []).append(name)
    if not decls or not tc.tool("opt"):
        return {}
    known = declared.support(tc, NVPTX, decls)
    return {k: f"{name}: {known[name]}" for k, names in wanted.items() for name in names if known[name]}


def check_build(tc: toolchain.Toolchain, kernels: list[Kernel]) -> str:
    """Why this LLVM build cannot make these kernels ("" when it can)."""
    if "nvptx64" not in tc.targets:
        return f"{tc.describe()} has no NVPTX (nvptx64) target"
    missing = sorted({k.sm for k in kernels} - tc.cpus("nvptx64"))
    return f"{tc.describe()} does not know NVPTX CPU {', '.join(missing)}" if missing else ""


def build_one(tc: toolchain.Toolchain, kernel: Kernel, directory: Path, ptxas: str) -> Built:
    """llc the kernel into `directory/<name>.ptx`, count its mma, close it with ptxas if given."""
    llc = tc.run("llc", kernel.llc_args(), kernel.ir())
    if not llc.ok:
        return Built(kernel, "", {}, llc, None)
    name = f"{kernel.name}.ptx"
    with open(directory / name, "x", encoding="utf-8") as fh:  # a new file in a new directory
        fh.write(llc.stdout)
    closed = None
    if ptxas:
        argv = commands.ptxas(kernel.sm, str(directory / name)).argv
        closed = toolchain.run_tool([ptxas, *argv[1:]], timeout=tc.timeout)
    return Built(kernel, name, count_mma(llc.stdout), llc, closed)


@dataclass(frozen=True)
class Build:
    """What one `gpu build` makes: its kind, kernels, the planted faults asked for (name -> what
    each does) and those left out, how the kernels lay out memory, the ptxas that closes them
    ("" for none) and the seed of the inputs."""

    kind: str
    kernels: list[Kernel]
    plants: dict[str, str]
    skipped: list[Skipped]
    memory: str
    ptxas: str
    seed: int = DEFAULT_SEED
    unsupported: tuple[Skipped, ...] = ()  # kernels this LLVM build cannot make (an intrinsic it lacks)

    def without_unsupported(self, tc: toolchain.Toolchain) -> Build:
        """The build without the kernels whose intrinsics `tc` does not declare (`unsupported`)."""
        why = unsupported(tc, self.kernels)
        lacking = tuple(Skipped(k.label, "", why[k.name]) for k in self.kernels if k.name in why)
        return dataclasses.replace(self, kernels=[k for k in self.kernels if k.name not in why], unsupported=lacking)


def build_all(tc: toolchain.Toolchain, build: Build, out: Path, jobs: int | None = None) -> list[Built]:
    """Every kernel's PTX and the manifest, made in a new directory beside `out` and renamed
    to `out` when complete (an earlier build there is replaced)."""
    check_out(out)
    staging = staging_beside(out)
    try:
        built = toolchain.parallel(lambda k: build_one(tc, k, staging, build.ptxas), build.kernels, jobs)
        refuse_lies([(b.kernel.name, run) for b in built for run in (b.llc, b.ptxas)])
        built = [b.moved(staging, out) for b in built]
        with open(staging / MANIFEST, "x", encoding="utf-8") as fh:
            fh.write(files.json_text(manifest_doc(tc, build, built)) + "\n")
        publish(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # (gone once published)
    return built


def manifest_doc(tc: toolchain.Toolchain, build: Build, built: list[Built]) -> dict:
    """The manifest: how the kernels were built and what the GPU machine needs to judge them."""
    kind = KINDS[build.kind]
    return {
        "format": FORMAT,
        "kind": build.kind,
        "llvm": tc.version,
        "llc": f"-O{LLC_OPT} -mtriple={TRIPLE} -mcpu=<sm> [-mattr=<mattr>]",
        "ptxas": build.ptxas or None,
        "seed": build.seed,
        "memory": build.memory,
        "inputs": kind.inputs_text,
        "bounds": kind.bounds,
        "parameters": PARAMETERS,
        "launch": LAUNCH,
        "plants": build.plants,
        "not_planted": [s.record() for s in build.skipped],
        "unsupported": [{"variant": u.variant, "why": u.why} for u in build.unsupported],
        "kernels": [b.record(build.seed) for b in built],
    }


# Where an earlier release's manifest lists its kernels (gemm-ptx's, tile-ptx's, tile-compare's):
# such an output is replaced as the output it is, never read as a build.
EARLIER_LISTS = {1: "cases", "nvptx-tiles/1": "tiles", "nvptx-tiles-nvidia/1": "tiles"}


def refuse_to_replace(out: Path, formats: tuple, what: str) -> None:
    """Refuse (InputError) to replace `out` with a new output when it is a symbolic link, not a
    directory, the working directory or one above it, or a directory holding anything its
    manifest (of one of `formats`, or an earlier release's) does not name: a file someone put
    there would be lost. `what` names the output it must be."""
    if out.is_symlink():
        raise InputError("is a symbolic link; give the directory itself", str(out))
    if not out.exists():
        return
    if not out.is_dir():
        raise InputError("exists and is not a directory", str(out))
    if Path.cwd().resolve().is_relative_to(out.resolve()):
        raise InputError("is the working directory or holds it; it is replaced whole: give another directory", str(out))
    names = set(os.listdir(out))
    if names and manifest.format_of(out) not in (*formats, *EARLIER_LISTS):
        raise InputError(f"exists and is not {what}; choose a new or empty directory", str(out))
    foreign = sorted(names - _written(out))
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise InputError(
            f"holds {foreign[0]!r}{more}, which {what} did not write there (the directory is replaced whole); move it away",
            str(out),
        )


def check_out(out: Path) -> None:
    """Refuse an output path that `refuse_to_replace` refuses: the whole of an earlier build is
    replaced, NVIDIA's side in it too."""
    refuse_to_replace(out, (FORMAT,), "a GPU build")
    if (out / manifest.NVIDIA).is_dir() and not (out / manifest.NVIDIA).is_symlink():
        refuse_to_replace(out / manifest.NVIDIA, (manifest.NVIDIA_FORMAT,), "a gpu compare output")


def _written(out: Path) -> set[str]:
    """The names an output holds that it wrote: its manifest, the files its entries name (PTX,
    CUDA C) and NVIDIA's side."""
    try:
        doc = manifest.read(out, "")
    except manifest.BadInput:  # (replaced since it was looked at: nothing in it is known)
        return {MANIFEST}
    listed = doc.get("kernels", doc.get(EARLIER_LISTS.get(doc.get("format"), ""))) if isinstance(doc, dict) else None
    names = {e.get(key) for e in listed if isinstance(e, dict) for key in ("ptx", "cu")} if isinstance(listed, list) else set()
    nvidia = {manifest.NVIDIA} if (out / manifest.NVIDIA).is_dir() else set()
    return {MANIFEST} | nvidia | {name for name in names if isinstance(name, str) and name}


def staging_beside(out: Path) -> Path:
    """A new private directory beside `out`, where its new output is made."""
    parent = out.absolute().parent
    blocked = next((p for p in (parent, *parent.parents) if p.exists() and not p.is_dir()), None)
    if blocked is not None:
        raise InputError(f"{blocked} is not a directory", str(out))
    try:
        parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{out.name[:40]}.", dir=parent))
    except OSError as exc:
        raise InputError(f"cannot create a directory beside it: {exc.strerror}", str(out)) from None


def publish(staging: Path, out: Path, check=check_out) -> None:
    """Rename the finished `staging` directory to `out`, replacing an earlier output there
    (`check` refuses an `out` that is not one)."""
    check(out)
    old = None
    os.chmod(staging, 0o777 & ~files.umask())  # (mkdtemp made it private)
    try:
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name[:40]}.old.", dir=staging.parent))
            os.rename(out, old / "out")
        os.rename(staging, out)
    except OSError as exc:
        raise InputError(f"cannot move the new output into place: {exc.strerror}", str(out)) from None
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def table(built: list[Built], build: Build) -> str:
    """One line per kernel (its SM, -mattr, mma found of expected, ptxas's verdict, problems),
    then the planted faults left out, the kernels this LLVM build cannot make, and a summary."""
    rows = [("kernel", "sm", "mattr", "mma", "ptxas", "verdict")]
    for b in built:
        k = b.kernel
        ok = "pass" + (f" (PTX only: needs {k.sm})" if k.ptx_only else "")
        ok += " (PTX not assembled: mma counts only)" if b.ptxas is None and b.llc.ok else ""
        verdict = ("" if b.judged else "not judged: ") + ("; ".join(b.problems) or ok)
        mma = f"{sum(b.found.values())}/{sum(k.expected_mma().values())}"
        rows.append((k.label, k.sm, k.mattr or "-", mma, run_verdict(b.ptxas), verdict))
    lines = columns(rows)
    lines += [f"not planted: {s.variant} [{s.plant}]: no-op, {s.why}" for s in build.skipped]
    lines += [f"unsupported: {u.variant}: {u.why}" for u in build.unsupported]
    judged = [b for b in built if b.judged]
    bad = sum(1 for b in judged if b.problems)
    only = sum(1 for b in built if b.kernel.ptx_only)
    unassembled = sum(1 for b in built if b.ptxas is None and b.llc.ok)
    lines.append(
        f"{len(built)} kernels ({only} PTX only): {len(judged) - bad} pass, {bad} fail"
        + (f"; {len(built) - len(judged)} not judged (ptxas timed out or crashed)" if len(judged) < len(built) else "")
        + (f"; {unassembled} not assembled (--no-ptxas)" if unassembled else "")
        + (f"; {len(build.skipped)} planted faults are no-ops for their kernel's layout and not counted" if build.skipped else "")
        + (f"; {len(build.unsupported)} unsupported by this LLVM build" if build.unsupported else "")
    )
    return "\n".join(lines)
