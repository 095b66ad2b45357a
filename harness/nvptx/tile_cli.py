"""Commands `harness tile-ptx` (one single-warp kernel per dense mma row: PTX, mma count, ptxas,
manifest), `harness tile-check` (their numerics on a CUDA GPU) and `harness tile-compare`
(NVIDIA's compiler as a second opinion on the same kernels: harness.nvptx.second).

Registered through harness/nvptx/cli.py (its add_parser calls `tile_cli.add_parser`, its
COMMANDS holds these), as gemm-ptx is; each command returns its exit status and raises
InputError (one line, exit 2) on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.nvptx import fragments, ptx, second, second_check, tile_check, tiles
from harness.specs import selection
from harness.tools import toolchain

CANNOT_JUDGE = 125

TILE_PTX_DESCRIPTION = f"""\
One single-warp kernel per dense llvm.nvvm.mma.* row: each lane loads its A, B and C fragment
registers from global memory at the places the PTX ISA's "Matrix Fragments" tables give, calls
the intrinsic, and stores D the same way. Rows that run on {tiles.RUN_SM} are built for it (llc
-mcpu={tiles.RUN_SM} with the row's -mattr), the .kind::f8f6f4 ones for sm_120a (PTX only);
ptxas closes each for its SM. DIR gets the PTX files and manifest.json (made beside it and
renamed into place) for `harness tile-check DIR` on a machine with a GPU, numpy and CuPy.

planted faults (--plant, repeatable, or 'all'):
{chr(10).join(f"  {p.name:18} {p.what}" for p in fragments.PLANTS.values())}
A fault the row's layout has no term for (no + 8 row half, no K-high half) is a no-op: listed,
not built.

examples:
  harness tile-ptx --out gpu-tiles
  harness tile-ptx --out gpu-plant --plant all --variant 'mma.m16n8k16.*'
"""

TILE_PTX_EPILOG = """\
exit status: 0 every kernel compiled with its one mma and ptxas accepted it, 1 some kernel did
not, 2 bad input (a flag, an --out that is a symbolic link or another directory), 125 cannot
judge (no NVPTX target or CPU in the LLVM build, or no ptxas).
"""

TILE_CHECK_EPILOG = """\
exit status: 0 every kernel run is within its bound, 1 some kernel is not, 2 bad input (no or a
malformed manifest, a missing PTX file), 125 cannot judge (no numpy, CuPy or CUDA device, or no
kernel this GPU runs). Without the harness installed: python -m harness.nvptx.tile_check DIR.
"""


TILE_COMPARE_DESCRIPTION = """\
NVIDIA's compiler as a second opinion on the kernels of a `harness tile-ptx` directory: each
kernel written again as CUDA C, its mma.sync.aligned as inline PTX, each lane loading its
fragment registers from the same places (a planted fault too) and storing D the same way.
nvcc -arch=<sm> -ptx compiles it and ptxas closes nvcc's PTX; DIR/nvidia/ gets the .cu and .ptx
files and a manifest (made inside DIR and renamed into place). Per kernel, nvcc's PTX against
llc's: the mma instructions per mnemonic, and the registers in each of the mma's brace groups
(D, A, B, C).

With --gpu (a machine with a CUDA GPU, numpy and CuPy; no nvcc or LLVM needed): both kernels of
each tile DIR/nvidia lists run on the same inputs, and their D must be bitwise equal.

examples:
  harness tile-ptx --out gpu-second && harness tile-compare gpu-second
  harness tile-compare gpu-second --gpu      # on the GPU machine
"""

TILE_COMPARE_EPILOG = """\
exit status: 0 every kernel agrees (--gpu: every D bitwise equal), 1 some kernel disagrees or
nvcc or ptxas rejects its CUDA C (--gpu: some D differs or a kernel does not run), 2 bad input
(no or a malformed manifest, a flag, a DIR/nvidia that is a symbolic link or not tile-compare's),
125 cannot judge (no nvcc or ptxas, or they timed out or crashed on every kernel: such a kernel
is not judged, never a disagreement; --gpu: no numpy, CuPy or CUDA device, or no kernel run).
Without the harness installed, --gpu is: python -m harness.nvptx.second_check DIR.
"""


def add_parser(sub, formatter_class) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """Add `tile-ptx`, `tile-check` and `tile-compare` to the harness's subcommands."""
    p = sub.add_parser(
        "tile-ptx",
        help="one kernel per dense NVPTX mma row: PTX, mma count, ptxas, manifest",
        description=TILE_PTX_DESCRIPTION,
        epilog=TILE_PTX_EPILOG,
        formatter_class=formatter_class,
    )
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory for the PTX files and manifest.json")
    p.add_argument("--variant", action="append", default=[], metavar="GLOB", help="only rows whose name matches; may repeat")
    p.add_argument(
        "--plant",
        action="append",
        default=[],
        metavar="FAULT",
        help=f"build with this wrong layout instead ({', '.join(fragments.PLANTS)}, or all); may repeat",
    )
    p.add_argument("--seed", type=int, default=ptx.DEFAULT_SEED, help="seed of the GPU check's random inputs")
    p.add_argument("--ptxas", metavar="PATH", help="ptxas to close the PTX with (default: $PTXAS, PATH, /usr/local/cuda/bin)")
    p.add_argument(
        "-j", "--jobs", type=selection.jobs, default=None, metavar="N", help="parallel llc/ptxas runs (default: cores)"
    )
    p.add_argument("--llvm-bin", metavar="DIR", help="directory with llc (LLVM 22 knows every row)")
    selection.add_timeout(p)
    p.add_argument("--json", action="store_true", help="print the manifest as JSON instead of a table")

    q = sub.add_parser(
        "tile-check",
        help="run the tile kernels' PTX on a CUDA GPU and judge D = A·B + C against numpy",
        description=tile_check.__doc__,
        epilog=TILE_CHECK_EPILOG,
        formatter_class=formatter_class,
    )
    q.add_argument("directory", type=Path, metavar="DIR", help="PTX files and manifest.json from `harness tile-ptx`")
    q.add_argument("--json", action="store_true", help="print the report as JSON")
    add_compare_parser(sub, formatter_class)
    return p, q


def add_compare_parser(sub, formatter_class) -> argparse.ArgumentParser:
    c = sub.add_parser(
        "tile-compare",
        help="NVIDIA's nvcc as a second opinion on the tile kernels: mma and register groups, and on a GPU D bitwise",
        description=TILE_COMPARE_DESCRIPTION,
        epilog=TILE_COMPARE_EPILOG,
        formatter_class=formatter_class,
    )
    c.add_argument("directory", type=Path, metavar="DIR", help="PTX files and manifest.json from `harness tile-ptx`")
    c.add_argument("--gpu", action="store_true", help="run both sides of each kernel on the GPU instead of compiling")
    c.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="GLOB",
        help="only tiles whose name matches (not with --gpu); may repeat",
    )
    c.add_argument(
        "--nvcc", metavar="PATH", help="nvcc to compile with (default: $NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)"
    )
    c.add_argument("--ptxas", metavar="PATH", help="ptxas to close nvcc's PTX with (default: $PTXAS, PATH, /usr/local/cuda/bin)")
    c.add_argument(
        "-j", "--jobs", type=selection.jobs, default=None, metavar="N", help="parallel nvcc/ptxas runs (default: cores)"
    )
    selection.add_timeout(c)
    c.add_argument("--json", action="store_true", help="print the manifest (--gpu: the report) as JSON instead of a table")
    return c


def plants(names: list[str]) -> list[fragments.Plant]:
    """The faults --plant names ('all': every one), each once, in PLANTS order."""
    wanted = set(fragments.PLANTS) if "all" in names else {fragments.plant(n).name for n in names}
    return [p for name, p in fragments.PLANTS.items() if name in wanted]


def main_tile_ptx(args) -> int:
    chosen, skipped = tiles.select(args.variant, plants(args.plant))
    tc = toolchain.discover(args.llvm_bin, args.timeout)
    ptxas = ptx.find_ptxas(args.ptxas)
    why = tiles.check_build(tc, chosen) or ("" if ptxas else "no ptxas (give --ptxas, set $PTXAS or put it on PATH)")
    if why:
        print(f"harness tile-ptx: cannot judge: {why} (exit {CANNOT_JUDGE})", file=sys.stderr)
        return CANNOT_JUDGE
    print(f"# {tc.describe()}; ptxas: {ptxas}", file=sys.stderr)
    built = tiles.build_all(tc, chosen, args.out, ptxas, skipped, args.jobs, args.seed)
    if args.json:
        print(json.dumps(tiles.manifest(tc, built, ptxas, skipped, args.seed), indent=1))
    else:
        print(tiles.table(built, skipped))
        print(f"PTX and {tiles.MANIFEST} in {args.out}")
    return 1 if any(b.problems for b in built) else 0


def main_tile_check(args) -> int:
    return tile_check.run(args.directory, args.json)


def main_tile_compare(args) -> int:
    if args.gpu:
        return second_check.run(args.directory, args.json)
    chosen = second.select(second.load(args.directory), args.directory / tiles.MANIFEST, args.variant)
    nvcc, ptxas = toolchain.find_nvcc(args.nvcc), ptx.find_ptxas(args.ptxas)
    version = second.nvcc_version(nvcc, args.timeout) if nvcc else ""
    why = (
        "no nvcc (give --nvcc, set $NVCC or $CUDA_HOME, or put it on PATH)"
        if not nvcc
        else f"{nvcc} does not run (nvcc --version)"
        if not version
        else ""
        if ptxas
        else "no ptxas (give --ptxas, set $PTXAS or put it on PATH)"
    )
    if why:
        print(f"harness tile-compare: cannot judge: {why} (exit {CANNOT_JUDGE})", file=sys.stderr)
        return CANNOT_JUDGE
    print(f"# nvcc: {nvcc} ({version}); ptxas: {ptxas}", file=sys.stderr)
    tools = second.Tools(nvcc, version, ptxas, args.timeout)
    made = second.build_all(args.directory, chosen, tools, args.jobs)
    if args.json:
        print(json.dumps(second.manifest(tools, made), indent=1))
    else:
        print(second.table(made))
        print(f"CUDA C, nvcc's PTX and {tiles.MANIFEST} in {args.directory / second.NVIDIA}")
    status = second.exit_status(made)
    if status == CANNOT_JUDGE:
        why = "nvcc or ptxas timed out or crashed on every kernel (see --timeout)"
        print(f"harness tile-compare: cannot judge: {why} (exit {CANNOT_JUDGE})", file=sys.stderr)
    return status


COMMANDS = {"tile-ptx": main_tile_ptx, "tile-check": main_tile_check, "tile-compare": main_tile_compare}
