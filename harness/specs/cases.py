"""Cases: one intrinsic call with fixed formats, source widths and variations; their groups.

Width policies are resolved against the catalog: `exact` is the register count the format
reads, `overwide`/`underwide` are every legal width above/below it, `max` the widest legal one.
Cases are grouped so that every case in a group is expected to behave alike (the file class).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from enum import StrEnum

from harness.core import commands
from harness.core.commands import Selector
from harness.core.once import once
from harness.specs.spec import Value
from harness.targets import AMDGPU, catalog, families, limits, processors
from harness.targets.catalog import SIDE_A, SIDE_B, SIDES, Intrinsic, Side

_INTEGER = re.compile(r"-?[0-9]+")

SELECTORS: tuple[Selector, ...] = tuple(Selector)
OPT_LEVELS = (0, 1, 2, 3)
POLICIES = ("exact", "max", "overwide", "underwide")
# What a generated file checks: codegen (llc text + llvm-mc), ir (the IR after `pipeline`),
# diagnostic (the verifier names the right operand), object (the disassembled object).
CHECKS = ("codegen", "ir", "diagnostic", "object")
NARROWINGS = ("", "shufflevector", "vector.extract")
# Verifier rejections a case can be built to provoke, most decisive first.
REJECTIONS = ("nonconst", "immarg-range", "badformat", "illegal", "underwide")
# Values of an immarg a spec asks for: its highest in-range value, or one past it.
IMMARG_VALUES = ("high", "outside")


class FileClass(StrEnum):
    """What a generated file expects of its cases (its name's class part), in the order a case
    is tested against them. A rejection's class is the rejection's name."""

    ABSENT = "absent"  # a CPU without the instruction: llc must fail cleanly (no crash, no code)
    DIAGNOSTIC_A = "diagnostic-a"
    DIAGNOSTIC_B = "diagnostic-b"
    DIAGNOSTIC_NONE = "diagnostic-none"
    IR_MALFORMED = "ir-malformed"
    NONCONST = "nonconst"
    IMMARG_RANGE = "immarg-range"  # an immarg outside the values the ISA encodes
    ISA_INVALID = "isa-invalid"  # an immarg inside its field, but invalid on this instruction (targets.limits)
    BADFORMAT = "badformat"
    ILLEGAL = "illegal"
    UNDERWIDE = "underwide"
    IR = "ir"
    OBJECT = "object"
    NARROWED_SHUFFLEVECTOR = "narrowed-shufflevector"
    NARROWED_VECTOR_EXTRACT = "narrowed-vector-extract"
    OVERWIDE = "overwide"
    UNDERWIDE_UNVERIFIED = "underwide-unverified"
    EXACT = "exact"


CLASSES: tuple[FileClass, ...] = tuple(FileClass)
VERIFIER_CLASSES = (
    FileClass.DIAGNOSTIC_A,
    FileClass.DIAGNOSTIC_B,
    FileClass.DIAGNOSTIC_NONE,
    FileClass.NONCONST,
    FileClass.IMMARG_RANGE,
    FileClass.BADFORMAT,
    FileClass.ILLEGAL,
    FileClass.UNDERWIDE,
)


def _signed(value: int, ir_type: str) -> int:
    """An integer constant as LLVM holds it in its type: i32 4294967295 is -1 (an i1 is 0 or 1)."""
    bits = int(ir_type.removeprefix("i")) if re.fullmatch(r"i\d+", ir_type) else 0
    if bits > 1 and 2 ** (bits - 1) <= value < 2**bits:
        return value - 2**bits
    return value


@dataclass(frozen=True)
class Case:
    """One call to check: an intrinsic on a CPU with A/B formats and source widths, the element
    types, operand overrides, -O level, opt pipeline, how over-wide sources are narrowed, and
    which check its file makes (codegen, object, IR, diagnostic). Its `function` name is unique
    and spells all of that; a generated file and the runner group cases into modules by it."""

    intrinsic: Intrinsic
    cpu: str
    fmt_a: int
    fmt_b: int
    width_a: int
    width_b: int
    opt: int = 0
    pipeline: str = "none"  # opt -passes= pipeline run before llc ("none": straight to llc)
    check: str = "codegen"
    args: tuple[tuple[int, str], ...] = ()  # operand index -> literal; "%name" is a parameter
    elem_a: str = ""  # "": the element type the intrinsic takes
    elem_b: str = ""
    narrowing: str = ""  # IR that narrows over-wide sources before the call, if any
    # Where a spec wrote `pipeline` (for opt's complaints about it); not part of the case.
    pipeline_at: Value | None = field(default=None, compare=False, repr=False)

    def fmt(self, side: Side) -> int:
        return self.fmt_a if side == SIDE_A else self.fmt_b

    def width(self, side: Side) -> int:
        return self.width_a if side == SIDE_A else self.width_b

    def __post_init__(self) -> None:
        # One spelling per case: the intrinsic's own element type is "" (so `elem_a: i32` and
        # no elem_a make one case, with one function name).
        if self.elem_a and self.elem_a == self.intrinsic.a.elem:
            object.__setattr__(self, "elem_a", "")
        if self.elem_b and self.elem_b == self.intrinsic.b.elem:
            object.__setattr__(self, "elem_b", "")

    def elem(self, side: Side) -> str:
        """The element type of a source as the case passes it."""
        own = self.elem_a if side == SIDE_A else self.elem_b
        return own or self.intrinsic.source(side).elem

    def required(self, side: Side) -> int:
        return self.intrinsic.source(side).regs[self.fmt(side)]

    def call_width(self, side: Side) -> int:
        """Width of the source the call receives (after any IR narrowing)."""
        if self.narrowing and self.width(side) > self.required(side):
            return self.required(side)
        return self.width(side)

    def override(self, role: catalog.Role) -> str | None:
        index = self.intrinsic.arg_index(role) if role in self.intrinsic.operands else -1
        return dict(self.args).get(index)

    def side_class(self, side: Side) -> str:
        """nonconst/badformat (its format operand), illegal (shape), underwide, overwide, exact."""
        return self._side_classes[0 if side == SIDE_A else 1]

    @once
    def _side_classes(self) -> tuple[str, str]:
        return self._side_class(SIDE_A), self._side_class(SIDE_B)

    def _side_class(self, side: Side) -> str:
        fmt_value = self.override(side.fmt)
        if fmt_value is not None:
            if fmt_value.startswith("%"):
                return "nonconst"
            if int(fmt_value) not in self.intrinsic.source(side).regs:
                return "badformat"
        width, need, source = self.call_width(side), self.required(side), self.intrinsic.source(side)
        if source.verified and (self.elem(side) != source.elem or width not in source.widths):
            return "illegal"
        return "exact" if width == need else ("overwide" if width > need else "underwide")

    @property
    def nonconst_operand(self) -> int | None:
        """The first operand that must be a constant but is a parameter (the verifier's first
        complaint, before any intrinsic-specific check), or None."""
        return next((i for i, v in self.args if v.startswith("%") and self.intrinsic.immarg(i)), None)

    @property
    def outside_operand(self) -> int | None:
        """The first immarg given a value outside the range its row allows, or None."""
        given = dict(self.args)
        for index, low, high in self.intrinsic.ranges:
            value = {"false": "0", "true": "1"}.get(given.get(index, ""), given.get(index, ""))
            if _INTEGER.fullmatch(value) and not low <= int(value) <= high:
                return index
        return None

    @once
    def rejection(self) -> str:
        """The verifier rule this case breaks first, or "" when it is valid IR."""
        if self.nonconst_operand is not None:
            return "nonconst"
        if self.outside_operand is not None:
            return "immarg-range"
        sides = {self.side_class(s) for s in SIDES if self.intrinsic.source(s).verified}
        return next((r for r in REJECTIONS if r in sides), "")

    @once
    def constants(self) -> dict[str, int]:
        """Operand name (as its row names it: `cbsz`, `neg_a`, `fmt_a`) -> the integer this call
        gives it, for each constant operand the call spells as an integer (true/false as 1/0)."""
        intr = self.intrinsic
        names = families.operand_names(intr.base or intr.name)
        given = dict(self.args)
        out = {}
        for index, entry in enumerate(intr.operands[: len(names)]):
            if not intr.immarg(index):
                continue
            side = catalog.Role(entry).side if entry in catalog.FORMAT_ROLES else None
            text = given.get(index, str(self.fmt(side)) if side else catalog.literal(entry)[1])
            text = {"false": "0", "true": "1"}.get(text, text)
            if _INTEGER.fullmatch(text):
                out[names[index]] = _signed(
                    int(text), catalog.literal(str(entry))[0] if entry not in catalog.FORMAT_ROLES else "i32"
                )
        return out

    @once
    def scale_given(self) -> str:
        """The first scale operand this call gives anything but the constant 0 (a register, another
        constant), where the intrinsic has a scaled encoding of its own (`other_mnemonics`:
        mfma.scale), else "": only zero scales may fold into the unscaled instruction, so this
        call must select the scaled one."""
        intr = self.intrinsic
        if not intr.other_mnemonics:
            return ""
        names = families.operand_names(intr.base or intr.name)
        given = (names[i].split()[-1] for i, v in self.args if v != "0" and i < len(names))
        return next((n for n in given if n.startswith("scale_")), "")

    def mnemonics(self) -> tuple[str, ...]:
        """Every mnemonic a correct build may print for this call (`Intrinsic.mnemonics`, less
        the unscaled one where a scale is not the constant 0)."""
        names = self.intrinsic.mnemonics(self.cpu)
        return self.intrinsic.other_mnemonics if self.scale_given else names

    @once
    def isa_invalid(self) -> str:
        """Why a constant operand's value, inside its field, is one the ISA calls invalid on this
        instruction (`limits`), or "" when none is."""
        intr = self.intrinsic
        if intr.target is not AMDGPU or not intr.runs_on(self.cpu):
            return ""
        return limits.invalid(processors.representative(self.cpu, intr.cpus), intr.mnemonics(self.cpu)[0], self.constants)

    @once
    def file_class(self) -> FileClass:
        if not self.intrinsic.runs_on(self.cpu):
            return FileClass.ABSENT
        if self.check == "diagnostic":
            # One file per rejected side: each attribution is its own expected outcome.
            side = next((s for s in SIDES if self.side_class(s) == self.rejection), None)
            return FileClass(f"diagnostic-{side}") if side else FileClass.DIAGNOSTIC_NONE
        if self.check == "ir":
            return FileClass.IR_MALFORMED if self.rejection else FileClass.IR
        if self.rejection:
            return FileClass(self.rejection)
        if self.isa_invalid:
            return FileClass.ISA_INVALID
        if self.check == "object":
            return FileClass.OBJECT
        if self.narrowing:
            return FileClass("narrowed-" + self.narrowing.replace(".", "-"))
        sides = (self.side_class(SIDE_A), self.side_class(SIDE_B))
        wider = (FileClass.OVERWIDE, FileClass.UNDERWIDE_UNVERIFIED)
        return next((c for c in wider if c.split("-")[0] in sides), FileClass.EXACT)

    @once
    def signature(self) -> str:
        """How the intrinsic's declaration differs from its own where the mangled name cannot
        say so (a source the name does not carry, of another width or element type), e.g.
        `.a1xi32`; "" otherwise. Cases with different ones cannot share a module."""
        intr, parts = self.intrinsic, []
        for side in SIDES:
            source = intr.source(side)
            if side.src in intr.overload:
                continue
            width, elem = self.call_width(side), self.elem(side)
            if (width, elem) != (source.regs[self.fmt(side)], source.elem):
                parts.append(f".{side}{width}x{elem}".replace(" ", "").replace("<", "").replace(">", ""))
        return "".join(parts)

    @once
    def function(self) -> str:
        """IR function name: intrinsic, then each source's format and width, then variations."""
        base = self.intrinsic.name.replace(".", "_")
        parts = [base]
        for side in SIDES:
            own = self.elem_a if side == SIDE_A else self.elem_b
            elem = "x" + own if own else ""
            source = self.intrinsic.source(side)
            parts.append(f"{side}_{source.name(self.fmt(side))}_v{self.width(side)}{elem}")
        parts += [
            f"arg{i}_{'var_' + v[1:] if v.startswith('%') else v.replace('-', 'm')}" for i, v in self.args
        ]  # (-1: m1, a name character; %f.x: var_f.x)
        if self.narrowing:
            parts.append("narrow_" + self.narrowing.replace(".", "_"))
        return "__".join(parts)

    def sort_key(self) -> tuple:
        return (
            self.intrinsic.name,
            self.cpu,
            self.opt,
            self.pipeline,
            self.check,
            self.fmt_a,
            self.fmt_b,
            self.width_a,
            self.width_b,
            self.elem_a,
            self.elem_b,
            self.args,
            self.narrowing,
        )


@dataclass(frozen=True)
class Planned:
    """A case with the selectors it runs under and the specs that asked for it."""

    case: Case
    selectors: tuple[Selector, ...]
    origins: tuple[str, ...]
    snapshot: bool = False  # also pinned in the group's snapshot file


# ---- the tools' command lines for a case or a group (the runner runs them, litgen writes them) --


def llc_command(where: Case | Group, selector: Selector, obj: bool = False) -> commands.Command:
    """`where` is a Case or a Group: anything with intrinsic, cpu and opt."""
    intr = where.intrinsic
    return intr.target.llc(where.cpu, where.opt, selector, obj, intr.features_on(where.cpu))


def mc_command(where: Case | Group, text_file: str = "-") -> commands.Command:
    """The assembler that closes llc's text for the intrinsic's target, reading `text_file`."""
    return where.intrinsic.target.closing(where.cpu, text_file, where.intrinsic.features_on(where.cpu))


def opt_command(where: Case | Group, pipeline: str, disable_verify: bool = False) -> commands.Command:
    return where.intrinsic.target.opt(where.cpu, pipeline, disable_verify, where.intrinsic.features_on(where.cpu))


def widths_for(policy: object, source: catalog.Source, fmt: int) -> list[int]:
    """Concrete widths a policy names for one source in one format (may be empty)."""
    need = source.regs[fmt]
    if isinstance(policy, int):
        return [policy]
    if policy == "exact":
        return [need]
    if policy == "max":
        return [source.widths[-1]]
    if policy == "overwide":
        return [w for w in source.widths if w > need]
    if policy == "underwide":
        return [w for w in source.widths if w < need]
    raise ValueError(policy)


@dataclass(frozen=True)
class Group:
    """Cases that share one module and one expected outcome: one generated lit file.

    Most groups hold one intrinsic's cases. A `cohort` group holds the cases of every row of one
    cohort (rows LLVM declares together, `Intrinsic.cohort`) on one CPU, -O level, pipeline and
    class: they share the llc command line, and a build declares all of their intrinsics or none.
    `intrinsic` is then its first member's, which stands for the target, CPU and -mattr."""

    intrinsic: Intrinsic
    cpu: str
    opt: int
    file_class: FileClass
    selectors: tuple[Selector, ...]
    members: tuple[Planned, ...]
    pipeline: str = "none"
    signature: str = ""  # the members' Case.signature
    cohort: str = ""  # the members' Intrinsic.cohort when the file holds many rows

    @property
    def cases(self) -> list[Case]:
        return [p.case for p in self.members]

    @property
    def intrinsics(self) -> list[Intrinsic]:
        """The members' intrinsics, each once, in the order of their cases."""
        return list(dict.fromkeys(p.case.intrinsic for p in self.members))

    @once
    def filename(self) -> str:
        """Its name under generated/: spelled from the group's key alone, never its members."""
        cls = CLASSES.index(self.file_class)
        return _name((self.cohort or self.intrinsic.name, self.cpu, self.opt, self.pipeline, cls, self.selectors, self.signature))

    @property
    def snapshot_cases(self) -> list[Case]:
        """The cases whose exact llc output a snapshot file pins (none: no snapshot file)."""
        return [p.case for p in self.members if p.snapshot]

    @property
    def verifier_only(self) -> bool:
        return self.file_class in VERIFIER_CLASSES


MAX_SLUG = 80  # characters of a pipeline a file name spells out; the rest is in the digest


def pipeline_slug(pipeline: str) -> str:
    """A file-name part for a pipeline. Pass lists with punctuation get a digest, so two
    pipelines never share a name: function(instcombine),dce -> function-instcombine-dce-1a2b3c.
    A long one is cut and gets a longer digest, keeping file names well under 255 bytes."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", pipeline).strip("-")
    if slug == pipeline and len(slug) <= MAX_SLUG:
        return slug
    digest = hashlib.sha1(pipeline.encode()).hexdigest()
    if len(slug) <= MAX_SLUG:
        return f"{slug}-{digest[:6]}"
    return f"{slug[:MAX_SLUG].rstrip('-')}-{digest[:12]}"


# Decides, for a lit file's name under generated/, how it fares on the builds known-bugs.yaml lists
# (its XFAIL reason per version): two names with equal fates are expected to do alike.
Fate = Callable[[str], Hashable]


def shares_file(p: Planned) -> bool:
    """Whether a case goes into its cohort's file rather than one of its intrinsic's own: a row
    of a cohort, in any class but `absent` (llc stops at the first call it cannot select, so
    one file would judge one row) and with the intrinsic's own signature (a module declares
    each intrinsic once); never a case a snapshot pins."""
    c = p.case
    return bool(c.intrinsic.cohort) and c.file_class != FileClass.ABSENT and not c.signature and not p.snapshot


def group(planned: list[Planned], fate: Fate | None = None) -> list[Group]:
    """The lit files of `planned`: a case's file follows from the case alone (and `fate`).

    Cases whose intrinsic has a cohort share its cohort's file (`shares_file`). With `fate`
    (expand passes the known bugs), a case joins that file only where the file fares as its
    intrinsic's own file would (the same XFAIL on every listed build); otherwise it keeps the
    file of its own, so an XFAIL never covers a case it does not name, nor misses one it does."""
    buckets: dict[tuple, list[Planned]] = {}
    for p in planned:
        c = p.case
        own = (c.intrinsic.name, c.cpu, c.opt, c.pipeline, CLASSES.index(c.file_class), p.selectors, c.signature, "")
        key = own
        if shares_file(p):
            shared = (c.intrinsic.cohort, *own[1:7], c.intrinsic.cohort)
            if fate is None or fate(_name(shared)) == fate(_name(own)):
                key = shared
        buckets.setdefault(key, []).append(p)
    groups = []
    for key in sorted(buckets):
        members = tuple(buckets[key])
        first = members[0].case
        groups.append(
            Group(
                first.intrinsic, first.cpu, first.opt, first.file_class, key[5], members, first.pipeline, first.signature, key[7]
            )
        )
    return groups


# The selectors a file can be of: both, or one (a block that splits selectors).
SELECTOR_SETS: tuple[tuple[Selector, ...], ...] = (SELECTORS, *((s,) for s in SELECTORS))


def file_names(c: Case) -> list[str]:
    """Every name `group` may give the file of a case, whatever selectors a spec gives it and
    whatever the known bugs: its intrinsic's own file's and, for a row of a cohort, its cohort's.
    A glob that names none of them names no file the case can be in."""
    cls, names = CLASSES.index(c.file_class), [c.intrinsic.name, *([c.intrinsic.cohort] if c.intrinsic.cohort else [])]
    return [_name((name, c.cpu, c.opt, c.pipeline, cls, s, c.signature)) for name in names for s in SELECTOR_SETS]


def _name(key: tuple) -> str:
    """The file name of a `group` key (as Group.filename spells it)."""
    name, cpu, opt, pipeline, cls, selectors, signature = key[:7]
    sel = "" if selectors == SELECTORS else "." + ".".join(selectors)
    pipe = "" if pipeline == "none" else "." + pipeline_slug(pipeline)
    return f"{name}.{cpu}.O{opt}{pipe}.{CLASSES[cls]}{signature}{sel}.ll"
