"""Run the gemm kernels' PTX on a CUDA GPU and compare D with numpy: `python -m harness.nvptx.gpu_check DIR`.

DIR holds the PTX files and `manifest.json` that `harness gemm-ptx --out DIR` writes. Per kernel:
random A, B uniform in [-1, 1] rounded to the dtype (f16 through numpy float16, bf16 by rounding
float32 to the nearest even bf16), C uniform in [-1, 1] (f32), the kernel launched on one warp
through CuPy, and D compared with the float32 reference R = A@B (+ C when beta = 1).

Tolerance, per element: |D - R| <= tol = 6·(K + 1)·2^-24 · (|A|@|B| + beta·|C|). Every product of
two f16 (11-bit) or bf16 (8-bit) significands is exact in f32, so D and R differ only by how
their K (+ 1) f32 additions round: R (numpy, round to nearest) is within (K + 1)·2^-24 of the
exact sum relative to the sum of magnitudes, the tensor core (which may truncate rather than round)
within twice that; tol doubles the sum of both. A wrong fragment layout moves whole products
(errors of the order of |A|@|B| itself, 10^5 times tol), so it cannot pass.

Exit status: 0 every kernel within tolerance, 1 some kernel is not, 2 bad input (no manifest),
125 cannot judge: no numpy, no CuPy or no CUDA device (or no kernel this GPU can run).
This module imports only the standard library, numpy and CuPy: the GPU machine has no LLVM and
perhaps no pyyaml.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "manifest.json"
EXIT_OK, EXIT_FAIL, EXIT_BAD, EXIT_CANNOT = 0, 1, 2, 125
TOLERANCE = "|D - R| <= 6·(K+1)·2^-24·(|A|@|B| + beta·|C|) per element (R: numpy float32 A@B + beta·C)"


class CannotJudge(Exception):
    """No numpy, CuPy or CUDA device: this machine cannot judge the numerics."""


class BadInput(Exception):
    """A missing or malformed manifest or PTX file."""


def tolerance_factor(k: int) -> float:
    return 6.0 * (k + 1) * 2.0**-24


# ---- inputs and reference (numpy only) -------------------------------------------------------


def bf16_bits(x):
    """float32 array -> uint16 bf16 bits, rounded to nearest even (inputs here are finite)."""
    import numpy as np

    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(bits):
    import numpy as np

    return (bits.astype(np.uint32) << 16).view(np.float32)


def rounded(x, dtype: str):
    """(values as float32, array in the kernel's element type) of x rounded to `dtype`."""
    import numpy as np

    if dtype == "f16":
        half = x.astype(np.float16)
        return half.astype(np.float32), half
    bits = bf16_bits(x)
    return bf16_value(bits), bits


def inputs(entry: dict) -> dict:
    """The kernel's inputs (as stored: A [M,K] or [K,M], B [K,N] or [N,K]) and their values."""
    import numpy as np

    m, n, k, dtype = entry["m"], entry["n"], entry["k"], entry["dtype"]
    rng = np.random.default_rng(entry["seed"])
    a, a_elems = rounded(rng.uniform(-1, 1, (m, k)).astype(np.float32), dtype)
    b, b_elems = rounded(rng.uniform(-1, 1, (k, n)).astype(np.float32), dtype)
    c = rng.uniform(-1, 1, (m, n)).astype(np.float32)
    stored_a = np.ascontiguousarray(a_elems.T if entry["transpose_a"] else a_elems)
    stored_b = np.ascontiguousarray(b_elems.T if entry["transpose_b"] else b_elems)
    return {"a": a, "b": b, "c": c, "stored_a": stored_a, "stored_b": stored_b}


def reference(a, b, c, beta: int):
    """(R in float32, exact value in float64, magnitude |A|@|B| + beta·|C| in float64)."""
    import numpy as np

    r = (a @ b).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    if beta:
        r = (r + c).astype(np.float32)
        exact = exact + c
        scale = scale + np.abs(c.astype(np.float64))
    return r, exact, scale


def judge(d, r, exact, scale, k: int) -> dict:
    """Errors of D against R and the tolerance; `ok` when every element is within it."""
    import numpy as np

    d64 = d.astype(np.float64)
    err = np.abs(d64 - r.astype(np.float64))
    tol = tolerance_factor(k) * scale
    finite = bool(np.all(np.isfinite(d64)))
    peak = float(np.max(np.abs(r))) or 1.0
    worst = float(np.max(err / np.maximum(tol, np.finfo(np.float64).tiny))) if finite else float("inf")
    return {
        "max_abs": float(np.max(err)) if finite else float("inf"),
        "max_rel": float(np.max(err)) / peak if finite else float("inf"),
        "max_abs_vs_exact": float(np.max(np.abs(d64 - exact))) if finite else float("inf"),
        "tol_max": float(np.max(tol)),
        "worst_over_tol": worst,
        "ok": finite and worst <= 1.0,
    }


# ---- the GPU ------------------------------------------------------------------------------------


def device():
    """(cupy, description) of CUDA device 0, or CannotJudge saying what is missing."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise CannotJudge("numpy is not installed") from None
    try:
        import cupy
    except ImportError:
        raise CannotJudge("CuPy is not installed (pip install cupy-cuda12x or cupy-cuda13x)") from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDA driver missing or broken: CuPy raises its own runtime errors
        raise CannotJudge(f"no CUDA device ({type(exc).__name__}: {exc})") from None
    if count < 1:
        raise CannotJudge("no CUDA device")
    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    info = {
        "name": name,
        "cc": [int(props["major"]), int(props["minor"])],
        "cupy": cupy.__version__,
        "driver": cupy.cuda.runtime.driverGetVersion(),
        "runtime": cupy.cuda.runtime.runtimeGetVersion(),
    }
    return cupy, info


def runs_on(cpu: str, cc: list[int]) -> bool:
    """Whether PTX built for `cpu` (sm_90, sm_90a, sm_100f, ...) loads on compute capability cc."""
    m = re.fullmatch(r"sm_(\d+)([af]?)", cpu)
    if not m:
        return False
    want = (int(m.group(1)) // 10, int(m.group(1)) % 10)
    have = tuple(cc)
    if m.group(2) == "a":
        return have == want
    if m.group(2) == "f":
        return have[0] == want[0] and have[1] >= want[1]
    return have >= want


def run_kernel(cupy, ptx: Path, entry: dict, data: dict):
    """Launch the kernel on one warp; D as numpy float32 (NaN where the kernel wrote nothing)."""
    import numpy as np

    module = cupy.RawModule(path=str(ptx))
    kernel = module.get_function(entry["kernel"])
    a = cupy.asarray(data["stored_a"])
    b = cupy.asarray(data["stored_b"])
    c = cupy.asarray(data["c"])
    d = cupy.full((entry["m"], entry["n"]), np.nan, dtype=cupy.float32)
    kernel((1,), (32,), (a, b, c, d))
    cupy.cuda.Device().synchronize()
    return cupy.asnumpy(d)


def check_case(cupy, directory: Path, entry: dict) -> dict:
    data = inputs(entry)
    d = run_kernel(cupy, directory / entry["ptx"], entry, data)
    r, exact, scale = reference(data["a"], data["b"], data["c"], entry["beta"])
    return judge(d, r, exact, scale, entry["k"])


# ---- the command ------------------------------------------------------------------------------


MAX_MANIFEST_BYTES = 64 << 20  # a manifest of every gemm kernel the specs allow is a few MB
MAX_MMA = 1024  # mma.sync one kernel may hold (as `harness.nvptx.gemm` allows)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_CPU = re.compile(r"sm_\d{2,3}[af]?")
# Each key of a gemm manifest's case and its type (`_case_problem` checks the values too).
_CASE_KEYS: dict[str, type] = {
    "kernel": str,
    "ptx": str,
    "m": int,
    "n": int,
    "k": int,
    "dtype": str,
    "beta": int,
    "transpose_a": bool,
    "transpose_b": bool,
    "cpu": str,
    "seed": int,
}
_KIND_NAMES = {str: "text", int: "an integer", bool: "true or false"}


def shown(value, form: Callable[[object], str] = json.dumps) -> str:
    """A manifest value as one message line shows it: JSON (or `form`), cut to about 40 characters."""
    try:
        text = form(value)
    except ValueError:  # (an integer past Python's digit limit)
        return "a longer integer"
    return text if len(text) <= 40 else f"{text[:40]}... ({len(text):,} characters)"


def read_manifest(directory: Path, make: str) -> object:
    """The parsed manifest.json of `directory` (`make`: the command that makes it): a regular
    file of at most MAX_MANIFEST_BYTES (a FIFO or a device is refused, never read), UTF-8 JSON;
    BadInput, one line, for anything else."""
    from harness.core import files
    from harness.core.errors import InputError

    path = directory / MANIFEST
    try:
        data = files.read_input(path, MAX_MANIFEST_BYTES, "manifest")
    except InputError as exc:
        why = exc.message.replace("read manifest", "read the manifest")
        raise BadInput(f"{path}: {why}; make it with `{make}`") from None
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BadInput(f"{path}: not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    except RecursionError:
        raise BadInput(f"{path}: not a manifest: JSON nested too deeply") from None


def manifest_format(directory: Path) -> object:
    """The `format` of `directory`'s manifest; None where there is none that reads as one."""
    try:
        doc = read_manifest(directory, "")
    except BadInput:
        return None
    return doc.get("format") if isinstance(doc, dict) else None


def load_manifest(directory: Path) -> dict:
    """The manifest of a `harness gemm-ptx` directory, every case checked (BadInput, one line)."""
    path = directory / MANIFEST
    doc = read_manifest(directory, f"harness gemm-ptx --out {directory}")
    if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list) or not doc["cases"]:
        raise BadInput(f"{path}: the manifest lists no cases")
    if not isinstance(doc.get("layout", "ptx"), str):
        raise BadInput(f"{path}: layout {json.dumps(doc['layout'])[:40]} is not text")
    for i, entry in enumerate(doc["cases"]):
        why = _case_problem(directory, entry)
        if why:
            name = entry.get("kernel") if isinstance(entry, dict) else None
            raise BadInput(f"{path}: case {i}{f' ({name})' if isinstance(name, str) else ''}: {why}")
    return doc


def _case_problem(directory: Path, entry) -> str:
    """What is wrong with one case of a gemm manifest ("" when nothing)."""
    if not isinstance(entry, dict):
        return "not an object"
    for key, kind in _CASE_KEYS.items():
        value = entry.get(key)
        if type(value) is not kind:
            return f"{key} is {shown(value)}, not {_KIND_NAMES[kind]}" if key in entry else f"lacks {key}"
    if not isinstance(entry.get("layout", "ptx"), str):
        return f"layout {shown(entry['layout'])} is not text"
    m, n, k = entry["m"], entry["n"], entry["k"]
    shape = "x".join(map(shown, (m, n, k)))
    if not (m > 0 and n > 0 and k > 0 and m % 16 == n % 8 == k % 8 == 0):
        return f"shape {shape} is not made of m16n8k8 tiles"
    if (m // 16) * (n // 8) * (k // 16 + k % 16 // 8) > MAX_MMA:
        return f"shape {shape} unrolls to more than {MAX_MMA} mma.sync (gemm-ptx makes no such kernel)"
    if entry["dtype"] not in ("f16", "bf16"):
        return f"dtype {entry['dtype']!r} is not f16 or bf16"
    if entry["beta"] not in (0, 1):
        return f"beta {shown(entry['beta'])} is not 0 or 1"
    if not 0 <= entry["seed"] < 2**64:
        return f"seed {shown(entry['seed'])} is not a 64-bit seed"
    if not _CPU.fullmatch(entry["cpu"]):
        return f"cpu {entry['cpu']!r} is not an NVPTX CPU (sm_NN)"
    if not _IDENT.fullmatch(entry["kernel"]):
        return f"kernel name {entry['kernel']!r} is not a PTX identifier"
    ptx = directory / entry["ptx"]
    if "/" in entry["ptx"] or entry["ptx"] in ("", ".", "..") or ptx.is_symlink() or not ptx.is_file():
        return f"no PTX file {entry['ptx']!r} in {directory} (llc failed?)"
    return ""


def check_all(directory: Path) -> dict:
    """Every case of the manifest run and judged: the report `--json` prints."""
    doc = load_manifest(directory)
    cupy, gpu = device()
    rows = []
    for entry in doc["cases"]:
        row = {key: entry[key] for key in ("kernel", "m", "n", "k", "dtype", "beta", "transpose_a", "transpose_b", "cpu")}
        row["layout"] = entry.get("layout", doc.get("layout", "ptx"))
        if not runs_on(entry["cpu"], gpu["cc"]):
            row.update(
                verdict="not-run", why=f"PTX for {entry['cpu']} does not run on compute capability {gpu['cc'][0]}.{gpu['cc'][1]}"
            )
        else:
            try:
                result = check_case(cupy, directory, entry)
            except Exception as exc:  # CuPy/CUDA refusing the PTX or the launch: this kernel fails
                row.update(verdict="fail", why=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            else:
                row.update(result, verdict="pass" if result["ok"] else "fail")
        rows.append(row)
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in ("pass", "fail", "not-run")}
    judged = [r for r in rows if "worst_over_tol" in r]
    worst = max(judged, key=lambda r: r["worst_over_tol"]) if judged else None
    return {
        "gpu": gpu,
        "directory": str(directory),
        "tolerance": TOLERANCE,
        "layout": doc.get("layout", "ptx"),
        "cases": rows,
        "summary": {**counts, "worst": worst and {k: worst[k] for k in ("kernel", "max_abs", "max_rel", "worst_over_tol")}},
    }


def exit_status(report: dict) -> int:
    s = report["summary"]
    if s["fail"]:
        return EXIT_FAIL
    return EXIT_CANNOT if s["not-run"] and not s["pass"] else EXIT_OK


def table(report: dict) -> str:
    g = report["gpu"]
    lines = [
        (
            f"GPU: {g['name']} (compute capability {g['cc'][0]}.{g['cc'][1]}, CuPy {g['cupy']}, "
            f"driver {g['driver']}, runtime {g['runtime']}); fragment layout {report['layout']}"
        ),
        f"tolerance: {report['tolerance']}",
    ]
    head = ("kernel", "max_abs", "max_rel", "max_err/tol", "verdict")
    rows = [head]
    for r in report["cases"]:
        if "why" in r:
            rows.append((r["kernel"], "-", "-", "-", f"{r['verdict']} ({r['why']})"))
        else:
            rows.append((r["kernel"], f"{r['max_abs']:.3g}", f"{r['max_rel']:.3g}", f"{r['worst_over_tol']:.3g}", r["verdict"]))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + "  " + row[4] for row in rows]
    s = report["summary"]
    lines.append(
        f"{len(report['cases'])} kernels: {s['pass']} within tolerance, {s['fail']} not, {s['not-run']} not run"
        + (f"; worst {s['worst']['kernel']} at {s['worst']['worst_over_tol']:.3g} of tol" if s["worst"] else "")
    )
    return "\n".join(lines)


@dataclass(frozen=True)
class Checker:
    """A GPU check as a command: its name in messages, what it reads, how it judges and prints,
    and the key of its (empty) list of results in a --json document that says `cannot_judge`."""

    prog: str
    description: str
    epilog: str
    directory_help: str
    check_all: Callable[[Path], dict]
    table: Callable[[dict], str]
    exit_status: Callable[[dict], int]
    results_key: str

    def main(self, argv: list[str] | None = None) -> int:
        parser = argparse.ArgumentParser(prog=self.prog, description=self.description, epilog=self.epilog)
        parser.add_argument("directory", type=Path, metavar="DIR", help=self.directory_help)
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        args = parser.parse_args(argv)
        return self.run(args.directory, args.json)

    def run(self, directory: Path, as_json: bool = False) -> int:
        """The command's work: print the report, return the exit status."""
        try:
            report = self.check_all(directory)
        except BadInput as exc:
            print(f"{self.prog}: error: {exc}", file=sys.stderr)
            return EXIT_BAD
        except CannotJudge as exc:
            print(f"{self.prog}: cannot judge on this machine: {exc} (exit {EXIT_CANNOT})", file=sys.stderr)
            if as_json:  # a reader of --json gets a document whatever happened
                print(json.dumps({"cannot_judge": str(exc), self.results_key: []}, indent=1))
            return EXIT_CANNOT
        print(json.dumps(report, indent=1) if as_json else self.table(report))
        return self.exit_status(report)


CHECKER = Checker(
    "gpu-check",
    __doc__.split("\n\n")[0],
    "exit status: 0 all within tolerance, 1 some not, 2 bad input, 125 cannot judge (no numpy, CuPy or CUDA device)",
    "PTX files and manifest.json from `harness gemm-ptx`",
    check_all,
    table,
    exit_status,
    "cases",
)
run, main = CHECKER.run, CHECKER.main


if __name__ == "__main__":
    sys.exit(main())
