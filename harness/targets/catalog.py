"""The intrinsic catalog: every intrinsic the harness knows is one data entry here.

An entry says where each source and format sits in the call, how the overloaded name is
mangled, which source widths are legal IR, how many registers each format really reads, and
how the assembler prints the formats. Nothing else in the harness branches on a family.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypedDict

from harness.targets import AMDGPU, Target, formats


class Side(StrEnum):
    """A matrix source: A or B (in function names, JSON keys and IR value names: a, b)."""

    A = "a"
    B = "b"

    @property
    def src(self) -> Role:
        """The role of this source's vector operand."""
        return Role.SRC_A if self is Side.A else Role.SRC_B

    @property
    def fmt(self) -> Role:
        """The role of this source's format operand."""
        return Role.FMT_A if self is Side.A else Role.FMT_B


class Role(StrEnum):
    """Operand roles inside `Intrinsic.operands` (any other entry is a neutral literal
    "<type> <value>", prefixed "immarg " where the intrinsic requires a constant there), and
    `RESULT`, which only `Intrinsic.overload` names."""

    SRC_A = "src_a"
    SRC_B = "src_b"
    FMT_A = "fmt_a"
    FMT_B = "fmt_b"
    ACC = "acc"
    RESULT = "result"

    @property
    def side(self) -> Side:
        """The source a source or format operand belongs to."""
        if self in (Role.SRC_A, Role.FMT_A):
            return Side.A
        if self in (Role.SRC_B, Role.FMT_B):
            return Side.B
        raise ValueError(f"{self} belongs to no source")


# The members under their module-level names, as the catalog tables spell them.
SRC_A, SRC_B, FMT_A, FMT_B, ACC, RESULT = Role.SRC_A, Role.SRC_B, Role.FMT_A, Role.FMT_B, Role.ACC, Role.RESULT
SOURCE_ROLES = (SRC_A, SRC_B)
FORMAT_ROLES = (FMT_A, FMT_B)
IMMARG = "immarg "


def literal(entry: str) -> tuple[str, str]:
    """(type, value) of a literal operand entry."""
    ty, value = entry.removeprefix(IMMARG).rsplit(" ", 1)
    return ty, value


@dataclass(frozen=True, eq=False)
class Source:
    """One matrix source (A or B) of an intrinsic."""

    regs: dict[int, int]  # format -> i32 registers the hardware reads
    widths: tuple[int, ...]  # legal <N x i32> widths, ascending
    modifier: str = ""  # assembler text for a format: {value}, {wmma}, {mfma} placeholders
    silent_format: int | None = None  # format the assembler leaves unprinted (the default)
    # What the IR verifier enforces for this source, and the message it prints for a format
    # operand out of range. Unverified sources (fixed formats) accept any vector.
    verified: bool = True
    range_message: str = ""

    @property
    def formats(self) -> tuple[int, ...]:
        return tuple(sorted(self.regs))

    def shape_message(self, index: int) -> str:
        """The verifier's message for a source of the wrong shape at operand `index`."""
        *head, last = self.widths
        return f"operand {index} must be {', '.join(map(str, head))} or {last} element i32 vector"

    def printed(self, fmt: int) -> str:
        """The modifier the assembler prints for `fmt`, or "" when it prints none."""
        if not self.modifier or fmt == self.silent_format:
            return ""
        return self.modifier.format(value=fmt, wmma=formats.WMMA_NAME[fmt], mfma=formats.MFMA_NAME[fmt])


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

    @property
    def triple(self) -> str:
        return self.target.triple

    @property
    def mnemonics(self) -> tuple[str, ...]:
        """Every mnemonic a correct build may print for this intrinsic."""
        return (self.mnemonic, self.scaled_mnemonic) if self.scaled_mnemonic else (self.mnemonic,)

    @property
    def symbol(self) -> str:
        return "llvm.amdgcn." + self.name

    @property
    def runtime_formats(self) -> bool:
        return FMT_A in self.operands

    def source(self, side: Side) -> Source:
        return self.a if side == Side.A else self.b

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
        modifier=f"matrix_{side}_fmt:MATRIX_FMT_{{wmma}}",
        silent_format=formats.FP8,
        range_message="invalid value for matrix format",
    )


def _mfma_source(modifier: str) -> Source:
    return Source(
        regs=_MFMA_REGS,
        widths=(4, 6, 8),
        modifier=modifier + ":{value}",
        silent_format=0,
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

INTRINSICS: tuple[Intrinsic, ...] = (
    Intrinsic(
        name="wmma.f32.16x16x128.f8f6f4",
        mnemonic="v_wmma_f32_16x16x128_f8f6f4",
        scaled_mnemonic="v_wmma_scale_f32_16x16x128_f8f6f4",
        result="<8 x float>",
        operands=_WMMA_HEAD,
        a=_wmma_source(Side.A),
        b=_wmma_source(Side.B),
        **_WMMA,
    ),
    Intrinsic(
        name="wmma.scale.f32.16x16x128.f8f6f4",
        mnemonic="v_wmma_scale_f32_16x16x128_f8f6f4",
        result="<8 x float>",
        operands=_WMMA_HEAD + _SCALE_TAIL,
        a=_wmma_source(Side.A),
        b=_wmma_source(Side.B),
        **_WMMA,
    ),
    Intrinsic(
        name="wmma.scale16.f32.16x16x128.f8f6f4",
        mnemonic="v_wmma_scale16_f32_16x16x128_f8f6f4",
        result="<8 x float>",
        operands=_WMMA_HEAD + _SCALE16_TAIL,
        a=_wmma_source(Side.A),
        b=_wmma_source(Side.B),
        **_WMMA,
    ),
    Intrinsic(
        name="mfma.scale.f32.16x16x128.f8f6f4",
        # With neutral (zero) scales llc selects the unscaled encoding.
        mnemonic="v_mfma_f32_16x16x128_f8f6f4",
        result="<4 x float>",
        operands=_MFMA_OPERANDS,
        a=_mfma_source("cbsz"),
        b=_mfma_source("blgp"),
        **_MFMA,
    ),
    Intrinsic(
        name="mfma.scale.f32.32x32x64.f8f6f4",
        mnemonic="v_mfma_f32_32x32x64_f8f6f4",
        result="<16 x float>",
        operands=_MFMA_OPERANDS,
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
        **_F4,
        **_WMMA,
    ),
    Intrinsic(
        name="wmma.scale.f32.32x16x128.f4",
        mnemonic="v_wmma_scale_f32_32x16x128_f4",
        result="<16 x float>",
        operands=_F4_HEAD + _SCALE_TAIL,
        **_F4,
        **_WMMA,
    ),
    Intrinsic(
        name="wmma.scale16.f32.32x16x128.f4",
        mnemonic="v_wmma_scale16_f32_32x16x128_f4",
        result="<16 x float>",
        operands=_F4_HEAD + _SCALE16_TAIL,
        **_F4,
        **_WMMA,
    ),
)

BY_NAME: dict[str, Intrinsic] = {i.name: i for i in INTRINSICS}
assert len(BY_NAME) == len(INTRINSICS), "duplicate catalog names"
CPUS: tuple[str, ...] = tuple(sorted({cpu for i in INTRINSICS for cpu in i.cpus}))


def lookup(name: str) -> Intrinsic:
    """Find an entry by name, with or without the llvm.amdgcn. prefix."""
    key = name.strip().removeprefix("llvm.amdgcn.")
    if key in BY_NAME:
        return BY_NAME[key]
    raise KeyError(f"unknown intrinsic {name!r}; known: {', '.join(BY_NAME)}")
