"""Emit LLVM IR modules and lit test files for cases, byte-for-byte deterministic.

Every function holds exactly one call. Its result is named `%r.<function>`: the IR verifier
prints the offending call, so that name is how a diagnostic is attributed back to its case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness import catalog
from harness.cases import Case, Group

_VECTOR = re.compile(r"<(\d+) x (\w+)>")
_SCALAR_SUFFIX = {"float": "f32", "half": "f16", "double": "f64"}


def mangle(ir_type: str) -> str:
    """Overload suffix LLVM uses for a vector type: <8 x float> -> v8f32."""
    m = _VECTOR.fullmatch(ir_type)
    if not m:
        raise ValueError(f"cannot mangle {ir_type!r}")
    return f"v{m.group(1)}{_SCALAR_SUFFIX.get(m.group(2), m.group(2))}"


def source_type(case: Case, side: str) -> str:
    return f"<{case.width(side)} x i32>"


def callee(case: Case) -> tuple[str, str]:
    """(mangled intrinsic name, declaration parameter list) for a case."""
    intr = case.intrinsic
    types = {catalog.RESULT: intr.result, catalog.SRC_A: source_type(case, "a"), catalog.SRC_B: source_type(case, "b")}
    name = intr.symbol + "".join("." + mangle(types[role]) for role in intr.overload)
    params = ", ".join(_operand(case, role)[0] for role in intr.operands)
    return name, params


def _operand(case: Case, role: str) -> tuple[str, str]:
    """(type, value text) of one call operand."""
    if role == catalog.SRC_A:
        return source_type(case, "a"), "%a"
    if role == catalog.SRC_B:
        return source_type(case, "b"), "%b"
    if role == catalog.FMT_A:
        return "i32", str(case.fmt_a)
    if role == catalog.FMT_B:
        return "i32", str(case.fmt_b)
    if role == catalog.ACC:
        return case.intrinsic.result, "%c"
    ty, value = role.rsplit(" ", 1)
    return ty, value


def call_text(case: Case) -> str:
    name, _ = callee(case)
    args = ", ".join(" ".join(_operand(case, role)) for role in case.intrinsic.operands)
    return f"%r.{case.function} = call {case.intrinsic.result} @{name}({args})"


def function_lines(case: Case, checks: list[str] = ()) -> list[str]:
    intr, fn = case.intrinsic, case.function
    params = f"{source_type(case, 'a')} %a, {source_type(case, 'b')} %b, {intr.result} %c, ptr addrspace(1) %out"
    return [
        f"define {intr.calling_convention} void @{fn}({params}) {{",
        *checks,
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
    return list(seen.values())


def probe_declarations(intrinsics) -> dict[str, str]:
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


def module(cases: list[Case], header: list[str] = (), checks: dict[str, list[str]] | None = None) -> Module:
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


# ---- lit files -------------------------------------------------------------------------------

SELECTOR_FLAGS = {"sdag": "-global-isel=0", "gisel": "-global-isel=1 -global-isel-abort=1"}
SELECTOR_PREFIX = {"sdag": "SDAG", "gisel": "GISEL"}
VERIFIER_MESSAGE = "invalid vector type for format"


def llc_command(case_or_group, selector: str) -> str:
    return f"llc -O{case_or_group.opt} -mtriple={case_or_group.intrinsic.triple} -mcpu={case_or_group.cpu} {SELECTOR_FLAGS[selector]}"


def mc_command(case_or_group) -> str:
    return f"llvm-mc -triple={case_or_group.intrinsic.triple} -mcpu={case_or_group.cpu} -filetype=obj -o /dev/null"


def asm_checks(case: Case) -> list[str]:
    """CHECK lines that hold on any correct build: label, opcode, exactly these format modifiers.

    The operand pattern admits ':' only inside register ranges (`v[8:15]`), so a stray or
    missing modifier fails the match; register numbers are never checked.
    """
    mods = [case.intrinsic.source(s).printed(case.fmt(s)) for s in ("a", "b")]
    tail = "".join(" " + m for m in mods if m)
    return [
        f"; CHECK-LABEL: {{{{^}}}}{case.function}:",
        f"; CHECK: {case.intrinsic.mnemonic} {{{{([^:]|[0-9]:)*}}}}{tail}{{{{$}}}}",
    ]


def verifier_checks(case: Case) -> list[str]:
    """The verifier names the first bad source of each call; A is checked before B."""
    side = next(s for cls in ("illegal", "underwide") for s in ("a", "b") if case.side_class(s) == cls)
    lines = [f"; CHECK: {VERIFIER_MESSAGE}" if case.side_class(side) == "underwide" else "; CHECK: {{.+}}"]
    lines.append(f"; CHECK-NEXT: {{{{^  }}}}%r.{case.function} = call ")
    lines.append(f"; CHECK-NEXT: {{{{^}}}}{source_type(case, side)} %{side}{{{{$}}}}")
    return lines


def lit_file(group: Group) -> str:
    intr = group.intrinsic
    specs = sorted({o for m in group.members for o in m.origins})
    header = [
        f"; Generated by `harness expand` from {', '.join('cases/' + s for s in specs)}. Do not edit;",
        "; change the spec and run `harness expand` instead.",
        f"; {intr.symbol} on {group.cpu}: {len(group.members)} {group.file_class} case(s).",
        f"; REQUIRES: amdgpu-registered-target, cpu-{group.cpu}, {intr.symbol}",
    ]
    if group.verifier_only:
        header.append("; RUN: not llvm-as -disable-output %s 2>&1 | FileCheck %s")
        checks = {c.function: [] for c in group.cases}
        # Verifier diagnostics come before the module, so they are checked up front, in order.
        header.extend(line for c in group.cases for line in verifier_checks(c))
    else:
        for sel in group.selectors:
            llc = llc_command(group, sel)
            header.append(f"; RUN: {llc} < %s | FileCheck --check-prefixes=CHECK,{SELECTOR_PREFIX[sel]} %s")
            header.append(f"; RUN: {llc} < %s | {mc_command(group)}")
        checks = {c.function: asm_checks(c) for c in group.cases}
    text = module(group.cases, header, checks).text
    if not group.verifier_only:
        prefixes = [SELECTOR_PREFIX[s] for s in group.selectors]
        text += ";; NOTE: These prefixes are unused and the list is autogenerated. Do not add tests below this line:\n"
        text += "".join(f"; {p}: {{{{.*}}}}\n" for p in prefixes)
    return text
