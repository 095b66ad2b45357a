"""The `gemm:` section of a spec file: blocks of tiled-gemm kernels, with file:line:col errors.

    gemm:
      - shape: [16x8x16, 32x8x16]     # M x N x K, one value or a list
        dtype: [f16, bf16]
        beta: [0, 1]                  # default 0
        transpose_a: [false, true]    # default false (also transpose_b)
        cpu: sm_90                    # default sm_90
        alpha: 1                      # default 1; anything else is rejected

Lists expand as a cartesian product, like `matrix:` blocks; a kernel asked for twice is built
once. Every value the mma.m16n8k* lowering rejects (alpha != 1, beta not 0/1, a dtype other than
f16/bf16, a shape that is not a multiple of 16x8x8) is one located error line.
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.core.errors import InputError
from harness.specs import spec
from harness.specs.spec import quote

if TYPE_CHECKING:  # (imported where a spec has a gemm section: most runs have none)
    from harness.kernels.gemm import GemmCase

KEYS = ("shape", "dtype", "beta", "alpha", "transpose_a", "transpose_b", "cpu")
_SHAPE = re.compile(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*[xX×]\s*(\d+)\s*")
_FIELD_KEY = {"m": "shape", "n": "shape", "k": "shape"}


def _shape(v: spec.Value) -> tuple[int, int, int]:
    from harness.kernels.gemm import MAX_MMA

    m = _SHAPE.fullmatch(str(v.value))
    if not m:
        raise v.error(f"shape must be MxNxK, such as 16x8x16; got {quote(v.value)}")
    for dim, digits in zip("MNK", m.groups()):
        if len(digits.lstrip("0")) > 9:  # far past any kernel (and past what int() reads at 4300)
            raise v.error(
                f"gemm {dim} has {len(digits):,} digits: a gemm unrolls to at most {MAX_MMA} mma.sync (e.g. 128x128x64)"
            )
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def _scalar(key: str, v: spec.Value):
    """A value as GemmCase takes it: numbers for alpha/beta (YAML's 0.5 arrives as text)."""
    value = v.value
    if key in ("alpha", "beta") and isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise v.error(f"{key} must be a number; got {quote(value)}") from None
    return value


MAX_KERNELS = 4096  # per block: each kernel is a lit file and a PTX file


def expand_block(block: spec.Block) -> list[GemmCase]:
    """Every kernel one block asks for; a rejected value is reported where it is written."""
    from harness.kernels.gemm import DEFAULT_CPU, GemmCase, GemmError

    defaults = {"beta": 0, "alpha": 1, "transpose_a": False, "transpose_b": False, "cpu": DEFAULT_CPU}
    if "shape" not in block.dims:
        raise block.error("gemm block has no 'shape' (MxNxK)")
    if "dtype" not in block.dims:
        raise block.error("gemm block has no 'dtype' (f16 or bf16)")
    keys = [k for k in KEYS if k in block.dims]
    count = math.prod(len(block.dims[k]) for k in keys)
    if count > MAX_KERNELS:  # counted before anything is built: a product of lists grows fast
        raise block.error(f"gemm block asks for {count:,} kernels, more than {MAX_KERNELS:,} (one lit file each); split it")
    out = []
    for combo in itertools.product(*(block.dims[k] for k in keys)):
        chosen = dict(zip(keys, combo))
        m, n, k = _shape(chosen["shape"])
        # YAML scalars, of whatever type was written: GemmCase checks each (GemmError).
        fields: dict[str, Any] = {
            key: _scalar(key, chosen[key]) if key in chosen else defaults[key] for key in KEYS if key != "shape"
        }
        try:
            out.append(GemmCase(m, n, k, **fields))
        except GemmError as exc:
            where = chosen.get(_FIELD_KEY.get(exc.field, exc.field))
            raise (where.error(exc.message) if where else block.error(exc.message)) from None
    return out


def parse_gemm(text: str, path: str) -> list[GemmCase]:
    """The kernels of one spec file's `gemm` section (none when it has no such section)."""
    top, _ = spec.sections(text, path)
    if "gemm" not in top:
        return []
    return [case for block in spec.located_blocks(path, top["gemm"], KEYS, "gemm") for case in expand_block(block)]


def load_gemm(paths: list[Path]) -> list[GemmCase]:
    """Every kernel of every file's `gemm` section, each once, in the order first asked for."""
    cases: dict[GemmCase, None] = {}
    for path in paths:
        text = spec.read_text(path)
        cases.update(dict.fromkeys(parse_gemm(text, str(path))))
    return list(cases)


def spec_paths(cases_dir: Path) -> list[Path]:
    """The spec files of a cases directory (every *.yaml but known-bugs.yaml)."""
    if not cases_dir.is_dir():
        raise InputError(f"no cases directory at {cases_dir}")
    return sorted(p for p in cases_dir.glob("*.yaml") if p.name != "known-bugs.yaml")


def load_cases_dir(cases_dir: Path) -> list[GemmCase]:
    """The gemm kernels of a cases directory; an error when none of its specs has any."""
    cases = load_gemm(spec_paths(cases_dir))
    if not cases:
        raise InputError(f"no spec in {cases_dir} has a 'gemm' section")
    return cases
