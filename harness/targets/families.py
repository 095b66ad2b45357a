"""What the explicit AMDGPU rows (`amdgpu_rows`) mean as IR: the overload suffix of a type, and
each immarg's range.

An operand entry of a row is a role (`A`, `B`, `C`, `index`, `fmt_a`, `fmt_b`), an immarg
(`immarg <type> <name> <lo>..<hi>`) or a plain scalar (`<type> <name>`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.targets.amdgpu_rows import Row


@dataclass(frozen=True)
class Immarg:
    """An operand the intrinsic requires to be a constant, with the values the ISA encodes."""

    index: int
    type: str
    name: str
    low: int
    high: int


_SCALAR_SUFFIX = {"float": "f32", "half": "f16", "double": "f64", "bfloat": "bf16"}
_VECTOR = re.compile(r"<(\d+) x (\w+)>")
_IMMARG = re.compile(r"immarg (i\d+) (\w+) (-?\d+)\.\.(-?\d+)")


def mangle(ir_type: str) -> str:
    """LLVM's overload suffix for a type: <8 x float> -> v8f32, i64 -> i64, float -> f32."""
    m = _VECTOR.fullmatch(ir_type)
    if m:
        return f"v{m.group(1)}{_SCALAR_SUFFIX.get(m.group(2), m.group(2))}"
    if re.fullmatch(r"i\d+", ir_type) or ir_type in _SCALAR_SUFFIX:
        return _SCALAR_SUFFIX.get(ir_type, ir_type)
    raise ValueError(f"cannot mangle {ir_type!r}")


def immargs(row: Row) -> tuple[Immarg, ...]:
    """The row's immargs with their ranges, in operand order."""
    out = []
    for index, entry in enumerate(row.operands):
        m = _IMMARG.fullmatch(entry)
        if m:
            out.append(Immarg(index, m.group(1), m.group(2), int(m.group(3)), int(m.group(4))))
    return tuple(out)


def operand_names(row_name: str) -> tuple[str, ...]:
    """The name the row gives each operand of `row_name` (an LLVM name without its prefix): the
    immarg's name, or the entry itself (`A`, `fmt_a`, `i32 scale_a`). () for a name no row has."""
    from harness.targets import amdgpu_rows

    row = amdgpu_rows.BY_NAME.get(row_name)
    if row is None:
        return ()
    named = {im.index: im.name for im in immargs(row)}
    return tuple(named.get(i, entry) for i, entry in enumerate(row.operands))
