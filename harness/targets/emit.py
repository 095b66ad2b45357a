"""Emit LLVM IR modules and lit test files for cases, byte-for-byte deterministic.

Every function holds exactly one call. Its result is named `%r.<function>`: the IR verifier
prints the offending call, so that name is how a diagnostic is attributed back to its case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.specs.cases import Case
from harness.targets import catalog
from harness.targets.catalog import Intrinsic, Role, Side

_VECTOR = re.compile(r"<(\d+) x (\w+)>")
_SCALAR_SUFFIX = {"float": "f32", "half": "f16", "double": "f64"}


def mangle(ir_type: str) -> str:
    """Overload suffix LLVM uses for a vector type: <8 x float> -> v8f32."""
    m = _VECTOR.fullmatch(ir_type)
    if not m:
        raise ValueError(f"cannot mangle {ir_type!r}")
    return f"v{m.group(1)}{_SCALAR_SUFFIX.get(m.group(2), m.group(2))}"


def source_type(case: Case, side: Side) -> str:
    """Type of the source as the function receives it (the container)."""
    return f"<{case.width(side)} x {case.elem(side)}>"


def call_type(case: Case, side: Side) -> str:
    """Type of the source as the call receives it (after any IR narrowing)."""
    return f"<{case.call_width(side)} x {case.elem(side)}>"


def callee(case: Case) -> tuple[str, str]:
    """(mangled intrinsic name, declaration parameter list) for a case."""
    intr = case.intrinsic
    types = {catalog.RESULT: intr.result, catalog.SRC_A: call_type(case, Side.A), catalog.SRC_B: call_type(case, Side.B)}
    name = intr.symbol + "".join("." + mangle(types[role]) for role in intr.overload)
    params = ", ".join(operand(case, i)[0] for i in range(len(intr.operands)))
    return name, params


def operand(case: Case, index: int) -> tuple[str, str]:
    """(type, value text) of call operand `index`."""
    role = case.intrinsic.operands[index]
    if role in catalog.SOURCE_ROLES:
        side = Role(role).side
        narrowed = case.call_width(side) != case.width(side)
        return call_type(case, side), f"%{side}.narrow" if narrowed else f"%{side}"
    if role == catalog.ACC:
        return case.intrinsic.result, "%c"
    ty, value = ("i32", str(case.fmt(Role(role).side))) if role in catalog.FORMAT_ROLES else catalog.literal(role)
    return ty, dict(case.args).get(index, value)


def call_text(case: Case) -> str:
    name, _ = callee(case)
    args = ", ".join(" ".join(operand(case, i)) for i in range(len(case.intrinsic.operands)))
    return f"%r.{case.function} = call {case.intrinsic.result} @{name}({args})"


def narrowing_lines(case: Case) -> list[str]:
    """IR that narrows each over-wide source to the exact width, in the case's representation."""
    lines = []
    for side in Side:
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


def function_lines(case: Case, checks: Sequence[str] = ()) -> list[str]:
    intr, fn = case.intrinsic, case.function
    params = [f"{source_type(case, Side.A)} %a", f"{source_type(case, Side.B)} %b", f"{intr.result} %c", "ptr addrspace(1) %out"]
    # A %name given for several operands (of one type: harness.specs.matrix checks) is one parameter.
    params += dict.fromkeys(f"{operand(case, i)[0]} {v}" for i, v in case.args if v.startswith("%"))
    return [
        f"define {intr.calling_convention} void @{fn}({', '.join(params)}) {{",
        *checks,
        *narrowing_lines(case),
        f"  {call_text(case)}",
        f"  store {intr.result} %r.{fn}, ptr addrspace(1) %out",
        "  ret void",
        "}",
    ]


def declarations(cases: list[Case]) -> list[str]:
    seen: dict[str, str] = {}
    for case in cases:
        name, params = callee(case)
        seen.setdefault(name, f"declare {case.intrinsic.result} @{name}({params})")
        if case.narrowing == "vector.extract":
            for side in Side:
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
        case = Case(intr, intr.cpus[0], fa, fb, intr.a.regs[fa], intr.b.regs[fb])
        out[intr.name] = declarations([case])[0]
    return out


@dataclass(frozen=True)
class Module:
    """IR text plus which function each 1-based line belongs to (for attributing errors)."""

    text: str
    line_owner: dict[int, str]


def module(cases: list[Case], header: Sequence[str] = (), checks: dict[str, list[str]] | None = None) -> Module:
    lines = list(header)
    owner: dict[int, str] = {}
    for case in cases:
        if lines:
            lines.append("")
        body = function_lines(case, (checks or {}).get(case.function, []))
        for offset in range(len(body)):
            owner[len(lines) + offset + 1] = case.function
        lines.extend(body)
    lines.append("")
    lines.extend(declarations(cases))
    return Module("\n".join(lines) + "\n", owner)
