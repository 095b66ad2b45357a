"""Every kind of AMDGPU immarg at its lowest and highest value and one past each (negative
included), through real LLVM 22: the harness's class and expected verdict against the ISA's
field ranges written here, and its verdict against what the tools themselves say (llc's text,
llc's object through llvm-objdump, llvm-mc).

The ranges below come from the ISA, not from harness/targets: CBSZ is a 3-bit field, ABID 4 bits,
BLGP 3 bits (NEG[2:0] on the f64 MFMAs); the scaled MFMA's op_sel picks one of 4 scale bytes per
source; gfx1250's C modifier is 0 none, 1 neg, 2 abs, 3 neg(abs); its scale select is
MATRIX_SCALE_ROW0/ROW1 and its scale format MATRIX_SCALE_FMT_E8/E5M3/E4M3; a matrix format is
FP8, BF8, FP6, BF6, FP4 (0..4); gfx12's WMMA op_sel must be 0 (IntrinsicsAMDGPU.td); the rest
are i1 switches (neg, reuse, sign, clamp, gfx11's op_sel). A value in range must compile (the
expected verdict `pass`, never `verifier-reject`); one outside is class `immarg-range` (a format:
`badformat`), expected `verifier-reject`, and its verdict is what the build does.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import one_line_exit_2

ISA_RANGES = {
    "cbsz": (0, 7),
    "abid": (0, 15),
    "blgp": (0, 7),
    "op_sel_a": (0, 3),
    "op_sel_b": (0, 3),
    "c_mod": (0, 3),
    "scale_sel_a": (0, 1),
    "scale_sel_b": (0, 1),
    "scale_fmt_a": (0, 2),
    "scale_fmt_b": (0, 2),
    "fmt": (0, 4),
    **{name: (0, 1) for name in ("neg_a", "neg_b", "reuse_a", "reuse_b", "sign_a", "sign_b", "clamp", "op_sel")},
}
GFX12_ZERO = {"op_sel": (0, 0)}  # gfx1200's f16/bf16 WMMA: op_sel must be 0
# Inside the field, but invalid on the instruction per AMD's Matrix Instruction Calculator v1.3.1:
# v_mfma_f32_32x32x8_f16 (CDNA3) is one block without CBSZ/ABID broadcast or BLGP. Such a value
# is class `isa-invalid`, expected `llc-reject`. (CDNA4, gfx950, has no such document.)
CALCULATOR_ZERO = {("mfma.f32.32x32x8f16", "gfx942"): {"cbsz", "abid", "blgp"}}

FP8 = ("--fmt-a", "fp8", "--fmt-b", "fp8")
# (intrinsic, cpu, operand index or fmt_a, ISA kind, the i1's own range where it differs, extra flags)
SAMPLES = [
    ("mfma.f32.32x32x8f16", "gfx942", 3, "cbsz", ()),
    ("mfma.f32.32x32x8f16", "gfx942", 4, "abid", ()),
    ("mfma.f32.32x32x8f16", "gfx942", 5, "blgp", ()),
    ("mfma.f64.16x16x4f64", "gfx950", 5, "blgp", ()),
    ("smfmac.f32.16x16x32.f16", "gfx950", 5, "abid", ()),
    ("mfma.scale.f32.16x16x128.f8f6f4", "gfx950", 5, "op_sel_a", FP8),
    ("mfma.scale.f32.32x32x64.f8f6f4", "gfx950", 7, "op_sel_b", FP8),
    ("wmma.f32.16x16x32.f16", "gfx1250", 4, "c_mod", ()),
    ("wmma.f32.16x16x128.f8f6f4", "gfx1250", 4, "c_mod", FP8),
    ("wmma.scale.f32.16x16x128.f8f6f4", "gfx1250", 6, "scale_sel_a", FP8),
    ("wmma.scale16.f32.16x16x128.f8f6f4", "gfx1250", 10, "scale_fmt_b", FP8),
    ("wmma.f32.16x16x128.f8f6f4", "gfx1250", "fmt_a", "fmt", ("--fmt-b", "fp8")),
    ("wmma.f32.16x16x32.f16", "gfx1250", 0, "neg_a", ()),
    ("wmma.f32.16x16x32.f16", "gfx1250", 7, "reuse_b", ()),
    ("wmma.i32.16x16x16.iu8", "gfx1100", 0, "sign_a", ()),
    ("wmma.i32.16x16x16.iu8", "gfx1100", 5, "clamp", ()),
    ("wmma.f16.16x16x16.f16", "gfx1100", 3, "op_sel", ()),
    ("wmma.f16.16x16x16.f16", "gfx1200", 3, "op_sel", ()),
]
I1 = {"neg_a", "reuse_b", "sign_a", "clamp", "op_sel"}


def _range(kind: str, cpu: str) -> tuple[int, int]:
    return GFX12_ZERO[kind] if cpu == "gfx1200" and kind in GFX12_ZERO else ISA_RANGES[kind]


def _points():
    """(sample, value, in range) for the lowest and highest value and one past each; an i1 holds
    only its two values, so gfx12's op_sel (0 only) has one past its highest and nothing else."""
    for sample in SAMPLES:
        low, high = _range(sample[3], sample[1])
        values = [low, high, low - 1, high + 1]
        if sample[3] in I1:
            values = [v for v in values if v in (0, 1)]
        for value in dict.fromkeys(values):
            yield pytest.param(sample, value, low <= value <= high, id=f"{sample[0]}-{sample[1]}-{sample[3]}={value}")


def _flags(sample, value: int) -> list[str]:
    intrinsic, cpu, index, kind, extra = sample
    flags = ["try", "--intrinsic", intrinsic, "--cpu", cpu, "--selector", "sdag", "--no-object", *extra]
    if kind == "fmt" and 0 <= value <= 4:
        return flags + ["--fmt-a", str(value)]
    if kind == "fmt":
        return flags + ["--fmt-a", "fp8", "--arg", f"fmt_a={value}"]
    literal = ("false", "true")[value] if kind in I1 else str(value)
    return flags + ["--arg", f"{index}={literal}"]


_ENV = {**os.environ, "LLVM_DISABLE_SYMBOLIZATION": "1"}


def _tool(bin_dir: Path, name: str, args: list[str], text: str) -> subprocess.CompletedProcess:
    return subprocess.run([bin_dir / name, *args], input=text, capture_output=True, text=True, env=_ENV, timeout=120)


def _what_the_tools_say(bin_dir: Path, cpu: str, module: str, inside: bool) -> str:
    """The verdict docs/verdicts.md gives, from llvm-as, llc, llvm-objdump and llvm-mc run here on
    the module. A value outside its field has no encoding: whatever object llc writes for it
    encodes another value (`miscompile`). One inside it must read the same in llc's object as in
    llc's text."""
    if _tool(bin_dir, "llvm-as", ["-disable-output"], module).returncode:
        return "verifier-reject"
    llc_args = ["-O0", "-mtriple=amdgcn", f"-mcpu={cpu}", "-global-isel=0"]
    llc = _tool(bin_dir, "llc", llc_args, module)
    if llc.returncode:
        if "Cannot select" in llc.stderr:
            return "cannot-select"
        clean = llc.returncode > 0 and "error:" in llc.stderr and "LLVM ERROR" not in llc.stderr
        return "llc-reject" if clean else "crash"
    if not inside and not re.search(r"v_mfma_f32_\w+_f8f6f4 ", llc.stdout):
        return "miscompile"  # (the unscaled F8F6F4 MFMA, zero scales folded, has no op_sel to hold it)
    with tempfile.TemporaryDirectory() as tmp:
        obj = Path(tmp) / "llc.o"
        assert _tool(bin_dir, "llc", [*llc_args, "-filetype=obj", "-o", str(obj)], module).returncode == 0
        disassembly = subprocess.run([bin_dir / "llvm-objdump", "-d", obj], capture_output=True, text=True, env=_ENV).stdout
    if _matrix_lines(disassembly) != _matrix_lines(llc.stdout):
        return "miscompile"
    mc = _tool(bin_dir, "llvm-mc", ["-triple=amdgcn", f"-mcpu={cpu}", "-filetype=obj", "-o", os.devnull], llc.stdout)
    return "mc-reject" if mc.returncode else "pass"


def _matrix_lines(text: str) -> list[str]:
    """The matrix instructions of llc's text or llvm-objdump's, without comments or encodings."""
    lines = (" ".join(line.split("//")[0].split(";")[0].split()) for line in text.splitlines())
    return [line for line in lines if line.startswith(("v_mfma", "v_smfmac", "v_wmma", "v_swmmac"))]


@pytest.mark.parametrize("sample, value, inside", list(_points()))
def test_each_immarg_at_and_past_its_bounds(llvm_22_1_8, cli, tmp_path, sample, value, inside):
    keep = tmp_path / "keep"
    proc = cli(*_flags(sample, value), "--json", "--keep", keep)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    import json

    got = json.loads(proc.stdout)
    module = next(iter(sorted(keep.glob("01-*.in")))).read_text()
    # The call carries the value as written (an i1 as true/false), in the operand asked for.
    literal = ("false", "true")[value] if sample[3] in I1 else str(value)
    assert f" {literal}," in module or f" {literal})" in module, module[-1500:]
    if inside and value and sample[3] in CALCULATOR_ZERO.get(sample[:2], ()):
        assert (got["class"], got["expected"]) == ("isa-invalid", "llc-reject"), got
    elif inside:
        assert (got["class"], got["expected"]) == ("exact", "pass"), got
        assert got["verdict"] != "verifier-reject", got
    else:
        assert got["class"] == ("badformat" if sample[3] == "fmt" else "immarg-range"), got
        assert got["expected"] == "verifier-reject", got
    assert got["verdict"] == _what_the_tools_say(llvm_22_1_8.bin_dir, sample[1], module, inside), got


@pytest.mark.parametrize("value", ["-1", "2"])
def test_a_value_an_i1_immarg_cannot_hold_is_bad_input(cli, value):
    # neg_a of the gfx1250 WMMA is an i1: one below its lowest and one past its highest do not
    # exist as i1 values, so they are refused where they are written, not judged.
    proc = cli("try", "--intrinsic", "wmma.f32.16x16x32.f16", "--cpu", "gfx1250", "--arg", f"0={value}")
    one_line_exit_2(proc, "operand 0", "true/false", repr(value))


def test_every_amdgpu_entry_has_the_isa_range_of_each_of_its_immargs():
    # The catalog's entries (the seed's and the rows') against the ISA table above: an immarg
    # without its range (or with another) makes an out-of-range value an expected pass.
    from harness.targets import amdgpu_rows, catalog, families

    names = {r.name: {im.index: im.name for im in families.immargs(r)} for r in amdgpu_rows.ROWS}
    checked = 0
    for entry in catalog.INTRINSICS:
        if entry.target.name != "amdgpu":
            continue
        row = names[entry.base or entry.name]
        cpu = entry.cpus[0]
        want = {(i, *_range(kind, cpu)) for i, kind in row.items()}
        assert set(entry.ranges) == want, (entry.name, entry.ranges, want)
        checked += bool(row)
    assert checked > 100


@pytest.mark.parametrize("shape", ["16x16x128", "32x32x64"])
@pytest.mark.parametrize("width, verdict", [(None, "pass"), ("8", "mc-reject")])
def test_a_scale_that_is_not_neutral_selects_the_scaled_encoding_which_is_judged(llvm_22_1_8, cli, shape, width, verdict):
    """mfma.scale with a scale in a register: llc 22 selects v_mfma_scale_f32_*, the intrinsic's
    own instruction. It is judged like the unscaled one (a pass for a source of its format's
    width, the over-wide tuple bug for a wider one), never `wrong-shape`."""
    case = ["--intrinsic", f"mfma.scale.f32.{shape}.f8f6f4", "--cpu", "gfx950", "--fmt-a", "fp4", "--fmt-b", "fp6"]
    case += ["--arg", "6=%sa", "--selector", "sdag", "--llvm-bin", str(llvm_22_1_8.bin_dir), "--json"]
    proc = cli("try", *case, *(["--width-a", width] if width else []))
    record = json.loads(proc.stdout)
    assert record["verdict"] == verdict, record["detail"]
    assert f"v_mfma_scale_f32_{shape}_f8f6f4" in record["detail"] or verdict == "pass"
