"""Run a GPU build's kernels on a CUDA GPU and judge them: `python -m harness.gpu.check DIR`
(or `harness gpu check DIR`), on a machine with numpy and CuPy and no LLVM.

DIR holds the PTX files and manifest.json of `harness gpu build --out DIR`. Per kernel: its
inputs from its seed, the kernel launched on one warp through CuPy with (A, B, C, D), and D
judged against its kind's reference R and bound (harness.gpu.kinds, which says both in words;
the report repeats them). A kernel built for an SM this GPU does not run, or only for ptxas (PTX
only), is listed and not judged.

With --compare, DIR also holds NVIDIA's side (`harness gpu compare DIR`, in DIR/nvidia): each
kernel runs twice on the same inputs, llc's PTX and nvcc's, each storing D into an array filled
beforehand with the same pattern, and D must be equal byte for byte. Whether D is right is the
check's question; this one is whether both compilers' kernels give the same bits.

Exit status: 0 every kernel run is within its bound (--compare: bitwise equal), 1 some kernel is
not or does not load or launch, 2 bad input (no or a malformed manifest, a missing PTX file),
125 cannot judge: no numpy, no CuPy or no CUDA device, or no kernel this GPU runs.
Imports only the standard library, numpy and CuPy.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from harness.gpu import manifest
from harness.gpu.kinds import Kind
from harness.gpu.manifest import NVIDIA, BadInput

EXIT_OK, EXIT_FAIL, EXIT_BAD, EXIT_CANNOT = 0, 1, 2, 125
CHECK_VERDICTS = ("pass", "fail", "ptx-only", "not-run")
COMPARE_VERDICTS = ("equal", "differ", "fail", "ptx-only", "not-run")


class CannotJudge(Exception):
    """No numpy, CuPy or CUDA device: this machine cannot judge the numerics."""


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


def launch(cupy, ptx: Path, kind: Kind, entry: dict, data: dict):
    """Run the kernel on one warp with (A, B, C, D); D as memory holds it (numpy), still the
    fill wherever the kernel stored nothing."""
    shape, dtype, fill = kind.output(entry)
    kernel = cupy.RawModule(path=str(ptx)).get_function(entry["kernel"])
    d = cupy.full(shape, fill, dtype=dtype)
    kernel((1,), (32,), (*(cupy.asarray(x) for x in data["args"]), d))
    cupy.cuda.Device().synchronize()
    return cupy.asnumpy(d)


def judge(kind: Kind, entry: dict, d, r, allowed) -> dict:
    """D against R and the bound: the largest error, the worst error/bound ratio (inf for an
    exact kernel that differs, or a non-finite D), how many elements lie outside, and whether
    every element is within."""
    import numpy as np

    d64 = np.asarray(d, dtype=np.float64)
    err = np.abs(d64 - np.asarray(r, dtype=np.float64))
    finite = bool(np.all(np.isfinite(d64)))
    if kind.exact(entry):
        wrong = int(np.count_nonzero(err))
        worst = 0.0 if not wrong else float("inf")
    else:
        wrong = int(np.count_nonzero(~(err <= allowed)))
        worst = float(np.max(err / np.maximum(allowed, np.finfo(np.float64).tiny))) if finite else float("inf")
    result = {"max_abs": float(np.max(err)) if finite else float("inf"), "worst": worst, "outside": wrong}
    if entry.get("satfinite"):
        int32 = (-(2**31), 2**31 - 1)
        result["saturated"] = int(np.count_nonzero((r == int32[0]) | (r == int32[1])))
    return {**result, "ok": finite and worst <= 1.0}


def check_kernel(cupy, directory: Path, kind: Kind, entry: dict) -> dict:
    data = kind.inputs(entry)
    raw = launch(cupy, directory / entry["ptx"], kind, entry, data)
    return judge(kind, entry, kind.decode(entry, raw), kind.reference(entry, data), kind.bound(entry, data))


def compare_kernel(cupy, directory: Path, kind: Kind, entry: dict, nvidia: dict) -> dict:
    """Both kernels run on the same inputs: D's elements, how many differ in any bit, and the first that does."""
    import numpy as np

    data = kind.inputs(entry)
    ours = launch(cupy, directory / entry["ptx"], kind, entry, data)
    theirs = launch(cupy, directory / NVIDIA / nvidia["ptx"], kind, entry, data)
    as_bytes = lambda d: np.ascontiguousarray(d).view(np.uint8).reshape(*d.shape, d.dtype.itemsize)
    differs = np.any(as_bytes(ours) != as_bytes(theirs), axis=-1)
    result = {"elements": int(ours.size), "differing": int(np.count_nonzero(differs)), "first": ""}
    if result["differing"]:
        at = tuple(int(i) for i in np.argwhere(differs)[0])
        hexed = lambda d: bytes(as_bytes(d)[at][::-1]).hex()  # (little-endian bytes, shown high first)
        result["first"] = f"first at {list(at)}: llc 0x{hexed(ours)}, nvcc 0x{hexed(theirs)}"
    return {**result, "equal": not result["differing"]}


def attempt(gpu: dict, entry: dict, run: Callable[[], dict]) -> dict:
    """A kernel's result, or why it was not run ("ptx-only", "not-run") or failed to load or
    launch ("fail"), as {"verdict", "why"}."""
    if entry["ptx_only"]:
        return {"verdict": "ptx-only", "why": f"PTX only (needs {entry['sm']})"}
    if not entry["ptx"]:
        return {"verdict": "not-run", "why": "no PTX: llc failed on it at build time (see the build's table)"}
    if not runs_on(entry["sm"], gpu["cc"]):
        return {
            "verdict": "not-run",
            "why": f"{entry['sm']} PTX does not run on compute capability {gpu['cc'][0]}.{gpu['cc'][1]}",
        }
    try:
        return run()
    except Exception as exc:  # CuPy/CUDA refusing the PTX or the launch
        text = str(exc).splitlines()[0] if str(exc) else ""
        if "UNSUPPORTED_PTX_VERSION" in text:  # the driver predates the PTX ISA version: not the kernel's fault
            return {"verdict": "not-run", "why": f"the CUDA driver does not read this PTX version ({text})"}
        return {"verdict": "fail", "why": f"{type(exc).__name__}: {text}"}


def _row(kind: Kind, entry: dict) -> dict:
    """What a report says of a kernel before its result: its names, SM and kind's keys."""
    row = {key: entry[key] for key in ("kernel", "variant", "sm", *kind.keys)}
    return {**row, "plant": entry.get("plant"), "bound": kind.bound_label(entry)}


# ---- the reports --------------------------------------------------------------------------------


def check_all(directory: Path) -> dict:
    """Every kernel of the build run and judged: the report `--json` prints."""
    doc, kind = manifest.load(directory)
    cupy, gpu = device()
    rows = []
    for entry in doc["kernels"]:

        def judged(entry=entry) -> dict:
            result = check_kernel(cupy, directory, kind, entry)
            return {**result, "verdict": "pass" if result["ok"] else "fail"}

        rows.append({**_row(kind, entry), **attempt(gpu, entry, judged)})
    run = [r for r in rows if "worst" in r]
    worst = max(run, key=lambda r: r["worst"]) if run else None
    planted = [r for r in rows if r["plant"] and r["verdict"] in ("pass", "fail")]
    return {
        "gpu": gpu,
        "directory": str(directory),
        "kind": kind.name,
        "bounds": kind.bounds,
        "not_planted": doc.get("not_planted", []),
        "kernels": rows,
        "summary": {
            **{v: sum(1 for r in rows if r["verdict"] == v) for v in CHECK_VERDICTS},
            "planted": {"run": len(planted), "caught": sum(1 for r in planted if r["verdict"] == "fail")},
            "worst": worst and {k: worst[k] for k in ("variant", "plant", "worst")},
        },
    }


def compare_all(directory: Path) -> dict:
    """Every kernel of NVIDIA's manifest run on both sides: the report `--compare --json` prints."""
    kind, pairs = manifest.load_nvidia(directory)
    cupy, gpu = device()
    rows = []
    for entry, nvidia in pairs:
        row = {**_row(kind, entry), "d": entry.get("d", "f32")}
        if not nvidia["ptx"] and not entry["ptx_only"]:
            rows.append({**row, "verdict": "not-run", "why": "nvcc did not compile it (see gpu compare's table)"})
            continue

        def both(entry=entry, nvidia=nvidia) -> dict:
            result = compare_kernel(cupy, directory, kind, entry, nvidia)
            return {**result, "verdict": "equal" if result["equal"] else "differ"}

        rows.append({**row, **attempt(gpu, entry, both)})
    compiled = sum(1 for _, nvidia in pairs if nvidia["ptx"])
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in COMPARE_VERDICTS}
    return {
        "gpu": gpu,
        "directory": str(directory),
        "kind": kind.name,
        "kernels": rows,
        "summary": {"compiled": compiled, **counts},
    }


def exit_status(report: dict) -> int:
    """1 when a kernel is wrong (or differs, or fails to run), 0 when some kernel was judged right, else 125."""
    s = report["summary"]
    if s["fail"] or s.get("differ"):
        return EXIT_FAIL
    return EXIT_OK if s.get("pass") or s.get("equal") else EXIT_CANNOT


def columns(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows as aligned text, the last cell of each left as it is (a note of any length)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths)) + "  " + row[-1] for row in rows]


def table(report: dict) -> str:
    """The check's report (or with --compare, the comparison's) as a table and one summary line."""
    g = report["gpu"]
    lines = [f"GPU: {g['name']} (compute capability {g['cc'][0]}.{g['cc'][1]}, CuPy {g['cupy']}, driver {g['driver']})"]
    comparing = "bounds" not in report
    lines += [] if comparing else [f"bound {name}: {text}" for name, text in report["bounds"].items()]
    head = (
        ("kernel", "D", "elements", "bitwise equal", "note")
        if comparing
        else ("kernel", "bound", "within bound", "worst error/bound", "note")
    )
    rows = [head]
    for r in report["kernels"]:
        name = r["variant"] + (f" [{r['plant']}]" if r["plant"] else "")
        second = r["d"] if comparing else r["bound"]
        if "why" in r:
            rows.append((name, second, "-", "no" if r["verdict"] == "fail" else "-", r["why"]))
        elif comparing:
            note = f"{r['differing']} differ; {r['first']}" if r["differing"] else ""
            rows.append((name, second, str(r["elements"]), "yes" if r["equal"] else "no", note))
        else:
            rows.append((name, second, "yes" if r["ok"] else "no", f"{r['worst']:.3g}", _note(r)))
    lines += columns(rows)
    lines += [f"not planted: {n['variant']} [{n['plant']}]: no-op, {n['why']}" for n in report.get("not_planted", [])]
    lines.append(_compare_summary(report) if comparing else _check_summary(report))
    return "\n".join(lines)


def _note(r: dict) -> str:
    parts = [f"{r['saturated']} saturated"] if "saturated" in r else []
    parts += [f"{r['outside']} outside"] if r["outside"] else []
    return "; ".join(parts)


def _check_summary(report: dict) -> str:
    s, n = report["summary"], len(report["kernels"])
    text = f"{n} kernels: {s['pass']} within bound, {s['fail']} not, {s['ptx-only']} PTX only, {s['not-run']} not run"
    if s["planted"]["run"]:
        text += f"; planted faults caught: {s['planted']['caught']} of {s['planted']['run']}"
    if s["worst"]:
        w = s["worst"]
        plant = f" [{w['plant']}]" if w["plant"] else ""
        text += f"; worst {w['variant']}{plant} at {w['worst']:.3g} of its bound"
    return text


def _compare_summary(report: dict) -> str:
    s, n = report["summary"], len(report["kernels"])
    return (
        f"{n} kernels: {s['compiled']} compiled by nvcc; {s['equal'] + s['differ']} run on both sides: "
        f"{s['equal']} bitwise equal, {s['differ']} differ; {s['fail']} failed to run, "
        f"{s['ptx-only']} PTX only, {s['not-run']} not run"
    )


# ---- the command --------------------------------------------------------------------------------


def run(directory: Path, as_json: bool = False, compare: bool = False) -> int:
    """The command's work: print the report, return the exit status."""
    from harness.core import files  # (as manifest.read imports it: only when the command runs)

    prog = "gpu compare --gpu" if compare else "gpu check"
    try:
        report = compare_all(directory) if compare else check_all(directory)
    except BadInput as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        if as_json:  # a reader of --json gets a document whatever happened
            print(files.json_text({"bad_input": str(exc), "kernels": []}))
        return EXIT_BAD
    except CannotJudge as exc:
        print(f"{prog}: cannot judge on this machine: {exc} (exit {EXIT_CANNOT})", file=sys.stderr)
        if as_json:  # a reader of --json gets a document whatever happened
            print(files.json_text({"cannot_judge": str(exc), "kernels": []}))
        return EXIT_CANNOT
    print(files.json_text(_finite(report)) if as_json else table(report))
    return exit_status(report)


def _finite(value):
    """`value` with every infinite or NaN float as None: JSON has no infinity, and the report's
    unbounded numbers (`max_abs` and `worst` of a kernel whose D is not finite, `worst` of an exact
    kernel that differs) are written as null, beside that kernel's `ok`: false."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


EPILOG = """\
exit status: 0 every kernel run is within its bound (--compare: bitwise equal), 1 some is not,
2 bad input, 125 cannot judge (no numpy, CuPy or CUDA device, or no kernel this GPU runs)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m harness.gpu.check",
        description=__doc__.split("\n\n")[0],
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("directory", type=Path, metavar="DIR", help="PTX files and manifest.json from `harness gpu build`")
    parser.add_argument(
        "--compare", action="store_true", help="run llc's and nvcc's kernel (DIR/nvidia) and compare D bit for bit"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    return run(args.directory, args.json, args.compare)


if __name__ == "__main__":
    sys.exit(main())
