"""The values of its constant operands the whole space tries for a matrix intrinsic on a processor
that has the instruction (`selection.space`): AMDGPU's immargs and formats, NVPTX's sparsity
selector.

Per immarg: its lowest value (the base cell), the middle and the highest value the ISA allows on
that instruction (`targets.limits` within the field of `amdgpu_rows`), the first value the ISA
calls invalid there while the field still holds it, and the first value past the field (where
the IR type can hold it); then every pair of immargs, both at their highest allowed value (ABID
with CBSZ at its highest, so 2^CBSZ-1). A runtime format (F8F6F4) takes FP6 and FP4 on each side
and FP4 on both, and 5, one past the formats. Where the call has scale operands, every cell but
the base one passes them in registers (`%scale_a`), so llc must select the scaled instruction and
encode the selects: with constant zero scales it may fold into the unscaled one.
"""

from __future__ import annotations

import itertools
import re

from harness.targets import catalog, families, limits, processors
from harness.targets.catalog import FMT_A, FMT_B, Intrinsic

_SCALE = re.compile(r"i(?:32|64) (scale_[ab])")
FORMAT_VALUES = ((2, 0), (4, 0), (0, 2), (0, 4), (4, 4))  # FP6, FP4 on one side, FP4 on both
PAST_FORMATS = "5"

Args = tuple[tuple[int, str], ...]


def variants(form: Intrinsic, cpu: str) -> list[tuple[int, int, Args]]:
    """(format of A, format of B, operand overrides) of each cell beyond the base one (first
    formats, every immarg at its lowest, constant scales)."""
    names = families.operand_names(form.base or form.name) or tuple(f"operand {i}" for i in range(len(form.operands)))
    registers = tuple((i, f"%{m.group(1)}") for i, n in enumerate(names) if (m := _SCALE.fullmatch(n)))
    fa, fb = form.a.formats[0], form.b.formats[0]
    out: list[tuple[int, int, Args]] = [(fa, fb, registers)] if registers else []
    tops: dict[int, str] = {}  # each immarg's highest allowed value with CBSZ at 0
    beside_cbsz: dict[int, str] = {}  # ... with CBSZ at its own highest (ABID's grows with it)
    for index, low, high in form.ranges:
        spell = _spelling(form, index)
        top = _allowed_top(form, cpu, names[index], low, high, cbsz=0)
        values = [(low + top) // 2, top, top + 1 if top < high else None, high + 1]
        bits = int(catalog.literal(form.operands[index])[0][1:])
        for v in dict.fromkeys(v for v in values if v is not None and v != low and v < 2**bits):
            out.append((fa, fb, ((index, spell(v)), *registers)))
        tops[index] = spell(top) if top != low else ""
        paired = _allowed_top(form, cpu, names[index], low, high, cbsz=_cbsz_top(form, cpu))
        beside_cbsz[index] = spell(paired) if paired != low else ""
    for i, j in itertools.combinations(sorted(tops), 2):
        a, b = (tops[i], beside_cbsz[j]) if names[i] == "cbsz" else (tops[i], tops[j])
        if a and b:
            out.append((fa, fb, ((i, a), (j, b), *registers)))
    if FMT_A in form.operands:
        out += [(a, b, registers) for a, b in FORMAT_VALUES]
        out += [(fa, fb, ((form.arg_index(role), PAST_FORMATS), *registers)) for role in (FMT_A, FMT_B)]
    return out


def _spelling(form: Intrinsic, index: int):
    """How `args` spells a value of operand `index` (an i1 as false/true)."""
    if catalog.literal(form.operands[index])[0].endswith("i1"):
        return lambda n: ("false", "true")[n] if n in (0, 1) else str(n)
    return str


def _cbsz_top(form: Intrinsic, cpu: str) -> int:
    """The highest CBSZ the ISA allows on the instruction (0 where `limits` does not limit it)."""
    allowed = limits.limits(processors.representative(cpu, form.cpus), form.mnemonics(cpu)[0])
    return (allowed or {}).get("cbsz", 0)


def _allowed_top(form: Intrinsic, cpu: str, name: str, low: int, high: int, cbsz: int) -> int:
    """The highest value operand `name` may take on `cpu` per the ISA, with CBSZ at `cbsz`: its
    field's, lowered where `limits` has the instruction."""
    allowed = limits.limits(processors.representative(cpu, form.cpus), form.mnemonics(cpu)[0], cbsz)
    if allowed is None or name not in allowed:
        return high
    return max(low, min(high, allowed[name]))
