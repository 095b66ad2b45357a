"""The intrinsic catalog: every intrinsic the harness knows is one data entry here.

An entry says where each source and format sits in the call, how the overloaded name is
mangled, which source widths are legal IR and how many registers each format really reads (how
the assembler prints a format is `modifiers`, with every other operand's value). Nothing else in the harness branches on a family.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, TypedDict

from harness.core.errors import quoted
from harness.targets import AMDGPU, NVPTX, Target, families, formats

if TYPE_CHECKING:
    from harness.targets import amdgpu_rows, nvptx_rows


class Side(StrEnum):
    """A matrix source: A or B (in function names, JSON keys and IR value names: a, b)."""

    A = "a"
    B = "b"

    @property
    def src(self) -> Role:
        """The role of this source's vector operand."""
        return SRC_A if self is SIDE_A else SRC_B

    @property
    def fmt(self) -> Role:
        """The role of this source's format operand."""
        return FMT_A if self is SIDE_A else FMT_B


# Both sources in order, as a tuple: iterating the enum itself costs a generator per loop.
SIDES = (Side.A, Side.B)
# The members under module-level names: reading one from its enum class costs ~10 times as much,
# and the paths that run per case and per operand read them.
SIDE_A, SIDE_B = SIDES


class Role(StrEnum):
    """Operand roles inside `Intrinsic.operands` (any other entry is a neutral literal
    "<type> <value>", prefixed "immarg " where the intrinsic requires a constant there), and
    `RESULT`, which only `Intrinsic.overload` names."""

    SRC_A = "src_a"
    SRC_B = "src_b"
    FMT_A = "fmt_a"
    FMT_B = "fmt_b"
    ACC = "acc"
    INDEX = "index"  # the sparsity index of smfmac/swmmac, the metadata of mma.sp (a runtime value)
    RESULT = "result"

    @property
    def side(self) -> Side:
        """The source a source or format operand belongs to."""
        if self == SRC_A or self == FMT_A:
            return SIDE_A
        if self == SRC_B or self == FMT_B:
            return SIDE_B
        raise ValueError(f"{self} belongs to no source")


# The members under their module-level names, as the catalog tables spell them.
SRC_A, SRC_B, FMT_A, FMT_B, ACC, INDEX, RESULT = (
    Role.SRC_A,
    Role.SRC_B,
    Role.FMT_A,
    Role.FMT_B,
    Role.ACC,
    Role.INDEX,
    Role.RESULT,
)
SOURCE_ROLES = (SRC_A, SRC_B)
FORMAT_ROLES = (FMT_A, FMT_B)
IMMARG = "immarg "


def literal(entry: str) -> tuple[str, str]:
    """(type, value) of a literal operand entry."""
    ty, value = entry.removeprefix(IMMARG).rsplit(" ", 1)
    return ty, value


@dataclass(frozen=True, eq=False)
class Source:
    """One matrix source (A or B) of an intrinsic.

    Its format table maps each format it takes to the elements the hardware reads (`regs`); the
    F8F6F4 sources take five runtime formats of i32 registers, a fixed-type source (an f16 MFMA,
    an iu8 WMMA) one format, named after its element type, whose count is the IR type's."""

    regs: dict[int, int]  # format -> elements (of `elem`) the hardware reads
    widths: tuple[int, ...]  # legal vector widths, ascending
    # What the IR verifier enforces for this source, and the message it prints for a format
    # operand out of range. Unverified sources (fixed formats) accept any vector.
    verified: bool = True
    range_message: str = ""
    elem: str = "i32"  # the element type the intrinsic takes
    scalar: bool = False  # the operand is one `elem`, not a vector (float, double, i64 sources)
    names: tuple[str, ...] = formats.SHORT  # format -> the name cases and files spell it with
    gprs: int = 0  # 32-bit registers per lane per the ISA (0: as many as `regs` of an i32 format)
    fixed: bool = False  # the intrinsic takes exactly one type here (a row's source): no other width or element

    @property
    def formats(self) -> tuple[int, ...]:
        return tuple(sorted(self.regs))

    def name(self, fmt: int) -> str:
        return self.names[fmt]

    def parse(self, text: object) -> int:
        """The format `text` names: one of this source's own names, else any spelling of the
        F8F6F4 formats (`formats.parse`); ValueError otherwise."""
        key = str(text).strip().lower()
        own = [f for f in self.formats if self.names[f].lower() == key]
        if own and not isinstance(text, bool):
            return own[0]
        if self.names != formats.SHORT:  # a fixed type: only its own name
            raise ValueError(f"not a format of this source: {quoted(text)} (it takes {' '.join(self.names)})")
        return formats.parse(text)

    def registers(self, fmt: int) -> int:
        """The 32-bit registers the hardware reads for `fmt` (the width of its register tuple)."""
        return self.gprs or self.regs[fmt]

    def type_text(self) -> str:
        """The IR type a fixed source always has."""
        return self.ir_type(self.widths[0])

    def ir_type(self, width: int, elem: str = "") -> str:
        elem = elem or self.elem
        return elem if self.scalar else f"<{width} x {elem}>"

    def shape_message(self, index: int) -> str:
        """The verifier's message for a source of the wrong shape at operand `index`."""
        *head, last = self.widths
        return f"operand {index} must be {', '.join(map(str, head))} or {last} element i32 vector"


@dataclass(frozen=True, eq=False)
class Intrinsic:
    """Entries are singletons: identity is equality."""

    name: str  # without the "llvm.amdgcn." prefix
    mnemonic: str  # what llc prints with neutral operands
    cpus: tuple[str, ...]
    calling_convention: str
    result: str  # IR type of the result and of the accumulator
    operands: tuple[Role | str, ...]  # a Role, or a neutral literal
    overload: tuple[Role, ...]  # types appended to the name, in order
    a: Source
    b: Source
    # Where it runs: triple, the assembler that closes llc's text, lit features, selectors.
    target: Target = AMDGPU
    # Mnemonic of the scaled form a build may rewrite this (unscaled) intrinsic into.
    scaled_mnemonic: str = ""
    # Other instructions a correct build selects for it with some operands: mfma.scale's own
    # scaled encoding when a scale is not neutral (`mnemonic` is the unscaled one llc selects
    # with neutral scales).
    other_mnemonics: tuple[str, ...] = ()
    # The LLVM name (without the prefix) when `name` is one shape of it, e.g. a wave64 form:
    # `name` is then the key that tells the shapes apart (files, cases, --intrinsic).
    base: str = ""
    family: str = ""  # mfma, smfmac, wmma, swmmac
    features: str = ""  # llc and llvm-mc -mattr (e.g. +wavefrontsize64)
    acc: str = ""  # IR type of the accumulator when it differs from the result
    index_type: str = ""  # IR type of the sparsity index
    # 32-bit registers of D, A, B, C per the ISA, for the shape check (empty: A and B only,
    # from the sources' format tables).
    gprs: tuple[int, ...] = ()
    # Operand index -> (low, high): the values each immarg may take per the ISA.
    ranges: tuple[tuple[int, int, int], ...] = ()
    absent_cpu: str = ""  # a CPU of the target without this instruction (a clean failure expected)
    cpu_mnemonics: tuple[tuple[str, str], ...] = ()  # (cpu, mnemonic) where the ISA names it otherwise
    returns: bool = False  # the case's function returns the result (no pointer: LLVM 14 reads it)
    # Each source and the accumulator travel as one operand per 32-bit register (NVPTX
    # fragments): a source's `elem` and `acc` are one register's IR type, `gprs` the counts,
    # and `result` the struct of D's registers.
    fragments: bool = False
    # Rows that LLVM declares together (nvptx_rows.Row.cohort): their cases on one CPU, -O level
    # and check share lit files. "": the entry's cases have lit files of their own.
    cohort: str = ""
    # An NVPTX row's oldest SM and PTX ISA version: where it runs among every target (`sms`)
    # beyond `cpus`, and the -mattr it needs there ("": a row the ISA does not have).
    min_sm: str = ""
    min_ptx: int = 0
    family_targets: bool = True  # an `a`-target row: the family's `f` targets have it too

    @property
    def triple(self) -> str:
        return self.target.triple

    def __reduce__(self):
        """An entry travels (to a worker process) by its name, and is the same singleton there."""
        return _entry_named, (self.name,)

    def runs_on(self, cpu: str) -> bool:
        """Whether `cpu` has this instruction, in this entry's wave size (a wave64 form needs a
        processor with wave64; any other runs in the processor's own): one of its CPUs, an
        AMDGPU processor the processor table says has what they have (`processors.has`), or an
        NVPTX target the ISA's rules give the row (`sms.has`; another form's CPUs included: the
        forms of a row differ in -mattr alone, which `features_on` gives per target)."""
        if self.target is not AMDGPU:
            from harness.targets import sms

            return cpu in self.cpus or (bool(self.min_sm) and sms.has(self.min_sm, cpu, self.family_targets))
        from harness.targets import processors

        has = processors.has(self.cpus, self.base or self.name, cpu)
        return has and (self.features != WAVE64 or processors.runs_wave64(cpu))

    def features_on(self, cpu: str) -> str:
        """llc's (and the assembler's) -mattr on `cpu`: the entry's own on its CPUs; on any
        other NVPTX target, the row's PTX ISA version where the target's own is older (a target
        without the row then refuses the instruction, not its PTX version)."""
        if self.min_ptx and cpu not in self.cpus:
            from harness.targets import sms

            return sms.ptx_feature(self.min_ptx, cpu)
        return self.features

    def mnemonics(self, cpu: str) -> tuple[str, ...]:
        """Every mnemonic a correct build may print for this intrinsic on `cpu`."""
        if self.target is AMDGPU and cpu not in self.cpus:
            from harness.targets import processors

            cpu = processors.representative(cpu, self.cpus)
        own = dict(self.cpu_mnemonics).get(cpu, self.mnemonic)
        return (own, *((self.scaled_mnemonic,) if self.scaled_mnemonic else ()), *self.other_mnemonics)

    @property
    def default_cpu(self) -> str:
        """The CPU a case of this entry gets when none is named: its first, or for an entry no
        CPU runs (an intrinsic the ISA does not have), the one where it must be refused."""
        return self.cpus[0] if self.cpus else self.absent_cpu

    @property
    def symbol(self) -> str:
        return self.target.intrinsic_prefix + (self.base or self.name)

    @property
    def tuple_widths(self) -> dict[str, tuple[int, int]]:
        """Role -> (operand position in the instruction, 32-bit registers) per the ISA: D, A, B,
        and C where the instruction prints it (SMFMAC and SWMMAC tie C to D and print the index
        there; PTX's mma.sp prints C, then its metadata). Empty for entries whose widths the
        assembler alone judges (the F8F6F4 seed)."""
        if not self.gprs:
            return {}
        d, a, b, c = self.gprs
        out = {"D": (0, d), "A": (1, a), "B": (2, b)}
        if INDEX not in self.operands or self.fragments:
            out["C"] = (3, c)
        return out

    @property
    def acc_type(self) -> str:
        return self.acc or self.result

    @property
    def runtime_formats(self) -> bool:
        return FMT_A in self.operands

    def source(self, side: Side) -> Source:
        return self.a if side == SIDE_A else self.b

    def arg_index(self, role: str) -> int:
        return self.operands.index(role)

    def immarg(self, index: int) -> bool:
        """Whether operand `index` must be a constant (the formats always must)."""
        entry = self.operands[index]
        return entry in FORMAT_ROLES or entry.startswith(IMMARG)


_WMMA_REGS = {formats.FP8: 16, formats.BF8: 16, formats.FP6: 12, formats.BF6: 12, formats.FP4: 8}
_MFMA_REGS = {formats.FP8: 8, formats.BF8: 8, formats.FP6: 6, formats.BF6: 6, formats.FP4: 4}


def _wmma_source(side: Side) -> Source:
    return Source(
        regs=_WMMA_REGS,
        widths=(8, 12, 16),
        range_message="invalid value for matrix format",
    )


def _mfma_source(modifier: str) -> Source:
    return Source(
        regs=_MFMA_REGS,
        widths=(4, 6, 8),
        range_message=f"invalid value for {modifier} format",
    )


class _Family(TypedDict):
    """What every intrinsic of one family shares (spread into each `Intrinsic`)."""

    cpus: tuple[str, ...]
    calling_convention: str
    overload: tuple[Role, ...]


class _Sources(TypedDict):
    a: Source
    b: Source


_WMMA = _Family(cpus=("gfx1250",), calling_convention="amdgpu_ps", overload=(RESULT, SRC_A, SRC_B))
_MFMA = _Family(cpus=("gfx950",), calling_convention="amdgpu_ps", overload=(SRC_A, SRC_B))
_WMMA_HEAD = (FMT_A, SRC_A, FMT_B, SRC_B, "immarg i16 0", ACC)
# scale source select and scale format (immarg), then the scale value, for A and then B;
# then reuse A / reuse B.
_SCALE_TAIL = (
    "immarg i32 0",
    "immarg i32 0",
    "i32 0",
    "immarg i32 0",
    "immarg i32 0",
    "i32 0",
    "immarg i1 false",
    "immarg i1 false",
)
_SCALE16_TAIL = (
    "immarg i32 0",
    "immarg i32 0",
    "i64 0",
    "immarg i32 0",
    "immarg i32 0",
    "i64 0",
    "immarg i1 false",
    "immarg i1 false",
)
# cbsz, blgp, then op_sel and scale of A, op_sel and scale of B.
_MFMA_OPERANDS = (SRC_A, SRC_B, ACC, FMT_A, FMT_B, "immarg i32 0", "i32 0", "immarg i32 0", "i32 0")
# The fixed-FP4 WMMA: A is always 16 registers and B 8; no format operands, none printed.
_F4 = _Sources(
    a=Source(regs={formats.FP4: 16}, widths=(16, 32), verified=False),
    b=Source(regs={formats.FP4: 8}, widths=(8, 12, 16), verified=False),
)
_F4_HEAD = (SRC_A, SRC_B, "immarg i16 0", ACC)
# The seed's immarg ranges (operand index, lowest, highest), as their rows in amdgpu_rows give them:
# c_mod 0..3 (operand 4 of the WMMA head, 2 of the fixed-FP4 head), each scale tail's select 0..1,
# scale format 0..2 and reuse 0..1, the MFMA's op_sel 0..3. Without them a value outside would be
# an expected pass (tests/test_immarg_bounds.py holds every entry's against the ISA).
_WMMA_RANGES = ((4, 0, 3),)
_F4_RANGES = ((2, 0, 3),)
_MFMA_RANGES = ((5, 0, 3), (7, 0, 3))


def _tail_ranges(at: int) -> tuple[tuple[int, int, int], ...]:
    """The ranges of a scale tail (_SCALE_TAIL, _SCALE16_TAIL) that starts at operand `at`."""
    return ((at, 0, 1), (at + 1, 0, 2), (at + 3, 0, 1), (at + 4, 0, 2), (at + 6, 0, 1), (at + 7, 0, 1))


SEED_INTRINSICS: tuple[Intrinsic, ...] = (
    Intrinsic(
        name="wmma.f32.16x16x128.f8f6f4",
        mnemonic="v_wmma_f32_16x16x128_f8f6f4",
        scaled_mnemonic="v_wmma_scale_f32_16x16x128_f8f6f4",
        result="<8 x float>",
        operands=_WMMA_HEAD,
        ranges=_WMMA_RANGES,
        a=_wmma_source(Side.A),
        b=_wmma_source(Side.B),
        **_WMMA,
    ),
    Intrinsic(
        name="wmma.scale.f32.16x16x128.f8f6f4",
        mnemonic="v_wmma_scale_f32_16x16x128_f8f6f4",
        result="<8 x float>",
        operands=_WMMA_HEAD + _SCALE_TAIL,
        ranges=_WMMA_RANGES + _tail_ranges(len(_WMMA_HEAD)),
        a=_wmma_source(Side.A),
        b=_wmma_source(Side.B),
        **_WMMA,
    ),
    Intrinsic(
        name="wmma.scale16.f32.16x16x128.f8f6f4",
        mnemonic="v_wmma_scale16_f32_16x16x128_f8f6f4",
        result="<8 x float>",
        operands=_WMMA_HEAD + _SCALE16_TAIL,
        ranges=_WMMA_RANGES + _tail_ranges(len(_WMMA_HEAD)),
        a=_wmma_source(Side.A),
        b=_wmma_source(Side.B),
        **_WMMA,
    ),
    Intrinsic(
        name="mfma.scale.f32.16x16x128.f8f6f4",
        # With neutral (zero) scales llc selects the unscaled encoding.
        mnemonic="v_mfma_f32_16x16x128_f8f6f4",
        other_mnemonics=("v_mfma_scale_f32_16x16x128_f8f6f4",),
        result="<4 x float>",
        operands=_MFMA_OPERANDS,
        ranges=_MFMA_RANGES,
        a=_mfma_source("cbsz"),
        b=_mfma_source("blgp"),
        **_MFMA,
    ),
    Intrinsic(
        name="mfma.scale.f32.32x32x64.f8f6f4",
        other_mnemonics=("v_mfma_scale_f32_32x32x64_f8f6f4",),
        mnemonic="v_mfma_f32_32x32x64_f8f6f4",
        result="<16 x float>",
        operands=_MFMA_OPERANDS,
        ranges=_MFMA_RANGES,
        a=_mfma_source("cbsz"),
        b=_mfma_source("blgp"),
        **_MFMA,
    ),
    Intrinsic(
        name="wmma.f32.32x16x128.f4",
        mnemonic="v_wmma_f32_32x16x128_f4",
        scaled_mnemonic="v_wmma_scale_f32_32x16x128_f4",
        result="<16 x float>",
        operands=_F4_HEAD,
        ranges=_F4_RANGES,
        **_F4,
        **_WMMA,
    ),
    Intrinsic(
        name="wmma.scale.f32.32x16x128.f4",
        mnemonic="v_wmma_scale_f32_32x16x128_f4",
        result="<16 x float>",
        operands=_F4_HEAD + _SCALE_TAIL,
        ranges=_F4_RANGES + _tail_ranges(len(_F4_HEAD)),
        **_F4,
        **_WMMA,
    ),
    Intrinsic(
        name="wmma.scale16.f32.32x16x128.f4",
        mnemonic="v_wmma_scale16_f32_32x16x128_f4",
        result="<16 x float>",
        operands=_F4_HEAD + _SCALE16_TAIL,
        ranges=_F4_RANGES + _tail_ranges(len(_F4_HEAD)),
        **_F4,
        **_WMMA,
    ),
)

SEED_NAMES = frozenset(i.name for i in SEED_INTRINSICS)

# ---- the rows of every other AMDGPU matrix intrinsic (amdgpu_rows), as entries ----------------

# The AMDGPU CPUs rows name, CDNA (MFMA, SMFMAC) then RDNA (WMMA, SWMMAC), oldest first.
CDNA = ("gfx908", "gfx90a", "gfx942", "gfx950")
RDNA = ("gfx1100", "gfx1200", "gfx1250")
_ROLE = {"A": SRC_A, "B": SRC_B, "C": ACC, "index": INDEX, "D": RESULT, "fmt_a": FMT_A, "fmt_b": FMT_B}
WAVE64 = "+wavefrontsize64"


def _row_source(ir_type: str, gprs: int) -> Source:
    """A fixed-type source: one format, named after its element type, of the IR type's count."""
    m = re.fullmatch(r"<(\d+) x (\w+)>", ir_type)
    count, elem = (int(m.group(1)), m.group(2)) if m else (1, ir_type)
    return Source(
        regs={0: count}, widths=(count,), verified=False, elem=elem, scalar=m is None, names=(elem,), gprs=gprs, fixed=True
    )


def _row_operand(entry: str) -> Role | str:
    """A row's operand entry as an entry of `Intrinsic.operands` (immargs at their lowest value)."""
    if entry in _ROLE:
        return _ROLE[entry]
    if entry.startswith(IMMARG):
        ty, _name, span = entry.removeprefix(IMMARG).split(" ")
        return f"{IMMARG}{ty} {span.split('..')[0]}"
    return f"{entry.split(' ')[0]} 0"


WAVE32_ONLY = ("gfx1250",)  # CPUs without wave64 (llc 22 given +wavefrontsize64 there prints no code)


def absent_cpu(family: str, cpus: tuple[str, ...], wave64: bool = False) -> str:
    """A CPU without the instruction: the newest of its own line older than its first CPU, else
    the first of its line after it, else the other line's newest (MFMA on RDNA, WMMA on CDNA);
    for a wave64 form, one that has wave64."""
    line, other = (CDNA, RDNA) if family in ("mfma", "smfmac") else (RDNA, CDNA)
    skip = set(cpus) | (set(WAVE32_ONLY) if wave64 else set())
    first = line.index(cpus[0]) if cpus[0] in line else 0
    older = [c for c in line[:first] if c not in skip]
    newer = [c for c in line[first:] if c not in skip]
    return (older[-1:] or newer[:1] or [other[-1]])[0]


def _row_entries(row: amdgpu_rows.Row) -> list[Intrinsic]:
    """One entry per IR signature of a row (a wave64 form is its own): shapes that differ only
    in mnemonic (gfx940's renames) are one entry with a mnemonic per CPU."""
    forms: dict[tuple, list[amdgpu_rows.Shape]] = {}
    for shape in row.shapes:
        key = (shape.result, shape.a, shape.b, shape.acc, shape.index, shape.wave64, shape.zero, shape.regs)
        forms.setdefault(key, []).append(shape)
    every = tuple(c for c in CDNA + RDNA if any(c in sh.cpus for sh in row.shapes))
    out = []
    for shapes in forms.values():
        first = shapes[0]
        cpus = tuple(c for c in CDNA + RDNA if any(c in sh.cpus for sh in shapes))
        tag = "" if len(forms) == 1 else f".{cpus[0]}" + ("w64" if first.wave64 else "")
        ops = tuple(_row_operand(e) for e in row.operands)
        out.append(
            Intrinsic(
                name=row.name + tag,
                mnemonic=first.mnemonic,
                cpus=cpus,
                calling_convention="",  # a callable function: every result type returns in VGPRs
                result=first.result,
                operands=ops,
                overload=tuple(_ROLE[r] for r in row.overload),
                a=_row_source(first.a, first.regs[1]),
                b=_row_source(first.b, first.regs[2]),
                base=row.name if tag else "",
                family=row.family,
                features=WAVE64 if first.wave64 else "",
                acc=first.acc,
                index_type=first.index,
                gprs=first.regs,
                ranges=tuple((im.index, im.low, im.low if im.name in first.zero else im.high) for im in families.immargs(row)),
                absent_cpu=absent_cpu(row.family, every, first.wave64),
                returns=True,
                cpu_mnemonics=tuple((c, sh.mnemonic) for sh in shapes for c in sh.cpus if sh.mnemonic != first.mnemonic),
            )
        )
    return out


@functools.cache
def _amdgpu() -> tuple[tuple[Intrinsic, ...], dict[str, Intrinsic], dict[str, tuple[Intrinsic, ...]]]:
    """(every AMDGPU entry, by name, by base name): the seed's, then the rows' (amdgpu_rows), built
    when first asked for (a run of the seed's cases never asks)."""
    from harness.targets import amdgpu_rows

    entries = SEED_INTRINSICS + tuple(e for r in amdgpu_rows.ROWS if r.name not in SEED_NAMES for e in _row_entries(r))
    return entries, {i.name: i for i in entries}, _by_base(entries)


def _fragment(ir_register: str, count: int, name: str) -> Source:
    """An NVPTX fragment: `count` operands of one register's IR type, which the verifier checks
    exactly (the intrinsics are not overloaded)."""
    return Source(regs={0: count}, widths=(count,), elem=ir_register, names=(name,), gprs=count)


def _nvptx_operands(row: nvptx_rows.Row) -> tuple[tuple[Role | str, ...], tuple[tuple[int, int, int], ...]]:
    """(operands, immarg ranges) of a row's intrinsic, as IntrinsicsNVVM.td declares them: A, B
    and C; for mma.sp the metadata (a runtime i32) and the sparsity selector (an immarg, its
    values the row's); for .block_scale scale-a-data (i32), byte-id-a and thread-id-a (i16), then
    the same for B, at 0, a value every `.scale_vec_size` takes (PTX ISA Table 37)."""
    operands: list[Role | str] = [SRC_A, SRC_B, ACC]
    ranges: tuple[tuple[int, int, int], ...] = ()
    if row.sparsity:
        low, high = row.selectors[0], row.selectors[-1]
        operands += [INDEX, f"{IMMARG}i32 {low}"]
        ranges = ((len(operands) - 1, low, high),)
    if row.stype:
        operands += ["i32 0", "i16 0", "i16 0"] * 2
    return tuple(operands), ranges


def _nvptx_entries(row: nvptx_rows.Row) -> list[Intrinsic]:
    """One entry per llc command line a row needs: the SMs it runs on (of NVPTX.cpus) grouped by
    their -mattr (`+ptxNN` where the row is newer than llc's default PTX version for the SM). A
    row with one group is one entry under its own name; with several, each entry is tagged with
    its first SM (`...b1.sm_80`, `...b1.sm_89`) and has the row's name as `base`, as AMDGPU's
    per-CPU forms. The first entry carries the row's absent SM (llc must fail there)."""
    d, a, b, c = row.regs
    from harness.targets import nvptx_rows

    reg = nvptx_rows.IR_REGISTER
    operands, ranges = _nvptx_operands(row)
    groups: dict[str, list[str]] = {}
    for cpu in (c for c in NVPTX.cpus if row.runs_on(c)):
        groups.setdefault(row.ptx_feature(cpu), []).append(cpu)
    groups = groups or {"": []}  # (a row no SM runs: one entry, for its absent SM alone)
    out = []
    for i, (features, cpus) in enumerate(groups.items()):
        tag = f".{cpus[0]}" if len(groups) > 1 else ""
        out.append(
            Intrinsic(
                name=row.name + tag,
                mnemonic=row.mnemonic,
                cpus=tuple(cpus),
                calling_convention="",
                result="{" + ", ".join([reg[row.d]] * d) + "}",
                operands=operands,
                overload=(),
                a=_fragment(reg[row.a], a, row.a),
                b=_fragment(reg[row.b], b, row.b),
                target=NVPTX,
                base=row.name if tag else "",
                family=row.family,
                features=features,
                acc=reg[row.c],
                index_type="i32" if row.sparsity else "",
                gprs=row.regs,
                ranges=ranges,
                absent_cpu=row.absent_sm if i == 0 else "",
                returns=True,
                fragments=True,
                cohort=row.cohort,
                min_sm=row.min_sm if row.isa else "",
                min_ptx=row.min_ptx,
                family_targets=row.family_targets,
            )
        )
    return out


PREFIXES = tuple(t.intrinsic_prefix for t in (AMDGPU, NVPTX))


def bare(name: str) -> str:
    """A name without its target's prefix (llvm.amdgcn., llvm.nvvm.)."""
    name = name.strip()
    return next((name.removeprefix(p) for p in PREFIXES if name.startswith(p)), name)


def _by_base(entries: tuple[Intrinsic, ...]) -> dict[str, tuple[Intrinsic, ...]]:
    out: dict[str, tuple[Intrinsic, ...]] = {}
    for entry in entries:
        out[entry.base or entry.name] = out.get(entry.base or entry.name, ()) + (entry,)
    return out


# Every CPU an entry runs on: each AMDGPU line's and each SM NVPTX has (a test derives the same
# from the entries).
CPUS: tuple[str, ...] = tuple(sorted(CDNA + RDNA + NVPTX.cpus))
_SEED_BY_NAME = {i.name: i for i in SEED_INTRINSICS}


@functools.cache
def _nvptx() -> tuple[Intrinsic, ...]:
    """The NVPTX entries, built when first asked for (a run of AMDGPU cases never asks)."""
    from harness.targets import nvptx_rows

    entries = tuple(e for r in nvptx_rows.ROWS for e in _nvptx_entries(r))
    # A cohort's rows on one CPU compile under one llc command line (their -mattr follows from
    # the PTX version the cohort names), so a lit file of theirs has one RUN line per selector.
    assert len({(i.cohort, c): i.features for i in entries for c in i.cpus}) == len(
        {(i.cohort, c, i.features) for i in entries for c in i.cpus}
    ), "a cohort's rows need different -mattr on one CPU"
    return entries


@functools.cache
def _every() -> tuple[tuple[Intrinsic, ...], dict[str, Intrinsic], dict[str, tuple[Intrinsic, ...]]]:
    """(every entry, by name, by base name): the AMDGPU entries, then the NVPTX ones."""
    entries = _amdgpu()[0] + _nvptx()
    by_name = {i.name: i for i in entries}
    assert len(by_name) == len(entries), "duplicate catalog names"
    return entries, by_name, _by_base(entries)


_LAZY = {"INTRINSICS": 0, "BY_NAME": 1, "BY_BASE": 2}


def __getattr__(name: str):
    """INTRINSICS (every entry), BY_NAME, BY_BASE, AMDGPU_INTRINSICS, ROW_INTRINSICS (the
    AMDGPU entries not of the seed) and NVPTX_INTRINSICS, built when first read."""
    if name in _LAZY:
        return _every()[_LAZY[name]]
    if name == "AMDGPU_INTRINSICS":
        return _amdgpu()[0]
    if name == "ROW_INTRINSICS":
        return _amdgpu()[0][len(SEED_INTRINSICS) :]
    if name == "NVPTX_INTRINSICS":
        return _nvptx()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def lookup_all(name: str) -> tuple[Intrinsic, ...]:
    """Every entry a name means, with or without its prefix (llvm.amdgcn., llvm.nvvm.): an
    entry's own name, or an LLVM name with several forms (gfx11 and gfx12 WMMA, wave32 and
    wave64): all of them."""
    key = bare(name)
    if key in _SEED_BY_NAME:  # (no other entry is built for the seed's names)
        return (_SEED_BY_NAME[key],)
    for index in (lambda: _amdgpu()[1:], lambda: _every()[1:]):  # (NVPTX only if needed)
        by_name, by_base = index()
        if key in by_name:
            return (by_name[key],)
        if key in by_base:
            return by_base[key]
    raise KeyError(unknown(name))


def _entry_named(name: str) -> Intrinsic:
    """The entry whose own name is `name` (names are unique among entries)."""
    if name in _SEED_BY_NAME:
        return _SEED_BY_NAME[name]
    by_name = _amdgpu()[1]
    return by_name[name] if name in by_name else _every()[1][name]


def unknown(name: str) -> str:
    """The message for a name no entry has: the closest names, and where the rest are listed."""
    import difflib

    by_base = _every()[2]
    close = difflib.get_close_matches(bare(name), list(by_base), 3, 0.75)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"unknown intrinsic {_quoted(name)}{hint} ({len(by_base)} names: `harness coverage --json` lists them)"


def _quoted(name: str, limit: int = 60) -> str:
    text = repr(name)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def lookup(name: str, cpu: str | None = None) -> Intrinsic:
    """The one entry a name means: of several forms, the wave32 one that runs on `cpu` (else the first)."""
    found = lookup_all(name)
    # (a form whose own CPUs hold `cpu` first: an NVPTX row's forms all run on each other's)
    fits = [i for i in found if cpu in i.cpus] or [i for i in found if cpu is None or i.runs_on(cpu)]
    absent = [i for i in found if i.absent_cpu == cpu] or [i for i in found if not i.features]
    return next((i for i in fits if not i.features), (fits or absent or list(found))[0])
