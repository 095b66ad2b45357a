"""What the explicit AMDGPU rows (`amdgpu_rows`) mean as IR: each operand's type, the mangled
name of an overloaded intrinsic, its declaration.

An operand entry of a row is a role (`A`, `B`, `C`, `index`, `fmt_a`, `fmt_b`), an immarg
(`immarg <type> <name> <lo>..<hi>`) or a plain scalar (`<type> <name>`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.targets.amdgpu_rows import ROWS, Row, Shape

PREFIX = "llvm.amdgcn."
_SCALAR_SUFFIX = {"float": "f32", "half": "f16", "double": "f64", "bfloat": "bf16"}
_VECTOR = re.compile(r"<(\d+) x (\w+)>")
_IMMARG = re.compile(r"immarg (i\d+) (\w+) (-?\d+)\.\.(-?\d+)")


@dataclass(frozen=True)
class Immarg:
    """An operand the intrinsic requires to be a constant, with the values the ISA encodes."""

    index: int
    type: str
    name: str
    low: int
    high: int


def mangle(ir_type: str) -> str:
    """LLVM's overload suffix for a type: <8 x float> -> v8f32, i64 -> i64, float -> f32."""
    m = _VECTOR.fullmatch(ir_type)
    if m:
        return f"v{m.group(1)}{_SCALAR_SUFFIX.get(m.group(2), m.group(2))}"
    if re.fullmatch(r"i\d+", ir_type) or ir_type in _SCALAR_SUFFIX:
        return _SCALAR_SUFFIX.get(ir_type, ir_type)
    raise ValueError(f"cannot mangle {ir_type!r}")


def role_type(shape: Shape, role: str) -> str:
    """The IR type of a role (D, A, B, C, index) in one shape."""
    types = {"D": shape.result, "A": shape.a, "B": shape.b, "C": shape.acc or shape.result, "index": shape.index}
    return types[role]


def operand_type(shape: Shape, entry: str) -> str:
    """The IR type of one operand entry of a row."""
    if entry in ("A", "B", "C", "index"):
        return role_type(shape, entry)
    if entry in ("fmt_a", "fmt_b"):
        return "i32"
    return entry.removeprefix("immarg ").split(" ", 1)[0]


def immargs(row: Row) -> tuple[Immarg, ...]:
    """The row's immargs with their ranges, in operand order."""
    out = []
    for index, entry in enumerate(row.operands):
        m = _IMMARG.fullmatch(entry)
        if m:
            out.append(Immarg(index, m.group(1), m.group(2), int(m.group(3)), int(m.group(4))))
    return tuple(out)


def symbol(row: Row, shape: Shape) -> str:
    """The full name a call of this shape uses (overloaded types appended)."""
    return PREFIX + row.name + "".join("." + mangle(role_type(shape, role)) for role in row.overload)


def declaration(row: Row, shape: Shape) -> str:
    params = ", ".join(operand_type(shape, e) for e in row.operands)
    return f"declare {shape.result} @{symbol(row, shape)}({params})"


def probe_declarations() -> dict[str, str]:
    """Full name -> a declaration of its first shape, to ask a build whether it knows it."""
    return {PREFIX + r.name: declaration(r, r.shapes[0]) for r in ROWS}
