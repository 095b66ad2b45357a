"""The kinds of kernel a GPU build holds, as the GPU machine judges them: for each, the keys
of its manifest entries and the values they may take, its inputs (from the entry's seed), D
before the launch, the reference R and the bound on |D - R| per element. Every kind's kernel
takes (A, B, C, D) and runs on one warp; harness.gpu.check launches it and judges it the same way
whatever its kind.

gemm (harness.kernels.gemm: the seed's tiled warp gemm, mma.m16n8k{16,8}, f16/bf16 in, f32 out):
  inputs   A, B uniform in [-1, 1] rounded to the dtype (f16 through numpy float16, bf16 by
           rounding float32 to the nearest even bf16), C uniform in [-1, 1] (f32); A [M,K] or
           [K,M] with transpose_a, B [K,N] or [N,K] with transpose_b
  R        numpy float32 A@B (+ C when beta = 1)
  bound    |D - R| <= 6·(K + 1)·2^-24·(|A|@|B| + beta·|C|). Every product of two f16 or bf16
           significands is exact in f32, so D and R differ only by how their K (+ 1) f32
           additions round: R within (K + 1)·2^-24 of the exact sum relative to the sum of
           magnitudes, the tensor core (which may truncate) within twice that; the bound
           doubles the sum of both.

tile (harness.kernels.tiles: one kernel per dense mma row; A [P,M,K], B [P,K,N], C, D [P,M,N]):
  inputs   per type (TILE_INPUTS), each exactly representable in it
  R        exact: Python fractions for floating point (rounded once to float64), integers for
           the rest (b1: C + Σ_k popc(a XOR b) or popc(a AND b)); .satfinite clamps R to int32
  bound    integers and b1 exact (D = R); floating point |D - R| <= g·S, S = |A|@|B| + |C|,
           g = 2nu / (1 - 2nu), n = K + 3, u the unit roundoff of D's type (f16 2^-11, f32
           2^-24, f64 2^-53). D = c + Σ_k a·b takes K additions, each off by at most 2u of a
           partial sum (|.| <= S); the K products, each rounded at most once, off by 2u·S
           together; the rounding to D's type, 2u·S; one more 2u·S to spare: n = K + 3 (2u,
           not u: a tensor core may truncate where IEEE rounds; g holds to all orders).

A wrong fragment layout moves whole products, errors of the order of S itself, which no bound
allows: the planted faults of `harness gpu build --plant` show it. Standard library and numpy
only (imported when a kernel is judged).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Kind:
    """A kind of kernel as the GPU machine sees it. `inputs` gives the values "a", "b", "c" (as
    `reference` and `bound` take them) and "args", the arrays A, B, C as the kernel reads them;
    `output` is D's (shape, numpy dtype, fill) before the launch, `decode` D as numbers from what
    the kernel stored; `bound` is 0 wherever the kind is exact."""

    name: str
    keys: dict[str, type]  # the kind's own keys of a manifest entry and their types
    problem: Callable[[dict], str]  # what is wrong with an entry's values ("" when nothing)
    inputs: Callable[[dict], dict]
    output: Callable[[dict], tuple[tuple[int, ...], Any, Any]]
    decode: Callable[[dict, Any], Any]
    reference: Callable[[dict, dict], Any]
    bound: Callable[[dict, dict], Any]
    exact: Callable[[dict], bool]
    bound_label: Callable[[dict], str]
    bounds: dict[str, str]  # the bounds in words, as reports print them
    inputs_text: dict[str, str]  # the inputs in words, as the manifest states them


def shown(value, form: Callable[[object], str] = json.dumps) -> str:
    """A manifest value as one message line shows it: JSON (or `form`), cut to about 40 characters."""
    try:
        text = form(value)
    except ValueError:  # (an integer past Python's digit limit)
        return "a longer integer"
    return text if len(text) <= 40 else f"{text[:40]}... ({len(text):,} characters)"


# ---- gemm ----------------------------------------------------------------------------------------

GEMM_MAX_MMA = 1024  # mma.sync one kernel may hold (as harness.kernels.gemm allows)
GEMM_BOUNDS = {"gemm": "|D - R| <= 6·(K+1)·2^-24·(|A|@|B| + beta·|C|) per element (R: numpy float32 A@B + beta·C)"}
GEMM_INPUTS = {
    "a, b": "uniform in [-1, 1] rounded to the dtype (f16: numpy float16; bf16: nearest even)",
    "c": "uniform in [-1, 1] (f32)",
    "seed": "numpy.random.default_rng(the kernel's seed) draws A, B, C in that order",
}


def tolerance_factor(k: int) -> float:
    return 6.0 * (k + 1) * 2.0**-24


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


def gemm_inputs(entry: dict) -> dict:
    """The kernel's inputs (as stored: A [M,K] or [K,M], B [K,N] or [N,K]) and their values."""
    import numpy as np

    m, n, k, dtype = entry["m"], entry["n"], entry["k"], entry["dtype"]
    rng = np.random.default_rng(entry["seed"])
    a, a_elems = rounded(rng.uniform(-1, 1, (m, k)).astype(np.float32), dtype)
    b, b_elems = rounded(rng.uniform(-1, 1, (k, n)).astype(np.float32), dtype)
    c = rng.uniform(-1, 1, (m, n)).astype(np.float32)
    stored_a = np.ascontiguousarray(a_elems.T if entry["transpose_a"] else a_elems)
    stored_b = np.ascontiguousarray(b_elems.T if entry["transpose_b"] else b_elems)
    return {"a": a, "b": b, "c": c, "args": (stored_a, stored_b, c)}


def gemm_reference(entry: dict, data: dict):
    """R: numpy's float32 A@B, + C when beta = 1."""
    import numpy as np

    r = (data["a"] @ data["b"]).astype(np.float32)
    return (r + data["c"]).astype(np.float32) if entry["beta"] else r


def gemm_bound(entry: dict, data: dict):
    """6·(K+1)·2^-24 · (|A|@|B| + beta·|C|), in float64."""
    import numpy as np

    scale = np.abs(data["a"].astype(np.float64)) @ np.abs(data["b"].astype(np.float64))
    if entry["beta"]:
        scale = scale + np.abs(data["c"].astype(np.float64))
    return tolerance_factor(entry["k"]) * scale


def gemm_output(entry: dict):
    import numpy as np

    return (entry["m"], entry["n"]), np.float32, np.nan


def gemm_problem(entry: dict) -> str:
    """What is wrong with a gemm entry's values ("" when nothing)."""
    m, n, k = entry["m"], entry["n"], entry["k"]
    shape = "x".join(map(shown, (m, n, k)))
    if not (m > 0 and n > 0 and k > 0 and m % 16 == n % 8 == k % 8 == 0):
        return f"shape {shape} is not made of m16n8k8 tiles"
    if (m // 16) * (n // 8) * (k // 16 + k % 16 // 8) > GEMM_MAX_MMA:
        return f"shape {shape} unrolls to more than {GEMM_MAX_MMA} mma.sync (gpu build makes no such kernel)"
    if entry["dtype"] not in ("f16", "bf16"):
        return f"dtype {entry['dtype']!r} is not f16 or bf16"
    if entry["beta"] not in (0, 1):
        return f"beta {shown(entry['beta'])} is not 0 or 1"
    return ""


GEMM = Kind(
    "gemm",
    {"m": int, "n": int, "k": int, "dtype": str, "beta": int, "transpose_a": bool, "transpose_b": bool},
    gemm_problem,
    gemm_inputs,
    gemm_output,
    lambda entry, raw: raw,
    gemm_reference,
    gemm_bound,
    lambda entry: False,
    lambda entry: f"6(K+1)u·S, K = {entry['k']}",
    GEMM_BOUNDS,
    GEMM_INPUTS,
)


# ---- tile ----------------------------------------------------------------------------------------

FLOATS = {"f16": 10, "bf16": 7, "tf32": 10, "f32": 23, "f64": 52}  # explicit significand bits
FP8 = {"e4m3": (3, 7), "e5m2": (2, 15)}  # mantissa bits, exponent bias
INTEGERS = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15), "b1": (0, 1)}
INPUT_TYPES = (*FLOATS, *FP8, *INTEGERS)  # what the checker makes for A and B
ACCUMULATORS = ("f16", "f32", "f64", "s32")
UNIT_ROUNDOFF = {"f16": 2.0**-11, "f32": 2.0**-24, "f64": 2.0**-53}
INT32 = (-(2**31), 2**31 - 1)
_SATURATE_BY = 10  # .satfinite: C's first/last rows start this far from the int32 limits
TILE_INPUTS = {
    "f16, bf16, tf32, f32, f64": "±(1 + m·2^-p)·2^e, e in [-4, 0], m a random p-bit integer, p the type's explicit "
    "significand bits (10, 7, 10, 23, 52): exact in the type, tf32 already rounded to tf32, none subnormal",
    "e4m3, e5m2": "random bytes of normal values with exponent -4 to 0, decoded in numpy",
    "s8, u8, s4, u4, b1": "uniform over the whole type (b1: random bits)",
    "s32": "C uniform in [-2^20, 2^20]; with .satfinite, A's first row at the type's maximum and its last at the "
    "minimum, B's first column at the maximum, C's first row 2^31 - 11 and its last -2^31 + 10: D's first row "
    "saturates upwards (and for a signed A its last row downwards)",
    "seed": "numpy.random.default_rng(the tile's seed) draws A, B, C in that order",
}
TILE_BOUNDS = {
    "exact": "exact: D = R (integers, b1)",
    "float": "|D - R| <= g·(|A|@|B| + |C|), g = 2nu/(1 - 2nu), n = K + 3, u = unit roundoff of D's type",
}


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
    """`values` as the kernel's memory holds them (harness.kernels.tiles MEMORY_IR)."""
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


def tile_inputs(entry: dict) -> dict:
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
    return {**data, "args": tuple(data[f"stored_{op}"] for op in shapes)}


# ---- reference and bound (numpy only) ---------------------------------------------------------


def tile_exact(entry: dict) -> bool:
    """Whether the kernel's D is judged exactly (integer and b1 inputs)."""
    return entry["d"] == "s32"


def tile_reference(entry: dict, a, b, c):
    """R = A·B + C per product: exact integers (b1: popc of XOR / AND summed; .satfinite clamped
    to int32), or for floating point the exact value (fractions) rounded to float64."""
    import numpy as np

    if tile_exact(entry):
        a64, b64, c64 = (np.asarray(x, dtype=np.int64) for x in (a, b, c))
        if entry["b1op"] == "xor":  # Σ_k a ^ b = Σ_k a + Σ_k b - 2 Σ_k a·b for bits
            r = a64.sum(axis=-1)[..., :, None] + b64.sum(axis=-2)[..., None, :] - 2 * (a64 @ b64) + c64
        else:  # an integer product, or b1 AND (a·b of bits)
            r = a64 @ b64 + c64
        return np.clip(r, *INT32) if entry["satfinite"] else r
    from fractions import Fraction

    frac = np.vectorize(Fraction, otypes=[object])
    return (np.matmul(frac(a), frac(b)) + frac(c)).astype(np.float64)


def tile_bound(entry: dict, a, b, c):
    """Per element of D, the error allowed: 0 for exact kernels, else g·(|A|@|B| + |C|)."""
    import numpy as np

    if tile_exact(entry):
        return np.zeros(np.shape(c))
    n, u = entry["k"] + 3, UNIT_ROUNDOFF[entry["d"]]
    return 2 * n * u / (1 - 2 * n * u) * (np.abs(a) @ np.abs(b) + np.abs(c))


def d_values(raw, ptx: str):
    """D as numbers (float64, or int64 for .s32) from what the kernel stored."""
    import numpy as np

    if ptx == "f16":
        return raw.view(np.float16).astype(np.float64)
    return raw.astype(np.int64 if ptx == "s32" else np.float64)


# What D holds before the kernel runs (any element it does not store stays so): NaN, or for .s32
# a value no R here takes.
_UNWRITTEN = {"f16": 0x7E00, "f32": float("nan"), "f64": float("nan"), "s32": -0x5A5A5A5A}


def tile_output(entry: dict):
    import numpy as np

    like = stored(np.zeros(1, dtype=np.int64 if entry["d"] == "s32" else np.float64), entry["d"])
    return (entry["products"], entry["m"], entry["n"]), like.dtype, _UNWRITTEN[entry["d"]]


# The dense mma.sync shapes, M x N x K (PTX ISA, "Matrix shape" of the mma instructions).
TILE_SHAPES = {(8, 8, 4), (8, 8, 16), (8, 8, 32), (8, 8, 128), (16, 8, 4), (16, 8, 8), (16, 8, 16), (16, 8, 32)}
TILE_SHAPES |= {(16, 8, 64), (16, 8, 128), (16, 8, 256)}


def tile_problem(entry: dict) -> str:
    """What is wrong with a tile entry's values ("" when nothing)."""
    shape = (entry["m"], entry["n"], entry["k"])
    if shape not in TILE_SHAPES:
        return f"shape m{shown(shape[0])}n{shown(shape[1])}k{shown(shape[2])} is not a dense mma.sync shape"
    if entry["products"] not in ((1, 4) if shape == (8, 8, 4) else (1,)):
        return f"products = {shown(entry['products'])}: one product per warp, or four for m8n8k4"
    if entry["ptx_only"]:
        return ""
    for op, allowed in (("a", INPUT_TYPES), ("b", INPUT_TYPES), ("c", ACCUMULATORS), ("d", ACCUMULATORS)):
        if entry[op] not in allowed:
            return f"{op.upper()} type {entry[op]!r} is not one the checker makes ({', '.join(allowed)})"
    b1op_ok = entry["b1op"] in ("xor", "and") if entry["a"] == "b1" else entry["b1op"] == ""
    if tile_exact(entry) != (entry["a"] in INTEGERS) or not b1op_ok:
        return f"types {entry['a']}/{entry['d']} with b1op {entry['b1op']!r} do not make an mma"
    if entry["satfinite"] and entry["a"] not in INTEGERS:
        return ".satfinite on a floating-point tile"
    return ""


def _tile_label(entry: dict) -> str:
    u = {"f16": "2^-11", "f32": "2^-24", "f64": "2^-53"}.get(entry["d"], "")
    return "exact" if tile_exact(entry) else f"g·S, K = {entry['k']}, u = {u}"


TILE = Kind(
    "tile",
    {
        **{"m": int, "n": int, "k": int, "products": int},
        **{"a": str, "b": str, "c": str, "d": str, "satfinite": bool, "b1op": str},
    },
    tile_problem,
    tile_inputs,
    tile_output,
    lambda entry, raw: d_values(raw, entry["d"]),
    lambda entry, data: tile_reference(entry, data["a"], data["b"], data["c"]),
    lambda entry, data: tile_bound(entry, data["a"], data["b"], data["c"]),
    tile_exact,
    _tile_label,
    TILE_BOUNDS,
    TILE_INPUTS,
)

KINDS = {kind.name: kind for kind in (GEMM, TILE)}
