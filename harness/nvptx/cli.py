"""Commands `harness gemm-ptx` (the gemm spec -> PTX files, mma counts, ptxas, manifest) and
`harness gpu-check` (those kernels' numerics on a CUDA GPU); `tile-ptx` and `tile-check` (one
kernel per dense mma row) come from tile_cli and are added here.

harness/parser.py's ELSEWHERE names this module for each of them (`add_parser` adds their
flags, `COMMANDS` runs them); each command returns its exit status and raises InputError (one
line, exit 2) on bad input.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from pathlib import Path

from harness.core import verdicts
from harness.core.errors import InputError
from harness.nvptx import gemm, gemm_spec, gpu_check, ptx, tile_cli
from harness.specs import selection
from harness.tools import toolchain

DEFAULT_CASES = Path(__file__).resolve().parents[2] / "cases"
CANNOT_JUDGE = 125

GEMM_PTX_DESCRIPTION = """\
Expand the `gemm` sections of the specs (cases/*.yaml) into one kernel each, compile each with
llc for its CPU into DIR/<kernel>.ptx, count its mma.sync instructions per variant against
(M/16)·(N/8) per K step, close each with ptxas -arch=<cpu>, and write DIR/manifest.json for
`harness gpu-check DIR` (which runs on a machine with a GPU, numpy and CuPy, and no LLVM).

examples:
  harness gemm-ptx --out gpu-run
  harness gemm-ptx --out wrong --layout a-rows-swapped --filter 'gemm_16x8x16_*'   # plant a wrong layout
"""

GEMM_PTX_EPILOG = """\
exit status: 0 every kernel compiled with the expected mma counts and ptxas accepted it, 1 some
kernel did not, 2 bad input (a spec, a flag), 125 cannot judge (no NVPTX target or CPU in the
LLVM build, or no ptxas and no --no-ptxas).
"""

GPU_CHECK_EPILOG = """\
exit status: 0 every kernel within tolerance, 1 some kernel is not, 2 bad input (no manifest),
125 cannot judge (no numpy, CuPy or CUDA device). Without the harness installed:
python -m harness.nvptx.gpu_check DIR [--json].
"""


def add_parser(sub, formatter_class) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """Add `gemm-ptx` and `gpu-check` to the harness's subcommands."""
    p = sub.add_parser(
        "gemm-ptx",
        help="NVPTX gemm kernels from the specs: PTX, mma counts, ptxas, manifest",
        description=GEMM_PTX_DESCRIPTION,
        epilog=GEMM_PTX_EPILOG,
        formatter_class=formatter_class,
    )
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory for the PTX files and manifest.json")
    p.add_argument("--cases", type=Path, default=DEFAULT_CASES, metavar="DIR", help="the specs' directory")
    p.add_argument(
        "--spec",
        action="append",
        default=[],
        metavar="FILE",
        help="only this spec file (a path, or a name in --cases); may repeat",
    )
    p.add_argument("--filter", action="append", default=[], metavar="GLOB", help="only kernels whose name matches")
    p.add_argument(
        "--layout",
        default="ptx",
        choices=tuple(gemm.LAYOUTS),
        help="fragment layout of the loads and stores (default: the PTX ISA's; others are wrong on purpose)",
    )
    p.add_argument("--seed", type=int, default=ptx.DEFAULT_SEED, help="seed of the GPU check's random inputs")
    p.add_argument("--ptxas", metavar="PATH", help="ptxas to close the PTX with (default: $PTXAS, PATH, /usr/local/cuda/bin)")
    p.add_argument("--no-ptxas", action="store_true", help="do not close the PTX with ptxas")
    p.add_argument(
        "-j", "--jobs", type=selection.jobs, default=None, metavar="N", help="parallel llc/ptxas runs (default: cores)"
    )
    p.add_argument("--llvm-bin", metavar="DIR", help="directory with llc")
    selection.add_timeout(p)
    p.add_argument("--json", action="store_true", help="print the manifest's cases as JSON instead of a table")

    q = sub.add_parser(
        "gpu-check",
        help="run the gemm kernels' PTX on a CUDA GPU and compare with numpy",
        description=gpu_check.__doc__,
        epilog=GPU_CHECK_EPILOG,
        formatter_class=formatter_class,
    )
    q.add_argument("directory", type=Path, metavar="DIR", help="PTX files and manifest.json from `harness gemm-ptx`")
    q.add_argument("--json", action="store_true", help="print the report as JSON")
    tile_cli.add_parser(sub, formatter_class)  # tile-ptx and tile-check
    return p, q


def selected_cases(args) -> list[gemm.GemmCase]:
    """The kernels of the chosen specs, narrowed by --filter; an error when none is left."""
    if args.spec:
        paths = []
        for name in args.spec:
            path = Path(name) if Path(name).is_file() else args.cases / Path(name).name
            if not path.is_file():
                raise InputError(f"--spec: no spec file {name!r} (neither a path nor a file in {args.cases})")
            paths.append(path)
        cases = gemm_spec.load_gemm(paths)
    else:
        cases = gemm_spec.load_gemm(gemm_spec.spec_paths(args.cases))
    if not cases:
        raise InputError(f"no 'gemm' section in the chosen specs ({', '.join(args.spec) or args.cases})")
    if args.filter:
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c.name, g) for g in args.filter)]
        if not cases:
            raise InputError(f"--filter {' '.join(args.filter)} matches no gemm kernel")
    return cases


def main_gemm_ptx(args) -> int:
    cases = selected_cases(args)
    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"--jobs must be at least 1; got {args.jobs}")
    tc = toolchain.discover(args.llvm_bin, args.timeout)
    why = ptx.check_build(tc, cases)
    if why:
        print(f"harness gemm-ptx: cannot judge: {why} (exit {CANNOT_JUDGE})", file=sys.stderr)
        return CANNOT_JUDGE
    ptxas = "" if args.no_ptxas else ptx.find_ptxas(args.ptxas)
    if not ptxas and not args.no_ptxas:
        print(
            f"harness gemm-ptx: cannot judge: no ptxas (give --ptxas, set $PTXAS or put it on PATH; "
            f"--no-ptxas skips closing) (exit {CANNOT_JUDGE})",
            file=sys.stderr,
        )
        return CANNOT_JUDGE
    print(f"# {tc.describe()}; ptxas: {ptxas or 'not used'}; layout {args.layout}", file=sys.stderr)
    built = ptx.build_all(tc, cases, args.out, ptxas, gemm.layout(args.layout), args.jobs, args.seed)
    _no_verdict_from_lies(built, args.out)
    if args.json:
        print(json.dumps([b.record(args.seed) for b in built], indent=1))
    else:
        print(ptx.table(built, args.no_ptxas))
        print(f"PTX and {ptx.MANIFEST} in {args.out}")
    return 1 if any(b.problems for b in built) else 0


def _no_verdict_from_lies(built: list[ptx.Built], out: Path) -> None:
    """A ptxas that printed an error yet exited 0 gives no verdict: the manifest (which would
    call its kernels closed) is removed and the command stops with one line naming ptxas."""
    for b in built:
        run = b.ptxas
        if run is None or not run.ok:
            continue
        line = next((l.strip() for l in f"{run.stderr}\n{run.stdout}".splitlines() if verdicts.says_error(l)), "")
        if line:
            (out / ptx.MANIFEST).unlink(missing_ok=True)
            raise InputError(f"{run.argv[0]} exited 0 but printed an error on {b.case.name}: {line[:200]}")


def main_gpu_check(args) -> int:
    return gpu_check.run(args.directory, args.json)


COMMANDS = {"gemm-ptx": main_gemm_ptx, "gpu-check": main_gpu_check, **tile_cli.COMMANDS}
