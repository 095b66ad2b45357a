"""The values of its constant operands the whole space tries for a matrix intrinsic on a processor
that has the instruction (`selection.space`): AMDGPU's immargs and formats, NVPTX's sparsity
selector.

Per immarg: its lowest value (the base cell), the middle and the highest value the ISA allows on
that instruction (`targets.limits` within the field of `amdgpu_rows`), the first value the ISA
calls invalid there while the field still holds it, and the first value past the field (where
the IR type can hold it); then every pair of immargs, both at their highest allowed value (ABID
with CBSZ at its highest, so 2^CBSZ-1). Sources take every format and legal vector width the row
has, paired on both sides, as the specs' `exact`/`overwide`/`underwide` widths do: a runtime
format (F8F6F4) takes its 25 format pairs at each of its 9 width pairs, and 5, one past the
formats. Where the call has scale operands, every cell but the base one passes them in registers
(`%scale_a`), so llc must select the scaled instruction and encode the selects: with constant
zero scales it may fold into the unscaled one.
"""

from __future__ import annotations

import itertools
import re

from harness.targets import catalog, families, limits, processors
from harness.targets.catalog import FMT_A, FMT_B, Intrinsic

_SCALE = re.compile(r"i(?:32|64) (scale_[ab])")
PAST_FORMATS = "5"

Args = tuple[tuple[int, str], ...]
Cell = tuple[int, int, int, int, Args]  # formats of A and B, their widths, operand overrides


def base(form: Intrinsic) -> Cell:
    """The base cell: first formats at their exact widths, every immarg at its lowest."""
    fa, fb = form.a.formats[0], form.b.formats[0]
    return (fa, fb, form.a.regs[fa], form.b.regs[fb], ())


def variants(form: Intrinsic, cpu: str) -> list[Cell]:
    """Each cell beyond the `base` one (constant scales) on a processor with the instruction."""
    names = families.operand_names(form.base or form.name) or tuple(f"operand {i}" for i in range(len(form.operands)))
    registers = tuple((i, f"%{m.group(1)}") for i, n in enumerate(names) if (m := _SCALE.fullmatch(n)))
    fa, fb, wa, wb, _ = base(form)
    out: list[Cell] = [(fa, fb, wa, wb, registers)] if registers else []
    tops: dict[int, str] = {}  # each immarg's highest allowed value with CBSZ at 0
    beside_cbsz: dict[int, str] = {}  # ... with CBSZ at its own highest (ABID's grows with it)
    for index, low, high in form.ranges:
        spell = _spelling(form, index)
        top = _allowed_top(form, cpu, names[index], low, high, cbsz=0)
        values = [(low + top) // 2, top, top + 1 if top < high else None, high + 1]
        bits = int(catalog.literal(form.operands[index])[0][1:])
        for v in dict.fromkeys(v for v in values if v is not None and v != low and v < 2**bits):
            out.append((fa, fb, wa, wb, ((index, spell(v)), *registers)))
        tops[index] = spell(top) if top != low else ""
        paired = _allowed_top(form, cpu, names[index], low, high, cbsz=_cbsz_top(form, cpu))
        beside_cbsz[index] = spell(paired) if paired != low else ""
    for i, j in itertools.combinations(sorted(tops), 2):
        a, b = (tops[i], beside_cbsz[j]) if names[i] == "cbsz" else (tops[i], tops[j])
        if a and b:
            out.append((fa, fb, wa, wb, ((i, a), (j, b), *registers)))
    out += [(*sources, registers) for sources in _sources(form) if sources != (fa, fb, wa, wb)]
    if FMT_A in form.operands:
        out += [(fa, fb, wa, wb, ((form.arg_index(role), PAST_FORMATS), *registers)) for role in (FMT_A, FMT_B)]
    return out


def _sources(form: Intrinsic) -> list[tuple[int, int, int, int]]:
    """Every (format of A, format of B, width of A, width of B) the row's sources take."""
    a = [(f, w) for f in form.a.formats for w in form.a.widths]
    b = [(f, w) for f in form.b.formats for w in form.b.widths]
    return [(fa, fb, wa, wb) for (fa, wa), (fb, wb) in itertools.product(a, b)]


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
