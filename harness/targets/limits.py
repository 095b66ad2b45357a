"""Which values the ISA gives each immarg on each instruction, beyond the width of its field.

A value inside the field (`amdgpu_rows`' ranges) that the documents call invalid for the
instruction is expected to be rejected (by the verifier or llc); a build that compiles it is a
finding. Sources, per table:

- CDNA1 (gfx908), CDNA2 (gfx90a), CDNA3 (gfx942; gfx940/gfx941 by the processor table): AMD's
  Matrix Instruction Calculator v1.3.1 (ROCm/amd_matrix_instruction_calculator, matrix_calculator.py,
  `dict_insts`: each instruction's `blocks`, `cbsz_abid`, `blgp`, `sparse`) and its README:
  "CBSZ cannot be greater than log_2(blocks), and ABID cannot be greater than 2^CBSZ-1";
  "The CBSZ and ABID modifiers are only supported by a subset of instructions" (`cbsz_abid`);
  "The BLGP modifier is only supported by a subset of instructions" (`blgp`); "In the
  accelerators using the CDNA 2 architecture, the BLGP field is disallowed" (f64); on CDNA3's
  f64 MFMAs the three BLGP bits negate A, B and C (any value 0..7).
- SMFMAC (CDNA3): CBSZ and ABID choose the compression-index set in the index VGPR. The
  Calculator allows CBSZ 0..3 ("Technically CBSZ[2] is undefined -- for safety, let us say
  setting it is illegal") and ABID below the number of sets, "4" for 16-bit sources and "2" for
  8-bit ones (`get_num_compression_sets`).
- CDNA4 (gfx950): the Calculator predates it and no other document here limits CBSZ, ABID or
  BLGP beyond their widths, so gfx950 keeps the field ranges.
"""

from __future__ import annotations

import math

Y, N = True, False

# CDNA1-3 dense MFMA: (CPU, mnemonic, blocks, CBSZ/ABID broadcast usable, BLGP usable).
MFMA_FIELDS: tuple[tuple[str, str, int, bool, bool], ...] = (
    ("gfx908", "v_mfma_f32_32x32x1f32", 2, Y, Y),
    ("gfx908", "v_mfma_f32_16x16x1f32", 4, Y, Y),
    ("gfx908", "v_mfma_f32_4x4x1f32", 16, Y, Y),
    ("gfx908", "v_mfma_f32_32x32x2f32", 1, N, Y),
    ("gfx908", "v_mfma_f32_16x16x4f32", 1, N, Y),
    ("gfx908", "v_mfma_f32_32x32x4f16", 2, Y, Y),
    ("gfx908", "v_mfma_f32_16x16x4f16", 4, Y, Y),
    ("gfx908", "v_mfma_f32_4x4x4f16", 16, Y, Y),
    ("gfx908", "v_mfma_f32_32x32x8f16", 1, N, Y),
    ("gfx908", "v_mfma_f32_16x16x16f16", 1, N, Y),
    ("gfx908", "v_mfma_i32_32x32x4i8", 2, Y, Y),
    ("gfx908", "v_mfma_i32_16x16x4i8", 4, Y, Y),
    ("gfx908", "v_mfma_i32_4x4x4i8", 16, Y, Y),
    ("gfx908", "v_mfma_i32_32x32x8i8", 1, N, Y),
    ("gfx908", "v_mfma_i32_16x16x16i8", 1, N, Y),
    ("gfx908", "v_mfma_f32_32x32x2bf16", 2, Y, Y),
    ("gfx908", "v_mfma_f32_16x16x2bf16", 4, Y, Y),
    ("gfx908", "v_mfma_f32_4x4x2bf16", 16, Y, Y),
    ("gfx908", "v_mfma_f32_32x32x4bf16", 1, N, Y),
    ("gfx908", "v_mfma_f32_16x16x8bf16", 1, N, Y),
    ("gfx90a", "v_mfma_f32_32x32x1f32", 2, Y, Y),
    ("gfx90a", "v_mfma_f32_16x16x1f32", 4, Y, Y),
    ("gfx90a", "v_mfma_f32_4x4x1f32", 16, Y, Y),
    ("gfx90a", "v_mfma_f32_32x32x2f32", 1, N, Y),
    ("gfx90a", "v_mfma_f32_16x16x4f32", 1, N, Y),
    ("gfx90a", "v_mfma_f32_32x32x4f16", 2, Y, Y),
    ("gfx90a", "v_mfma_f32_16x16x4f16", 4, Y, Y),
    ("gfx90a", "v_mfma_f32_4x4x4f16", 16, Y, Y),
    ("gfx90a", "v_mfma_f32_32x32x8f16", 1, N, Y),
    ("gfx90a", "v_mfma_f32_16x16x16f16", 1, N, Y),
    ("gfx90a", "v_mfma_i32_32x32x4i8", 2, Y, Y),
    ("gfx90a", "v_mfma_i32_16x16x4i8", 4, Y, Y),
    ("gfx90a", "v_mfma_i32_4x4x4i8", 16, Y, Y),
    ("gfx90a", "v_mfma_i32_32x32x8i8", 1, N, Y),
    ("gfx90a", "v_mfma_i32_16x16x16i8", 1, N, Y),
    ("gfx90a", "v_mfma_f32_32x32x4bf16_1k", 2, Y, Y),
    ("gfx90a", "v_mfma_f32_16x16x4bf16_1k", 4, Y, Y),
    ("gfx90a", "v_mfma_f32_4x4x4bf16_1k", 16, Y, Y),
    ("gfx90a", "v_mfma_f32_32x32x8bf16_1k", 1, N, Y),
    ("gfx90a", "v_mfma_f32_16x16x16bf16_1k", 1, N, Y),
    ("gfx90a", "v_mfma_f32_32x32x2bf16", 2, Y, Y),
    ("gfx90a", "v_mfma_f32_16x16x2bf16", 4, Y, Y),
    ("gfx90a", "v_mfma_f32_4x4x2bf16", 16, Y, Y),
    ("gfx90a", "v_mfma_f32_32x32x4bf16", 1, N, Y),
    ("gfx90a", "v_mfma_f32_16x16x8bf16", 1, N, Y),
    ("gfx90a", "v_mfma_f64_16x16x4f64", 1, N, N),
    ("gfx90a", "v_mfma_f64_4x4x4f64", 4, N, N),
    ("gfx942", "v_mfma_f32_16x16x8_xf32", 1, N, N),
    ("gfx942", "v_mfma_f32_32x32x4_xf32", 1, N, N),
    ("gfx942", "v_mfma_f32_32x32x1_2b_f32", 2, Y, Y),
    ("gfx942", "v_mfma_f32_16x16x1_4b_f32", 4, Y, Y),
    ("gfx942", "v_mfma_f32_4x4x1_16b_f32", 16, Y, Y),
    ("gfx942", "v_mfma_f32_32x32x2_f32", 1, N, Y),
    ("gfx942", "v_mfma_f32_16x16x4_f32", 1, N, Y),
    ("gfx942", "v_mfma_f32_32x32x4_2b_f16", 2, Y, Y),
    ("gfx942", "v_mfma_f32_16x16x4_4b_f16", 4, Y, Y),
    ("gfx942", "v_mfma_f32_4x4x4_16b_f16", 16, Y, Y),
    ("gfx942", "v_mfma_f32_32x32x8_f16", 1, N, N),
    ("gfx942", "v_mfma_f32_16x16x16_f16", 1, N, N),
    ("gfx942", "v_mfma_i32_32x32x4_2b_i8", 2, Y, Y),
    ("gfx942", "v_mfma_i32_16x16x4_4b_i8", 4, Y, Y),
    ("gfx942", "v_mfma_i32_4x4x4_16b_i8", 16, Y, Y),
    ("gfx942", "v_mfma_i32_32x32x16_i8", 1, N, N),
    ("gfx942", "v_mfma_i32_16x16x32_i8", 1, N, N),
    ("gfx942", "v_mfma_f32_32x32x4_2b_bf16", 2, Y, Y),
    ("gfx942", "v_mfma_f32_16x16x4_4b_bf16", 4, Y, Y),
    ("gfx942", "v_mfma_f32_4x4x4_16b_bf16", 16, Y, Y),
    ("gfx942", "v_mfma_f32_32x32x8_bf16", 1, N, N),
    ("gfx942", "v_mfma_f32_16x16x16_bf16", 1, N, N),
    ("gfx942", "v_mfma_f64_16x16x4_f64", 1, N, Y),
    ("gfx942", "v_mfma_f64_4x4x4_4b_f64", 4, N, Y),
    ("gfx942", "v_mfma_f32_16x16x32_bf8_bf8", 1, N, N),
    ("gfx942", "v_mfma_f32_16x16x32_bf8_fp8", 1, N, N),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_bf8", 1, N, N),
    ("gfx942", "v_mfma_f32_16x16x32_fp8_fp8", 1, N, N),
    ("gfx942", "v_mfma_f32_32x32x16_bf8_bf8", 1, N, N),
    ("gfx942", "v_mfma_f32_32x32x16_bf8_fp8", 1, N, N),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_bf8", 1, N, N),
    ("gfx942", "v_mfma_f32_32x32x16_fp8_fp8", 1, N, N),
)
# CDNA3 SMFMAC: (CPU, mnemonic, compression-index sets in the index VGPR).
SMFMAC_SETS: tuple[tuple[str, str, int], ...] = (
    ("gfx942", "v_smfmac_f32_16x16x32_f16", 4),
    ("gfx942", "v_smfmac_f32_32x32x16_f16", 4),
    ("gfx942", "v_smfmac_f32_16x16x32_bf16", 4),
    ("gfx942", "v_smfmac_f32_32x32x16_bf16", 4),
    ("gfx942", "v_smfmac_i32_16x16x64_i8", 2),
    ("gfx942", "v_smfmac_i32_32x32x32_i8", 2),
    ("gfx942", "v_smfmac_f32_16x16x64_bf8_bf8", 2),
    ("gfx942", "v_smfmac_f32_16x16x64_bf8_fp8", 2),
    ("gfx942", "v_smfmac_f32_16x16x64_fp8_bf8", 2),
    ("gfx942", "v_smfmac_f32_16x16x64_fp8_fp8", 2),
    ("gfx942", "v_smfmac_f32_32x32x32_bf8_bf8", 2),
    ("gfx942", "v_smfmac_f32_32x32x32_bf8_fp8", 2),
    ("gfx942", "v_smfmac_f32_32x32x32_fp8_bf8", 2),
    ("gfx942", "v_smfmac_f32_32x32x32_fp8_fp8", 2),
)
_DENSE = {(cpu, m): (blocks, broadcast, blgp) for cpu, m, blocks, broadcast, blgp in MFMA_FIELDS}
_SPARSE = {(cpu, m): sets for cpu, m, sets in SMFMAC_SETS}
SMFMAC_CBSZ = 3  # CBSZ[2] is undefined


def limits(cpu: str, mnemonic: str, cbsz: int = 0) -> dict[str, int] | None:
    """Operand -> the highest value the documents allow on `mnemonic` on row CPU `cpu` (ABID's
    depends on the case's CBSZ), or None where no document limits the fields."""
    if (cpu, mnemonic) in _SPARSE:
        return {"cbsz": SMFMAC_CBSZ, "abid": _SPARSE[cpu, mnemonic] - 1}
    if (cpu, mnemonic) not in _DENSE:
        return None
    blocks, broadcast, blgp = _DENSE[cpu, mnemonic]
    return {
        "cbsz": int(math.log2(blocks)) if broadcast else 0,
        "abid": 2**cbsz - 1 if broadcast else 0,
        "blgp": 7 if blgp else 0,
    }


def invalid(cpu: str, mnemonic: str, values: dict[str, int]) -> str:
    """Why one of `values` (operand -> the value a call gives it) is a value the documents call
    invalid on `mnemonic` on row CPU `cpu`, as one sentence; "" when none is."""
    highest = limits(cpu, mnemonic, values.get("cbsz", 0))
    if highest is None:
        return ""
    for name, top in highest.items():
        value = values.get(name, 0)
        if value > top:
            return f"{name} {value} on {mnemonic} ({cpu}): the ISA allows 0..{top} ({_reason(cpu, mnemonic, name)})"
    return ""


def _reason(cpu: str, mnemonic: str, name: str) -> str:
    """The document's rule behind a limit, in a few words."""
    if (cpu, mnemonic) in _SPARSE:
        return "SMFMAC: CBSZ[2] undefined" if name == "cbsz" else f"SMFMAC: {_SPARSE[cpu, mnemonic]} index sets"
    blocks, broadcast, _blgp = _DENSE[cpu, mnemonic]
    if name == "blgp":
        return "BLGP not supported by this instruction"
    if not broadcast:
        return f"{blocks} block(s), CBSZ/ABID not supported"
    return f"{blocks} blocks: CBSZ at most log2(blocks)" if name == "cbsz" else "ABID at most 2^CBSZ-1"
