"""What each immarg's value must look like in an AMDGPU matrix instruction: the assembler's modifiers.

One row per (operand, instructions): the operand is the name the row gives it in `amdgpu_rows`
(`cbsz`, `neg_a`, `c_mod`, ...; `fmt_a`/`fmt_b` for the runtime formats), the instructions a
shell pattern over the mnemonics, and the spelling how the assembler writes the value among the
instruction's modifiers. The first row that matches decides. Sources, per spelling:

- MFMA/SMFMAC `cbsz:N abid:N blgp:N`, CDNA3's f64 `neg:[A,B,C]` (the BLGP field read as NEG):
  CDNA1-3 ISA guides, VOP3P-MAI encoding (fields CBSZ[2:0], ABID[3:0], BLGP[2:0] / NEG[2:0]);
  llvm/test/MC/AMDGPU/mai-gfx90a.s, mai-gfx942.s (`v_mfma_f64_16x16x4_f64 ... neg:[1,1,0]`).
- gfx950 `v_mfma_scale_*`: CDNA4 ISA, VOP3PX2 (OP_SEL[0] / OP_SEL_HI[0] pick the byte of the
  A scale, [1] of the B scale); llvm/test/MC/AMDGPU/mai-gfx950.s; the F8F6F4 formats are CBSZ
  (A) and BLGP (B).
- gfx11 WMMA `op_sel:[0,0,1]` (D/C in the high halves): RDNA3 ISA, WMMA (OPSEL[2]);
  llvm/test/MC/AMDGPU/gfx11_asm_wmma_w32.s.
- IU WMMA/SWMMAC signedness `neg_lo:[A,B,0]` and `clamp`: RDNA3/4 ISA (NEG[0], NEG[1] select
  signed sources on IU8/IU4; CLAMP saturates); gfx11_asm_wmma_w32.s, gfx12_asm_wmma_w32.s.
- gfx1250 WMMA/SWMMAC: NEG (neg_lo) and NEG_HI (neg_hi) bit 0/1 for A/B; C's modifier bit 0 is
  neg (`neg_lo[2]`), bit 1 abs (`neg_hi[2]`); a 16-bit source's negation flips both halves
  (`neg_lo` and `neg_hi`); `matrix_a_reuse`, `matrix_a_fmt:MATRIX_FMT_*`, `matrix_a_scale:
  MATRIX_SCALE_ROW*`, `matrix_a_scale_fmt:MATRIX_SCALE_FMT_*`: llvm/test/MC/AMDGPU/
  gfx1250_asm_wmma_w32.s; AMDGPUModifierSyntax.rst for each modifier's default.

A modifier at its default is not printed: a number or a list of zeros (the scaled MFMA's op_sel_hi
is printed even then), a flag that is off, a name's first value. Nothing here comes
from what llc prints: llc is the tool under test.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from harness.targets import formats

NUMBER, FLAG, NAMES, BITS = "number", "flag", "names", "bits"


@dataclass(frozen=True)
class Spelling:
    """How one operand's value shows among the modifiers: `number` (`cbsz:2`), `flag` (`clamp`
    when 1), `names` (`matrix_a_fmt:MATRIX_FMT_FP4`, the value indexes `names`) or `bits`: each
    (bit of the value, modifier, position in its `[x,y,z]` list) of `places`."""

    kind: str
    modifier: str = ""
    names: tuple[str, ...] = ()
    places: tuple[tuple[int, str, int], ...] = ()


def number(modifier: str) -> Spelling:
    return Spelling(NUMBER, modifier)


def flag(modifier: str) -> Spelling:
    return Spelling(FLAG, modifier)


def names(modifier: str, *values: str) -> Spelling:
    return Spelling(NAMES, modifier, values)


def bits(*places: tuple[int, str, int]) -> Spelling:
    return Spelling(BITS, places=places)


_SIXTEEN_BIT = ("v_wmma_*_f16", "v_wmma_*_bf16", "v_swmmac_*_f16", "v_swmmac_*_bf16")
_SCALE_ROWS = ("MATRIX_SCALE_ROW0", "MATRIX_SCALE_ROW1")
_SCALE_FMTS = ("MATRIX_SCALE_FMT_E8", "MATRIX_SCALE_FMT_E5M3", "MATRIX_SCALE_FMT_E4M3")
_WMMA_FMTS = tuple(f"MATRIX_FMT_{name}" for name in formats.WMMA_NAME)

# operand       instructions                         spelling
SPELLINGS: tuple[tuple[str, tuple[str, ...], Spelling], ...] = (
    # CDNA1-3 VOP3P-MAI (CDNA4 the same), SMFMAC reusing CBSZ/ABID for the index set.
    ("blgp", ("v_mfma_f64_*_f64",), bits((0, "neg", 0), (1, "neg", 1), (2, "neg", 2))),
    ("cbsz", ("v_mfma_*", "v_smfmac_*"), number("cbsz")),
    ("abid", ("v_mfma_*", "v_smfmac_*"), number("abid")),
    ("blgp", ("v_mfma_*",), number("blgp")),
    # gfx950 F8F6F4 MFMA: formats in CBSZ/BLGP; the scaled encoding's scale byte selects.
    ("fmt_a", ("v_mfma_*f8f6f4",), number("cbsz")),
    ("fmt_b", ("v_mfma_*f8f6f4",), number("blgp")),
    ("op_sel_a", ("v_mfma_scale_*",), bits((0, "op_sel", 0), (1, "op_sel_hi", 0))),
    ("op_sel_b", ("v_mfma_scale_*",), bits((0, "op_sel", 1), (1, "op_sel_hi", 1))),
    # RDNA3 WMMA: OPSEL[2] puts a 16-bit D (and C) in the high halves.
    ("op_sel", ("v_wmma_*",), bits((0, "op_sel", 2))),
    # RDNA3/4 and gfx1250 IU: NEG[0]/NEG[1] are signedness.
    ("sign_a", ("v_wmma_*", "v_swmmac_*"), bits((0, "neg_lo", 0))),
    ("sign_b", ("v_wmma_*", "v_swmmac_*"), bits((0, "neg_lo", 1))),
    ("clamp", ("v_wmma_*", "v_swmmac_*"), flag("clamp")),
    # gfx1250: source negation (both halves of a 16-bit source), C's neg/abs, reuse, formats, scales.
    ("neg_a", _SIXTEEN_BIT, bits((0, "neg_lo", 0), (0, "neg_hi", 0))),
    ("neg_b", _SIXTEEN_BIT, bits((0, "neg_lo", 1), (0, "neg_hi", 1))),
    ("neg_a", ("v_wmma_*", "v_swmmac_*"), bits((0, "neg_lo", 0))),
    ("neg_b", ("v_wmma_*", "v_swmmac_*"), bits((0, "neg_lo", 1))),
    ("c_mod", ("v_wmma_*",), bits((0, "neg_lo", 2), (1, "neg_hi", 2))),
    ("reuse_a", ("v_wmma_*", "v_swmmac_*"), flag("matrix_a_reuse")),
    ("reuse_b", ("v_wmma_*", "v_swmmac_*"), flag("matrix_b_reuse")),
    ("fmt_a", ("v_wmma_*",), names("matrix_a_fmt", *_WMMA_FMTS)),
    ("fmt_b", ("v_wmma_*",), names("matrix_b_fmt", *_WMMA_FMTS)),
    ("scale_sel_a", ("v_wmma_scale*",), names("matrix_a_scale", *_SCALE_ROWS)),
    ("scale_sel_b", ("v_wmma_scale*",), names("matrix_b_scale", *_SCALE_ROWS)),
    ("scale_fmt_a", ("v_wmma_scale*",), names("matrix_a_scale_fmt", *_SCALE_FMTS)),
    ("scale_fmt_b", ("v_wmma_scale*",), names("matrix_b_scale_fmt", *_SCALE_FMTS)),
)
# Bit lists the printer writes even when every slot is 0: the scaled MFMA's op_sel_hi (an absent
# one assembles as [0,0,0]; llvm/test/MC/AMDGPU/mai-gfx950.s prints `op_sel_hi:[0,0,0]`).
ALWAYS_PRINTED = {"op_sel_hi"}


# The order the assembler prints (and its parser requires) modifiers in; a bit list has three slots.
ORDER = (
    "op_sel",
    "op_sel_hi",
    "cbsz",
    "abid",
    "blgp",
    "neg",
    "matrix_a_fmt",
    "matrix_b_fmt",
    "matrix_a_scale",
    "matrix_b_scale",
    "matrix_a_scale_fmt",
    "matrix_b_scale_fmt",
    "index_key",
    "matrix_a_reuse",
    "matrix_b_reuse",
    "neg_lo",
    "neg_hi",
    "clamp",
)
SLOTS = 3


def spelled(values: dict[str, int], mnemonic: str) -> str:
    """The modifiers `mnemonic` prints for these operand values (name -> value), in the
    assembler's order: what follows its last operand, e.g. `cbsz:1 abid:1` ("" for none). A bit
    list is printed unless every slot is 0 (but `ALWAYS_PRINTED`); a slot no operand sets is 0."""
    out: dict[str, str] = {}
    lists: dict[str, list[int]] = {}
    for name, value in values.items():
        spell = spelling(name, mnemonic)
        if spell is None:
            continue
        if spell.kind == BITS:
            for bit, modifier, slot in spell.places:
                lists.setdefault(modifier, [0] * SLOTS)[slot] = (value >> bit) & 1
        elif spell.kind == FLAG and value:
            out[spell.modifier] = spell.modifier
        elif spell.kind == NAMES and value:
            out[spell.modifier] = f"{spell.modifier}:{spell.names[value]}"
        elif spell.kind == NUMBER and value:
            out[spell.modifier] = f"{spell.modifier}:{value}"
    for modifier, slots in lists.items():
        if any(slots) or modifier in ALWAYS_PRINTED:
            out[modifier] = f"{modifier}:[{','.join(map(str, slots))}]"
    return " ".join(out[m] for m in ORDER if m in out)


def spelling(operand: str, mnemonic: str) -> Spelling | None:
    """The spelling of `operand`'s value on `mnemonic` (None: the instruction has no field for it)."""
    for name, patterns, spelled in SPELLINGS:
        if name == operand and any(fnmatch.fnmatchcase(mnemonic, p) for p in patterns):
            return spelled
    return None


_MODIFIER = re.compile(r"([a-z_]+)(?::(\S+))?")


def printed(line: str) -> dict[str, str]:
    """The modifiers of one instruction line (llc's text or llvm-objdump's), modifier -> its value
    as written ("" for a flag): what follows the last operand. Comments are not read."""
    text = line.split("//")[0].split(";")[0].strip().replace("\t", " ")
    words = text.split()[1:]
    while words and words[0].endswith(","):
        words.pop(0)
    out: dict[str, str] = {}
    for word in words[1:]:
        m = _MODIFIER.fullmatch(word)
        if m:
            out[m.group(1)] = m.group(2) or ""
    return out


def _bit(found: dict[str, str], modifier: str, slot: int) -> int | None:
    if modifier not in found:
        return 0
    items = found[modifier].strip("[]").split(",")
    if slot >= len(items) or items[slot] not in ("0", "1"):
        return None
    return int(items[slot])


def read(spelled: Spelling, found: dict[str, str]) -> int | None:
    """The value `found` (an instruction's modifiers) gives an operand spelled so; None where the
    modifiers say nothing the spelling can read (a list too short, a name it does not know), or
    disagree with themselves (one bit in two places that differ)."""
    if spelled.kind == FLAG:
        return int(spelled.modifier in found)
    text = found.get(spelled.modifier)
    if spelled.kind == NUMBER:
        return 0 if text is None else int(text) if re.fullmatch(r"-?\d+", text) else None
    if spelled.kind == NAMES:
        return 0 if text is None else spelled.names.index(text) if text in spelled.names else None
    value: dict[int, int] = {}
    for bit, modifier, slot in spelled.places:
        got = _bit(found, modifier, slot)
        if got is None or value.setdefault(bit, got) != got:
            return None
    return sum(v << b for b, v in value.items())


def shown(spelled: Spelling, value: int) -> str:
    """How the value reads in a message: `cbsz:2`, `clamp`, `neg_lo[0]=1 neg_hi[0]=1`."""
    if spelled.kind == FLAG:
        return spelled.modifier if value else f"no {spelled.modifier}"
    if spelled.kind == NUMBER:
        return f"{spelled.modifier}:{value}"
    if spelled.kind == NAMES:
        return f"{spelled.modifier}:{spelled.names[value] if value < len(spelled.names) else value}"
    return " ".join(f"{m}[{slot}]={(value >> bit) & 1}" for bit, m, slot in spelled.places)


def difference(values: dict[str, int], mnemonic: str, line: str, where: str, fields: dict[str, tuple[int, int]]) -> str:
    """The first operand whose value (`values`: operand name -> the value the IR gives it) the
    instruction `line` does not show as the ISA spells it on `mnemonic`, or else a modifier the
    line has that no value spells, as one sentence naming `where` the line is from; "" when the
    line's modifiers are exactly the values'. `fields`: each operand's field range."""
    found = printed(line)
    for name, value in values.items():
        spelled_as = spelling(name, mnemonic)
        if spelled_as is None or read(spelled_as, found) == value:
            continue
        got = read(spelled_as, found)
        has = shown(spelled_as, got) if got is not None else f"{raw(spelled_as, found)}, which spells no value"
        low, high = fields.get(name, (0, highest(spelled_as)))
        if not low <= value <= min(high, highest(spelled_as)):
            return f"{name} is {value} in the IR, a value its field cannot hold, and {where} has {has}"
        return f"{name} is {value} in the IR ({shown(spelled_as, value)}), {where} has {has}"
    wanted = printed(f"x y {spelled(values, mnemonic)}")
    extra = [
        f"{m}:{v}" if v else m
        for m, v in found.items()
        if wanted.get(m) != v and not (m not in wanted and _at_default(m, v, mnemonic))
    ]
    if extra:
        return f"{where} has {' '.join(extra)}, which no operand of the call spells"
    return ""


def _at_default(modifier: str, value: str, mnemonic: str) -> bool:
    """Whether a modifier no operand sets is written at its default, which changes no field of
    the encoding (`abid:0`, `neg_lo:[0,0,0]`, `matrix_a_fmt:MATRIX_FMT_FP8`): a printer that
    writes defaults is not a miscompile. (op_sel_hi's default is not all zeros everywhere.)"""
    if modifier not in ALWAYS_PRINTED and (value == "0" or re.fullmatch(r"\[0(,0)*\]", value)):
        return True
    return any(
        spell.kind == NAMES and spell.modifier == modifier and spell.names[0] == value
        for _name, patterns, spell in SPELLINGS
        if any(fnmatch.fnmatchcase(mnemonic, p) for p in patterns)
    )


def highest(spelled: Spelling) -> int:
    """The highest value a spelling can show (a number's is its field's: any here)."""
    if spelled.kind == FLAG:
        return 1
    if spelled.kind == NAMES:
        return len(spelled.names) - 1
    if spelled.kind == BITS:
        return 2 ** (1 + max(bit for bit, _m, _s in spelled.places)) - 1
    return 2**31


def raw(spelled: Spelling, found: dict[str, str]) -> str:
    """The modifiers of a spelling as the line writes them (`cbsz:-1`), or `no cbsz`."""
    mods = dict.fromkeys([spelled.modifier] if spelled.modifier else [m for _b, m, _s in spelled.places])
    return " ".join(f"{m}:{found[m]}" if found.get(m) else m if m in found else f"no {m}" for m in mods)


def ptx_selector_difference(value: int, operands: list[str], index: int) -> str:
    """NVPTX's mma.sp: its one constant operand, the sparsity selector (call operand `index`), is
    printed where the call has it, after D (PTX ISA, "Warp-level matrix multiply-accumulate with
    sparse matrix A": d, a, b, c, metadata, selector, then any block-scale operands), decimal or
    hexadecimal; "" when llc's PTX `operands` hold `value` there."""
    printed = operands[index + 1] if index + 1 < len(operands) else ""
    if re.fullmatch(r"\d+|0x[0-9a-fA-F]+", printed) and int(printed, 0) == value:
        return ""
    return f"the sparsity selector is {value} in the IR, llc's PTX has {printed or 'no operand'} there"
