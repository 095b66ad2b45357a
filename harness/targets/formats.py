"""Matrix element formats of the F8F6F4 instructions and every spelling users write them in.

WMMA and MFMA number the same five formats 0..4 in the same order; they only name them
differently (MATRIX_FMT_* versus FP8_E4M3...). A format is therefore one small integer here.
"""

from __future__ import annotations

from harness.core.errors import quoted

FP8, BF8, FP6, BF6, FP4 = range(5)
ALL = (FP8, BF8, FP6, BF6, FP4)

SHORT = ("fp8", "bf8", "fp6", "bf6", "fp4")
WMMA_NAME = ("FP8", "BF8", "FP6", "BF6", "FP4")  # printed as MATRIX_FMT_<name>
MFMA_NAME = ("FP8_E4M3", "FP8_E5M2", "FP6_E2M3", "FP6_E3M2", "FP4_E2M1")

_SPELLINGS: dict[str, int] = {}
for _value in ALL:
    for _spelling in (
        str(_value),
        SHORT[_value],
        "MATRIX_FMT_" + WMMA_NAME[_value],
        MFMA_NAME[_value],
    ):
        _SPELLINGS[_spelling.lower()] = _value


def spellings() -> str:
    """One line listing the accepted spellings, for error messages and --help."""
    return "0..4, fp8 bf8 fp6 bf6 fp4, MATRIX_FMT_FP8.., FP8_E4M3 FP8_E5M2 FP6_E2M3 FP6_E3M2 FP4_E2M1"


def parse(text: object) -> int:
    """Return the format number for any accepted spelling; raise ValueError otherwise."""
    if isinstance(text, bool):
        raise ValueError(f"not a matrix format: {quoted(text)} (accepted: {spellings()})")
    key = str(text).strip().lower()
    if key in _SPELLINGS:
        return _SPELLINGS[key]
    raise ValueError(f"not a matrix format: {quoted(text)} (accepted: {spellings()})")


def short(value: int) -> str:
    return SHORT[value]
