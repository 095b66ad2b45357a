"""Generated lit files: RUN lines and CHECK lines for each file class, from the catalog.

Checks are semantic — labels, opcodes, format modifiers, tuple *widths*, IR shapes, verifier
messages — never register numbers, so they hold on any correct build.
"""

from __future__ import annotations

import dataclasses

from harness import catalog
from harness.cases import Case, Group
from harness.emit import callee, module, operand

SELECTOR_FLAGS = {"sdag": "-global-isel=0", "gisel": "-global-isel=1 -global-isel-abort=1"}
SELECTOR_PREFIX = {"sdag": "SDAG", "gisel": "GISEL"}
UNDERWIDE_MESSAGE = "invalid vector type for format"
NONCONST_MESSAGE = "immarg operand has non-immediate parameter"


def llc_command(where, selector: str, obj: bool = False) -> str:
    """`where` is a Case or a Group: anything with intrinsic, cpu and opt."""
    filetype = " -filetype=obj" if obj else ""
    return f"llc -O{where.opt} -mtriple={where.intrinsic.triple} -mcpu={where.cpu} {SELECTOR_FLAGS[selector]}{filetype}"


def mc_command(where) -> str:
    return f"llvm-mc -triple={where.intrinsic.triple} -mcpu={where.cpu} -filetype=obj -o /dev/null"


def opt_command(where, pipeline: str, disable_verify: bool = False) -> str:
    flag = " -disable-verify" if disable_verify else ""
    return f"opt -mtriple={where.intrinsic.triple} -mcpu={where.cpu}{flag} -passes={pipeline}"


# ---- CHECK lines ------------------------------------------------------------------------------

def asm_checks(case: Case) -> list[str]:
    """Label, opcode and exactly these format modifiers.

    The operand pattern admits ':' only inside register ranges (`v[8:15]`), so a stray or
    missing modifier fails the match; register numbers are never checked.
    """
    mods = [case.intrinsic.source(s).printed(case.fmt(s)) for s in ("a", "b")]
    tail = "".join(" " + m for m in mods if m)
    return [
        f"; CHECK-LABEL: {{{{^}}}}{case.function}:",
        f"; CHECK: {_mnemonic_pattern(case)} {{{{([^:]|[0-9]:)*}}}}{tail}{{{{$}}}}",
    ]


def _mnemonic_pattern(case: Case) -> str:
    """The opcode, or either opcode where a build may rewrite the call into its scaled form."""
    names = case.intrinsic.mnemonics
    return names[0] if len(names) == 1 else "{{" + "|".join(names) + "}}"


def object_checks(case: Case) -> list[str]:
    """The disassembled object: A and B tuples exactly as wide as their formats read."""
    # A numeric variable cannot be used in the directive that defines it, so each tuple's end
    # is checked in the next CHECK-SAME.
    last_a, last_b = case.required("a") - 1, case.required("b") - 1
    return [
        f"; OBJ-LABEL: <{case.function}>:",
        f"; OBJ: {_mnemonic_pattern(case)} {{{{[av]\\[[0-9]+:[0-9]+\\]}}}}, v{{{{\\[}}}}[[#A:]]:",
        f"; OBJ-SAME: [[#A+{last_a}]]{{{{\\]}}}}, v{{{{\\[}}}}[[#B:]]:",
        f"; OBJ-SAME: [[#B+{last_b}]]{{{{\\]}}}},",
    ]


def verifier_checks(case: Case) -> list[str]:
    """The verifier's diagnostic for the first rule the case breaks (A is checked before B).

    In `diagnostic` files the value printed after the offending source must be that source's
    own format operand.
    """
    rule, intr = case.rejection, case.intrinsic
    call = f"; CHECK-NEXT: {{{{^  }}}}%r.{case.function} = call "
    if rule == "nonconst":  # printed before the call
        value = " ".join(operand(case, case.nonconst_operand))
        return [f"; CHECK: {NONCONST_MESSAGE}", f"; CHECK-NEXT: {{{{^}}}}{value}{{{{$}}}}", call]
    side = next(s for s in ("a", "b") if case.side_class(s) == rule)
    src = intr.source(side)
    fmt_operand = " ".join(operand(case, intr.arg_index("fmt_" + side))) if intr.runtime_formats else ""
    source_operand = " ".join(operand(case, intr.arg_index("src_" + side)))
    if rule == "badformat":
        return [f"; CHECK: {src.range_message}", call, f"; CHECK-NEXT: {{{{^}}}}{fmt_operand}{{{{$}}}}"]
    message = src.shape_message(intr.arg_index("src_" + side)) if rule == "illegal" else UNDERWIDE_MESSAGE
    lines = [f"; CHECK: {message}", call, f"; CHECK-NEXT: {{{{^}}}}{source_operand}{{{{$}}}}"]
    if case.check == "diagnostic":
        lines.append(f"; CHECK-NEXT: {{{{^}}}}{fmt_operand}{{{{$}}}}")
    return lines


def ir_checks(case: Case, malformed: bool) -> list[str]:
    """The IR after the pipeline: each over-wide source becomes an identity-prefix shufflevector
    (the whole mask is checked, so a high slice or another subset fails), the call takes the
    exact overload, and exact sides — and malformed calls — are left alone."""
    intr = case.intrinsic
    lines = [f"; IR-LABEL: define {intr.calling_convention} void @{case.function}("]
    narrowed = {}
    for side in ("a", "b"):
        wide, need = case.width(side), case.required(side)
        if malformed or case.side_class(side) != "overwide":
            continue
        mask = ", ".join(f"i32 {i}" for i in range(need))
        var = f"{side.upper()}_NARROW"
        ty = f"<{wide} x i32>"
        lines.append(f"; IR-DAG: [[{var}:%[^ ]+]] = shufflevector {ty} %{side}, {ty} {{{{poison|undef}}}}, <{need} x i32> <{mask}>")
        narrowed[side] = var
    for side in ("a", "b"):
        if side not in narrowed:
            lines.append(f"; IR-NOT: shufflevector {{{{.*}}}} %{side},")
    exact = dataclasses.replace(
        case,
        width_a=case.required("a") if "a" in narrowed else case.call_width("a"),
        width_b=case.required("b") if "b" in narrowed else case.call_width("b"),
        narrowing="",
    )
    name, _ = callee(exact)
    args = []
    for i, role in enumerate(intr.operands):
        ty, value = operand(exact, i)
        if role in (catalog.SRC_A, catalog.SRC_B) and role[-1] in narrowed:
            value = f"[[{narrowed[role[-1]]}]]"
        args.append(f"{ty} {value}")
    lines.append(f"; IR: %r.{case.function} = call {intr.result} @{name}({', '.join(args)})")
    return lines


# ---- files ------------------------------------------------------------------------------------

def _header(group: Group) -> list[str]:
    specs = sorted({o for m in group.members for o in m.origins})
    intr = group.intrinsic
    pipeline = "" if group.pipeline == "none" else f", after opt -passes={group.pipeline}"
    return [
        f"; Generated by `harness expand` from {', '.join('cases/' + s for s in specs)}. Do not edit;",
        "; change the spec and run `harness expand` instead.",
        f"; {intr.symbol} on {group.cpu}{pipeline}: {len(group.members)} {group.file_class} case(s).",
        f"; REQUIRES: amdgpu-registered-target, cpu-{group.cpu}, {intr.symbol}{_extra_requirements(group)}",
    ]


def _extra_requirements(group: Group) -> str:
    # Tuple widths in object files are checked with FileCheck's numeric expressions, which
    # only LLVM's own FileCheck has.
    return ", llvm-filecheck" if group.file_class == "object" else ""


def _llc_input(group: Group, llc: str) -> str:
    """An llc command reading the test file, or reading it through the group's opt pipeline."""
    if group.pipeline == "none":
        return f"{llc} < %s"
    return f"{opt_command(group, group.pipeline)} < %s | {llc}"


def _codegen_runs(group: Group) -> list[str]:
    runs = []
    for sel in group.selectors:
        llc = _llc_input(group, llc_command(group, sel))
        runs.append(f"; RUN: {llc} | FileCheck --check-prefixes=CHECK,{SELECTOR_PREFIX[sel]} %s")
        runs.append(f"; RUN: {llc} | {mc_command(group)}")
    return runs


def _object_runs(group: Group) -> list[str]:
    # The object goes through a file: lit's internal shell does not pipe binary data reliably.
    runs = []
    for sel in group.selectors:
        runs.append(f"; RUN: {_llc_input(group, llc_command(group, sel, obj=True))} -o %t.{sel}.o")
        runs.append(f"; RUN: llvm-objdump -d %t.{sel}.o | FileCheck --check-prefix=OBJ %s")
    return runs


def _ir_runs(group: Group, malformed: bool) -> list[str]:
    opt = opt_command(group, group.pipeline, disable_verify=malformed)
    # Idempotence: a second run over the first run's output must still meet every check (a
    # second narrowing would move the call off the captured shuffle).
    return [
        f"; RUN: {opt} -S < %s -o %t.once.ll",
        "; RUN: FileCheck --check-prefix=IR %s < %t.once.ll",
        f"; RUN: {opt} -S < %t.once.ll | FileCheck --check-prefix=IR %s",
    ]


def lit_file(group: Group) -> str:
    header = _header(group)
    cls = group.file_class
    checks: dict[str, list[str]] = {}
    trailer = ""
    if group.verifier_only:
        header.append("; RUN: not llvm-as -disable-output %s 2>&1 | FileCheck %s")
        # Verifier diagnostics come before the module is written, so they are checked up front.
        header.extend(line for c in group.cases for line in verifier_checks(c))
    elif cls in ("ir", "ir-malformed"):
        header.extend(_ir_runs(group, cls == "ir-malformed"))
        checks = {c.function: ir_checks(c, cls == "ir-malformed") for c in group.cases}
    elif cls == "object":
        header.extend(_object_runs(group))
        checks = {c.function: object_checks(c) for c in group.cases}
    else:
        header.extend(_codegen_runs(group))
        checks = {c.function: asm_checks(c) for c in group.cases}
        trailer = ";; NOTE: These prefixes are unused and the list is autogenerated. Do not add tests below this line:\n"
        trailer += "".join(f"; {SELECTOR_PREFIX[s]}: {{{{.*}}}}\n" for s in group.selectors)
    return module(group.cases, header, checks).text + trailer
