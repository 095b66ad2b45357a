"""Fragment placement (harness.kernels.fragments.placement) of every dense mma row and every
operand, lane by lane and element by element, against the PTX ISA's fragment tables written out
again here, independently of fragments.py (its TABLES and formula() are never read).

Source: PTX ISA 9.x, section 9.7.14.5 "Matrix Fragments for mma.mMnNkK" (subsections .1 to .13,
quoted per entry below). Notation as the ISA's: groupID = %laneid >> 2, threadID_in_group =
%laneid % 4, a_i / b_i / c_i the i-th element of the lane's fragment, low to high across its
registers. A is M×K, B is K×N, C and D are M×N.

Each entry of ISA is (elements per lane, (lane, i) -> (row, col)): the element count is the
table's "Elements (low to high)" column (a0 .. a15 is 16), the formula its "row = ..., col = ...".
No GPU is needed; the numerics on a GPU (`harness gpu check`) test the same tables by running them.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from harness.kernels import fragments, tiles

Fn = Callable[[int, int], tuple[int, int]]
DENSE = tiles.dense_rows()
LANES = 32


def g(lane: int) -> int:
    """groupID."""
    return lane >> 2


def t(lane: int) -> int:
    """threadID_in_group."""
    return lane % 4


def hi(lane: int) -> int:
    """mma.m8n8k4 .f16: "+ 4 ... otherwise", i.e. for %laneid >= 16 (the high group)."""
    return 4 if lane >= 16 else 0


def acc_m16(lane: int, i: int) -> tuple[int, int]:
    # Accumulators (C or D) of every m16n8kK, the same text in 9.7.14.5.6 to .13 for .f16, .f32,
    # .f64 and .s32: "row = groupID for ci where i < 2, groupID + 8 for ci where i >= 2;
    # col = (threadID_in_group * 2) + (i & 0x1) for ci where i = {0,..,3}".
    return (g(lane) if i < 2 else g(lane) + 8), t(lane) * 2 + (i & 0x1)


def acc_m8(lane: int, i: int) -> tuple[int, int]:
    # 9.7.14.5.3/.4/.5 (m8n8k16, k32, k128, .s32): "row = groupID; col = (threadID_in_group * 2) + i
    # for ci where i = {0, 1}"; 9.7.14.5.2 (m8n8k4 .f64) the same with (i & 0x1).
    return g(lane), t(lane) * 2 + i


# Multiplicand type -> the class of its ISA table row (one table lists these types together).
# The FP8/FP6/FP4 types of .kind::f8f6f4 sit in the 8-bit rows of m16n8k32 (9.7.14.5.10: ".s8 or
# .u8 or .e4m3 or .e5m2 or .e3m2 or .e2m3 or .e2m1": four elements per .b32).
AB_CLASS = {"f16": "f16", "bf16": "f16", "tf32": "tf32", "f64": "f64", "b1": "b1", "s4": "i4", "u4": "i4"}
AB_CLASS |= {x: "i8" for x in ("s8", "u8", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1")}

# (shape, operand, class) -> (elements per lane, formula). Operand "a" or "b" with the multiplicand
# class (m8n8k4 .f16 also with the layout, ".row" / ".col"), "cd" with the accumulator's own type.
ISA: dict[tuple[str, str, str], tuple[int, Fn]] = {
    # 9.7.14.5.1 mma.m8n8k4 with .f16. A row-major: "row = %laneid % 4 if %laneid < 16,
    # (%laneid % 4) + 4 otherwise; col = i"; column-major: "row = i % 4 (+ 4 otherwise);
    # col = %laneid % 4". B row-major: "row = %laneid % 4; col = i (i+4 otherwise)";
    # column-major: "row = i; col = %laneid % 4 ((%laneid % 4) + 4 otherwise)".
    ("m8n8k4", "a", "f16.row"): (4, lambda l, i: (l % 4 + hi(l), i)),
    ("m8n8k4", "a", "f16.col"): (4, lambda l, i: (i % 4 + hi(l), l % 4)),
    ("m8n8k4", "b", "f16.row"): (4, lambda l, i: (l % 4, i + hi(l))),
    ("m8n8k4", "b", "f16.col"): (4, lambda l, i: (i, l % 4 + hi(l))),
    # .ctype .f16 (c0..c7): "row = %laneid % 4 (+ 4 otherwise); col = i". .f32 (c0..c7):
    # "row = X (X + 4 otherwise), X = (%laneid & 0b1) + (i & 0b10); col = (i & 0b100) +
    # (%laneid & 0b10) + (i & 0b1)". The ISA names these by .ctype; a row with .f16 C and .f32 D
    # takes each by its own type (eight .f32 registers cannot be the four .f16x2 of the .f16
    # table), as the H200 run of docs/nvptx.md measured.
    ("m8n8k4", "cd", "f16"): (8, lambda l, i: (l % 4 + hi(l), i)),
    ("m8n8k4", "cd", "f32"): (8, lambda l, i: ((l & 0b1) + (i & 0b10) + hi(l), (i & 0b100) + (l & 0b10) + (i & 0b1))),
    # 9.7.14.5.2 mma.m8n8k4 with .f64: A "row = %laneid >> 2; col = %laneid % 4" (a0),
    # B "row = %laneid % 4; col = %laneid >> 2" (b0), C/D c0, c1.
    ("m8n8k4", "a", "f64"): (1, lambda l, i: (l >> 2, l % 4)),
    ("m8n8k4", "b", "f64"): (1, lambda l, i: (l % 4, l >> 2)),
    ("m8n8k4", "cd", "f64"): (2, acc_m8),
    # 9.7.14.5.3 mma.m8n8k16 (.u8/.s8): A "row = groupID; col = (threadID_in_group * 4) + i",
    # B "row = (threadID_in_group * 4) + i; col = groupID", i = {0,..,3}.
    ("m8n8k16", "a", "i8"): (4, lambda l, i: (g(l), t(l) * 4 + i)),
    ("m8n8k16", "b", "i8"): (4, lambda l, i: (t(l) * 4 + i, g(l))),
    ("m8n8k16", "cd", "s32"): (2, acc_m8),
    # 9.7.14.5.4 mma.m8n8k32 (.u4/.s4): the same with * 8, i = {0,..,7}.
    ("m8n8k32", "a", "i4"): (8, lambda l, i: (g(l), t(l) * 8 + i)),
    ("m8n8k32", "b", "i4"): (8, lambda l, i: (t(l) * 8 + i, g(l))),
    ("m8n8k32", "cd", "s32"): (2, acc_m8),
    # 9.7.14.5.5 mma.m8n8k128 (.b1): the same with * 32, i = {0,..,31}.
    ("m8n8k128", "a", "b1"): (32, lambda l, i: (g(l), t(l) * 32 + i)),
    ("m8n8k128", "b", "b1"): (32, lambda l, i: (t(l) * 32 + i, g(l))),
    ("m8n8k128", "cd", "s32"): (2, acc_m8),
}

ISA |= {
    # 9.7.14.5.6 mma.m16n8k4 (.tf32 and .f64 alike): A "row = groupID for a0, groupID + 8 for a1;
    # col = threadID_in_group"; B (b0) "row = threadID_in_group; col = groupID".
    **{("m16n8k4", "a", c): (2, lambda l, i: (g(l) + 8 * i, t(l))) for c in ("tf32", "f64")},
    **{("m16n8k4", "b", c): (1, lambda l, i: (t(l), g(l))) for c in ("tf32", "f64")},
    # 9.7.14.5.7 mma.m16n8k8. .f16/.bf16: A "row = groupID for a0 and a1, groupID + 8 for a2 and
    # a3; col = threadID_in_group * 2 + (i & 0x1)"; B "row = (threadID_in_group * 2) + i for
    # bi where i = {0, 1}; col = groupID".
    ("m16n8k8", "a", "f16"): (4, lambda l, i: (g(l) + (8 if i in (2, 3) else 0), t(l) * 2 + (i & 0x1))),
    ("m16n8k8", "b", "f16"): (2, lambda l, i: (t(l) * 2 + i, g(l))),
    # .tf32/.f64: A "row = groupID for a0 and a2, groupID + 8 for a1 and a3; col =
    # threadID_in_group for a0 and a1, threadID_in_group + 4 for a2 and a3"; B "row =
    # threadID_in_group for b0, threadID_in_group + 4 for b1; col = groupID".
    **{
        ("m16n8k8", "a", c): (4, lambda l, i: (g(l) + (8 if i in (1, 3) else 0), t(l) + (4 if i in (2, 3) else 0)))
        for c in ("tf32", "f64")
    },
    **{("m16n8k8", "b", c): (2, lambda l, i: (t(l) + (4 if i == 1 else 0), g(l))) for c in ("tf32", "f64")},
    # 9.7.14.5.8 mma.m16n8k16, floating point. .f16/.bf16: A "row = groupID for ai where
    # 0 <= i < 2 || 4 <= i < 6, groupID + 8 Otherwise; col = (threadID_in_group * 2) + (i & 0x1)
    # for i < 4, ... + 8 for i >= 4"; B "row = (threadID_in_group * 2) + (i & 0x1) for i < 2,
    # ... + 8 for i >= 2; col = groupID".
    ("m16n8k16", "a", "f16"): (
        8,
        lambda l, i: (g(l) if (0 <= i < 2 or 4 <= i < 6) else g(l) + 8, t(l) * 2 + (i & 0x1) + (8 if i >= 4 else 0)),
    ),
    ("m16n8k16", "b", "f16"): (4, lambda l, i: (t(l) * 2 + (i & 0x1) + (8 if i >= 2 else 0), g(l))),
    # .f64: A "row = groupID for ai where i % 2 = 0, groupID + 8 Otherwise; col = (i * 2) +
    # threadID_in_group for i % 2 = 0, (i * 2) - 2 + threadID_in_group Otherwise"; B "row =
    # threadID_in_group + (i * 4) for bi where i < 4; col = groupID".
    ("m16n8k16", "a", "f64"): (8, lambda l, i: (g(l), i * 2 + t(l)) if i % 2 == 0 else (g(l) + 8, i * 2 - 2 + t(l))),
    ("m16n8k16", "b", "f64"): (4, lambda l, i: (t(l) + i * 4, g(l))),
    # 9.7.14.5.9 mma.m16n8k16, integer (.u8/.s8 and .e4m3/.e5m2): A "row = groupID for ai where
    # i < 4, groupID + 8 for i >= 4; col = (threadID_in_group * 4) + (i & 0x3)"; B "row =
    # (threadID_in_group * 4) + i for bi where i = {0,..,3}; col = groupID".
    ("m16n8k16", "a", "i8"): (8, lambda l, i: (g(l) + (8 if i >= 4 else 0), t(l) * 4 + (i & 0x3))),
    ("m16n8k16", "b", "i8"): (4, lambda l, i: (t(l) * 4 + i, g(l))),
}

ISA |= {
    # 9.7.14.5.10 mma.m16n8k32. .s4/.u4: A "row = groupID for ai where i < 8, groupID + 8 for
    # i >= 8; col = (threadID_in_group * 8) + (i & 0x7) for i = {0,..,15}"; B "row =
    # (threadID_in_group * 8) + (i & 0x7) for bi where i = {0,..,7}; col = groupID".
    ("m16n8k32", "a", "i4"): (16, lambda l, i: (g(l) + (8 if i >= 8 else 0), t(l) * 8 + (i & 0x7))),
    ("m16n8k32", "b", "i4"): (8, lambda l, i: (t(l) * 8 + (i & 0x7), g(l))),
    # 8-bit: A "row = groupID for ai where 0 <= i < 4 || 8 <= i < 12, groupID + 8 otherwise;
    # col = (threadID_in_group * 4) + (i & 0x3) for i < 8, ... + 16 for i >= 8"; B "row =
    # (threadID_in_group * 4) + (i & 0x3) for bi where i < 4, ... + 16 for i >= 4; col = groupID".
    ("m16n8k32", "a", "i8"): (
        16,
        lambda l, i: (g(l) if (0 <= i < 4 or 8 <= i < 12) else g(l) + 8, t(l) * 4 + (i & 0x3) + (16 if i >= 8 else 0)),
    ),
    ("m16n8k32", "b", "i8"): (8, lambda l, i: (t(l) * 4 + (i & 0x3) + (16 if i >= 4 else 0), g(l))),
    # 9.7.14.5.11 mma.m16n8k64 (.s4/.u4): A "row = groupID for ai where 0 <= i < 8 || 16 <= i <
    # 24, groupID + 8 otherwise; col = (threadID_in_group * 8) + (i & 0x7) for i < 16, ... + 32
    # for i >= 16"; B "row = (threadID_in_group * 8) + (i & 0x7) for bi where i < 8, ... + 32 for
    # i >= 8; col = groupID".
    ("m16n8k64", "a", "i4"): (
        32,
        lambda l, i: (g(l) if (0 <= i < 8 or 16 <= i < 24) else g(l) + 8, t(l) * 8 + (i & 0x7) + (32 if i >= 16 else 0)),
    ),
    ("m16n8k64", "b", "i4"): (16, lambda l, i: (t(l) * 8 + (i & 0x7) + (32 if i >= 8 else 0), g(l))),
    # 9.7.14.5.12 mma.m16n8k128 (.b1): A "row = groupID for ai where i < 32, groupID + 8 for
    # i >= 32; col = (threadID_in_group * 32) + (i & 0x1F) for i = {0, ...,63}"; B "row =
    # (threadID_in_group * 32) + i for bi where i = {0,...,31}; col = groupID".
    ("m16n8k128", "a", "b1"): (64, lambda l, i: (g(l) + (8 if i >= 32 else 0), t(l) * 32 + (i & 0x1F))),
    ("m16n8k128", "b", "b1"): (32, lambda l, i: (t(l) * 32 + i, g(l))),
    # 9.7.14.5.13 mma.m16n8k256 (.b1): A "row = groupID for ai where 0 <= i < 32 || 64 <= i < 96,
    # groupID + 8 otherwise; col = (threadID_in_group * 32) + i for ai where i < 64,
    # (threadID_in_group * 32) + (i & 0x1F) + 128 for i >= 64". Taken literally, "+ i" puts
    # a32..a63 (row groupID + 8) at columns 32..159: column 0..31 of those rows would be nobody's
    # and 128..159 twice. Read as + (i & 0x1F), as for i >= 64 and in m16n8k128 (.12), which
    # test_the_isa_tables_place_every_element_once checks is a layout. B "row =
    # (threadID_in_group * 32) + (i & 0x1F) for bi where i < 32, ... + 128 for i >= 32; col = groupID".
    ("m16n8k256", "a", "b1"): (
        128,
        lambda l, i: (g(l) if (0 <= i < 32 or 64 <= i < 96) else g(l) + 8, t(l) * 32 + (i & 0x1F) + (128 if i >= 64 else 0)),
    ),
    ("m16n8k256", "b", "b1"): (64, lambda l, i: (t(l) * 32 + (i & 0x1F) + (128 if i >= 32 else 0), g(l))),
    # The accumulators of 9.7.14.5.6 to .13, per the type each table lists.
    **{
        (shape, "cd", acc): (4, acc_m16)
        for shape, accs in (
            ("m16n8k4", ("f32", "f64")),
            ("m16n8k8", ("f16", "f32", "f64")),
            ("m16n8k16", ("f16", "f32", "f64", "s32")),
            ("m16n8k32", ("f16", "f32", "s32")),
            ("m16n8k64", ("s32",)),
            ("m16n8k128", ("s32",)),
            ("m16n8k256", ("s32",)),
        )
        for acc in accs
    },
}


def dims(shape: str) -> tuple[int, int, int]:
    """(M, N, K) of "m16n8k32", read off the name."""
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def computation(row, lane: int) -> int:
    """9.7.14.5.1: mma.m8n8k4 .f16 is four computations, "MMA computation 1: Threads with
    %laneid 0-3 (low group) and 16-19 (high group)", 2: 4-7 and 20-23, ...; every other shape one."""
    return (lane % 16) // 4 if row.shape == "m8n8k4" and row.a == "f16" else 0


def isa_key(row, op: str) -> tuple[str, str, str]:
    """Which ISA table the row's operand takes: (shape, "a"/"b", class[.layout]) or (shape, "cd", type)."""
    ptx = {"a": row.a, "b": row.b, "c": row.c, "d": row.d}[op]
    if op in "cd":
        return row.shape, "cd", ptx
    cls = AB_CLASS[ptx]
    if row.shape == "m8n8k4" and cls == "f16":
        cls += "." + row.layouts[0 if op == "a" else 1]
    return row.shape, op, cls


def expected(row, op: str) -> list[list[tuple[int, int, int]]]:
    """Per lane, (computation, row, column) of each element, from the ISA entry."""
    count, fn = ISA[isa_key(row, op)]
    return [[(computation(row, lane), *fn(lane, i)) for i in range(count)] for lane in range(LANES)]


def first_difference(want, got) -> str:
    for lane in range(LANES):
        if len(want[lane]) != len(got[lane]):
            return f"lane {lane}: {len(got[lane])} elements, the ISA's table has {len(want[lane])}"
        for i, (w, h) in enumerate(zip(want[lane], got[lane])):
            if tuple(w) != tuple(h):
                return f"lane {lane} element {i}: placement {tuple(h)}, the ISA's table {w}"
    return ""


# ---- the tests -------------------------------------------------------------------------------------


def test_the_rows_are_the_144_dense_variants_and_each_has_an_isa_table():
    assert len(DENSE) == 144
    keys = {(r.name, op): isa_key(r, op) for r in DENSE for op in "abcd"}
    assert sorted(name_op for name_op, key in keys.items() if key not in ISA) == []
    assert set(ISA) - set(keys.values()) == set()  # every table written here is some row's


@pytest.mark.parametrize("row", DENSE, ids=[r.name for r in DENSE])
def test_placement_is_the_isa_table_for_every_lane_and_element(row):
    for op in "abcd":
        got = fragments.placement(row, op)
        assert len(got) == LANES, (row.name, op)
        why = first_difference(expected(row, op), got)
        assert not why, f"{row.name} operand {op.upper()}: {why}"


@pytest.mark.parametrize("key", sorted(ISA), ids=lambda k: ".".join(k) if isinstance(k, tuple) else str(k))
def test_the_isa_tables_place_every_element_once(key):
    """Each table written here, over the 32 lanes, holds every element of its matrix exactly once
    (per computation): a mistyped formula, or a literal reading like m16n8k256's "+ i", shows."""
    shape, op, cls = key
    m, n, k = dims(shape)
    rows, cols = {"a": (m, k), "b": (k, n), "cd": (m, n)}[op]
    count, fn = ISA[key]
    quads = shape == "m8n8k4" and cls != "f64"  # .f16 multiplicands: four computations
    seen = [(((lane % 16) // 4) if quads else 0, *fn(lane, i)) for lane in range(LANES) for i in range(count)]
    every = {(p, r, c) for p in range(4 if quads else 1) for r in range(rows) for c in range(cols)}
    assert len(seen) == len(set(seen)) and set(seen) == every
