"""The single-instruction NVPTX mma family as ONE data table, in the style of LLVM's
NVPTX wmma.py: every (shape, input types, accumulate) of `itertools.product` is a `Variant`,
and two predicates sort them:

* `in_llvm`: LLVM has an intrinsic for it (for these shapes: f16 with f16 or f32 accumulate,
  bf16 with f32, tf32 with f32 at m16n8k8 only; never mixed inputs);
* `in_contract`: the seed's contract, f16 or bf16 inputs with f32 accumulate.

`ENTRIES` (in the contract) are the four single-instruction intrinsics; `NO_VARIANT` (not in
LLVM: mixed bf16×f16 inputs, f16 accumulate with bf16 inputs, tf32 at k16, ...) become rejection
cases whose name no build knows; variants LLVM has outside the contract (f16 accumulate, tf32 at
k8) are in `VARIANTS` and nowhere else. `VERIFIER` holds the calls the IR verifier rejects (an
entry called with the wrong number or type of fragment operands).

Names follow LLVM's MMA_SIGNATURE rule: f16 inputs are named by D and C (`.f32.f32`), other
inputs by A (and B where it differs); a variant the rule cannot tell from an entry (bf16 with f16
accumulate) adds its D and C types. Register counts are derived, not listed: per lane, A holds
16·K/32 elements and B K·8/32, packed into b32 registers; C and D hold 16·8/32 elements (four f32,
or two f16x2). With f16/bf16 that is A 4 (k16) / 2 (k8), B 2 / 1, C and D 4.

Everything here is immutable; nothing is computed at import but the tables.
"""

from __future__ import annotations

import fnmatch
import itertools
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType

from harness.targets import NVPTX, Target
from harness.tools.commands import Selector

PREFIX = "llvm.nvvm."
SHAPES = {"m16n8k16": 16, "m16n8k8": 8}  # shape -> K (M 16, N 8)
INPUTS = (("f16", "f16"), ("bf16", "bf16"), ("tf32", "tf32"), ("bf16", "f16"))  # (A, B) element types
ACCUMULATE = ("f32", "f16")
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32}
# IR type of one b32 fragment register, per element type (bf16 and tf32 travel as i32).
IR_WORD = {"f16": "<2 x half>", "bf16": "i32", "tf32": "i32", "f32": "float"}
VERIFIER_MESSAGE = "Intrinsic has incorrect argument type!"  # LLVM 22's verifier, for a call of a mis-declared intrinsic


@dataclass(frozen=True)
class Fragment:
    """One operand group of the call: `count` IR operands of `ir_type` (one per b32 register)."""

    ir_type: str
    count: int

    def ir_types(self) -> list[str]:
        return [self.ir_type] * self.count


@dataclass(frozen=True)
class Variant:
    """One mma.sync variant: shape, A and B element types, accumulate type, on a target."""

    shape: str
    a_type: str
    b_type: str
    acc: str
    target: Target = NVPTX

    @property
    def k(self) -> int:
        return SHAPES[self.shape]

    @property
    def name(self) -> str:
        """The intrinsic's name without `llvm.nvvm.` (LLVM's MMA_SIGNATURE rule, extended)."""
        if self.a_type == "f16" and self.b_type == "f16":
            ids = [self.acc, self.acc]  # f16 ops: by D and C
        else:
            ids = [self.a_type] if self.a_type == self.b_type else [self.a_type, self.b_type]
            if self.acc != "f32":
                ids += [self.acc, self.acc]  # not in LLVM: tells it from the f32 accumulate entry
        return f"mma.{self.shape}.row.col.{'.'.join(ids)}"

    @property
    def symbol(self) -> str:
        return PREFIX + self.name

    @property
    def function(self) -> str:
        """The kernel's name in IR and PTX."""
        return self.name.replace(".", "_")

    @property
    def mnemonic(self) -> str:
        """The PTX instruction llc prints: mma.sync.aligned.<shape>.row.col.<D>.<A>.<B>.<C>."""
        return f"mma.sync.aligned.{self.shape}.row.col.{self.acc}.{self.a_type}.{self.b_type}.{self.acc}"

    def _regs(self, elements: int, elem_type: str) -> int:
        return elements * BITS[elem_type] // 32

    @property
    def registers(self) -> dict[str, int]:
        """b32 registers per lane of each operand, in PTX order keys a, b, c, d."""
        acc = self._regs(16 * 8 // 32, self.acc)
        return {
            "a": self._regs(16 * self.k // 32, self.a_type),
            "b": self._regs(self.k * 8 // 32, self.b_type),
            "c": acc,
            "d": acc,
        }

    @property
    def a(self) -> Fragment:
        return Fragment(IR_WORD[self.a_type], self.registers["a"])

    @property
    def b(self) -> Fragment:
        return Fragment(IR_WORD[self.b_type], self.registers["b"])

    @property
    def c(self) -> Fragment:
        return Fragment(IR_WORD[self.acc], self.registers["c"])

    @property
    def result(self) -> str:
        """The IR struct the call returns (D)."""
        return "{" + ", ".join([IR_WORD[self.acc]] * self.registers["d"]) + "}"

    @property
    def cpus(self) -> tuple[str, ...]:
        return self.target.cpus

    @property
    def in_llvm(self) -> bool:
        if self.a_type != self.b_type:
            return False
        if self.a_type == "f16":
            return True
        if self.a_type == "bf16":
            return self.acc == "f32"
        return self.a_type == "tf32" and self.acc == "f32" and self.shape == "m16n8k8"

    @property
    def in_contract(self) -> bool:
        return self.a_type == self.b_type and self.a_type in ("f16", "bf16") and self.acc == "f32"

    @property
    def why_none(self) -> str:
        """Why LLVM has no such variant (for a NO_VARIANT entry), in words."""
        if self.a_type != self.b_type:
            return f"mixed {self.a_type}×{self.b_type} inputs"
        if self.a_type == "tf32" and self.shape != "m16n8k8":
            return f"tf32 at k{self.k}" + (f" with {self.acc} accumulate" if self.acc != "f32" else "")
        return f"{self.acc} accumulate with {self.a_type} inputs"


@dataclass(frozen=True)
class Verify:
    """An entry called with the wrong fragment operands: the verifier rejects the module."""

    kind: str  # a-count, a-type, ...
    variant: Variant
    a: Fragment
    b: Fragment
    c: Fragment
    why: str

    @property
    def name(self) -> str:
        return self.variant.name

    @property
    def function(self) -> str:
        return f"reject_{self.kind.replace('-', '_')}__{self.variant.function}"

    @property
    def cpus(self) -> tuple[str, ...]:
        return self.variant.cpus

    @property
    def target(self) -> Target:
        return self.variant.target

    @property
    def result(self) -> str:
        return self.variant.result

    @property
    def symbol(self) -> str:
        return self.variant.symbol

    @property
    def messages(self) -> tuple[str, str]:
        """What llc prints: the verifier's message, then the intrinsic it names."""
        return VERIFIER_MESSAGE, f"ptr @{self.symbol}"


VARIANTS: tuple[Variant, ...] = tuple(
    Variant(shape, a, b, acc) for shape, (a, b), acc in itertools.product(SHAPES, INPUTS, ACCUMULATE)
)
ENTRIES: tuple[Variant, ...] = tuple(v for v in VARIANTS if v.in_contract)
NO_VARIANT: tuple[Variant, ...] = tuple(v for v in VARIANTS if not v.in_llvm)


def _verifier_cases() -> tuple[Verify, ...]:
    bf16 = next(v for v in ENTRIES if v.shape == "m16n8k16" and v.a_type == "bf16")
    return (
        Verify(
            "a-count",
            bf16,
            Fragment(bf16.a.ir_type, bf16.a.count - 1),
            bf16.b,
            bf16.c,
            f"A with {bf16.a.count - 1} fragment registers, not {bf16.a.count}",
        ),
        Verify("a-type", bf16, Fragment("float", bf16.a.count), bf16.b, bf16.c, f"A fragments of float, not {bf16.a.ir_type}"),
    )


VERIFIER: tuple[Verify, ...] = _verifier_cases()
# Entries and no-variant names are what --intrinsic names (verifier cases share an entry's name).
BY_NAME = MappingProxyType({v.name: v for v in ENTRIES + NO_VARIANT})

assert len(BY_NAME) == len(ENTRIES) + len(NO_VARIANT), "duplicate mma names"
assert len({v.name for v in VARIANTS}) == len(VARIANTS), "duplicate mma names"


def lookup(name: str) -> Variant | None:
    """The entry or no-variant case an --intrinsic name means (with or without llvm.nvvm.)."""
    return BY_NAME.get(name.removeprefix(PREFIX))


Subject = Variant | Verify


class MmaClass(StrEnum):
    """What a single-instruction subject expects (its records' `class`)."""

    SINGLE = "single"  # an entry of the contract: llc prints the instruction, ptxas accepts it
    NO_VARIANT = "no-variant"  # a name no build knows: an .extern call ptxas rejects
    VERIFIER = "verifier"  # an entry called with the wrong fragments: the verifier rejects it


def class_of(subject: Subject) -> MmaClass:
    if isinstance(subject, Verify):
        return MmaClass.VERIFIER
    return MmaClass.SINGLE if subject.in_contract else MmaClass.NO_VARIANT


def subjects() -> tuple[Subject, ...]:
    """Every single-instruction subject: the entries, the no-variant names, the verifier cases."""
    return ENTRIES + NO_VARIANT + VERIFIER


@dataclass(frozen=True)
class MmaCase:
    """One subject compiled for one CPU at one -O level (the selector is the outcome's)."""

    subject: Subject
    cpu: str
    opt: int
    pipeline: str = "none"  # for harness.reports.report's rows; the NVPTX cases run no opt pipeline
    check: str = "codegen"

    @property
    def function(self) -> str:
        return self.subject.function

    @property
    def intrinsic(self) -> Subject:
        """What report rows group by (`.name`): the intrinsic the call names."""
        return self.subject

    @property
    def target(self) -> Target:
        return self.subject.target

    @property
    def file_class(self) -> MmaClass:
        return class_of(self.subject)


OPT_LEVELS = (0, 2)


def cases(subjects_: tuple[Subject, ...] | None = None) -> list[MmaCase]:
    """Every subject × its CPUs × -O {0, 2}, in table order."""
    return [MmaCase(s, cpu, o) for s in (subjects_ or subjects()) for cpu in s.cpus for o in OPT_LEVELS]


# ---- IR -----------------------------------------------------------------------------------------


def _operands(subject: Subject) -> tuple[Fragment, Fragment, Fragment]:
    return (subject.a, subject.b, subject.c)


def declaration(subject: Subject) -> str:
    """The intrinsic's declaration as the kernel calls it."""
    params = ", ".join(t for f in _operands(subject) for t in f.ir_types())
    return f"declare {subject.result} @{subject.symbol}({params})"


def kernel_ir(subject: Subject) -> str:
    """The kernel's module: load each fragment register from %p (4 bytes each, A then B then C),
    call the intrinsic, store each result register back over %p. Deterministic text."""
    fn = subject.function
    a, b, c = _operands(subject)
    lines = ["entry:"]
    args = []
    offset = 0
    for op, frag in (("a", a), ("b", b), ("c", c)):
        for i, ty in enumerate(frag.ir_types()):
            lines.append(f"  %{op}{i}.p = getelementptr inbounds i8, ptr addrspace(1) %p, i64 {offset}")
            lines.append(f"  %{op}{i} = load {ty}, ptr addrspace(1) %{op}{i}.p, align 4")
            args.append(f"{ty} %{op}{i}")
            offset += 4
    result = subject.result
    lines.append(f"  %d = call {result} @{subject.symbol}({', '.join(args)})")
    d_types = result.strip("{}").split(", ")
    for i, ty in enumerate(d_types):
        lines.append(f"  %d{i} = extractvalue {result} %d, {i}")
        lines.append(f"  %d{i}.p = getelementptr inbounds i8, ptr addrspace(1) %p, i64 {4 * i}")
        lines.append(f"  store {ty} %d{i}, ptr addrspace(1) %d{i}.p, align 4")
    lines.append("  ret void")
    head = [
        (
            f"; {fn}: one call of {subject.symbol}: A {a.count} x {a.ir_type}, B {b.count} x {b.ir_type}, "
            f"C {c.count} x {c.ir_type} -> {result}"
        ),
        f'target triple = "{subject.target.triple}"',
        "",
    ]
    body = [
        f"define ptx_kernel void @{fn}(ptr addrspace(1) %p) {{",
        *lines,
        "}",
        "",
        declaration(subject),
    ]
    return "\n".join(head + body) + "\n"


SELECTORS: tuple[Selector, ...] = tuple(Selector)


SPEC_KEYS = ("intrinsic", "cpu")


def spec_cases(cases_dir, only: list[str] | None = None) -> list[MmaCase]:
    """The cases the `mma` sections of the specs in `cases_dir` (or of the files named in `only`)
    ask for. A block names subjects by glob over their names (`mma.m16n8k16.*`, `reject.*`;
    default all) and CPUs (default each subject's); -O0 and -O2 always."""
    from harness.nvptx import gemm_spec
    from harness.specs import spec
    from harness.specs.spec import quote

    paths = gemm_spec.spec_paths(Path(cases_dir))
    if only:
        names = {Path(n).name for n in only}
        paths = [p for p in paths if p.name in names]
    chosen: dict[MmaCase, None] = {}
    for path in paths:
        top, _ = spec.sections(spec.read_text(path), str(path))
        if "mma" not in top:
            continue
        for block in spec.located_blocks(str(path), top["mma"], SPEC_KEYS, "mma"):
            globs = block.dims.get("intrinsic")
            picked = [s for s in subjects() if not globs or any(fnmatch.fnmatchcase(s.name, str(g.value)) for g in globs)]
            if globs and not picked:  # (no globs pick every subject)
                raise globs[0].error(
                    "mma: no single-instruction subject matches " + ", ".join(quote(str(g.value)) for g in globs)
                )
            for v in block.dims.get("cpu", []):
                if not any(v.value in s.cpus for s in picked):
                    raise v.error(f"mma: no chosen subject runs on {quote(v.value)}")
            cpus = [v.value for v in block.dims.get("cpu", [])]
            chosen.update(dict.fromkeys(c for c in cases(tuple(picked)) if not cpus or c.cpu in cpus))
    return list(chosen)
