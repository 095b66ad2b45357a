"""Where each lane's fragment registers sit in the matrices of a dense `mma.sync.aligned`: the PTX
ISA's "Matrix Fragments for mma.mMnNkK" tables (section 9.7.14.5 of PTX ISA 9.x, "Warp-level
matrix multiply-accumulate instructions"), transcribed as formulas, never read off llc.

Every formula maps (lane, element index i) to (row, column) of its matrix, the ISA's notation:
groupID = %laneid >> 2, threadID_in_group = %laneid % 4, a_i / b_i / c_i numbered low to high
across the registers (a register holds 32 / bits elements of a type narrower than 32 bits,
element 0 in its low bits; .f64 one element per register). A is M×K, B is K×N, C and D are M×N.
`mma.m8n8k4` with .f16 computes four independent 8×8×4 products, one per quad pair (lanes 4q..4q+3
and 16+4q..16+4q+3); `problem()` names which, every other shape has one.

`placement()` evaluates the tables for a row of harness.targets.nvptx_rows, optionally with a
planted fault (PLANTS): a wrong layout, for showing that the numerics catch one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from harness.core.errors import InputError
from harness.targets.nvptx_rows import Row

LANES = 32
OPERANDS = ("a", "b", "c", "d")
Place = tuple[int, int, int]  # (problem, row, column)
Formula = Callable[[int, int], tuple[int, int]]

# Bits an element takes in its register ("Elements (low to high)" of the fragment tables). The
# FP6/FP4 types of .kind::f8f6f4 sit in a byte each, like e4m3 ("four .e2m1 elements" per .b32).
ELEMENT_BITS = {
    "f16": 16,
    "bf16": 16,
    "tf32": 32,
    "f32": 32,
    "s32": 32,
    "f64": 64,
    "b1": 1,
    **{t: 4 for t in ("s4", "u4")},
    **{t: 8 for t in ("s8", "u8", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1")},
}

# The multiplicand types sharing one table (the ISA lists them in one row of a table).
_CLASS = {
    "f16": "f16",
    "bf16": "f16",
    "tf32": "tf32",
    "f64": "f64",
    "b1": "b1",
    **{t: "i4" for t in ("s4", "u4")},
    **{t: "i8" for t in ("s8", "u8", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1")},
}


def group(lane: int) -> int:
    """groupID."""
    return lane >> 2


def tig(lane: int) -> int:
    """threadID_in_group."""
    return lane % 4


def _high(lane: int) -> int:
    """1 for the high lanes (%laneid >= 16) of mma.m8n8k4 .f16, else 0."""
    return int(lane >= 16)


def _m16_cd(lane: int, i: int) -> tuple[int, int]:
    # C/D of every m16n8kK (.f16, .f32, .f64, .s32): row groupID for c0, c1, groupID + 8 for c2,
    # c3; col (threadID_in_group * 2) + (i & 0x1).
    return group(lane) + 8 * (i >= 2), 2 * tig(lane) + (i & 1)


def _m8_cd(lane: int, i: int) -> tuple[int, int]:
    # C/D of m8n8k4 .f64, m8n8k16, m8n8k32, m8n8k128: row groupID, col (threadID_in_group * 2) + i.
    return group(lane), 2 * tig(lane) + (i & 1)


def _m8_ab(width: int) -> tuple[Formula, Formula]:
    # m8n8k16 (.s8/.u8, width 4), m8n8k32 (.s4/.u4, 8), m8n8k128 (.b1, 32): A row groupID, col
    # (threadID_in_group * width) + i; B row (threadID_in_group * width) + i, col groupID.
    return (lambda l, i: (group(l), width * tig(l) + i)), (lambda l, i: (width * tig(l) + i, group(l)))


_M8K16_A, _M8K16_B = _m8_ab(4)
_M8K32_A, _M8K32_B = _m8_ab(8)
_M8K128_A, _M8K128_B = _m8_ab(32)

# (shape, operand, type class or C/D type[, layout]) -> formula. The layout is part of the key only
# where the ISA gives one table per layout (m8n8k4 .f16); every other shape is .row.col.
TABLES: dict[tuple[str, ...], Formula] = {
    # 9.7.14.5.1 mma.m8n8k4 with .f16: per quad pair; "+4" for %laneid >= 16.
    ("m8n8k4", "a", "f16", "row"): lambda l, i: (l % 4 + 4 * _high(l), i),
    ("m8n8k4", "a", "f16", "col"): lambda l, i: (i % 4 + 4 * _high(l), l % 4),
    ("m8n8k4", "b", "f16", "row"): lambda l, i: (l % 4, i + 4 * _high(l)),
    ("m8n8k4", "b", "f16", "col"): lambda l, i: (i, l % 4 + 4 * _high(l)),
    ("m8n8k4", "cd", "f16"): lambda l, i: (l % 4 + 4 * _high(l), i),
    # .ctype .f32: row X (+4 high), X = (%laneid & 0b1) + (i & 0b10); col (i & 0b100) + (%laneid & 0b10) + (i & 0b1).
    ("m8n8k4", "cd", "f32"): lambda l, i: ((l & 1) + (i & 2) + 4 * _high(l), (i & 4) + (l & 2) + (i & 1)),
    # 9.7.14.5.2 mma.m8n8k4 with .f64: A row %laneid >> 2, col %laneid % 4; B the transpose.
    ("m8n8k4", "a", "f64"): lambda l, i: (l >> 2, l % 4),
    ("m8n8k4", "b", "f64"): lambda l, i: (l % 4, l >> 2),
    ("m8n8k4", "cd", "f64"): _m8_cd,
    # 9.7.14.5.3 mma.m8n8k16, 9.7.14.5.4 mma.m8n8k32, 9.7.14.5.5 mma.m8n8k128.
    ("m8n8k16", "a", "i8"): _M8K16_A,
    ("m8n8k16", "b", "i8"): _M8K16_B,
    ("m8n8k16", "cd", "s32"): _m8_cd,
    ("m8n8k32", "a", "i4"): _M8K32_A,
    ("m8n8k32", "b", "i4"): _M8K32_B,
    ("m8n8k32", "cd", "s32"): _m8_cd,
    ("m8n8k128", "a", "b1"): _M8K128_A,
    ("m8n8k128", "b", "b1"): _M8K128_B,
    ("m8n8k128", "cd", "s32"): _m8_cd,
    # 9.7.14.5.6 mma.m16n8k4 (.tf32 and .f64 alike): A row groupID for a0, groupID + 8 for a1,
    # col threadID_in_group; B row threadID_in_group, col groupID.
    **{("m16n8k4", "a", c): (lambda l, i: (group(l) + 8 * i, tig(l))) for c in ("tf32", "f64")},
    **{("m16n8k4", "b", c): (lambda l, i: (tig(l), group(l))) for c in ("tf32", "f64")},
    # 9.7.14.5.7 mma.m16n8k8. .f16/.bf16: A row groupID for a0, a1, + 8 for a2, a3, col
    # threadID_in_group * 2 + (i & 0x1); B row (threadID_in_group * 2) + i, col groupID.
    ("m16n8k8", "a", "f16"): lambda l, i: (group(l) + 8 * (i >= 2), 2 * tig(l) + (i & 1)),
    ("m16n8k8", "b", "f16"): lambda l, i: (2 * tig(l) + i, group(l)),
    # .tf32/.f64: A row groupID for a0, a2, + 8 for a1, a3, col threadID_in_group (+ 4 for a2,
    # a3); B row threadID_in_group for b0, + 4 for b1, col groupID.
    **{("m16n8k8", "a", c): (lambda l, i: (group(l) + 8 * (i & 1), tig(l) + 4 * (i >= 2))) for c in ("tf32", "f64")},
    **{("m16n8k8", "b", c): (lambda l, i: (tig(l) + 4 * i, group(l))) for c in ("tf32", "f64")},
    # 9.7.14.5.8 mma.m16n8k16 with floating point type. .f16/.bf16: A row groupID for
    # 0 <= i < 2 || 4 <= i < 6, else + 8; col (threadID_in_group * 2) + (i & 0x1) (+ 8 for i >= 4);
    # B row (threadID_in_group * 2) + (i & 0x1) (+ 8 for i >= 2), col groupID.
    ("m16n8k16", "a", "f16"): lambda l, i: (group(l) + 8 * (i in (2, 3, 6, 7)), 2 * tig(l) + (i & 1) + 8 * (i >= 4)),
    ("m16n8k16", "b", "f16"): lambda l, i: (2 * tig(l) + (i & 1) + 8 * (i >= 2), group(l)),
    # .f64: A row groupID for i % 2 = 0, else + 8; col (i * 2) + threadID_in_group for i % 2 = 0,
    # else (i * 2) - 2 + threadID_in_group; B row threadID_in_group + (i * 4), col groupID.
    ("m16n8k16", "a", "f64"): lambda l, i: (group(l) + 8 * (i % 2), 2 * i + tig(l) - 2 * (i % 2)),
    ("m16n8k16", "b", "f64"): lambda l, i: (tig(l) + 4 * i, group(l)),
    # 9.7.14.5.9 mma.m16n8k16 with integer type (and .e4m3/.e5m2): A row groupID for i < 4, else
    # + 8, col (threadID_in_group * 4) + (i & 0x3); B row (threadID_in_group * 4) + i, col groupID.
    ("m16n8k16", "a", "i8"): lambda l, i: (group(l) + 8 * (i >= 4), 4 * tig(l) + (i & 3)),
    ("m16n8k16", "b", "i8"): lambda l, i: (4 * tig(l) + i, group(l)),
    # 9.7.14.5.10 mma.m16n8k32. .s4/.u4: A row groupID for i < 8, else + 8, col
    # (threadID_in_group * 8) + (i & 0x7); B row (threadID_in_group * 8) + (i & 0x7), col groupID.
    ("m16n8k32", "a", "i4"): lambda l, i: (group(l) + 8 * (i >= 8), 8 * tig(l) + (i & 7)),
    ("m16n8k32", "b", "i4"): lambda l, i: (8 * tig(l) + (i & 7), group(l)),
    # 8-bit types (.s8/.u8 and the FP8/FP6/FP4 of .kind::f8f6f4): A row groupID for 0 <= i < 4 ||
    # 8 <= i < 12, else + 8, col (threadID_in_group * 4) + (i & 0x3) (+ 16 for i >= 8); B row
    # (threadID_in_group * 4) + (i & 0x3) (+ 16 for i >= 4), col groupID.
    ("m16n8k32", "a", "i8"): lambda l, i: (
        group(l) + 8 * (i in (4, 5, 6, 7, 12, 13, 14, 15)),
        4 * tig(l) + (i & 3) + 16 * (i >= 8),
    ),
    ("m16n8k32", "b", "i8"): lambda l, i: (4 * tig(l) + (i & 3) + 16 * (i >= 4), group(l)),
    # 9.7.14.5.11 mma.m16n8k64 (.s4/.u4): A row groupID for 0 <= i < 8 || 16 <= i < 24, else + 8,
    # col (threadID_in_group * 8) + (i & 0x7) (+ 32 for i >= 16); B row
    # (threadID_in_group * 8) + (i & 0x7) (+ 32 for i >= 8), col groupID.
    ("m16n8k64", "a", "i4"): lambda l, i: (group(l) + 8 * ((i // 8) % 2), 8 * tig(l) + (i & 7) + 32 * (i >= 16)),
    ("m16n8k64", "b", "i4"): lambda l, i: (8 * tig(l) + (i & 7) + 32 * (i >= 8), group(l)),
    # 9.7.14.5.12 mma.m16n8k128 (.b1): A row groupID for i < 32, else + 8, col
    # (threadID_in_group * 32) + (i & 0x1F); B row (threadID_in_group * 32) + i, col groupID.
    ("m16n8k128", "a", "b1"): lambda l, i: (group(l) + 8 * (i >= 32), 32 * tig(l) + (i & 31)),
    ("m16n8k128", "b", "b1"): lambda l, i: (32 * tig(l) + i, group(l)),
    # 9.7.14.5.13 mma.m16n8k256 (.b1): A row groupID for 0 <= i < 32 || 64 <= i < 96, else + 8,
    # col (threadID_in_group * 32) + i for i < 64 -- read as + (i & 0x1F), as Figure 100 draws it
    # and m16n8k128 writes it: "+ i" would give lanes overlapping columns -- and
    # (threadID_in_group * 32) + (i & 0x1F) + 128 for i >= 64; B row (threadID_in_group * 32) +
    # (i & 0x1F) (+ 128 for i >= 32), col groupID.
    ("m16n8k256", "a", "b1"): lambda l, i: (group(l) + 8 * ((i // 32) % 2), 32 * tig(l) + (i & 31) + 128 * (i >= 64)),
    ("m16n8k256", "b", "b1"): lambda l, i: (32 * tig(l) + (i & 31) + 128 * (i >= 32), group(l)),
    # The accumulators of every m16n8kK: "Accumulators (C or D)" of 9.7.14.5.6 to 9.7.14.5.13.
    **{
        (shape, "cd", t): _m16_cd
        for shape in ("m16n8k4", "m16n8k8", "m16n8k16", "m16n8k32", "m16n8k64", "m16n8k128", "m16n8k256")
        for t in ("f16", "f32", "f64", "s32")
    },
}

# Where a table has a high-half term: the `+ 8` rows (groupID + 8) of A and C/D of the m16n8
# shapes and the `+ 4` rows of the high lanes of m8n8k4 .f16 (row halves), and the B rows past
# K/2 ("+ 4", "+ 8", "+ 16", "+ 32", "+ 128" for the high b_i; m16n8k16 .f64's threadID_in_group
# + i * 4 reaches both). Shapes without one: an A or C/D row of groupID alone, a B row of
# (threadID_in_group * width) + i alone.
_M16 = ("m16n8k4", "m16n8k8", "m16n8k16", "m16n8k32", "m16n8k64", "m16n8k128", "m16n8k256")
ROW_HALVES = {(s, "a") for s in _M16} | {(s, "cd") for s in _M16}
K_HALVES = {("m16n8k8", "tf32"), ("m16n8k8", "f64"), ("m16n8k16", "f16"), ("m16n8k16", "f64")}
K_HALVES |= {("m16n8k32", "i8"), ("m16n8k64", "i4"), ("m16n8k256", "b1")}

_SHAPE = re.compile(r"m(\d+)n(\d+)k(\d+)")


def dims(shape: str) -> tuple[int, int, int]:
    """(M, N, K) of `m16n8k16`."""
    m = _SHAPE.fullmatch(shape)
    if not m:
        raise InputError(f"not an mma shape: {shape!r}")
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def quad_pairs(row: Row) -> bool:
    """Whether the row is mma.m8n8k4 .f16: four 8×8×4 products, one per quad pair."""
    return row.shape == "m8n8k4" and row.a == "f16"


def problems(row: Row) -> int:
    return 4 if quad_pairs(row) else 1


def problem(row: Row, lane: int) -> int:
    """Which product a lane takes part in: quad pair (lanes 4q..4q+3, 16+4q..16+4q+3) of m8n8k4 .f16."""
    return (lane >> 2) % 4 if quad_pairs(row) else 0


def ptx_type(row: Row, operand: str) -> str:
    return {"a": row.a, "b": row.b, "c": row.c, "d": row.d}[operand]


def per_register(ptx: str) -> int:
    """Elements of a PTX type in one fragment register: 32 / bits in a 32-bit register, one .f64."""
    return max(1, 32 // ELEMENT_BITS[ptx])


def elements(row: Row, operand: str) -> int:
    """Elements of the operand each lane holds: its registers (Row.regs) times per_register."""
    regs = dict(zip(("d", "a", "b", "c"), row.regs))[operand]
    return regs * per_register(ptx_type(row, operand))


def matrix_shape(row: Row, operand: str) -> tuple[int, int, int]:
    """(problems, rows, columns) of the operand's matrix: A M×K, B K×N, C and D M×N."""
    m, n, k = dims(row.shape)
    return (problems(row), *{"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[operand])


def formula(row: Row, operand: str) -> Formula:
    """The ISA's table for the operand of this row (InputError when the ISA has none)."""
    if operand in ("c", "d"):
        key: tuple[str, ...] = (row.shape, "cd", ptx_type(row, operand))
    else:
        key = (row.shape, operand, _CLASS.get(ptx_type(row, operand), "?"))
    layout = row.layouts[0 if operand == "a" else 1]
    found = TABLES.get((*key, layout)) or TABLES.get(key)
    if found is None:
        raise InputError(f"no PTX ISA fragment table for {row.name} operand {operand.upper()}")
    return found


@dataclass(frozen=True)
class Plant:
    """A deliberately wrong fragment layout: `kind` "rows" exchanges the row halves, "k" B's K
    halves, "lanes" reverses threadID_in_group (t -> 3 - t) of the `operands` it names."""

    name: str
    operands: tuple[str, ...]
    kind: str
    what: str


PLANTS = {
    p.name: p
    for p in (
        Plant("a-rows-swapped", ("a",), "rows", "A rows groupID <-> groupID + 8 (m8n8k4 .f16: the high lanes' + 4)"),
        Plant("a-lanes-reversed", ("a",), "lanes", "A loaded with threadID_in_group reversed"),
        Plant("b-khi-swapped", ("b",), "k", "B's two K halves exchanged"),
        Plant("b-lanes-reversed", ("b",), "lanes", "B loaded with threadID_in_group reversed"),
        Plant("d-rows-swapped", ("c", "d"), "rows", "C loaded and D stored with the row halves exchanged"),
        Plant("d-lanes-reversed", ("c", "d"), "lanes", "C loaded and D stored with threadID_in_group reversed"),
    )
}


def plant(name: str) -> Plant:
    if name not in PLANTS:
        raise InputError(f"unknown planted fault {name!r}; expected one of: {', '.join(PLANTS)}")
    return PLANTS[name]


def noop_reason(row: Row, fault: Plant) -> str:
    """Why the fault is no fault in this row's layout (its table has no such term), or ""."""
    if fault.kind == "rows":
        table = "cd" if "d" in fault.operands else "a"
        if quad_pairs(row) or (row.shape, table) in ROW_HALVES:
            return ""
        return f"{row.shape} {'C/D' if table == 'cd' else 'A'} rows are groupID alone: no + 8 row half to exchange"
    if fault.kind == "k" and (row.shape, _CLASS[row.b]) not in K_HALVES:
        return f"{row.shape} .{row.b} B has no K-high half (its rows are threadID_in_group-based alone)"
    return ""


def placement(row: Row, operand: str, fault: Plant | None = None) -> tuple[tuple[Place, ...], ...]:
    """Per lane, the matrix entry (problem, row, column) of each element of the operand's
    fragment, in register order (elements low to high); `fault` misplaces them on purpose."""
    fn = formula(row, operand)
    hit = fault is not None and operand in fault.operands and not noop_reason(row, fault)
    kind = fault.kind if fault is not None and hit else ""
    _, rows, _ = matrix_shape(row, operand)
    k_half = dims(row.shape)[2] // 2
    out = []
    for lane in range(LANES):
        source = lane ^ 3 if kind == "lanes" else lane  # t -> 3 - t, groupID kept
        places = []
        for i in range(elements(row, operand)):
            r, c = fn(source, i)
            r ^= rows // 2 if kind == "rows" else k_half if kind == "k" else 0
            places.append((problem(row, source), r, c))
        out.append(tuple(places))
    return tuple(out)
