"""Emit LLVM IR modules and lit test files for cases, byte-for-byte deterministic.

Every function holds exactly one call. Its result is named `%r.<function>`: the IR verifier
prints the offending call, so that name is how a diagnostic is attributed back to its case.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.specs.cases import Case
from harness.targets import catalog, families
from harness.targets.catalog import SIDE_A, SIDE_B, SIDES, Intrinsic, Role, Side

_REGISTER_PARAMETER = re.compile(r"%[abc][0-9]+")  # one register of a fragment (%a0, %c3)

mangle = families.mangle  # LLVM's overload suffix for a type: <8 x float> -> v8f32


def source_type(case: Case, side: Side) -> str:
    """Type of the source as the function receives it (the container)."""
    return case.intrinsic.source(side).ir_type(case.width(side), case.elem(side))


def call_type(case: Case, side: Side) -> str:
    """Type of the source as the call receives it (after any IR narrowing)."""
    return case.intrinsic.source(side).ir_type(case.call_width(side), case.elem(side))


def callee(case: Case) -> tuple[str, str]:
    """(mangled intrinsic name, declaration parameter list) for a case. Both depend only on the
    intrinsic and on each source's width and element type as the call passes it (immargs and
    other values do not change a type): cases that agree there share one answer."""
    key = (case.intrinsic, case.call_width(SIDE_A), case.call_width(SIDE_B), case.elem(SIDE_A), case.elem(SIDE_B))
    found = _CALLEES.get(key)
    if found is None:
        found = _CALLEES[key] = _callee(case)
    return found


_CALLEES: dict[tuple, tuple[str, str]] = {}


def _callee(case: Case) -> tuple[str, str]:
    intr = case.intrinsic
    types = {
        catalog.RESULT: intr.result,
        catalog.SRC_A: call_type(case, SIDE_A),
        catalog.SRC_B: call_type(case, SIDE_B),
        catalog.ACC: intr.acc_type,
        catalog.INDEX: intr.index_type,
    }
    name = intr.symbol + "".join("." + mangle(types[role]) for role in intr.overload)
    params = ", ".join(ty for ty, _ in call_operands(case))
    return name, params


def call_operands(case: Case) -> tuple[tuple[str, str], ...]:
    """(type, value text) of every operand the call passes: one per entry of the intrinsic's
    operands, or, for an intrinsic of `fragments`, one per register of each source and of the
    accumulator (`%a0`, `%a1`, ...)."""
    intr = case.intrinsic
    if not intr.fragments:
        return operands(case)
    out: list[tuple[str, str]] = []
    for i, role in enumerate(intr.operands):
        if role in catalog.SOURCE_ROLES:
            side = Role(role).side
            out += [(case.elem(side), f"%{side}{n}") for n in range(case.call_width(side))]
        elif role == catalog.ACC:
            out += [(intr.acc_type, f"%c{n}") for n in range(intr.gprs[3])]
        else:
            out.append(operand(case, i))
    return tuple(out)


@functools.lru_cache(maxsize=1 << 16)
def operands(case: Case) -> tuple[tuple[str, str], ...]:
    """(type, value text) of each entry of the intrinsic's operands."""
    given = dict(case.args)
    out = []
    for index, (kind, ty, value) in enumerate(_operand_kinds(case.intrinsic)):
        if kind == _FIXED:
            out.append((ty, given.get(index, value)))
        elif kind == _FORMAT:
            out.append((ty, given.get(index, str(case.fmt(value)))))
        elif kind == _SOURCE:
            narrowed = case.call_width(value) != case.width(value)
            out.append((call_type(case, value), f"%{value}.narrow" if narrowed else f"%{value}"))
        else:
            out.append((ty, value))  # the accumulator (no case gives it a value)
    return tuple(out)


_FIXED, _FORMAT, _SOURCE, _ACCUMULATOR = range(4)


@functools.cache
def _operand_kinds(intr: Intrinsic) -> tuple[tuple, ...]:
    """Per operand of the intrinsic: (_FIXED, type, default value text) where no case changes the
    type (the sparsity index, literals); (_FORMAT, "i32", side); (_SOURCE, "", side);
    (_ACCUMULATOR, type, "%c")."""
    out: list[tuple] = []
    for role in intr.operands:
        if role == catalog.INDEX:
            out.append((_FIXED, intr.index_type, "0"))
        elif role in catalog.SOURCE_ROLES:
            out.append((_SOURCE, "", Role(role).side))
        elif role in catalog.FORMAT_ROLES:
            out.append((_FORMAT, "i32", Role(role).side))
        elif role == catalog.ACC:
            out.append((_ACCUMULATOR, intr.acc_type, "%c"))
        else:
            out.append((_FIXED, *catalog.literal(role)))
    return tuple(out)


def operand(case: Case, index: int) -> tuple[str, str]:
    """(type, value text) of call operand `index`."""
    return operands(case)[index]


def call_text(case: Case) -> str:
    name, _ = callee(case)
    args = ", ".join(" ".join(o) for o in call_operands(case))
    return f"%r.{case.function} = call {case.intrinsic.result} @{name}({args})"


def narrowing_lines(case: Case) -> list[str]:
    """IR that narrows each over-wide source to the exact width, in the case's representation."""
    if not case.narrowing:  # (each source is called as it is passed)
        return []
    lines = []
    for side in SIDES:
        wide, narrow = source_type(case, side), call_type(case, side)
        if wide == narrow:
            continue
        if case.narrowing == "shufflevector":
            mask = ", ".join(f"i32 {i}" for i in range(case.call_width(side)))
            lines.append(
                f"  %{side}.narrow = shufflevector {wide} %{side}, {wide} poison, <{case.call_width(side)} x i32> <{mask}>"
            )
        else:
            lines.append(
                f"  %{side}.narrow = call {narrow} @llvm.vector.extract.{mangle(narrow)}.{mangle(wide)}({wide} %{side}, i64 0)"
            )
    return lines


def define(intr: Intrinsic, result: str) -> str:
    """`define [calling convention] <result>`: no convention is LLVM's default (a callable
    function, whose results live in VGPRs whatever their type)."""
    return " ".join(w for w in ("define", intr.calling_convention, result) if w)


def function_lines(case: Case, checks: Sequence[str] = ()) -> list[str]:
    """One function around the case's call. Its result is stored through %out, or, for an entry
    that `returns`, returned: IR with no pointer at all, which builds before opaque pointers
    (LLVM 14) read too."""
    intr, fn = case.intrinsic, case.function
    if intr.fragments:  # a parameter per register
        params = [f"{ty} {value}" for ty, value in call_operands(case) if _REGISTER_PARAMETER.fullmatch(value)]
    else:
        params = [f"{source_type(case, SIDE_A)} %a", f"{source_type(case, SIDE_B)} %b", f"{intr.acc_type} %c"]
    params += [] if intr.returns else ["ptr addrspace(1) %out"]
    # A %name given for several operands (of one type: harness.specs.matrix checks) is one parameter.
    params += dict.fromkeys(f"{operand(case, i)[0]} {v}" for i, v in case.args if v.startswith("%"))
    result = intr.result if intr.returns else "void"
    tail = (
        [f"  ret {intr.result} %r.{fn}"]
        if intr.returns
        else [f"  store {intr.result} %r.{fn}, ptr addrspace(1) %out", "  ret void"]
    )
    return [
        f"{define(intr, result)} @{fn}({', '.join(params)}) {{",
        *checks,
        *narrowing_lines(case),
        f"  {call_text(case)}",
        *tail,
        "}",
    ]


def declarations(cases: list[Case]) -> list[str]:
    seen: dict[str, str] = {}
    for case in cases:
        name, params = callee(case)
        seen.setdefault(name, f"declare {case.intrinsic.result} @{name}({params})")
        if case.narrowing == "vector.extract":
            for side in SIDES:
                wide, narrow = source_type(case, side), call_type(case, side)
                if wide != narrow:
                    ext = f"llvm.vector.extract.{mangle(narrow)}.{mangle(wide)}"
                    seen.setdefault(ext, f"declare {narrow} @{ext}({wide}, i64)")
    return list(seen.values())


def probe_declarations(intrinsics: Iterable[Intrinsic]) -> dict[str, str]:
    """Intrinsic name -> the declaration of its exact-width overload, to ask a build about it."""
    out = {}
    for intr in intrinsics:
        fa, fb = intr.a.formats[0], intr.b.formats[0]
        case = Case(intr, intr.default_cpu, fa, fb, intr.a.regs[fa], intr.b.regs[fb])
        out[intr.name] = declarations([case])[0]
    return out


@dataclass(frozen=True)
class Module:
    """IR text plus which function each 1-based line belongs to (for attributing errors)."""

    text: str
    line_owner: dict[int, str]


@functools.lru_cache(maxsize=1 << 16)
def _plain_function(case: Case) -> tuple[str, ...]:
    """A case's function without CHECK lines: built once, as the runner builds a module again
    after splitting cases off it."""
    return tuple(function_lines(case))


@functools.lru_cache(maxsize=1 << 16)
def _declaration(case: Case) -> tuple[str, ...]:
    return tuple(declarations([case]))


def module(cases: list[Case], header: Sequence[str] = (), checks: dict[str, list[str]] | None = None) -> Module:
    lines = list(header)
    owner: dict[int, str] = {}
    for case in cases:
        if lines:
            lines.append("")
        own = (checks or {}).get(case.function, [])
        body = function_lines(case, own) if own else _plain_function(case)
        for offset in range(len(body)):
            owner[len(lines) + offset + 1] = case.function
        lines.extend(body)
    lines.append("")
    lines.extend(dict.fromkeys(d for case in cases for d in _declaration(case)))
    return Module("\n".join(lines) + "\n", owner)
