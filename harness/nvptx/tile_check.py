"""Run the tile kernels' PTX on a CUDA GPU and judge D = A·B + C: `python -m harness.nvptx.tile_check DIR`.

DIR holds the PTX files and `manifest.json` that `harness tile-ptx --out DIR` writes. Per kernel,
inputs from its seed (INPUTS), each exactly representable in its type; the kernel runs on one
warp through CuPy; R is the exact D: Python fractions for floating point (rounded once to
float64), integers for the rest (b1: C + Σ_k popc(a XOR b) or popc(a AND b)); .satfinite clamps
R to int32.

Bounds (per element of D):
  integers and b1   exact: D = R
  floating point    |D - R| <= g·S, S = |A|@|B| + |C|, g = 2nu / (1 - 2nu), n = K + 3, u the
                    unit roundoff of D's type (f16 2^-11, f32 2^-24, f64 2^-53). D = c + Σ_k a·b
                    takes K additions, each off by at most 2u of a partial sum (|.| <= S); the K
                    products, each rounded at most once (exact in f32 for every input narrower
                    than f32; rounded for f64 and for f16 accumulate), off by 2u·S together; the
                    rounding to D's type, 2u·S; one more 2u·S to spare: n = K + 3 (2u, not u: a
                    tensor core may truncate where IEEE rounds; g holds to all orders).
A wrong fragment layout moves whole products: errors of the order of S itself, which no bound
allows (the planted faults of `harness tile-ptx --plant` show it).

Exit status: 0 every kernel run is within its bound, 1 some kernel is not, 2 bad input (no or a
malformed manifest, a type the checker cannot make, a missing PTX file), 125 cannot judge: no
numpy, no CuPy or no CUDA device, or no kernel this GPU runs. Kernels for sm_120a are listed as
"PTX only" and not judged. Imports only the standard library, numpy and CuPy.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from harness.nvptx.gpu_check import (
    EXIT_CANNOT,
    EXIT_FAIL,
    EXIT_OK,
    MANIFEST,
    BadInput,
    Checker,
    device,
    read_manifest,
    runs_on,
    shown,
)

MANIFEST_FORMAT = "nvptx-tiles/1"
FLOATS = {"f16": 10, "bf16": 7, "tf32": 10, "f32": 23, "f64": 52}  # explicit significand bits
FP8 = {"e4m3": (3, 7), "e5m2": (2, 15)}  # mantissa bits, exponent bias
INTEGERS = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15), "b1": (0, 1)}
INPUT_TYPES = (*FLOATS, *FP8, *INTEGERS)  # what the checker makes for A and B
ACCUMULATORS = ("f16", "f32", "f64", "s32")
UNIT_ROUNDOFF = {"f16": 2.0**-11, "f32": 2.0**-24, "f64": 2.0**-53}
INT32 = (-(2**31), 2**31 - 1)
_SATURATE_BY = 10  # .satfinite: C's first/last rows start this far from the int32 limits
INPUTS = {
    "f16, bf16, tf32, f32, f64": "±(1 + m·2^-p)·2^e, e in [-4, 0], m a random p-bit integer, p the type's explicit "
    "significand bits (10, 7, 10, 23, 52): exact in the type, tf32 already rounded to tf32, none subnormal",
    "e4m3, e5m2": "random bytes of normal values with exponent -4 to 0, decoded in numpy",
    "s8, u8, s4, u4, b1": "uniform over the whole type (b1: random bits)",
    "s32": "C uniform in [-2^20, 2^20]; with .satfinite, A's first row at the type's maximum and its last at the "
    "minimum, B's first column at the maximum, C's first row 2^31 - 11 and its last -2^31 + 10: D's first row "
    "saturates upwards (and for a signed A its last row downwards)",
    "seed": "numpy.random.default_rng(the tile's seed) draws A, B, C in that order",
}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
BOUND = {
    "exact": "exact: D = R (integers, b1)",
    "float": "|D - R| <= g·(|A|@|B| + |C|), g = 2nu/(1 - 2nu), n = K + 3, u = unit roundoff of D's type",
}


# ---- inputs (numpy only) ------------------------------------------------------------------------


def dyadic(rng, shape, bits: int):
    """±(1 + m·2^-bits)·2^e, e in [-4, 0]: float64 values exact in a type of `bits` significand bits."""
    import numpy as np

    mant = rng.integers(0, 2**bits, size=shape, dtype=np.int64).astype(np.float64) / 2.0**bits
    sign = rng.choice(np.array([-1.0, 1.0]), size=shape)
    return sign * (1.0 + mant) * np.exp2(rng.integers(-4, 1, size=shape).astype(np.float64))


def fp8_decode(codes, fmt: str):
    """float64 values of e4m3 / e5m2 bytes (NaN for the NaN and infinity codes)."""
    import numpy as np

    mbits, bias = FP8[fmt]
    c = np.asarray(codes, dtype=np.int64)
    sign = np.where(c & 0x80, -1.0, 1.0)
    exp, mant = (c & 0x7F) >> mbits, (c & ((1 << mbits) - 1)).astype(np.float64)
    value = np.where(exp == 0, mant / 2**mbits * 2.0 ** (1 - bias), (1 + mant / 2**mbits) * np.exp2(exp - bias))
    special = (c & 0x7F) == 0x7F if fmt == "e4m3" else exp == 31
    return np.where(special, np.nan, sign * value)


def fp8_codes(rng, shape, fmt: str):
    """Random bytes of normal e4m3 / e5m2 values with exponent -4 to 0."""
    import numpy as np

    mbits, bias = FP8[fmt]
    exp = rng.integers(bias - 4, bias + 1, size=shape)
    codes = (rng.integers(0, 2, size=shape) << 7) | (exp << mbits) | rng.integers(0, 1 << mbits, size=shape)
    return codes.astype(np.uint8)


def stored(values, ptx: str):
    """`values` as the kernel's memory holds them (harness.nvptx.tiles MEMORY_IR)."""
    import numpy as np

    if ptx == "f16":
        return values.astype(np.float16).view(np.uint16)
    if ptx == "bf16":
        return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if ptx in ("tf32", "f32"):
        return values.astype(np.float32)
    if ptx == "f64":
        return values.astype(np.float64)
    if ptx == "s32":
        return values.astype(np.int32)
    if ptx == "s8":
        return values.astype(np.int8)
    return (values & 0xFF).astype(np.uint8)  # u8, s4/u4 (a nibble: two's complement), b1


def operand(rng, ptx: str, shape):
    """(values: float64 or int64, stored) of random inputs of a PTX type."""
    import numpy as np

    if ptx in FLOATS:
        values = dyadic(rng, shape, FLOATS[ptx])
    elif ptx in FP8:
        codes = fp8_codes(rng, shape, ptx)
        return fp8_decode(codes, ptx), codes
    elif ptx == "s32":
        values = rng.integers(-(2**20), 2**20 + 1, size=shape, dtype=np.int64)
    else:
        lo, hi = INTEGERS[ptx]
        values = rng.integers(lo, hi + 1, size=shape, dtype=np.int64)
    return values, stored(values, ptx)


def inputs(entry: dict) -> dict:
    """The kernel's A [P,M,K], B [P,K,N] and C [P,M,N]: their values, and as memory holds them."""
    import numpy as np

    p, m, n, k = entry["products"], entry["m"], entry["n"], entry["k"]
    rng = np.random.default_rng(entry["seed"])
    shapes = {"a": (p, m, k), "b": (p, k, n), "c": (p, m, n)}
    data = {}
    for op, shape in shapes.items():
        data[op], data[f"stored_{op}"] = operand(rng, entry[op], shape)
    if entry["satfinite"]:  # D's first row saturates upwards, its last downwards (signed A)
        lo, hi = INTEGERS[entry["a"]]
        data["a"][:, 0, :], data["a"][:, -1, :], data["b"][:, :, 0] = hi, lo, INTEGERS[entry["b"]][1]
        data["c"][:, 0, :], data["c"][:, -1, :] = INT32[1] - _SATURATE_BY, INT32[0] + _SATURATE_BY
        data.update({f"stored_{op}": stored(data[op], entry[op]) for op in shapes})
    return data


# ---- reference and bound (numpy only) ---------------------------------------------------------


def exact(entry: dict) -> bool:
    """Whether the kernel's D is judged exactly (integer and b1 inputs)."""
    return entry["d"] == "s32"


def reference(entry: dict, a, b, c):
    """R = A·B + C per product: exact integers (b1: popc of XOR / AND summed; .satfinite clamped
    to int32), or for floating point the exact value (fractions) rounded to float64."""
    import numpy as np

    if exact(entry):
        a64, b64, c64 = (np.asarray(x, dtype=np.int64) for x in (a, b, c))
        if entry["b1op"] == "xor":  # Σ_k a ^ b = Σ_k a + Σ_k b - 2 Σ_k a·b for bits
            r = a64.sum(axis=-1)[..., :, None] + b64.sum(axis=-2)[..., None, :] - 2 * (a64 @ b64) + c64
        else:  # an integer product, or b1 AND (a·b of bits)
            r = a64 @ b64 + c64
        return np.clip(r, *INT32) if entry["satfinite"] else r
    from fractions import Fraction

    frac = np.vectorize(Fraction, otypes=[object])
    return (np.matmul(frac(a), frac(b)) + frac(c)).astype(np.float64)


def bound(entry: dict, a, b, c):
    """Per element of D, the error allowed: 0 for exact kernels, else g·(|A|@|B| + |C|)."""
    import numpy as np

    if exact(entry):
        return np.zeros(np.shape(c))
    n, u = entry["k"] + 3, UNIT_ROUNDOFF[entry["d"]]
    return 2 * n * u / (1 - 2 * n * u) * (np.abs(a) @ np.abs(b) + np.abs(c))


def judge(entry: dict, d, r, allowed) -> dict:
    """D against R and the bound: the worst error/bound ratio (inf for an exact kernel that
    differs, or a non-finite D) and whether every element is within."""
    import numpy as np

    d64 = np.asarray(d, dtype=np.float64)
    err = np.abs(d64 - np.asarray(r, dtype=np.float64))
    finite = bool(np.all(np.isfinite(d64)))
    if exact(entry):
        wrong = int(np.count_nonzero(err))
        worst = 0.0 if not wrong else float("inf")
    else:
        wrong = int(np.count_nonzero(err > allowed))
        worst = float(np.max(err / allowed)) if finite else float("inf")
    result = {"max_abs": float(np.max(err)) if finite else float("inf"), "worst": worst, "outside": wrong}
    if entry["satfinite"]:
        result["saturated"] = int(np.count_nonzero((r == INT32[0]) | (r == INT32[1])))
    return {**result, "ok": finite and worst <= 1.0}


def d_values(raw, ptx: str):
    """D as numbers (float64, or int64 for .s32) from what the kernel stored."""
    import numpy as np

    if ptx == "f16":
        return raw.view(np.float16).astype(np.float64)
    return raw.astype(np.int64 if ptx == "s32" else np.float64)


# ---- the GPU ------------------------------------------------------------------------------------

# What D holds before the kernel runs (any element it does not store stays so): NaN, or for .s32
# a value no R here takes.
_UNWRITTEN = {"f16": 0x7E00, "f32": float("nan"), "f64": float("nan"), "s32": -0x5A5A5A5A}


def run_kernel(cupy, ptx: Path, entry: dict, data: dict):
    """Launch the kernel on one warp; D as memory holds it (numpy)."""
    import numpy as np

    kernel = cupy.RawModule(path=str(ptx)).get_function(entry["kernel"])
    shape = (entry["products"], entry["m"], entry["n"])
    like = stored(np.zeros(1, dtype=np.int64 if entry["d"] == "s32" else np.float64), entry["d"])
    d = cupy.full(shape, _UNWRITTEN[entry["d"]], dtype=like.dtype)
    args = [cupy.asarray(data[f"stored_{op}"]) for op in "abc"]
    kernel((1,), (32,), (*args, d))
    cupy.cuda.Device().synchronize()
    return cupy.asnumpy(d)


def check_tile(cupy, directory: Path, entry: dict) -> dict:
    data = inputs(entry)
    raw = run_kernel(cupy, directory / entry["ptx"], entry, data)
    r = reference(entry, data["a"], data["b"], data["c"])
    return judge(entry, d_values(raw, entry["d"]), r, bound(entry, data["a"], data["b"], data["c"]))


# ---- the manifest -------------------------------------------------------------------------------

_KEYS = {
    "kernel": str,
    "ptx": str,
    "variant": str,
    "sm": str,
    "ptx_only": bool,
    "m": int,
    "n": int,
    "k": int,
    "products": int,
    "a": str,
    "b": str,
    "c": str,
    "d": str,
    "satfinite": bool,
    "b1op": str,
    "seed": int,
}


_KIND_NAMES = {str: "a string", int: "an integer", bool: "true or false"}


def load_manifest(directory: Path) -> dict:
    """The manifest of a `harness tile-ptx` directory, every tile checked (BadInput, one line)."""
    path = directory / MANIFEST
    doc = read_manifest(directory, f"harness tile-ptx --out {directory}")
    if not isinstance(doc, dict) or doc.get("format") != MANIFEST_FORMAT:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise BadInput(f"{path}: not a tile-ptx manifest (format {got!r}, expected {MANIFEST_FORMAT!r})")
    tiles = doc.get("tiles")
    if not isinstance(tiles, list) or not tiles:
        raise BadInput(f"{path}: the manifest lists no tiles")
    for i, entry in enumerate(tiles):
        why = _entry_problem(directory, entry)
        if why:
            name = entry.get("kernel") if isinstance(entry, dict) else None
            raise BadInput(f"{path}: tile {i}{f' ({name})' if isinstance(name, str) else ''}: {why}")
    return doc


def _entry_problem(directory: Path, entry) -> str:
    """What is wrong with one tile of the manifest ("" when nothing)."""
    if not isinstance(entry, dict):
        return "not an object"
    for key, kind in _KEYS.items():
        value = entry.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f"{key} is {shown(value, repr)}, not {_KIND_NAMES[kind]}" if key in entry else f"lacks {key}"
    for key in ("m", "n", "k", "products"):
        if not 1 <= entry[key] <= 1024:
            return f"{key} = {shown(entry[key])} is not a matrix dimension"
    if not 0 <= entry["seed"] < 2**32:  # (tile-ptx's seeds are 32-bit)
        return f"seed {shown(entry['seed'])} is not a 32-bit seed"
    if not entry["ptx_only"]:
        for op, allowed in (("a", INPUT_TYPES), ("b", INPUT_TYPES), ("c", ACCUMULATORS), ("d", ACCUMULATORS)):
            if entry[op] not in allowed:
                return f"{op.upper()} type {entry[op]!r} is not one the checker makes ({', '.join(allowed)})"
        b1op_ok = entry["b1op"] in ("xor", "and") if entry["a"] == "b1" else entry["b1op"] == ""
        if exact(entry) != (entry["a"] in INTEGERS) or not b1op_ok:
            return f"types {entry['a']}/{entry['d']} with b1op {entry['b1op']!r} do not make an mma"
        if entry["satfinite"] and entry["a"] not in INTEGERS:
            return ".satfinite on a floating-point tile"
    if not _IDENT.fullmatch(entry["kernel"]):
        return f"kernel name {entry['kernel']!r} is not a PTX identifier"
    if "/" in entry["ptx"] or entry["ptx"] in ("", ".", "..") or not (directory / entry["ptx"]).is_file():
        return f"no PTX file {entry['ptx']!r} in {directory} (llc failed?)"
    return ""


# ---- the command --------------------------------------------------------------------------------


def check_all(directory: Path) -> dict:
    """Every tile of the manifest run and judged: the report `--json` prints."""
    doc = load_manifest(directory)
    cupy, gpu = device()
    rows = [_check_entry(cupy, gpu, directory, entry) for entry in doc["tiles"]]
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in ("pass", "fail", "not-run", "ptx-only")}
    judged = [r for r in rows if "worst" in r]
    worst = max(judged, key=lambda r: r["worst"]) if judged else None
    return {
        "gpu": gpu,
        "directory": str(directory),
        "bounds": BOUND,
        "not_planted": doc.get("not_planted", []),
        "tiles": rows,
        "summary": {**counts, "worst": worst and {k: worst[k] for k in ("variant", "plant", "worst")}},
    }


def _check_entry(cupy, gpu: dict, directory: Path, entry: dict) -> dict:
    row = {key: entry[key] for key in ("kernel", "variant", "sm", "k", "a", "b", "c", "d", "satfinite")}
    u = {"f16": "2^-11", "f32": "2^-24", "f64": "2^-53"}.get(entry["d"], "")
    row.update(plant=entry.get("plant"), bound="exact" if exact(entry) else f"g·S, K = {entry['k']}, u = {u}")
    if entry["ptx_only"]:
        return {**row, "verdict": "ptx-only", "why": f"PTX only (needs {entry['sm']})"}
    if not runs_on(entry["sm"], gpu["cc"]):
        return {
            **row,
            "verdict": "not-run",
            "why": f"{entry['sm']} PTX does not run on compute capability {gpu['cc'][0]}.{gpu['cc'][1]}",
        }
    try:
        result = check_tile(cupy, directory, entry)
    except Exception as exc:  # CuPy/CUDA refusing the PTX or the launch
        text = str(exc).splitlines()[0] if str(exc) else ""
        if "UNSUPPORTED_PTX_VERSION" in text:  # the driver predates the PTX ISA version: not the kernel's fault
            return {**row, "verdict": "not-run", "why": f"the CUDA driver does not read this PTX version ({text})"}
        return {**row, "verdict": "fail", "why": f"{type(exc).__name__}: {text}"}
    return {**row, **result, "verdict": "pass" if result["ok"] else "fail"}


def exit_status(report: dict) -> int:
    s = report["summary"]
    if s["fail"]:
        return EXIT_FAIL
    return EXIT_OK if s["pass"] else EXIT_CANNOT


def table(report: dict) -> str:
    g = report["gpu"]
    lines = [f"GPU: {g['name']} (compute capability {g['cc'][0]}.{g['cc'][1]}, CuPy {g['cupy']}, driver {g['driver']})"]
    lines += [f"bound {name}: {text}" for name, text in report["bounds"].items()]
    rows = [("variant", "bound", "within bound", "worst error/bound", "note")]
    for r in report["tiles"]:
        name = r["variant"] + (f" [{r['plant']}]" if r["plant"] else "")
        if "why" in r:
            rows.append((name, r["bound"], "no" if r["verdict"] == "fail" else "-", "-", r["why"]))
            continue
        note = f"{r['saturated']} saturated" if "saturated" in r else ""
        note += f"{'; ' if note else ''}{r['outside']} outside" if r["outside"] else ""
        rows.append((name, r["bound"], "yes" if r["ok"] else "no", f"{r['worst']:.3g}", note))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + "  " + row[4] for row in rows]
    lines += [f"not planted: {n['variant']} [{n['plant']}]: no-op, {n['why']}" for n in report["not_planted"]]
    lines.append(_summary(report))
    return "\n".join(lines)


def _summary(report: dict) -> str:
    s, tiles = report["summary"], report["tiles"]
    text = f"{len(tiles)} kernels: {s['pass']} within bound, {s['fail']} not, {s['ptx-only']} PTX only, {s['not-run']} not run"
    planted = [r for r in tiles if r["plant"] and r["verdict"] in ("pass", "fail")]
    if planted:
        caught = sum(1 for r in planted if r["verdict"] == "fail")
        text += f"; planted faults caught: {caught} of {len(planted)}"
    if s["worst"]:
        w = s["worst"]
        plant = f" [{w['plant']}]" if w["plant"] else ""
        text += f"; worst {w['variant']}{plant} at {w['worst']:.3g} of its bound"
    return text


CHECKER = Checker(
    "tile-check",
    __doc__.split("\n\n")[0],
    "exit status: 0 all within bound, 1 some not, 2 bad input, 125 cannot judge (no numpy, CuPy or CUDA device)",
    "PTX files and manifest.json from `harness tile-ptx`",
    check_all,
    table,
    exit_status,
    "tiles",
)
run, main = CHECKER.run, CHECKER.main


if __name__ == "__main__":
    sys.exit(main())
