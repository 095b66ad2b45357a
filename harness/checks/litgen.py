"""Generated lit files: RUN lines and CHECK lines for each file class, from the catalog.

Checks are semantic — labels, opcodes, format modifiers, tuple *widths*, IR shapes, verifier
messages — never register numbers, so they hold on any correct build.
"""

from __future__ import annotations

import dataclasses
import re

from harness.core import commands
from harness.core import verdicts as V
from harness.core.commands import Selector
from harness.specs.cases import VERIFIER_CLASSES, Case, FileClass, Group, llc_command, mc_command, opt_command
from harness.specs.emit import callee, define, module, operand
from harness.targets import catalog, modifiers
from harness.targets.catalog import Role, Side

SELECTOR_PREFIX = {Selector.SDAG: "SDAG", Selector.GISEL: "GISEL"}
UNDERWIDE_MESSAGE = "invalid vector type for format"
NONCONST_MESSAGE = "immarg operand has non-immediate parameter"
# What the verifier says of a call whose operands are not the intrinsic's signature (too few
# operands of a register type it also takes read as a missing vararg).
FRAGMENT_MESSAGES = ("Intrinsic has incorrect argument type!", "Callsite was not defined with variable arguments!")


# ---- CHECK lines ------------------------------------------------------------------------------


def asm_checks(case: Case) -> list[str]:
    """Label, opcode and exactly the modifiers the call's constant operands print.

    The operands are words joined by ", " (`_OPERANDS`), so a stray or missing modifier fails
    the match; register numbers are never checked.
    """
    return [
        _label(case),
        f"; CHECK: {_mnemonic_pattern(case)} {_OPERANDS}{_modifier_tail(case)}{{{{$}}}}",
    ]


# An instruction's operands, whatever they are: words without blanks, joined by ", " (a modifier
# after them is a word after a blank, so none can pass for an operand).
_OPERANDS = "{{([^ ]+, )*[^ ]+}}"
_REGEX_SPECIAL = re.compile(r"([][(){}.*+?|^$\\])")


def _modifier_tail(case: Case) -> str:
    """FileCheck text for exactly the modifiers the case's constant operands print after the
    last operand (`targets.modifiers`: formats, cbsz, neg_lo, clamp, ...), or either spelling
    where a build may select the scaled form, whose modifiers differ."""
    tails = list(dict.fromkeys(modifiers.spelled(case.constants, m) for m in case.mnemonics()))
    spaced = [f" {t}" if t else "" for t in tails]
    if len(spaced) == 1:
        return spaced[0]
    either = "|".join(_REGEX_SPECIAL.sub(r"\\\1", t) for t in spaced if t)
    return "{{(" + either + ")" + ("?" if "" in spaced else "") + "}}"


def shape_checks(case: Case) -> list[str]:
    """Label, opcode and the register width of each operand the row states (D, A, B and C
    where printed), whatever their numbers: a tuple's end is checked against its start with
    FileCheck's numeric expressions, in the next CHECK-SAME (a variable cannot be used in the
    directive that defines it). Modifiers after the operands are free."""
    operands = sorted(case.intrinsic.tuple_widths.items(), key=lambda item: item[1][0])
    if case.intrinsic.target.brace_groups:
        return group_checks(case, [registers for _, (_, registers) in operands])
    lines = [_label(case)]
    text = f"; CHECK: {_mnemonic_pattern(case)} "
    for i, (role, (_, registers)) in enumerate(operands):
        end = ", " if i + 1 < len(operands) else ""
        if registers == 1:
            text += f"{{{{[asv][0-9]+}}}}{end}"
            continue
        lines.append(f"{text}{{{{[asv]\\[}}}}[[#{role}:]]:")
        text = f"; CHECK-SAME: [[#{role}+{registers - 1}]]{{{{\\]}}}}{end}"
    # Operands the row does not size (the sparsity index, the scales), then exactly the modifiers.
    lines.append(f"{text}{{{{(, [^ ,]+)*}}}}{_modifier_tail(case)}{{{{$}}}}")
    return lines


_REGISTER = "%{{[a-z]+[0-9]+}}"  # a PTX register of any class (%r, %f, %hh, %rd: builds differ)


def group_checks(case: Case, counts: list[int]) -> list[str]:
    """Label, the opcode alone on its line (a build may leave a blank after it), then one brace
    group per operand on a line of its own (PTX's mma), each with exactly its count of registers,
    whatever their names; then the operands printed after them (`tail_checks`)."""
    lines = [_label(case), f"; CHECK: {_mnemonic_pattern(case)}{{{{ *$}}}}"]
    more = bool(_after_groups(case.intrinsic))
    for i, count in enumerate(counts):
        end = "," if i + 1 < len(counts) or more else ";"
        lines.append(f"; CHECK-NEXT: {{{', '.join([_REGISTER] * count)}}}{end}{{{{$}}}}")
    return lines + tail_checks(case)


_OPERAND = "{{[^ ,]+}}"  # one operand: a register or an immediate


def _after_groups(intr: catalog.Intrinsic) -> tuple[int, ...]:
    """The call operands PTX prints after the brace groups of A, B and C, in order."""
    return tuple(i for i, role in enumerate(intr.operands) if role not in (*catalog.SOURCE_ROLES, catalog.ACC))


def tail_checks(case: Case) -> list[str]:
    """The operands PTX prints after C, each on a line of its own: mma.sp's metadata (one operand)
    and sparsity selector (the call's value), checked up to the first operand of another layout
    (the block-scale data with their {byte-id, thread-id} pairs); the last one ends with `;`."""
    intr, rest = case.intrinsic, _after_groups(case.intrinsic)
    lines = []
    for n, index in enumerate(rest):
        end = "," if n + 1 < len(rest) else ";"
        if intr.operands[index] == catalog.INDEX:
            lines.append(f"; CHECK-NEXT: {_OPERAND}{end}{{{{$}}}}")
        elif intr.immarg(index):
            lines.append(f"; CHECK-NEXT: {{{{(0x)?}}}}{operand(case, index)[1]}{end}{{{{$}}}}")
        else:
            break
    return lines


def _label(case: Case) -> str:
    return "; CHECK-LABEL: " + case.intrinsic.target.label.format(fn=case.function)


def _mnemonic_pattern(case: Case) -> str:
    """The opcode, or either opcode where a build may rewrite the call into its scaled form."""
    names = case.mnemonics()
    return names[0] if len(names) == 1 else "{{" + "|".join(names) + "}}"


def modifier_object_checks(case: Case) -> list[str]:
    """llvm-objdump's line of the case's instruction in llc's object: exactly the modifiers its
    constant operands print (the encoding read back), whatever the operands and the encoding
    comment after them."""
    return [
        f"; OBJ-LABEL: <{case.function}>:",
        f"; OBJ: {_mnemonic_pattern(case)} {_OPERANDS}{_modifier_tail(case)}{{{{ *(//.*)?$}}}}",
    ]


def object_checks(case: Case) -> list[str]:
    """The disassembled object: A and B tuples exactly as wide as their formats read."""
    # A numeric variable cannot be used in the directive that defines it, so each tuple's end
    # is checked in the next CHECK-SAME.
    last_a, last_b = case.required(Side.A) - 1, case.required(Side.B) - 1
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
    call = f"; CHECK-NEXT: {{{{^  }}}}%r.{case.function} = call {{{{.*}}}}"
    if rule == "immarg-range":
        # Not every LLVM build names this rule: the contract is that the verifier rejects the
        # call (its message, then the call), not which words it uses.
        return [f"; CHECK: {{{{^  }}}}%r.{case.function} = call {{{{.*}}}}", *_operand_note(case, case.outside_operand)]
    nonconst = case.nonconst_operand  # set exactly when the rule is nonconst
    if nonconst is not None:  # printed before the call
        value = " ".join(operand(case, nonconst))
        return [f"; CHECK: {NONCONST_MESSAGE}", f"; CHECK-NEXT: {{{{^}}}}{value}{{{{$}}}}", call]
    if intr.fragments:
        # The intrinsic is not overloaded: a call of another signature declares it wrongly, and
        # the verifier names the declaration (`ptr @...`; typed pointers before LLVM 15).
        messages = "|".join(FRAGMENT_MESSAGES)
        return [f"; CHECK: {{{{{messages}}}}}", f"; CHECK-NEXT: {{{{.*}}}} @{callee(case)[0]}{{{{$}}}}"]
    side = next(s for s in Side if case.side_class(s) == rule)
    src = intr.source(side)
    fmt_operand = " ".join(operand(case, intr.arg_index(side.fmt))) if intr.runtime_formats else ""
    source_operand = " ".join(operand(case, intr.arg_index(side.src)))
    if rule == "badformat":
        return [f"; CHECK: {src.range_message}", call, f"; CHECK-NEXT: {{{{^}}}}{fmt_operand}{{{{$}}}}"]
    message = src.shape_message(intr.arg_index(side.src)) if rule == "illegal" else UNDERWIDE_MESSAGE
    lines = [f"; CHECK: {message}", call, f"; CHECK-NEXT: {{{{^}}}}{source_operand}{{{{$}}}}"]
    if case.check == "diagnostic":
        lines.append(f"; CHECK-NEXT: {{{{^}}}}{fmt_operand}{{{{$}}}}")
    return lines


def ir_checks(case: Case, malformed: bool) -> list[str]:
    """The IR after the pipeline: each over-wide source becomes an identity-prefix shufflevector
    (the whole mask is checked, so a high slice or another subset fails), the call takes the
    exact overload, and exact sides — and malformed calls — are left alone."""
    intr = case.intrinsic
    lines = [f"; IR-LABEL: {define(intr, intr.result if intr.returns else 'void')} @{case.function}("]
    narrowed: dict[Side, str] = {}
    for side in Side:
        wide, need = case.width(side), case.required(side)
        if malformed or case.side_class(side) != "overwide":
            continue
        mask = ", ".join(f"i32 {i}" for i in range(need))
        var = f"{side.upper()}_NARROW"
        ty = f"<{wide} x i32>"
        lines.append(
            f"; IR-DAG: [[{var}:%[^ ]+]] = shufflevector {ty} %{side}, {ty} {{{{poison|undef}}}}, <{need} x i32> <{mask}>"
        )
        narrowed[side] = var
    for side in Side:
        if side not in narrowed:
            lines.append(f"; IR-NOT: shufflevector {{{{.*}}}} %{side},")
    exact = dataclasses.replace(
        case,
        width_a=case.required(Side.A) if Side.A in narrowed else case.call_width(Side.A),
        width_b=case.required(Side.B) if Side.B in narrowed else case.call_width(Side.B),
        narrowing="",
    )
    name, _ = callee(exact)
    args = []
    for i, role in enumerate(intr.operands):
        ty, value = operand(exact, i)
        if role in catalog.SOURCE_ROLES and Role(role).side in narrowed:
            value = f"[[{narrowed[Role(role).side]}]]"
        args.append(f"{ty} {value}")
    lines.append(f"; IR: %r.{case.function} = call {intr.result} @{name}({', '.join(args)})")
    return lines


# ---- files ------------------------------------------------------------------------------------


def _operand_note(case: Case, index: int | None) -> list[str]:
    """A comment naming the operand a check is about (no CHECK directive)."""
    if index is None:
        return []
    ty, value = operand(case, index)
    return [f"; (operand {index}, {ty} {value}: outside the values the ISA encodes)"]


# The prefix of a clean rejection's check: a CPU without the instruction, a value the ISA calls invalid.
REJECTION_PREFIX = {FileClass.ABSENT: "ABSENT", FileClass.ISA_INVALID: "INVALID"}
# What makes a failure no clean rejection although it says `error:` (verdicts.clean_rejection):
# a fatal error, the selector giving up, a register-allocation failure.
ABSENT_NOT = (
    "LLVM ERROR",
    "{{[Cc]annot select|unable to legalize|unable to translate}}",
    "{{" + V.REGISTER_ALLOCATION_FAILED + "}}",
)


def _absent_runs(group: Group) -> list[str]:
    """llc must reject the module cleanly: exit non-zero without a signal (`not` fails on a
    crash), an `error:` diagnostic, and nothing fatal (the harness's `llc-reject`; the IR
    verifier inside llc rejecting an `isa-invalid` call says `error:` too)."""
    runs = []
    each = _each_call(group)
    for sel in group.selectors:
        if not group.intrinsic.target.has_selector(sel):
            runs.append(_no_selector_run(group, sel))
            continue
        llc = commands.with_args(llc_command(group, sel), "-o", "/dev/null", stdin=None if each else "%s")
        failing = commands.Command(("not", *llc.argv), stdin=llc.stdin, stderr_to_stdout=True)
        prefix = REJECTION_PREFIX[group.file_class]
        check = commands.Command(
            ("FileCheck", f"--check-prefix={prefix}", *(f"--implicit-check-not={n}" for n in ABSENT_NOT), "%s")
        )
        if not each:
            runs.append(_run(failing, check))
            continue
        for c in group.cases:
            runs.append(_run(commands.Command(("llvm-extract", f"--func={c.function}", "-S", "-o", "-", "%s")), failing, check))
    return runs


def _each_call(group: Group) -> bool:
    """Whether each call must be rejected on its own: values the ISA calls invalid, several to a
    file (llc stops at the first call it rejects, and would let the others pass unseen), each
    cut out of the module by llvm-extract."""
    return group.file_class == FileClass.ISA_INVALID and len(group.cases) > 1


def _header(group: Group) -> list[str]:
    specs = sorted({o for m in group.members for o in m.origins})
    intr = group.intrinsic
    pipeline = "" if group.pipeline == "none" else f", after opt -passes={group.pipeline}"
    lines = [
        # Line 1 is the marker CHECK-line updaters (update_llc_test_checks.py, harness
        # update-checks) honour: they leave this semantic layer alone.
        "; NOTE: Do not autogenerate. These CHECK lines hold on every correct LLVM build.",
        f"; Generated by `harness expand` from {', '.join('cases/' + s for s in specs)}. Do not edit;",
        "; change the spec and run `harness expand` instead.",
    ]
    if not group.cohort:
        return [
            *lines,
            f"; {intr.symbol} on {group.cpu}{pipeline}: {len(group.members)} {group.file_class} case(s).",
            *([f"; Snapshot layer (exact llc output on one build): snapshots/{group.filename}"] if group.snapshot_cases else []),
            f"; REQUIRES: {intr.target.feature}, cpu-{group.cpu}, {intr.symbol}{_extra_requirements(group)}",
        ]
    # Many rows of one cohort: LLVM declares them together, so the build has every intrinsic
    # the file requires (one REQUIRES line each; lit requires every line) or none of them.
    symbols = [i.symbol for i in group.intrinsics]
    return [
        *lines,
        f"; {len(symbols)} intrinsics of the rows LLVM declares together ({group.cohort}) on {group.cpu}{pipeline}:",
        f"; {len(group.members)} {group.file_class} case(s).",
        f"; REQUIRES: {intr.target.feature}, cpu-{group.cpu}{_extra_requirements(group)}",
        *(f"; REQUIRES: {symbol}" for symbol in symbols),
    ]


def _extra_requirements(group: Group) -> str:
    # Tuple widths in object files are checked with FileCheck's numeric expressions, which
    # only LLVM's own FileCheck has.
    shapes = (
        group.intrinsic.tuple_widths
        and not group.intrinsic.target.brace_groups
        and group.file_class not in (FileClass.ABSENT, FileClass.ISA_INVALID, *VERIFIER_CLASSES)
    )
    extract = ", llvm-extract" if _each_call(group) else ""
    return (", llvm-filecheck" if group.file_class == FileClass.OBJECT or shapes else "") + extract


def _run(*pipeline: commands.Command) -> str:
    return "; RUN: " + commands.Pipeline(pipeline).text()


def _llc_input(group: Group, llc: commands.Command, output: str | None = None) -> tuple[commands.Command, ...]:
    """llc reading the test file, or reading it through the group's opt pipeline."""
    out = ("-o", output) if output else ()
    if group.pipeline == "none":
        return (commands.with_args(llc, *out, stdin="%s"),)
    return (commands.with_args(opt_command(group, group.pipeline), stdin="%s"), commands.with_args(llc, *out))


def _codegen_runs(group: Group) -> list[str]:
    """llc's text goes through a file: FileCheck and llvm-mc read the same output, llc runs once
    per selector, and no RUN line has the `llc ... | FileCheck` shape that CHECK-line updaters
    rewrite (so they never replace the semantic checks with a snapshot)."""
    runs = []
    target = group.intrinsic.target
    for sel in group.selectors:
        if not target.has_selector(sel):
            runs.append(_no_selector_run(group, sel))
            continue
        asm = f"%t.{sel}.s"
        runs.append(_run(*_llc_input(group, llc_command(group, sel), asm)))
        runs.append(_run(commands.Command(("FileCheck", f"--input-file={asm}", "%s"))))
        closing = commands.Pipeline((mc_command(group, asm),)).text()
        # An assembler from outside LLVM (ptxas) may be absent: lit then skips the line.
        runs.append(f"; RUN: %if {target.assembler_tool} %{{ {closing} %}}" if target.assembler_optional else f"; RUN: {closing}")
    return runs


NO_SELECTOR_PREFIX = "NOSEL"


def _no_selector_run(group: Group, sel: Selector) -> str:
    """llc has no `sel` for the target: it must say so (its own message), not crash."""
    llc = commands.with_args(llc_command(group, sel), "-o", "/dev/null", stdin="%s")
    failing = commands.Command(("not", *llc.argv), stdin=llc.stdin, stderr_to_stdout=True)
    return _run(failing, commands.Command(("FileCheck", f"--check-prefix={NO_SELECTOR_PREFIX}", "%s")))


def _no_selector_check(group: Group) -> list[str]:
    target = group.intrinsic.target
    if all(target.has_selector(s) for s in group.selectors) or group.verifier_only:
        return []
    return [f"; {NO_SELECTOR_PREFIX}: error: {target.no_selector_message}"]


def _object_runs(group: Group) -> list[str]:
    # The object goes through a file: lit's internal shell does not pipe binary data reliably.
    runs = []
    for sel in group.selectors:
        runs.append(_run(*_llc_input(group, llc_command(group, sel, obj=True), f"%t.{sel}.o")))
        runs.append(
            _run(
                commands.Command(("llvm-objdump", "-d", f"%t.{sel}.o")),
                commands.Command(("FileCheck", "--check-prefix=OBJ", "%s")),
            )
        )
    return runs


def _ir_runs(group: Group, malformed: bool) -> list[str]:
    opt = opt_command(group, group.pipeline, disable_verify=malformed)
    filecheck = commands.Command(("FileCheck", "--check-prefix=IR", "%s"))
    # Idempotence: a second run over the first run's output must still meet every check (a
    # second narrowing would move the call off the captured shuffle).
    return [
        _run(commands.with_args(opt, "-S", "-o", "%t.once.ll", stdin="%s")),
        _run(commands.with_args(filecheck, "--input-file=%t.once.ll")),
        _run(commands.with_args(opt, "-S", stdin="%t.once.ll"), filecheck),
    ]


def _verifier_run() -> str:
    as_ = commands.Command(("not", "llvm-as", "-disable-output", "%s"), stderr_to_stdout=True)
    return _run(as_, commands.Command(("FileCheck", "%s")))


def lit_file(group: Group) -> str:
    """The semantic layer: checks that hold on every correct build."""
    header = _header(group)
    cls = group.file_class
    if cls in (FileClass.ABSENT, FileClass.ISA_INVALID):
        header.extend(_absent_runs(group))
        # llc stops at the first function it cannot select: one message per module.
        checks = {group.cases[0].function: [f"; {REJECTION_PREFIX[cls]}: error:"]}
    elif group.verifier_only:
        header.append(_verifier_run())
        # Each diagnostic is checked inside the function it is about; the verifier reports
        # calls in module order, which is the order of these checks.
        checks = {c.function: verifier_checks(c) for c in group.cases}
    elif cls in (FileClass.IR, FileClass.IR_MALFORMED):
        header.extend(_ir_runs(group, cls == FileClass.IR_MALFORMED))
        checks = {c.function: ir_checks(c, cls == FileClass.IR_MALFORMED) for c in group.cases}
    elif cls == FileClass.OBJECT:
        header.extend(_object_runs(group))
        checks = {c.function: object_checks(c) for c in group.cases}
    else:
        header.extend(_codegen_runs(group))
        objects = group.intrinsic.target.objects
        if objects:  # llc's own object must encode what its text says (the path clang takes)
            header.extend(_object_runs(group))
        checks = {
            c.function: (shape_checks(c) if c.intrinsic.tuple_widths else asm_checks(c))
            + (modifier_object_checks(c) if objects else [])
            for c in group.cases
        }
    return module(group.cases, header + _no_selector_check(group), checks).text


# ---- the snapshot layer -----------------------------------------------------------------------

SNAPSHOT_MARK = "; Snapshot layer of "


def snapshot_file(group: Group, version: str) -> str:
    """A snapshot file before its CHECK lines are generated: the group's pinned cases, with
    `llc | FileCheck` RUN lines in the shape update_llc_test_checks.py and `harness update-checks`
    regenerate, gated on the LLVM build whose output it records (`version`)."""
    intr = group.intrinsic
    header = [
        f"{SNAPSHOT_MARK}generated/{group.filename}:",
        f"; llc's exact output for {len(group.snapshot_cases)} of its cases on the one LLVM build that REQUIRES names",
        "; (lit skips this file on any other). `harness update-checks` regenerates it and records the",
        "; build; `harness expand` keeps it while the IR and RUN lines below are unchanged.",
        f"; REQUIRES: amdgpu-registered-target, cpu-{group.cpu}, {intr.symbol}, llvm-{version}",
    ]
    for sel in group.selectors:
        prefixes = f"--check-prefixes=CHECK,{SELECTOR_PREFIX[sel]}"
        header.append(_run(*_llc_input(group, llc_command(group, sel)), commands.Command(("FileCheck", prefixes, "%s"))))
    return module(group.snapshot_cases, header).text
