"""`harness gpu build|check|compare`: GPU kernels built from the rows and specs, run and judged on
a CUDA GPU, and NVIDIA's compiler as a second opinion. The commands of earlier releases
(gemm-ptx, tile-ptx, gpu-check, tile-check, tile-compare) are aliases of these for one release.

harness/parser.py's ELSEWHERE names this module for each command (`add_parser` adds their flags,
COMMANDS runs them); each returns its exit status and raises InputError (one line, exit 2) on
bad input.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from pathlib import Path

from harness.core import files
from harness.core.errors import InputError, quoted
from harness.gpu import build, check, manifest, second
from harness.kernels import fragments, gemm, gemm_spec, tiles
from harness.kernels.kernel import DEFAULT_SEED, RUN_SM
from harness.specs import selection
from harness.tools import toolchain

DEFAULT_CASES = Path(__file__).resolve().parent.parent / "cases"
CANNOT_JUDGE = 125
ALIASES = {"gemm-ptx": "gpu build --kind gemm", "tile-ptx": "gpu build --kind tile"}
ALIASES |= {"gpu-check": "gpu check", "tile-check": "gpu check", "tile-compare": "gpu compare"}

GPU_HELP = "GPU kernels: build (llc, mma count, ptxas), check on a CUDA GPU, compare with nvcc"
GPU_EPILOG = "exit status: as each of build, check and compare says in its --help"
GPU_DESCRIPTION = """\
GPU kernels from the matrix rows and specs: built here with llc and closed with ptxas, run and
judged on a machine with a CUDA GPU, and compared with NVIDIA's nvcc.

  harness gpu build --kind tile --out DIR     one single-warp kernel per dense NVPTX mma row
  harness gpu build --kind gemm --out DIR     the tiled warp gemm of the specs' `gemm` sections
  harness gpu check DIR                       on the GPU machine: D against the reference
  harness gpu compare DIR [--gpu]             nvcc's kernels against llc's (tile kernels)

The GPU machine needs numpy and CuPy, not LLVM: copy DIR there and run `harness gpu check DIR`,
or without the harness installed `python -m harness.gpu.check DIR`.
"""

BUILD_DESCRIPTION = f"""\
Build one kind of kernel into DIR: its PTX through llc, the mma instructions read back against
what the kernel must hold, ptxas closing it for its SM, and DIR/manifest.json (DIR is made
beside its place and renamed into it when complete) for `harness gpu check DIR`.

kinds:
  tile  one single-warp kernel per dense llvm.nvvm.mma.* row: each lane loads its A, B and C
        fragment registers at the places the PTX ISA's "Matrix Fragments" tables give, calls
        the intrinsic, and stores D the same way. Rows that run on {RUN_SM} are built for it,
        the .kind::f8f6f4 ones for sm_120a (PTX only).
  gemm  the tiled warp gemm of the specs' `gemm` sections (cases/*.yaml): mma.m16n8k16/k8,
        f16/bf16 in, f32 accumulate, (M/16)·(N/8) mma per K step.

planted faults (--plant, repeatable, or 'all'): a wrong layout on purpose, which the GPU must
catch. A fault a kernel's layout has no term for is a no-op: listed, not built.
  tile: {", ".join(fragments.PLANTS)}
  gemm: {", ".join(gemm.PLANTS)}

examples:
  harness gpu build --kind tile --out gpu-tiles
  harness gpu build --kind tile --out gpu-plant --plant all --filter 'mma.m16n8k16.*'
  harness gpu build --kind gemm --out gpu-gemm --filter 'gemm_16x8x16_*'
"""

BUILD_EPILOG = """\
exit status: 0 every kernel compiled with the mma it must hold and ptxas accepted it, 1 some
kernel did not, 2 bad input (a spec, a flag, an --out that is a symbolic link or another
directory, a tool that printed an error yet exited 0), 125 cannot judge (no NVPTX target or CPU
in the LLVM build, or no ptxas and no --no-ptxas).
"""

CHECK_EPILOG = """\
exit status: 0 every kernel run is within its bound, 1 some kernel is not, 2 bad input (no or a
malformed manifest, a missing PTX file), 125 cannot judge (no numpy, CuPy or CUDA device, or no
kernel this GPU runs). Without the harness installed: python -m harness.gpu.check DIR.
"""

COMPARE_DESCRIPTION = """\
NVIDIA's compiler as a second opinion on the kernels of a tile build: each kernel written again
as CUDA C, its mma.sync.aligned as inline PTX, each lane loading its fragment registers from the
same places (a planted fault too) and storing D the same way. nvcc -arch=<sm> -ptx compiles it
and ptxas closes nvcc's PTX; DIR/nvidia/ gets the .cu and .ptx files and a manifest. Per kernel,
nvcc's PTX against llc's: the mma instructions per mnemonic, and the registers in each of the
mma's brace groups (D, A, B, C).

With --gpu (a machine with a CUDA GPU, numpy and CuPy; no nvcc or LLVM needed): both kernels of
each tile DIR/nvidia lists run on the same inputs, and their D must be bitwise equal.

examples:
  harness gpu build --kind tile --out gpu-second && harness gpu compare gpu-second
  harness gpu compare gpu-second --gpu      # on the GPU machine
"""

COMPARE_EPILOG = """\
exit status: 0 every kernel agrees (--gpu: every D bitwise equal), 1 some kernel disagrees or
nvcc or ptxas rejects its CUDA C (--gpu: some D differs or a kernel does not run), 2 bad input
(no or a malformed manifest, a gemm build, a flag, a DIR/nvidia that is a symbolic link or not
gpu compare's, a tool that printed an error yet exited 0), 125 cannot judge (no nvcc or ptxas,
or they timed out or crashed on every kernel: such a kernel is not judged, never a
disagreement; --gpu: no numpy, CuPy or CUDA device, or no kernel run). Without the harness
installed, --gpu is: python -m harness.gpu.check DIR --compare.
"""


def add_parser(sub, formatter_class) -> argparse.ArgumentParser:
    """Add `gpu` (build, check, compare) and the old names, aliases of them, to the subcommands."""
    g = selection.command(sub, "gpu", GPU_HELP, GPU_DESCRIPTION, GPU_EPILOG, formatter_class)
    verbs = g.add_subparsers(dest="gpu_command", required=True, metavar="COMMAND", help="build, check or compare")
    made = lambda parent, name, help, text, epilog: selection.command(parent, name, help, text, epilog, formatter_class)
    _build_flags(made(verbs, "build", "build one kind of kernel", BUILD_DESCRIPTION, BUILD_EPILOG))
    _check_flags(made(verbs, "check", "run a build on a CUDA GPU and judge D", check.__doc__, CHECK_EPILOG))
    _compare_flags(made(verbs, "compare", "nvcc as a second opinion on a tile build", COMPARE_DESCRIPTION, COMPARE_EPILOG))
    for old, new in ALIASES.items():
        alias = f"alias of `harness {new}`, for one release"
        verb = new.split()[1]
        text = {"build": (BUILD_DESCRIPTION, BUILD_EPILOG), "check": (check.__doc__, CHECK_EPILOG)}
        description, epilog = text.get(verb, (COMPARE_DESCRIPTION, COMPARE_EPILOG))
        p = made(sub, old, None, f"{alias}.\n\n{description}", epilog)  # (not in the command list)
        p.set_defaults(gpu_command=verb)
        if verb == "build":
            _build_flags(p, kind=new.split()[-1])
        else:
            (_check_flags if verb == "check" else _compare_flags)(p)
    return g


def _build_flags(p: argparse.ArgumentParser, kind: str | None = None) -> None:
    if kind is None:
        p.add_argument("--kind", required=True, choices=("tile", "gemm"), help="which kernels (see above)")
    else:
        p.set_defaults(kind=kind)
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory for the PTX files and manifest.json")
    _filter_flag(p, "only kernels whose name matches (a tile kernel's mma row too); may repeat")
    p.add_argument(
        "--plant", action="append", default=[], metavar="FAULT", help="build with this wrong layout (or all); may repeat"
    )
    if kind == "gemm":  # (gemm-ptx's name for one planted layout)
        p.add_argument("--layout", dest="plant", action="append", metavar="LAYOUT", help="as --plant (ptx: the ISA's, no fault)")
    p.add_argument("--cases", type=Path, default=DEFAULT_CASES, metavar="DIR", help="gemm: the specs' directory")
    p.add_argument(
        "--spec", action="append", default=[], metavar="FILE", help="gemm: only this spec (a path, or a name in --cases)"
    )
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the GPU check's random inputs")
    p.add_argument("--ptxas", metavar="PATH", help="ptxas to close the PTX with (default: $PTXAS, PATH, /usr/local/cuda/bin)")
    p.add_argument("--no-ptxas", action="store_true", help="do not close the PTX with ptxas (mma counts only)")
    p.add_argument(
        "-j", "--jobs", type=selection.jobs, default=None, metavar="N", help="parallel llc/ptxas runs (default: cores)"
    )
    p.add_argument("--llvm-bin", metavar="DIR", help="directory with llc (LLVM 22 knows every row)")
    selection.add_timeout(p)
    p.add_argument("--json", action="store_true", help="print the manifest as JSON instead of a table")


def _filter_flag(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--filter", "--variant", action="append", default=[], metavar="GLOB", help=help)


def _check_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("directory", type=Path, metavar="DIR", help="PTX files and manifest.json from `harness gpu build`")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


def _compare_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("directory", type=Path, metavar="DIR", help="PTX files and manifest.json from `harness gpu build --kind tile`")
    p.add_argument("--gpu", action="store_true", help="run both sides of each kernel on the GPU instead of compiling")
    p.add_argument(
        "--filter",
        "--variant",
        action="append",
        default=[],
        metavar="GLOB",
        help="only kernels whose row or name matches (not with --gpu)",
    )
    p.add_argument(
        "--nvcc", metavar="PATH", help="nvcc to compile with (default: $NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)"
    )
    p.add_argument("--ptxas", metavar="PATH", help="ptxas to close nvcc's PTX with (default: $PTXAS, PATH, /usr/local/cuda/bin)")
    p.add_argument(
        "-j", "--jobs", type=selection.jobs, default=None, metavar="N", help="parallel nvcc/ptxas runs (default: cores)"
    )
    selection.add_timeout(p)
    p.add_argument("--json", action="store_true", help="print the manifest (--gpu: the report) as JSON instead of a table")


def cannot_judge(command: str, why: str) -> int:
    print(f"harness {command}: cannot judge: {why} (exit {CANNOT_JUDGE})", file=sys.stderr)
    return CANNOT_JUDGE


# ---- build ----------------------------------------------------------------------------------------


def gemm_cases(args) -> list[gemm.GemmCase]:
    """The gemm kernels of the chosen specs, narrowed by --filter; an error when none is left."""
    paths = []
    for name in args.spec:
        path = Path(name) if Path(name).is_file() else args.cases / Path(name).name
        if not path.is_file():
            raise InputError(f"--spec: no spec file {name!r} (neither a path nor a file in {args.cases})")
        paths.append(path)
    cases = gemm_spec.load_gemm(paths or gemm_spec.spec_paths(args.cases))
    if not cases:
        raise InputError(f"no 'gemm' section in the chosen specs ({', '.join(args.spec) or args.cases})")
    if args.filter:
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c.name, g) for g in args.filter)]
        if not cases:
            raise InputError(f"--filter {quoted(' '.join(args.filter))} matches no gemm kernel")
    return cases


def chosen(args, ptxas: str) -> build.Build:
    """The kernels, planted faults and descriptions of one build, from the flags."""
    if args.kind == "gemm":
        names = [n for n in args.plant if n != "ptx"]  # (--layout ptx: the ISA's layout)
        plants = list(gemm.PLANTS.values()) if "all" in names else [_plant(gemm.PLANTS, n, "gemm") for n in dict.fromkeys(names)]
        kernels, skipped = gemm.planted(gemm_cases(args), plants)
        described = {p.name: p.what for p in plants}
        return build.Build("gemm", list(kernels), described, skipped, gemm.MEMORY_TEXT, ptxas, args.seed)
    if args.spec or args.cases != DEFAULT_CASES:
        raise InputError("--spec and --cases choose gemm kernels; the tile kernels come from the rows (use --filter)")
    wanted = set(fragments.PLANTS) if "all" in args.plant else {_plant(fragments.PLANTS, n, "tile").name for n in args.plant}
    faults = [p for name, p in fragments.PLANTS.items() if name in wanted]
    tiles_, skipped = tiles.select(args.filter, faults)
    described = {p.name: p.what for p in faults}
    return build.Build("tile", list(tiles_), described, skipped, tiles.MEMORY_TEXT, ptxas, args.seed)


def _plant(plants: dict, name: str, kind: str):
    """The planted fault `name` of a kind's table (InputError naming the kind's faults)."""
    if name not in plants:
        other = "gemm" if kind == "tile" else "tile"
        hint = f" ({quoted(name)} is a {other} fault)" if name in (gemm.PLANTS if other == "gemm" else fragments.PLANTS) else ""
        raise InputError(f"--plant {quoted(name)}: {kind} kernels' planted faults are {', '.join(plants)}, or all{hint}")
    return plants[name]


def main_build(args) -> int:
    command = args.command if args.command in ALIASES else "gpu build"
    ptxas = "" if args.no_ptxas else toolchain.find_ptxas(args.ptxas)
    what = chosen(args, ptxas)
    tc = toolchain.discover(args.llvm_bin, args.timeout)
    why = build.check_build(tc, what.kernels)
    if not why and not ptxas and not args.no_ptxas:
        why = "no ptxas (give --ptxas, set $PTXAS or put it on PATH; --no-ptxas skips closing)"
    what = what if why else what.without_unsupported(tc)
    if not why and not what.kernels:
        why = f"{tc.describe()} declares none of their intrinsics ({what.unsupported[0].why})"
    if why:
        return cannot_judge(command, why)
    print(f"# {tc.describe()}; ptxas: {ptxas or 'not used'}", file=sys.stderr)
    built = build.build_all(tc, what, args.out, args.jobs)
    if args.json:
        print(files.json_text(build.manifest_doc(tc, what, built)))
    else:
        print(build.table(built, what))
        print(f"PTX and {manifest.MANIFEST} in {args.out}")
    status = build.exit_status(built)
    if status == CANNOT_JUDGE:
        return cannot_judge(command, "ptxas timed out or crashed on every kernel (see --timeout)")
    return status


# ---- check and compare ------------------------------------------------------------------------------


def main_check(args) -> int:
    return check.run(args.directory, args.json)


def main_compare(args) -> int:
    command = args.command if args.command in ALIASES else "gpu compare"
    if args.gpu:
        if args.filter:
            raise InputError("--filter chooses kernels to compile; with --gpu every kernel of DIR/nvidia runs")
        return check.run(args.directory, args.json, compare=True)
    chosen_ = second.select(second.load(args.directory), args.directory / manifest.MANIFEST, args.filter)
    nvcc, ptxas = toolchain.find_nvcc(args.nvcc), toolchain.find_ptxas(args.ptxas)
    if not nvcc:
        return cannot_judge(command, "no nvcc (give --nvcc, set $NVCC or $CUDA_HOME, or put it on PATH)")
    if not ptxas:
        return cannot_judge(command, "no ptxas (give --ptxas, set $PTXAS or put it on PATH)")
    version = second.nvcc_version(nvcc)
    print(f"# nvcc: {nvcc} ({version}); ptxas: {ptxas}", file=sys.stderr)
    tools = second.Tools(nvcc, version, ptxas, args.timeout)
    made = second.build_all(args.directory, chosen_, tools, args.jobs)
    status = second.exit_status(made)
    if args.json:
        print(files.json_text(second.manifest_doc(tools, made)))
    else:
        print(second.table(made))
        if status != CANNOT_JUDGE:
            print(f"CUDA C, nvcc's PTX and {manifest.MANIFEST} in {args.directory / manifest.NVIDIA}")
    if status == CANNOT_JUDGE:
        why = "nvcc or ptxas timed out or crashed on every kernel (see --timeout); DIR/nvidia is as it was"
        return cannot_judge(command, why)
    return status


VERBS = {"build": main_build, "check": main_check, "compare": main_compare}


def main_gpu(args) -> int:
    return VERBS[args.gpu_command](args)


COMMANDS = {"gpu": main_gpu, **dict.fromkeys(ALIASES, main_gpu)}
